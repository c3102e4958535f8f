/** The ECD's text rules: the SPED ones (platform/sped-text.ts) and the signed balances of I155 / I355. */
import { money } from '../../platform/sped-text.js';

export { centsOf, date, encode, isoOf, line, money, text } from '../../platform/sped-text.js';

/** A signed balance (debits - credits, cents) as `[amount, 'D' | 'C']`; zero is `D`. */
export const signed = (net: number): [string, 'D' | 'C'] => [money(Math.abs(net)), net < 0 ? 'C' : 'D'];

import type { AccountingParts } from './accounting.service.js';

/** (being built: issue 14) */
export function reportsPart(_parts: AccountingParts) {
  return {};
}

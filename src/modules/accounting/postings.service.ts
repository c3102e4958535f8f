import type { AccountingParts } from './accounting.service.js';

/** (being built: issue 14) */
export function postingsPart(_parts: AccountingParts) {
  return {};
}

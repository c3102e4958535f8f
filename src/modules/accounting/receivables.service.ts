import type { AccountingParts } from './accounting.service.js';

/** (being built: issue 14) */
export function receivablesPart(_parts: AccountingParts) {
  return {};
}

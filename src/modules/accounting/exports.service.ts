import type { AccountingParts } from './accounting.service.js';

/** (being built: issue 14) */
export function exportsPart(_parts: AccountingParts) {
  return {};
}

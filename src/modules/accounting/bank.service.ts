import type { AccountingParts } from './accounting.service.js';

/** (being built: issue 14) */
export function bankPart(_parts: AccountingParts) {
  return {};
}

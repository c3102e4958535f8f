import type { Deps } from '../../platform/deps.js';
import { journalPart } from './journal.service.js';
import { ledgerPart } from './ledger.service.js';

/** What every part of the accounting service is built from. */
export interface AccountingParts {
  deps: Deps;
}

/**
 * Accounting (spec 4.11): the chart and the journal in one part, periods and the ledger in the other.
 * Every write dated in a month checks `assertPeriodOpen` (periods.ts).
 */
export function accountingService(deps: Deps) {
  const parts: AccountingParts = { deps };
  return { ...journalPart(parts), ...ledgerPart(parts) };
}

export type AccountingService = ReturnType<typeof accountingService>;

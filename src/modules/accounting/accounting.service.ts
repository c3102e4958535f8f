import type { Deps } from '../../platform/deps.js';
import { books, type Books } from './books.js';
import { bankPart } from './bank.service.js';
import { exportsPart } from './exports.service.js';
import { journalPart } from './journal.service.js';
import { ledgerPart } from './ledger.service.js';
import { postingsPart } from './postings.service.js';
import { receivablesPart } from './receivables.service.js';
import { reportsPart } from './reports.service.js';

/** What every part of the accounting service is built from. */
export interface AccountingParts {
  deps: Deps;
  /** Entry numbers, entry writing, posting keys and automatic postings (books.ts). */
  books: Books;
}

/**
 * Accounting (spec 4.11): the chart and the journal, periods and the ledger, receivables, bank accounts
 * and statements, automatic postings, reports and exports. Every write dated in a month checks
 * `assertPeriodOpen` (periods.ts).
 */
export function accountingService(deps: Deps) {
  const parts: AccountingParts = { deps, books: books(deps) };
  return {
    ...journalPart(parts),
    ...ledgerPart(parts),
    ...postingsPart(parts),
    ...receivablesPart(parts),
    ...bankPart(parts),
    ...reportsPart(parts),
    ...exportsPart(parts),
  };
}

export type AccountingService = ReturnType<typeof accountingService>;

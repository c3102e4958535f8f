import type { AuditService } from '../audit/index.js';
import type { Deps } from '../../platform/deps.js';
import type { DreService } from '../dre/index.js';
import type { InventoryService } from '../inventory/index.js';
import type { OrdersService } from '../orders/index.js';
import type { PaymentsService } from '../payments/index.js';
import type { PurchasingService } from '../purchasing/index.js';
import type { TenantsService } from '../tenants/index.js';
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
  /** The modules whose events are posted (payments, stock, receipts) and the tenant's registration (exports). */
  needs: AccountingNeeds;
}

export interface AccountingNeeds {
  audit: AuditService;
  tenants: TenantsService;
  orders: OrdersService;
  payments: PaymentsService;
  inventory: InventoryService;
  purchasing: PurchasingService;
  dre: DreService;
}

/**
 * Accounting (spec 4.11): the chart and the journal, periods and the ledger, receivables, bank accounts
 * and statements, automatic postings, reports and exports. Every write dated in a month checks
 * `assertPeriodOpen` (periods.ts).
 */
export function accountingService(deps: Deps, needs: AccountingNeeds) {
  const parts: AccountingParts = { deps, books: books(deps), needs };
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

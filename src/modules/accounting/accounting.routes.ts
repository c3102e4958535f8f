import type { RouteApp } from '../../platform/http.js';
import type { AccountingService } from './accounting.service.js';
import { journalRoutes } from './journal.routes.js';
import { ledgerRoutes } from './ledger.routes.js';

/** The accounting routes under `/t/:slug/accounting` (spec 4.11). */
export function accountingRoutes(app: RouteApp, services: { accounting: AccountingService }) {
  journalRoutes(app, services);
  ledgerRoutes(app, services);
}

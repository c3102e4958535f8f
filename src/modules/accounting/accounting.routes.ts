import type { RouteApp } from '../../platform/http.js';
import type { AccountingService } from './accounting.service.js';
import { bankRoutes } from './bank.routes.js';
import { exportsRoutes } from './exports.routes.js';
import { journalRoutes } from './journal.routes.js';
import { ledgerRoutes } from './ledger.routes.js';
import { postingsRoutes } from './postings.routes.js';
import { receivablesRoutes } from './receivables.routes.js';
import { reportsRoutes } from './reports.routes.js';

/** The accounting routes: the books under `/t/:slug/accounting`, the reports under `/t/:slug/admin/accounting` (spec 4.11). */
export function accountingRoutes(app: RouteApp, services: { accounting: AccountingService }) {
  journalRoutes(app, services);
  ledgerRoutes(app, services);
  postingsRoutes(app, services);
  receivablesRoutes(app, services);
  bankRoutes(app, services);
  reportsRoutes(app, services);
  exportsRoutes(app, services);
}

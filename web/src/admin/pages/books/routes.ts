/** The books pages of the panel (see ../../types.ts): accounting (admin; the accountant reads reports and exports) and fiscal. */
import type { PanelRoute } from '../../types.js';

const ADMIN = ['admin'] as const;
const READERS = ['admin', 'accountant'] as const;

export const routes: PanelRoute[] = [
  { path: 'books/accounts', title: 'Plano de contas', section: 'books', roles: ADMIN, nav: true, load: () => import('./AccountsPage.js') },
  { path: 'books/journal', title: 'Lançamentos', section: 'books', roles: ADMIN, nav: true, load: () => import('./JournalPage.js') },
  { path: 'books/trial-balance', title: 'Balancete', section: 'books', roles: ADMIN, nav: true, load: () => import('./TrialBalancePage.js') },
  { path: 'books/ledger', title: 'Razão', section: 'books', roles: ADMIN, nav: true, load: () => import('./LedgerPage.js') },
  { path: 'books/periods', title: 'Períodos', section: 'books', roles: ADMIN, nav: true, load: () => import('./PeriodsPage.js') },
  { path: 'books/receivables', title: 'Contas a receber', section: 'books', roles: ADMIN, nav: true, load: () => import('./ReceivablesPage.js') },
  { path: 'books/bank', title: 'Conciliação bancária', section: 'books', roles: ADMIN, nav: true, load: () => import('./BankPage.js') },
  { path: 'books/reports', title: 'Relatórios contábeis', section: 'books', roles: READERS, nav: true, load: () => import('./ReportsPage.js') },
  { path: 'books/exports', title: 'Exportações', section: 'books', roles: READERS, nav: true, load: () => import('./ExportsPage.js') },
  { path: 'books/fiscal', title: 'Fiscal', section: 'books', roles: READERS, nav: true, load: () => import('./FiscalPage.js') },
];

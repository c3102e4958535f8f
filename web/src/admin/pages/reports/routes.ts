/** The branch reports (see ../../types.ts): the API lets admins, branch managers (their branches) and accountants read them. */
import type { PanelRoute } from '../../types.js';

export const routes: PanelRoute[] = [
  {
    path: 'reports',
    title: 'Relatórios das filiais',
    section: 'manager',
    roles: ['admin', 'branch_manager', 'accountant'],
    nav: true,
    load: () => import('./ReportsPage.js'),
  },
];

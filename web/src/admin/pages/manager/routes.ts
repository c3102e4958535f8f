/** The manager pages of the panel (see ../../types.ts). What a branch manager may not do is hidden (the API decides). */
import type { PanelRoute } from '../../types.js';
import { titles } from './titles.js';

const managers = ['admin', 'branch_manager'] as const;

export const routes: PanelRoute[] = [
  { path: 'dashboard', title: titles.dashboard, section: 'manager', roles: managers, nav: true, load: () => import('./DashboardPage.js') },
  { path: 'menu', title: titles.menu, section: 'manager', roles: managers, nav: true, load: () => import('./MenuPage.js') },
  { path: 'tables', title: titles.tables, section: 'manager', roles: managers, nav: true, load: () => import('./TablesPage.js') },
  // GET /reservations is the admin's alone (the API's rule): branch managers do not see the page.
  { path: 'reservations', title: titles.reservations, section: 'manager', roles: ['admin'], nav: true, load: () => import('./ReservationsPage.js') },
];

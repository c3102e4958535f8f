/** The floor pages of the panel (see ../../types.ts): the waiter's and cashier's day. */
import type { PanelRoute } from '../../types.js';

const roles = ['admin', 'staff', 'branch_manager'] as const;

export const routes: PanelRoute[] = [
  { path: 'floor', title: 'Salão', section: 'floor', roles, nav: true, load: () => import('./FloorPage.js') },
  { path: 'floor/tables/:tableId', title: 'Comanda', section: 'floor', roles, load: () => import('./TabPage.js') },
  { path: 'floor/shift', title: 'Caixa', section: 'floor', roles, nav: true, load: () => import('./ShiftPage.js') },
];

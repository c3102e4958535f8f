/** The settings area: users and roles, branches and PDVs (manager section), the tenant's settings (see ../../types.ts). */
import type { PanelRoute } from '../../types.js';

export const routes: PanelRoute[] = [
  { path: 'users', title: 'Usuários e papéis', section: 'manager', roles: ['admin'], nav: true, load: () => import('./UsersPage.js') },
  { path: 'branches', title: 'Filiais e PDVs', section: 'manager', roles: ['admin', 'branch_manager'], nav: true, load: () => import('./BranchesPage.js') },
  { path: 'settings', title: 'Configurações', section: 'settings', roles: ['admin'], nav: true, load: () => import('./SettingsPage.js') },
];

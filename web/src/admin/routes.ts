/** Every page of the panel, by area; the menu shows a role the pages it may open. */
import { routes as books } from './pages/books/routes.js';
import { routes as floor } from './pages/floor/routes.js';
import { routes as manager } from './pages/manager/routes.js';
import { routes as reports } from './pages/reports/routes.js';
import { routes as settings } from './pages/settings/routes.js';
import { routes as stock } from './pages/stock/routes.js';
import type { PanelRoute, Role } from './types.js';

export const ROUTES: PanelRoute[] = [...floor, ...manager, ...reports, ...settings, ...stock, ...books];

export const allows = (route: PanelRoute, role: Role) => role === 'superadmin' || route.roles.includes(role);

/** The menu of a role, in area order. */
export const menuFor = (role: Role) => ROUTES.filter((r) => r.nav && allows(r, role));

import type { RouteApp } from '../../platform/http.js';
import type { AuthService } from '../auth/index.js';
import { documentsRoutes } from './documents.routes.js';
import { exportsRoutes } from './exports.routes.js';
import type { FiscalService } from './fiscal.service.js';
import { ncmRoutes } from './ncm.routes.js';
import { portalRoutes } from './portal.routes.js';

/** `/t/:slug/fiscal/...` and `/t/:slug/accountant/...` (spec 4.9). */
export function fiscalRoutes(app: RouteApp, services: { fiscal: FiscalService; auth: AuthService }) {
  ncmRoutes(app, services);
  documentsRoutes(app, services);
  portalRoutes(app, services);
  exportsRoutes(app, services);
}

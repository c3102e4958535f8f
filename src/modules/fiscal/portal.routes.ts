import type { RouteApp } from '../../platform/http.js';
import type { FiscalService } from './fiscal.service.js';

/** (being built: issue 16) */
export function portalRoutes(_app: RouteApp, _services: { fiscal: FiscalService }) {}

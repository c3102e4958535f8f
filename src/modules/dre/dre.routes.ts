import type { RouteApp } from '../../platform/http.js';
import type { DreService } from './dre.service.js';

/** (being built: issue 15) */
export function dreRoutes(_app: RouteApp, _services: { dre: DreService }) {}

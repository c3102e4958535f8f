import type { RouteApp } from '../../platform/http.js';
import type { BomService } from './bom.service.js';

/** (being built: issue 15) */
export function bomRoutes(_app: RouteApp, _services: { bom: BomService }) {}

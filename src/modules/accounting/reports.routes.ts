import type { RouteApp } from '../../platform/http.js';
import type { AccountingService } from './accounting.service.js';

/** (being built: issue 14) */
export function reportsRoutes(_app: RouteApp, _services: { accounting: AccountingService }) {}

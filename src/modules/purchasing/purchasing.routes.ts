import type { RouteApp } from '../../platform/http.js';
import { invoicesRoutes } from './invoices.routes.js';
import { ordersRoutes } from './orders.routes.js';
import { predictionsRoutes } from './predictions.routes.js';
import type { PurchasingService } from './purchasing.service.js';

/** Every purchasing route under `/t/:slug/inventory/...` (spec 4.8). */
export function purchasingRoutes(app: RouteApp, services: { purchasing: PurchasingService }) {
  ordersRoutes(app, services);
  invoicesRoutes(app, services);
  predictionsRoutes(app, services);
}

import type { RouteApp } from '../../platform/http.js';
import type { Idempotency } from '../../platform/idempotency.js';
import { branchStockRoutes } from './branch-stock.routes.js';
import type { InventoryService } from './inventory.service.js';
import { itemsRoutes } from './items.routes.js';
import { labelsRoutes } from './labels.routes.js';
import { recipesRoutes } from './recipes.routes.js';

/** Every inventory route: `/t/:slug/inventory/...` and `/t/:slug/branch-stock/...` (spec 4.8). */
export function inventoryRoutes(app: RouteApp, services: { inventory: InventoryService; idempotency: Idempotency }) {
  itemsRoutes(app, services);
  recipesRoutes(app, services);
  labelsRoutes(app, services);
  branchStockRoutes(app, services);
}

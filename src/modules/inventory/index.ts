import { branchStock, inventoryItems, inventoryMovements, labelTokens, orderStock, productIngredients, stockAlerts } from '../../db/schema/inventory.js';
import { defineModule } from '../../platform/module.js';
import { branchesModule } from '../branches/index.js';
import { menuModule } from '../menu/index.js';
import { ordersModule } from '../orders/index.js';
import { usersModule } from '../users/index.js';
import { seedDemoInventory } from './inventory.demo.js';
import { inventoryRoutes } from './inventory.routes.js';
import { inventoryService } from './inventory.service.js';

export type { InventoryService } from './inventory.service.js';
export type { StockEntry } from './entries.service.js';
export type { RecipeCostLine } from './costing.service.js';
export { toStockMilli, convertible, costOf, validEan } from './units.js';

/**
 * Inventory (spec 4.8 before "Suppliers", and "Branch stock"; events of section 6): the catalog, its
 * movements, recipes and the deduction on sale, low-stock and expiration alerts, labels, stock per PDV.
 */
export const inventoryModule = defineModule({
  name: 'inventory',
  needs: [menuModule, branchesModule, ordersModule, usersModule],
  tables: [inventoryItems, branchStock, inventoryMovements, productIngredients, stockAlerts, labelTokens, orderStock],
  services: (deps, { menu, branches, orders }) => ({ inventory: inventoryService(deps, { menu, branches, orders }) }),
  routes: (app, services) => inventoryRoutes(app, services),
  // The demo kitchen's stock and recipes (users: the admin who records the opening stock).
  demoSeed: (services, demo) => seedDemoInventory(services, demo),
});

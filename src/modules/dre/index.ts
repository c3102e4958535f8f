import { costCenters, expenseCategories, operatingExpenses, systemExpenseCategories } from '../../db/schema/dre.js';
import { defineModule } from '../../platform/module.js';
import { usersModule } from '../users/index.js';
import { inventoryModule } from '../inventory/index.js';
import { ordersModule } from '../orders/index.js';
import { purchasingModule } from '../purchasing/index.js';
import { tenantsModule } from '../tenants/index.js';
import { seedDemoExpenses } from './dre.demo.js';
import { dreRoutes } from './dre.routes.js';
import { dreService } from './dre.service.js';

export type { DreService, ExpenseChange, ExpenseListener } from './dre.service.js';

/**
 * The income statement (spec 4.12): operating expenses, their categories and cost centers, the DRE of a month.
 * It reads the paid orders (orders), the cost of stock exits (inventory), the imported supplier invoices
 * (purchasing) and the tenant's tax regime (tenants) through their services.
 */
export const dreModule = defineModule({
  name: 'dre',
  needs: [ordersModule, inventoryModule, purchasingModule, tenantsModule, usersModule],
  tables: [systemExpenseCategories, expenseCategories, costCenters, operatingExpenses],
  services: (deps, { orders, inventory, purchasing, tenants }) => ({ dre: dreService(deps, { orders, inventory, purchasing, tenants }) }),
  routes: (app, services) => dreRoutes(app, services),
  demoSeed: (services, demo) => seedDemoExpenses(services, demo),
});

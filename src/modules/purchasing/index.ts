import {
  importedInvoices,
  purchaseOrderCounters,
  purchaseOrders,
  salesSnapshots,
  suggestedPurchaseOrders,
  supplierItemMappings,
  suppliers,
} from '../../db/schema/purchasing.js';
import { cron, defineModule } from '../../platform/module.js';
import { branchesModule } from '../branches/index.js';
import { inventoryModule } from '../inventory/index.js';
import { menuModule } from '../menu/index.js';
import { tenantsModule } from '../tenants/index.js';
import { usersModule } from '../users/index.js';
import { seedDemoPurchasing } from './purchasing.demo.js';
import { predictionJobs } from './predictions.jobs.js';
import { purchasingRoutes } from './purchasing.routes.js';
import { purchasingService } from './purchasing.service.js';

export type { PurchasingService } from './purchasing.service.js';

/** Purchasing (spec 4.8): suppliers, purchase orders and their receipt, supplier invoice import, demand prediction. */
export const purchasingModule = defineModule({
  name: 'purchasing',
  needs: [inventoryModule, menuModule, branchesModule, tenantsModule, usersModule],
  tables: [suppliers, purchaseOrders, purchaseOrderCounters, suggestedPurchaseOrders, salesSnapshots, importedInvoices, supplierItemMappings],
  services: (deps, { inventory, menu, branches, tenants }) => ({ purchasing: purchasingService(deps, { inventory, menu, branches, tenants }) }),
  routes: (app, services) => purchasingRoutes(app, services),
  // Suppliers, purchase orders in each state and 60 days of sales (users: the admin who orders).
  demoSeed: (services, demo) => seedDemoPurchasing(services, demo),
  jobs: {
    declared: predictionJobs,
    handlers: ({ purchasing }) => ({
      snapshotTick: () => purchasing.snapshotTick(),
      buildSnapshot: (job) => purchasing.buildSnapshotJob(job),
    }),
  },
  // Hourly: each tenant's snapshot of yesterday is built in the hour its local clock passes 02:00.
  schedules: [cron(predictionJobs.snapshotTick, '0 * * * *')],
});

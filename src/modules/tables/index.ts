import { diningTables } from '../../db/schema/tables.js';
import { defineModule } from '../../platform/module.js';
import { seedDemoTables } from './tables.demo.js';
import { tablesRoutes } from './tables.routes.js';
import { tablesService } from './tables.service.js';

export type { TablesService, TabEvent, TableOrder } from './tables.service.js';

/** Dining tables (spec 4.6), restaurants only. */
export const tablesModule = defineModule({
  name: 'tables',
  tables: [diningTables],
  services: (deps) => ({ tables: tablesService(deps) }),
  routes: (app, services) => tablesRoutes(app, services),
  demoSeed: (services, demo) => seedDemoTables(services.tables, demo.tenant.db),
});

import { bomIndirectCosts, bomSnapshots } from '../../db/schema/bom.js';
import { defineModule } from '../../platform/module.js';
import { usersModule } from '../users/index.js';
import { inventoryModule } from '../inventory/index.js';
import { menuModule } from '../menu/index.js';
import { purchasingModule } from '../purchasing/index.js';
import { seedDemoCostSheets } from './bom.demo.js';
import { bomRoutes } from './bom.routes.js';
import { bomService } from './bom.service.js';

export type { BomService } from './bom.service.js';

/** Cost sheets (spec 4.13): a dish's direct and indirect costs, its cost snapshots and suggested price. */
export const bomModule = defineModule({
  name: 'bom',
  needs: [menuModule, inventoryModule, purchasingModule, usersModule],
  tables: [bomIndirectCosts, bomSnapshots],
  services: (deps, { menu, inventory, purchasing }) => ({ bom: bomService(deps, { menu, inventory, purchasing }) }),
  routes: (app, services) => bomRoutes(app, services),
  demoSeed: (services, demo) => seedDemoCostSheets(services, demo),
});

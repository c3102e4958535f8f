import { bomIndirectCosts, bomSnapshots } from '../../db/schema/bom.js';
import { defineModule } from '../../platform/module.js';
import { bomRoutes } from './bom.routes.js';
import { bomService } from './bom.service.js';

export type { BomService } from './bom.service.js';

/** Cost sheets (spec 4.13): a dish's direct and indirect costs, its cost snapshots and suggested price. */
export const bomModule = defineModule({
  name: 'bom',
  needs: [],
  tables: [bomIndirectCosts, bomSnapshots],
  services: (deps) => ({ bom: bomService(deps) }),
  routes: (app, services) => bomRoutes(app, services),
});

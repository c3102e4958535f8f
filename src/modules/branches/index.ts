import { branches, pdvs } from '../../db/schema/branches.js';
import { defineModule } from '../../platform/module.js';
import { seedDemoBranches } from './branches.demo.js';
import { branchesRoutes } from './branches.routes.js';
import { branchesService } from './branches.service.js';

export type { BranchesService, PdvView } from './branches.service.js';
export type { BranchView, ServiceMode } from './branches.schemas.js';
// The PDV as the branch routes show it: the shifts module lists a branch's PDVs with their open shift.
export { Pdv } from './branches.schemas.js';

/** Branches and points of sale (spec 2 and 4.10): the records, their admin routes, and what orders and branch scope need. */
export const branchesModule = defineModule({
  name: 'branches',
  tables: [branches, pdvs],
  services: (deps) => ({ branches: branchesService(deps) }),
  routes: (app, services) => branchesRoutes(app, services),
  demoSeed: (services, demo) => seedDemoBranches(services.branches, demo.tenant.db),
});

import { branches, pdvs } from '../../db/schema/branches.js';
import { defineModule } from '../../platform/module.js';
import { seedDemoBranches } from './branches.demo.js';
import { branchesService } from './branches.service.js';

export type { BranchesService, PdvView } from './branches.service.js';

/** Branches and points of sale (spec 2): the records orders and branch scope need; routes come with spec 4.10. */
export const branchesModule = defineModule({
  name: 'branches',
  tables: [branches, pdvs],
  services: (deps) => ({ branches: branchesService(deps) }),
  demoSeed: (services, demo) => seedDemoBranches(services.branches, demo.tenant.db),
});

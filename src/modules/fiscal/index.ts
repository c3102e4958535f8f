import { fiscalCounters, fiscalDocuments, fiscalExports, fiscalFiles, fiscalNumberVoids, ncmCodes } from '../../db/schema/fiscal.js';
import { defineModule } from '../../platform/module.js';
import { auditModule } from '../audit/index.js';
import { authModule } from '../auth/index.js';
import { branchesModule } from '../branches/index.js';
import { menuModule } from '../menu/index.js';
import { ordersModule } from '../orders/index.js';
import { tenantsModule } from '../tenants/index.js';
import { fiscalJobs } from './fiscal.jobs.js';
import { fiscalRoutes } from './fiscal.routes.js';
import { fiscalService } from './fiscal.service.js';

export type { FiscalService } from './fiscal.service.js';

/** Fiscal documents (spec 4.9): NF-e / NFC-e emission, cancellation and files, NCM search, the accountant portal. */
export const fiscalModule = defineModule({
  name: 'fiscal',
  needs: [tenantsModule, ordersModule, menuModule, branchesModule, authModule, auditModule],
  tables: [fiscalDocuments, fiscalCounters, fiscalNumberVoids, fiscalFiles, ncmCodes, fiscalExports],
  services: (deps, needs) => ({ fiscal: fiscalService(deps, needs) }),
  routes: (app, services) => fiscalRoutes(app, services),
  jobs: { declared: fiscalJobs, handlers: ({ fiscal }) => ({ advance: (data) => fiscal.runAdvanceJob(data) }) },
});

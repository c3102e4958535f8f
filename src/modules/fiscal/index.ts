import { fiscalCounters, fiscalDocuments, fiscalExports, fiscalFiles, fiscalNumberVoids, ncmCodes } from '../../db/schema/fiscal.js';
import { defineModule } from '../../platform/module.js';
import { fiscalRoutes } from './fiscal.routes.js';
import { fiscalService } from './fiscal.service.js';

export type { FiscalService } from './fiscal.service.js';

/** Fiscal documents (spec 4.9): NF-e / NFC-e emission, cancellation and files, NCM search, the accountant portal. */
export const fiscalModule = defineModule({
  name: 'fiscal',
  needs: [],
  tables: [fiscalDocuments, fiscalCounters, fiscalNumberVoids, fiscalFiles, ncmCodes, fiscalExports],
  services: (deps) => ({ fiscal: fiscalService(deps) }),
  routes: (app, services) => fiscalRoutes(app, services),
});

import { defineModule } from '../../platform/module.js';
import { reportsRoutes } from './reports.routes.js';
import { reportsService } from './reports.service.js';

export type { ReportsService } from './reports.service.js';

/**
 * Branch reports (spec 4.10: daily report, stats, compare). Owns no table: its queries read the orders,
 * payments, shifts and branches modules' tables, read only, one aggregate statement per report (listed in
 * MODULE_READS of test/module-boundaries.test.ts; docs/decisions.md, "Branch reports"). It uses no other
 * module's service, so it needs none.
 */
export const reportsModule = defineModule({
  name: 'reports',
  tables: [],
  services: (deps) => ({ reports: reportsService(deps) }),
  routes: (app, services) => reportsRoutes(app, services),
});

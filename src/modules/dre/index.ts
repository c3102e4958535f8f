import { costCenters, expenseCategories, operatingExpenses, systemExpenseCategories } from '../../db/schema/dre.js';
import { defineModule } from '../../platform/module.js';
import { dreRoutes } from './dre.routes.js';
import { dreService } from './dre.service.js';

export type { DreService } from './dre.service.js';

/** The income statement (spec 4.12): operating expenses, their categories and cost centers, the DRE of a month. */
export const dreModule = defineModule({
  name: 'dre',
  needs: [],
  tables: [systemExpenseCategories, expenseCategories, costCenters, operatingExpenses],
  services: (deps) => ({ dre: dreService(deps) }),
  routes: (app, services) => dreRoutes(app, services),
});

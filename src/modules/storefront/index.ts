import { defineModule } from '../../platform/module.js';
import { branchesModule } from '../branches/index.js';
import { tablesModule } from '../tables/index.js';
import { tenantsModule } from '../tenants/index.js';
import { storefrontRoutes } from './storefront.routes.js';
import { storefrontService } from './storefront.service.js';

export type { StorefrontService } from './storefront.service.js';

/**
 * The public storefront (issue 19): what the customer menu and kitchen pages load first, and the
 * printable table QR codes that lead guests to the menu. No tables of its own.
 */
export const storefrontModule = defineModule({
  name: 'storefront',
  needs: [tenantsModule, branchesModule, tablesModule],
  tables: [],
  services: (deps, { tenants, branches, tables }) => ({
    storefront: storefrontService(deps, { tenants, branches, tables, wallet: deps.integrations.wallet }),
  }),
  routes: (app, services) => storefrontRoutes(app, services),
});

import { tenants } from '../../db/schema/tenants.js';
import { defineModule } from '../../platform/module.js';
import { auditModule } from '../audit/index.js';
import { tenantsRoutes } from './tenants.routes.js';
import { tenantsService } from './tenants.service.js';

export type { TenantsService } from './tenants.service.js';
export { BUSINESS_TYPES } from './tenants.schemas.js';

/** Tenants (spec 4.3): the superadmin's tenant routes and each tenant's configuration. */
export const tenantsModule = defineModule({
  name: 'tenants',
  needs: [auditModule],
  tables: [tenants],
  services: (deps, { audit }) => ({ tenants: tenantsService(deps, audit) }),
  routes: (app, services) => tenantsRoutes(app, services),
});

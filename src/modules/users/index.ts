import { memberships, users } from '../../db/schema/users.js';
import { defineModule } from '../../platform/module.js';
import { auditModule } from '../audit/index.js';
import { branchesModule } from '../branches/index.js';
import { tenantsModule } from '../tenants/index.js';
import { seedDemoUsers } from './users.demo.js';
import { usersRoutes } from './users.routes.js';
import { usersService } from './users.service.js';

export { normalizeEmail, type UsersService } from './users.service.js';

/** Users and memberships (spec 4.4): accounts, roles, PDV and branch assignments, the last-admin rule. */
export const usersModule = defineModule({
  name: 'users',
  needs: [branchesModule, tenantsModule, auditModule],
  tables: [users, memberships],
  services: (deps, { branches, tenants, audit }) => ({ users: usersService(deps, branches, tenants, audit) }),
  routes: (app, services) => usersRoutes(app, services),
  async demoSeed({ users, branches }, demo) {
    const pdvs = await branches.listPdvs(demo.tenant.db);
    await seedDemoUsers(users, pdvs.map((p) => p._id), demo);
  },
});

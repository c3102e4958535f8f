import { auditEvents, platformAuditEvents } from '../../db/schema/audit.js';
import { defineModule } from '../../platform/module.js';
import { auditRoutes } from './audit.routes.js';
import { auditService } from './audit.service.js';

export type { AuditEntry, AuditService } from './audit.service.js';

/**
 * The audit log (issue 20): append-only events of sensitive actions, written by the services of those
 * actions (logins, passwords, roles and members, tenant secrets, App installations, discounts above the
 * limit and voids after the kitchen, refunds, fiscal cancellations, period close and reopen); read by the
 * tenant's admin, and by the superadmin across tenants.
 */
export const auditModule = defineModule({
  name: 'audit',
  tables: [auditEvents, platformAuditEvents],
  services: (deps) => ({ audit: auditService(deps) }),
  routes: (app, services) => auditRoutes(app, services),
});

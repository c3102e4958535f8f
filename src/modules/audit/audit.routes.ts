import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantParams, withErrors } from '../../platform/schemas.js';
import { AuditPage, AuditQuery, PlatformAuditQuery } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

export function auditRoutes(app: RouteApp, { audit }: { audit: AuditService }) {
  app.get('/t/:slug/audit', {
    schema: {
      tags: ['audit'],
      summary: "The tenant's audit log of sensitive actions, newest first",
      params: TenantParams,
      querystring: AuditQuery,
      response: withErrors({ 200: AuditPage }),
    },
    config: { auth: { roles: ['admin'] } },
    handler: (req) => audit.list(ctxOf(req).db, req.query),
  });

  app.get('/api/superadmin/audit', {
    schema: {
      tags: ['superadmin'],
      summary: 'The audit log across tenants (and the platform events: logins, passwords), newest first',
      querystring: PlatformAuditQuery,
      response: withErrors({ 200: AuditPage }, [400, 401, 403]),
    },
    config: { auth: { superadmin: true } },
    handler: (req) => audit.listAll(req.query),
  });
}

import { Type } from '@sinclair/typebox';
import { ctxOf, principalOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { pageWindow, sendPage } from '../../platform/pagination.js';
import { IdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  TENANTS_PAGE,
  TenantsQuery,
  CreateTenantBody,
  Tenant,
  TenantConfigBody,
  TenantSummary,
  ToggleResult,
  UpdateTenantBody,
} from './tenants.schemas.js';
import type { TenantsService } from './tenants.service.js';

const superadmin = { superadmin: true } as const;
const tenantAdmin = { roles: ['admin'], permission: 'manage_settings' } as const;

export function tenantsRoutes(app: RouteApp, { tenants }: { tenants: TenantsService }) {
  app.get('/api/superadmin/tenants', {
    schema: {
      tags: ['superadmin'],
      summary: 'All tenants, oldest first (`page`, `limit`; X-Total-Count)',
      querystring: TenantsQuery,
      response: withErrors({ 200: Type.Array(TenantSummary) }, [400, 401, 403]),
    },
    config: { auth: superadmin },
    handler: async (req, reply) => {
      const { tenants: rows, total } = await tenants.listPage(req.query);
      return sendPage(req, reply, pageWindow(req.query, TENANTS_PAGE), total, rows);
    },
  });

  app.post('/api/superadmin/tenants', {
    schema: {
      tags: ['superadmin'],
      summary: 'Create a tenant',
      body: CreateTenantBody,
      response: withErrors({ 201: Tenant }, [400, 401, 403, 409]),
    },
    config: { auth: superadmin },
    handler: async (req, reply) => reply.code(201).send(await tenants.create(req.body)),
  });

  app.put('/api/superadmin/tenants/:id', {
    schema: {
      tags: ['superadmin'],
      summary: 'Update a tenant',
      params: IdParams,
      body: UpdateTenantBody,
      response: withErrors({ 200: Tenant }, [400, 401, 403, 404, 409]),
    },
    config: { auth: superadmin },
    handler: (req) => tenants.update(req.params.id, req.body, principalOf(req)),
  });

  app.put('/api/superadmin/tenants/:id/toggle', {
    schema: {
      tags: ['superadmin'],
      summary: 'Activate or deactivate a tenant',
      params: IdParams,
      response: withErrors({ 200: ToggleResult }, [400, 401, 403, 404]),
    },
    config: { auth: superadmin },
    handler: (req) => tenants.toggle(req.params.id),
  });

  app.get('/t/:slug/tenants', {
    schema: {
      tags: ['tenants'],
      summary: "The tenant's own configuration (secrets shown only as set or not)",
      params: TenantParams,
      response: withErrors({ 200: Tenant }),
    },
    config: { auth: tenantAdmin },
    handler: (req) => tenants.getConfig(ctxOf(req)),
  });

  app.put('/t/:slug/tenants', {
    schema: {
      tags: ['tenants'],
      summary: 'Set fiscal and payment configuration and bill settings; null clears a field',
      params: TenantParams,
      body: TenantConfigBody,
      response: withErrors({ 200: Tenant }),
    },
    config: { auth: tenantAdmin },
    handler: (req) => tenants.updateConfig(ctxOf(req), req.body),
  });
}

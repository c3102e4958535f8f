import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { onlyFor } from '../../platform/business-type.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { CreateTableBody, Deleted, Table, UpdateTableBody } from './tables.schemas.js';
import type { TablesService } from './tables.service.js';

/** Spec "JWT" writes on the floor: admins, branch managers and staff; accountants only read. */
const floorRoles = { roles: ['admin', 'branch_manager', 'staff'] } as const;
const restaurantOnly = onlyFor(['restaurant'], 'Tables and reservations');

export function tablesRoutes(app: RouteApp, { tables }: { tables: TablesService }) {
  app.get('/t/:slug/tables', {
    schema: { tags: ['tables'], summary: 'Tables of the tenant, by number', params: TenantParams, response: withErrors({ 200: Type.Array(Table) }) },
    onRequest: restaurantOnly,
    // Any member of the tenant.
    config: { auth: {} },
    handler: (req) => tables.list(ctxOf(req).db),
  });

  app.post('/t/:slug/tables', {
    schema: {
      tags: ['tables'],
      summary: 'Create a table (409 when the number exists)',
      params: TenantParams,
      body: CreateTableBody,
      response: withErrors({ 201: Table }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floorRoles },
    onRequest: restaurantOnly,
    handler: async (req, reply) => reply.code(201).send(await tables.create(ctxOf(req).db, req.body)),
  });

  app.put('/t/:slug/tables/:id', {
    schema: {
      tags: ['tables'],
      summary: 'Update a table: number, capacity, location or status',
      params: TenantIdParams,
      body: UpdateTableBody,
      response: withErrors({ 200: Table }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floorRoles },
    onRequest: restaurantOnly,
    handler: (req) => tables.update(ctxOf(req).db, req.params.id, req.body),
  });

  app.delete('/t/:slug/tables/:id', {
    schema: {
      tags: ['tables'],
      summary: 'Delete a table (soft; 409 while occupied)',
      params: TenantIdParams,
      response: withErrors({ 200: Deleted }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floorRoles },
    onRequest: restaurantOnly,
    handler: (req) => tables.remove(ctxOf(req).db, req.params.id),
  });
}

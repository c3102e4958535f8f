import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { pageWindow, sendPage } from '../../platform/pagination.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  BOM_LIST_PAGE,
  BomListQuery,
  BomCostSnapshot,
  BomDetail,
  BomIndirectCost,
  BomListEntry,
  CalculateBody,
  CreateIndirectBody,
  Deleted,
  HistoryQuery,
  MenuItemParams,
  UpdateIndirectBody,
} from './bom.schemas.js';
import type { BomService } from './bom.service.js';

const BASE = '/t/:slug/bom';
const tags = ['bom'];
/** Spec 4.13: roles admin, superadmin and the permission manage_inventory (so staff and branch managers do not pass). */
const rule = { roles: ['admin'], permission: 'manage_inventory' } as const;

/** Spec 4.13 cost sheets. */
export function bomRoutes(app: RouteApp, { bom }: { bom: BomService }) {
  app.get(BASE, {
    schema: {
      tags,
      summary: 'Every menu item with its latest cost snapshot and its margin at the current price (money in integer cents)',
      params: TenantParams,
      querystring: BomListQuery,
      response: withErrors({ 200: Type.Array(BomListEntry) }),
    },
    config: { auth: rule },
    handler: async (req, reply) => {
      const { entries, total } = await bom.list(ctxOf(req).db, req.query);
      return sendPage(req, reply, pageWindow(req.query, BOM_LIST_PAGE), total, entries);
    },
  });

  // Registered before `/:menuItemId` routes; `indirect-costs` is not an id, so the two never meet anyway.
  app.post(`${BASE}/indirect-costs`, {
    schema: {
      tags,
      summary: 'Add an indirect cost to a dish (fixed: integer cents per unit; percentage_of_direct: a fraction 0 to 10)',
      params: TenantParams,
      body: CreateIndirectBody,
      response: withErrors({ 201: BomIndirectCost }),
    },
    config: { auth: rule },
    handler: async (req, reply) => reply.code(201).send(await bom.createIndirect(ctxOf(req).db, req.body)),
  });

  app.put(`${BASE}/indirect-costs/:id`, {
    schema: {
      tags,
      summary: 'Change an indirect cost (partial; the value is checked against the unit type, sent or stored)',
      params: TenantIdParams,
      body: UpdateIndirectBody,
      response: withErrors({ 200: BomIndirectCost }),
    },
    config: { auth: rule },
    handler: (req) => bom.updateIndirect(ctxOf(req).db, req.params.id, req.body),
  });

  app.delete(`${BASE}/indirect-costs/:id`, {
    schema: { tags, summary: 'Delete an indirect cost (snapshots keep it)', params: TenantIdParams, response: withErrors({ 200: Deleted }) },
    config: { auth: rule },
    handler: (req) => bom.deleteIndirect(ctxOf(req).db, req.params.id),
  });

  app.get(`${BASE}/:menuItemId`, {
    schema: {
      tags,
      summary: "A dish's cost sheet now: recipe lines at current costs, indirect costs, latest snapshot",
      params: MenuItemParams,
      response: withErrors({ 200: BomDetail }),
    },
    config: { auth: rule },
    handler: (req) => bom.detail(ctxOf(req).db, req.params.menuItemId),
  });

  app.post(`${BASE}/:menuItemId/calculate`, {
    schema: {
      tags,
      summary: 'Store a cost snapshot of the dish now; with targetMargin (0 to 0.99) a suggested price rounded up to the cent (409 no_recipe)',
      params: MenuItemParams,
      body: CalculateBody,
      response: withErrors({ 201: BomCostSnapshot }, [400, 401, 403, 404, 409]),
    },
    config: { auth: rule },
    // The body is optional: a bare POST stores a snapshot without a target margin.
    preValidation: async (req) => {
      req.body ??= {};
    },
    handler: async (req, reply) => reply.code(201).send(await bom.calculate(ctxOf(req).db, { userId: ctxOf(req).user.id }, req.params.menuItemId, req.body)),
  });

  app.get(`${BASE}/:menuItemId/history`, {
    schema: {
      tags,
      summary: "The dish's cost snapshots, newest first (limit default 20, at most 100)",
      params: MenuItemParams,
      querystring: HistoryQuery,
      response: withErrors({ 200: Type.Array(BomCostSnapshot) }),
    },
    config: { auth: rule },
    handler: (req) => bom.history(ctxOf(req).db, req.params.menuItemId, req.query.limit),
  });
}

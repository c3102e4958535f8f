import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { sendIdempotent, type Idempotency } from '../../platform/idempotency.js';
import { pageWindow, sendPage } from '../../platform/pagination.js';
import { IdempotencyHeaders, NoContent, TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import type { InventoryService } from './inventory.service.js';
import type { InventoryCaller } from './items.service.js';
import {
  AlertCount,
  AlertParams,
  CreateItemBody,
  ExpirationAlerts,
  InventoryItem,
  InventoryMovement,
  InventoryStats,
  ITEMS_PAGE,
  ListItemsQuery,
  ListMovementsQuery,
  MovementBody,
  MovementPage,
  StockAlert,
  UpdateItemBody,
} from './items.schemas.js';

const BASE = '/t/:slug/inventory';
const tags = ['inventory'];
/** Reading the catalog, moving stock, stats and alerts: ManageInventory (admin, branch manager, staff). */
const manageInventory = { permission: 'ManageInventory' } as const;
/** Creating, editing and deleting catalog items (names, costs, minimums): ManageSettings (admin). */
const manageSettings = { permission: 'ManageSettings' } as const;

const callerOf = (req: FastifyRequest): InventoryCaller => ({ userId: ctxOf(req).user.id, branchScope: ctxOf(req).branchScope });

/** Spec 4.8: the catalog, its movements, stats, expiration and low-stock alerts. */
export function itemsRoutes(app: RouteApp, { inventory, idempotency }: { inventory: InventoryService; idempotency: Idempotency }) {
  app.get(BASE, {
    schema: {
      tags,
      summary: 'Inventory items of the catalog, by name (catalog vocabulary plus available and reserved quantities)',
      params: TenantParams,
      querystring: ListItemsQuery,
      response: withErrors({ 200: Type.Array(InventoryItem) }),
    },
    config: { auth: manageInventory },
    handler: async (req, reply) => {
      const { items, total } = await inventory.listItemsPage(ctxOf(req).db, req.query);
      return sendPage(req, reply, pageWindow(req.query, ITEMS_PAGE), total, items);
    },
  });

  app.post(BASE, {
    schema: {
      tags,
      summary: 'Create an inventory item (409 sku_taken / ean_taken; an opening stock is an entry movement)',
      params: TenantParams,
      body: CreateItemBody,
      response: withErrors({ 201: InventoryItem }, [400, 401, 403, 404, 409]),
    },
    config: { auth: manageSettings },
    handler: async (req, reply) => reply.code(201).send(await inventory.createItem(ctxOf(req).db, callerOf(req), req.body)),
  });

  app.put(`${BASE}/:id`, {
    schema: {
      tags,
      summary: 'Update an inventory item: any of its fields but the stock (movements change it); a new minimum rechecks the alert',
      params: TenantIdParams,
      body: UpdateItemBody,
      response: withErrors({ 200: InventoryItem }, [400, 401, 403, 404, 409]),
    },
    config: { auth: manageSettings },
    handler: (req) => inventory.updateItem(ctxOf(req).db, req.params.id, req.body),
  });

  app.delete(`${BASE}/:id`, {
    schema: {
      tags,
      summary: 'Delete an inventory item (409 item_in_use while recipe lines, PDV stock rows or unscanned labels name it)',
      params: TenantIdParams,
      response: withErrors({ 204: NoContent }, [400, 401, 403, 404, 409]),
    },
    config: { auth: manageSettings },
    handler: async (req, reply) => {
      await inventory.deleteItem(ctxOf(req).db, req.params.id);
      return reply.code(204).send();
    },
  });

  app.post(`${BASE}/:id/movements`, {
    schema: {
      tags,
      summary: 'Record a movement of the catalog stock: entry, exit (409 insufficient_stock), adjustment (the count), reservation (hold or return)',
      params: TenantIdParams,
      headers: IdempotencyHeaders,
      body: MovementBody,
      response: withErrors({ 201: InventoryMovement }, [400, 401, 403, 404, 409, 422]),
    },
    config: { auth: manageInventory },
    handler: async (req, reply) => {
      const ctx = ctxOf(req);
      const { id } = req.params;
      const result = await idempotency.run(
        `${ctx.tenantId}:inventory.movement:${id}`,
        req.headers['idempotency-key'],
        { user: ctx.user.id, body: req.body },
        async (claimKey) => ({ status: 201, body: await inventory.addMovement(ctx.db, callerOf(req), id, req.body, claimKey) }),
        async (movementId) => ({ status: 201, body: await inventory.movement(ctx.db, id, movementId) }),
      );
      return sendIdempotent(reply, result);
    },
  });

  app.get(`${BASE}/:id/movements`, {
    schema: {
      tags,
      summary: 'Movements of an item, newest first, a page at a time (catalog and the PDVs the caller may see)',
      params: TenantIdParams,
      querystring: ListMovementsQuery,
      response: withErrors({ 200: MovementPage }),
    },
    config: { auth: manageInventory },
    handler: (req) => inventory.listMovements(ctxOf(req).db, callerOf(req), req.params.id, req.query),
  });

  app.get(`${BASE}/stats`, {
    schema: { tags, summary: 'Catalog statistics: active items, stock value (cents), low, expired and blocked items', params: TenantParams, response: withErrors({ 200: InventoryStats }) },
    config: { auth: manageInventory },
    handler: (req) => inventory.inventoryStats(ctxOf(req).db),
  });

  app.get(`${BASE}/expiration-alerts`, {
    schema: {
      tags,
      summary: 'Items with stock expired, expiring within 7 days and within 8 to 30 days (the tenant’s time zone)',
      params: TenantParams,
      response: withErrors({ 200: ExpirationAlerts }),
    },
    config: { auth: { roles: ['admin', 'staff'] } },
    handler: (req) => inventory.expirationAlerts(ctxOf(req).db, ctxOf(req).tenant.timezone),
  });

  app.get(`${BASE}/alerts`, {
    schema: {
      tags,
      summary: 'Open low-stock alerts the caller has not read, newest first, 50 at most',
      params: TenantParams,
      response: withErrors({ 200: Type.Array(StockAlert) }),
    },
    config: { auth: manageInventory },
    handler: (req) => inventory.listStockAlerts(ctxOf(req).db, callerOf(req)),
  });

  app.get(`${BASE}/alerts/count`, {
    schema: { tags, summary: 'How many open low-stock alerts the caller has not read', params: TenantParams, response: withErrors({ 200: AlertCount }) },
    config: { auth: manageInventory },
    handler: (req) => inventory.countStockAlerts(ctxOf(req).db, callerOf(req)),
  });

  app.put(`${BASE}/alerts/:id/read`, {
    schema: { tags, summary: 'Mark a low-stock alert read by the caller', params: AlertParams, response: withErrors({ 200: StockAlert }) },
    config: { auth: manageInventory },
    handler: (req) => inventory.readStockAlert(ctxOf(req).db, callerOf(req), req.params.id),
  });
}

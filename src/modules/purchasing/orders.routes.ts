import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { pageWindow, sendPage } from '../../platform/pagination.js';
import { NoContent, Nullable, TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { CreateOrderBody, GenerateOrderBody, ListOrdersQuery, PURCHASE_ORDERS_PAGE, PurchaseOrder, ReceiveBody, UpdateOrderBody } from './orders.schemas.js';
import type { OrdersCaller } from './orders.service.js';
import type { PurchasingService } from './purchasing.service.js';
import { purchasingAdmin, suppliersRoutes } from './suppliers.routes.js';

const BASE = '/t/:slug/inventory/purchase-orders';
const tags = ['purchasing'];

const callerOf = (req: FastifyRequest): OrdersCaller => ({ userId: ctxOf(req).user.id, timezone: ctxOf(req).tenant.timezone });

/** Spec 4.8 suppliers and purchase orders. */
export function ordersRoutes(app: RouteApp, services: { purchasing: PurchasingService }) {
  suppliersRoutes(app, services);
  const { purchasing } = services;

  app.get(BASE, {
    schema: {
      tags,
      summary: 'Purchase orders, newest first, with their supplier (`status` filters)',
      params: TenantParams,
      querystring: ListOrdersQuery,
      response: withErrors({ 200: Type.Array(PurchaseOrder) }),
    },
    config: { auth: purchasingAdmin },
    handler: async (req, reply) => {
      const { orders, total } = await purchasing.listPurchaseOrders(ctxOf(req).db, req.query);
      return sendPage(req, reply, pageWindow(req.query, PURCHASE_ORDERS_PAGE), total, orders);
    },
  });

  app.get(`${BASE}/:id`, {
    schema: { tags, summary: 'A purchase order', params: TenantIdParams, response: withErrors({ 200: PurchaseOrder }) },
    config: { auth: purchasingAdmin },
    handler: (req) => purchasing.getPurchaseOrder(ctxOf(req).db, req.params.id),
  });

  app.post(BASE, {
    schema: {
      tags,
      summary: 'Create a draft purchase order: number PO-YYYYMMDD-NNNN, subtotals and total computed (404 for an unknown item or supplier)',
      params: TenantParams,
      body: CreateOrderBody,
      response: withErrors({ 201: PurchaseOrder }, [400, 401, 403, 404, 409]),
    },
    config: { auth: purchasingAdmin },
    handler: async (req, reply) => reply.code(201).send(await purchasing.createPurchaseOrder(ctxOf(req).db, callerOf(req), req.body)),
  });

  app.post(`${BASE}/generate-from-low-stock`, {
    schema: {
      tags,
      summary: 'A draft restocking every item at or below its minimum: quantity max(1, 2 x min - available) at its cost; 200 null when nothing is low',
      params: TenantParams,
      body: GenerateOrderBody,
      response: withErrors({ 201: PurchaseOrder, 200: Nullable(PurchaseOrder, { description: 'null: nothing is low on stock' }) }, [400, 401, 403, 404, 409]),
    },
    config: { auth: purchasingAdmin },
    // The body is optional: a bare POST makes the draft without a supplier.
    preValidation: async (req) => {
      req.body ??= {};
    },
    handler: async (req, reply) => {
      const order = await purchasing.generateFromLowStock(ctxOf(req).db, callerOf(req), req.body);
      return order ? reply.code(201).send(order) : reply.code(200).send(null);
    },
  });

  app.put(`${BASE}/:id`, {
    schema: {
      tags,
      summary: 'Update a purchase order: items and supplier in a draft; notes, delivery date; status draft -> sent -> cancelled (409 otherwise)',
      params: TenantIdParams,
      body: UpdateOrderBody,
      response: withErrors({ 200: PurchaseOrder }, [400, 401, 403, 404, 409]),
    },
    config: { auth: purchasingAdmin },
    handler: (req) => purchasing.updatePurchaseOrder(ctxOf(req).db, req.params.id, req.body),
  });

  app.delete(`${BASE}/:id`, {
    schema: {
      tags,
      summary: 'Delete a draft purchase order (409 not_draft otherwise: cancel it)',
      params: TenantIdParams,
      response: withErrors({ 204: NoContent }, [400, 401, 403, 404, 409]),
    },
    config: { auth: purchasingAdmin },
    handler: async (req, reply) => {
      await purchasing.deletePurchaseOrder(ctxOf(req).db, req.params.id);
      return reply.code(204).send();
    },
  });

  app.post(`${BASE}/:id/receive`, {
    schema: {
      tags,
      summary: 'Receive goods: each line an entry movement (reason purchase, the line’s unit cost); partial or received; 409 over what remains',
      params: TenantIdParams,
      body: ReceiveBody,
      response: withErrors({ 200: PurchaseOrder }, [400, 401, 403, 404, 409]),
    },
    config: { auth: purchasingAdmin },
    handler: (req) => purchasing.receivePurchaseOrder(ctxOf(req).db, callerOf(req), req.params.id, req.body),
  });
}

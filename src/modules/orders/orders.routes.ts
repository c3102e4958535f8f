import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OrderStatus, PaymentMethod } from '../../db/schema/orders.js';
import { sendIdempotent, type Idempotency } from '../../platform/idempotency.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  AddItemsBody,
  CheckoutOrder,
  CloseTabBody,
  CreateOrderBody,
  ListOrdersQuery,
  Order,
  OrderNumberParams,
  SplitBody,
  StatusBody,
  TableIdParams,
  TrackedOrder,
  type CreateOrderInput,
} from './orders.schemas.js';
import type { OrdersService } from './orders.service.js';

/** Who works the floor: the spec's staff and admin, plus branch managers within their branches. */
export const FLOOR_ROLES = ['admin', 'staff', 'branch_manager'] as const;
const floor = { roles: FLOOR_ROLES } as const;

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'retry-safe key: the same key and body within 24 h return the first answer' })),
});

export function ordersRoutes(app: FastifyInstance, { orders, idempotency }: { orders: OrdersService; idempotency: Idempotency }) {
  app.get('/t/:slug/orders', {
    schema: {
      tags: ['orders'],
      summary: 'Orders of a period, newest first (default: today in the tenant time zone)',
      params: TenantParams,
      querystring: ListOrdersQuery,
      response: withErrors({ 200: Type.Array(Order) }),
    },
    config: { auth: floor },
    handler: (req) => orders.list(req.ctx, req.query as Static<typeof ListOrdersQuery>),
  });

  app.post('/t/:slug/orders', {
    schema: {
      tags: ['orders'],
      summary: 'Create an order: guest checkout without a token, staff order with one',
      description:
        'Guest checkout (no Authorization): `pdv`, `customerName`, `paymentMethod` (pix, card, cash) required; number `YYYYMMDD-` + 10 hex; ' +
        'answered with the checkout view (no phone, e-mail or payment ids; the receipt token and link once paid). ' +
        'Staff order (staff/admin token): number `YYYYMMDD-NNNN`, answered with the full order. Prices always come from the menu. ' +
        'A dine_in order on a table without an open tab becomes its open tab.',
      security: [{}, { bearer: [] }],
      params: TenantParams,
      headers: IdempotencyHeaders,
      body: CreateOrderBody,
      // The checkout view first: it requires `receiptUrl`, which a staff order's view lacks.
      response: withErrors({ 201: Type.Union([CheckoutOrder, Order]) }, [400, 401, 403, 404, 409, 422]),
    },
    config: { auth: { optional: true, roles: FLOOR_ROLES } },
    handler: async (req, reply) => {
      const key = req.headers['idempotency-key'] as string | undefined;
      const ctx = req.principal ? req.ctx : null;
      const result = await idempotency.run(`${req.tenant!.id}:orders.create`, key, { user: ctx?.user.id ?? null, body: req.body }, async () => ({
        status: 201,
        body: await orders.create(req.tenant!, ctx, req.body as CreateOrderInput),
      }));
      return sendIdempotent(reply, result);
    },
  });

  app.get('/t/:slug/orders/:number/track', {
    schema: {
      tags: ['orders'],
      summary: 'Public order tracking by number: status and times (guest orders also lines and total); never contact data or payment ids',
      security: [],
      params: OrderNumberParams,
      response: withErrors({ 200: TrackedOrder }, [400, 403, 404]),
    },
    config: { auth: { public: true } },
    handler: (req) => orders.track(req.tenant!.id, (req.params as { number: string }).number),
  });

  app.get('/t/:slug/orders/open-tab/:tableId', {
    schema: {
      tags: ['orders'],
      summary: "The table's open tab, or null",
      params: TableIdParams,
      response: withErrors({ 200: Type.Union([Order, Type.Null()]) }),
    },
    config: { auth: floor },
    handler: (req) => orders.openTab(req.ctx, (req.params as { tableId: string }).tableId),
  });

  app.patch('/t/:slug/orders/:id/add-items', {
    schema: {
      tags: ['orders'],
      summary: 'Add a round to an open order (same dish: quantity added; else a new line)',
      params: TenantIdParams,
      body: AddItemsBody,
      response: withErrors({ 200: Order }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floor },
    handler: (req) => orders.addItems(req.ctx, (req.params as { id: string }).id, (req.body as Static<typeof AddItemsBody>).items),
  });

  app.post('/t/:slug/orders/:id/close-tab', {
    schema: {
      tags: ['orders'],
      summary: 'Close a tab: status delivered, optional payment method, table freed',
      params: TenantIdParams,
      body: CloseTabBody,
      response: withErrors({ 200: Order }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floor },
    // The body is optional: a bare POST closes the tab without recording a payment method.
    preValidation: async (req) => {
      req.body ??= {};
    },
    handler: (req) =>
      orders.closeTab(req.ctx, (req.params as { id: string }).id, (req.body as { paymentMethod?: PaymentMethod } | undefined)?.paymentMethod),
  });

  app.put('/t/:slug/orders/:id/status', {
    schema: {
      tags: ['orders'],
      summary: 'Move an order along pending -> confirmed -> preparing -> ready -> delivered, or cancel it',
      params: TenantIdParams,
      body: StatusBody,
      response: withErrors({ 200: Order }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floor },
    handler: (req) => orders.setStatus(req.ctx, (req.params as { id: string }).id, (req.body as { status: OrderStatus }).status),
  });

  app.post('/t/:slug/orders/:id/split', {
    schema: {
      tags: ['orders'],
      summary: 'Split a bill into child orders, by lines or into N equal parts',
      params: TenantIdParams,
      body: SplitBody,
      response: withErrors({ 201: Type.Object({ parent: Order, parts: Type.Array(Order) }) }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floor },
    handler: async (req, reply) => reply.code(201).send(await orders.split(req.ctx, (req.params as { id: string }).id, req.body as Static<typeof SplitBody>)),
  });
}

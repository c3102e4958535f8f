import { Type } from '@sinclair/typebox';
import { ctxOf, tenantOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { sendIdempotent, type Idempotency } from '../../platform/idempotency.js';
import { DEFAULT_GUEST_ORDER_LIMIT, type Config } from '../../config.js';
import { RateLimited, sendRateLimited, setRateLimitHeaders, type RateLimiter } from '../../platform/rate-limit.js';
import { Nullable, TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  AddItemsBody,
  BillBody,
  CheckoutOrder,
  CloseTabBody,
  CreateOrderBody,
  DiscountBody,
  DiscountQuery,
  IdempotencyHeaders,
  ListOrdersQuery,
  MergeBody,
  MoveLinesBody,
  MoveTableBody,
  Order,
  OrderNumberParams,
  SplitBody,
  StatusBody,
  TableIdParams,
  TrackedOrder,
  VoidBody,
} from './orders.schemas.js';
import type { OrdersService } from './orders.service.js';

/** Who works the floor: the spec's staff and admin, plus branch managers within their branches. */
export const FLOOR_ROLES = ['admin', 'staff', 'branch_manager'] as const;
const floor = { roles: FLOOR_ROLES } as const;

export function ordersRoutes(
  app: RouteApp,
  { orders, idempotency, rateLimits, config }: { orders: OrdersService; idempotency: Idempotency; rateLimits: RateLimiter; config: Pick<Config, 'guestOrderRateLimit'> },
) {
  const guestLimit = config.guestOrderRateLimit === undefined ? DEFAULT_GUEST_ORDER_LIMIT : config.guestOrderRateLimit;

  app.get('/t/:slug/orders', {
    schema: {
      tags: ['orders'],
      summary: 'Orders of a period, newest first (default: today in the tenant time zone)',
      params: TenantParams,
      querystring: ListOrdersQuery,
      response: withErrors({ 200: Type.Array(Order) }),
    },
    config: { auth: floor },
    // The spec writes the PDV filter `pdvIds[]=a&pdvIds[]=b`: read as `pdvIds`, before validation.
    preValidation: async (req) => {
      const query = req.query as Record<string, unknown>;
      if ('pdvIds[]' in query) {
        query.pdvIds = ([] as unknown[]).concat(query.pdvIds ?? [], query['pdvIds[]']);
        delete query['pdvIds[]'];
      }
    },
    handler: async (req, reply) => {
      const { orders: page, total } = await orders.list(ctxOf(req), req.query);
      reply.header('x-total-count', String(total));
      return page;
    },
  });

  app.post('/t/:slug/orders', {
    schema: {
      tags: ['orders'],
      summary: 'Create an order: guest checkout without a token, staff order with one',
      description:
        'Guest checkout (no Authorization): `pdv`, `customerName`, `paymentMethod` (pix, card, cash) required; number `YYYYMMDD-` + 10 hex; ' +
        'answered with the checkout view (no phone, e-mail or payment ids; the receipt token and link once paid). ' +
        'Staff order (staff/admin token): number `YYYYMMDD-NNNN`, answered with the full order. Prices always come from the menu. ' +
        'A dine_in order on a table without an open tab becomes its open tab; on a table with one, it is a new round of that tab (200 with the tab).',
      security: [{}, { bearer: [] }],
      params: TenantParams,
      headers: IdempotencyHeaders,
      body: CreateOrderBody,
      // The checkout view first: it requires `receiptUrl`, which a staff order's view lacks.
      response: withErrors(
        { 201: Type.Union([CheckoutOrder, Order]), 200: Type.Union([CheckoutOrder, Order]), 429: RateLimited },
        [400, 401, 403, 404, 409, 422],
      ),
    },
    config: { auth: { optional: true, roles: FLOOR_ROLES } },
    handler: async (req, reply) => {
      const key = req.headers['idempotency-key'];
      const tenant = tenantOf(req);
      // Optional auth: a token makes it a staff order (the guard then set the context), none a guest checkout.
      const ctx = req.principal ? ctxOf(req) : null;
      if (!ctx && guestLimit) {
        const r = await rateLimits.hit(`orders:guest:${tenant.id}:${req.ip}`, guestLimit.limit, guestLimit.windowMs);
        setRateLimitHeaders(reply, r);
        if (!r.allowed) return sendRateLimited(reply, r, 'Too many orders from this address; wait a little and try again');
      }
      const result = await idempotency.run(
        `${tenant.id}:orders.create`,
        key,
        { user: ctx?.user.id ?? null, body: req.body },
        async (claim) => {
          const { view, joined } = await orders.create(tenant, ctx, req.body, claim);
          // A round added to the table's open tab is not a new order: 200 with the tab.
          return { status: joined ? 200 : 201, body: view };
        },
        async (id) => ({ status: 201, body: await orders.createdView(tenant, ctx, id) }),
      );
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
    handler: (req) => orders.track(tenantOf(req).db, req.params.number),
  });

  app.get('/t/:slug/orders/open-tab/:tableId', {
    schema: {
      tags: ['orders'],
      summary: "The table's open tab, or null",
      params: TableIdParams,
      response: withErrors({ 200: Nullable(Order) }),
    },
    config: { auth: floor },
    handler: (req) => orders.openTab(ctxOf(req), req.params.tableId),
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
    handler: (req) => orders.addItems(ctxOf(req), req.params.id, req.body.items),
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
    handler: (req) => orders.closeTab(ctxOf(req), req.params.id, req.body.paymentMethod),
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
    handler: (req) => orders.setStatus(ctxOf(req), req.params.id, req.body.status),
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
    handler: async (req, reply) => reply.code(201).send(await orders.split(ctxOf(req), req.params.id, req.body)),
  });

  app.get('/t/:slug/orders/:id/pix', {
    schema: {
      tags: ['orders'],
      summary: 'A PIX charge (BR Code "copia e cola" and its QR) for what is still due on the order',
      params: TenantIdParams,
      response: withErrors(
        {
          200: Type.Object({
            pixPayload: Type.String({ description: 'the BR Code "copia e cola"' }),
            pixQrCodeBase64: Type.String({ description: 'PNG, base64' }),
            amount: Type.Integer({ description: 'cents: the amount due now' }),
            txid: Type.String({ description: 'the order id, to reconcile the bank statement' }),
          }),
        },
        [400, 401, 403, 404, 409],
      ),
    },
    config: { auth: floor },
    handler: (req) => orders.pixOf(ctxOf(req), req.params.id),
  });

  const billErrors = [400, 401, 403, 404, 409] as const;

  app.put('/t/:slug/orders/:id/discount', {
    schema: {
      tags: ['orders'],
      summary: 'Give a discount on a line or on the whole order, by amount (cents) or percentage, with a reason',
      description:
        'Replaces the discount the line or order had. Above the tenant discount limit (discountLimitPercent) only an admin or branch manager ' +
        'may give it (403 discount_limit). A bill never goes below what was already paid (409 would_overpay).',
      params: TenantIdParams,
      body: DiscountBody,
      response: withErrors({ 200: Order }, [...billErrors]),
    },
    config: { auth: floor },
    handler: (req) => orders.setDiscount(ctxOf(req), req.params.id, req.body),
  });

  app.delete('/t/:slug/orders/:id/discount', {
    schema: {
      tags: ['orders'],
      summary: 'Take off the discount of a line (?line=N) or of the order',
      params: TenantIdParams,
      querystring: DiscountQuery,
      response: withErrors({ 200: Order }, [...billErrors]),
    },
    config: { auth: floor },
    handler: (req) => orders.removeDiscount(ctxOf(req), req.params.id, req.query.line),
  });

  app.post('/t/:slug/orders/:id/void', {
    schema: {
      tags: ['orders'],
      summary: 'Void units of a line, with a reason (they stay on the line as voidedQuantity and leave the bill)',
      description: 'Once the kitchen has the order (any status after pending) only an admin or branch manager may void (403 void_role).',
      params: TenantIdParams,
      body: VoidBody,
      response: withErrors({ 200: Order }, [...billErrors]),
    },
    config: { auth: floor },
    handler: (req) => orders.voidLine(ctxOf(req), req.params.id, req.body),
  });

  app.put('/t/:slug/orders/:id/bill', {
    schema: {
      tags: ['orders'],
      summary: 'Remove or restore the service charge (optional for the customer), or set the covers of a dine-in bill',
      params: TenantIdParams,
      body: BillBody,
      response: withErrors({ 200: Order }, [...billErrors]),
    },
    config: { auth: floor },
    handler: (req) => orders.updateBill(ctxOf(req), req.params.id, req.body),
  });

  // ---- running the floor (issue 11)

  app.post('/t/:slug/orders/:id/move-table', {
    schema: {
      tags: ['orders'],
      summary: 'Move an open dine-in order to a free table: the old table is freed, the new one occupied',
      description:
        'Takeout or an order without a table: 400. A closed, cancelled or split order: 409; a payment in flight: 409 `payment_in_progress`; ' +
        'a table with an open order: 409 `table_in_use`. Recorded as a `table_moved` adjustment.',
      params: TenantIdParams,
      body: MoveTableBody,
      response: withErrors({ 200: Order }, [...billErrors]),
    },
    config: { auth: floor },
    handler: (req) => orders.moveTable(ctxOf(req), req.params.id, req.body.tableId),
  });

  const Pair = Type.Object({
    from: Order,
    to: Order,
  });

  app.post('/t/:slug/orders/:id/merge', {
    schema: {
      tags: ['orders'],
      summary: 'Merge another open dine-in tab (`orderId`) into this one: its lines and covers join this bill, it ends cancelled and its table is freed',
      description:
        'Refused (409) when the other order has money taken (`already_paid`) or a discount on the whole order (`order_discount`), when either ' +
        'is closed, split or has a payment in flight. Both orders record a `merged` adjustment naming the other. Answers both: `from` ' +
        '(the merged order, cancelled) and `to` (this one).',
      params: TenantIdParams,
      body: MergeBody,
      response: withErrors({ 200: Pair }, [...billErrors]),
    },
    config: { auth: floor },
    handler: (req) => orders.merge(ctxOf(req), req.params.id, req.body.orderId),
  });

  app.post('/t/:slug/orders/:id/move-lines', {
    schema: {
      tags: ['orders'],
      summary: 'Move units of lines of this order to another open order (`toOrderId`); both bills are recomputed',
      description:
        'The source lines keep their place with fewer units; the units join the target at the same unit price with their options and notes. ' +
        'A weighed line moves kilograms to 3 decimals, a unit line whole units (400). The source may not drop below what was paid on it ' +
        '(409 `would_overpay`). Both orders record `lines_moved` adjustments. Answers `from` (this order) and `to`.',
      params: TenantIdParams,
      body: MoveLinesBody,
      response: withErrors({ 200: Pair }, [...billErrors]),
    },
    config: { auth: floor },
    handler: (req) => orders.moveLines(ctxOf(req), req.params.id, req.body),
  });
}

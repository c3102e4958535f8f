import { randomBytes } from 'node:crypto';
import { isId, newId } from '../../db/ids.js';
import type { Db } from '../../db/client.js';
import type { OrderLine, OrderLineModifier, OrderRow, OrderStatus } from '../../db/schema/orders.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Deps } from '../../platform/deps.js';
import type { KitchenEvent, KitchenTarget } from '../../platform/realtime.js';
import { Conflict, Forbidden, Invalid, InvalidRequest, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import type { TenantRef } from '../../platform/tenancy.js';
import { addDays, localDate, startOfLocalDay } from '../../platform/time.js';
import type { BranchesService } from '../branches/index.js';
import type { MenuService } from '../menu/index.js';
import type { TablesService } from '../tables/index.js';
import * as q from './orders.queries.js';
import { canMove, equalShares, isOpen, mergeLines, staffOrderNumber, compactDate, totalOf } from './orders.rules.js';
import {
  GUEST_PAYMENT,
  type CheckoutOrderView,
  type CreateOrderInput,
  type OrderView,
  type TrackedOrderView,
  type TrackedPaymentView,
} from './orders.schemas.js';

type LineInput = CreateOrderInput['items'][number];

export function toOrderView(o: OrderRow): OrderView {
  return {
    _id: o.id,
    orderNumber: o.orderNumber,
    items: o.items,
    customerName: o.customerName,
    customerPhone: o.customerPhone,
    customerEmail: o.customerEmail,
    status: o.status,
    type: o.type,
    table: o.tableId,
    pdv: o.pdvId,
    paymentMethod: o.paymentMethod,
    isSplitBill: o.isSplitBill,
    splitBillReference: o.splitBillReference,
    isTab: o.isTab,
    total: o.total,
    pixPayload: o.pixPayload,
    pixQrCodeBase64: o.pixQrCodeBase64,
    paymentGateway: o.paymentGateway,
    paymentTransactionId: o.paymentTransactionId,
    paymentStatus: o.paymentStatus,
    paymentAttempts: o.paymentAttempts,
    receiptToken: o.receiptToken,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

/** Guest and wallet numbers are random (10 hex); staff and split numbers are sequential, so anyone can guess them. */
export const hasUnguessableNumber = (o: Pick<OrderRow, 'source'>) => o.source === 'guest' || o.source === 'wallet';

/** The public tracking view (HTTP and the tracking room): status and times; lines and total for guest orders. */
export function toTrackedView(o: OrderRow): TrackedOrderView {
  const times = { createdAt: o.createdAt.toISOString(), updatedAt: o.updatedAt.toISOString() };
  if (!hasUnguessableNumber(o)) return { orderNumber: o.orderNumber, status: o.status, ...times };
  return {
    orderNumber: o.orderNumber,
    status: o.status,
    type: o.type,
    items: o.items.map((l) => ({ name: l.name, quantity: l.quantity, price: l.price })),
    total: o.total,
    paymentStatus: o.paymentStatus,
    ...times,
  };
}

/** The tracking room's `paymentUpdate`; null for staff orders (their public view has no payment). */
export function toTrackedPayment(o: OrderRow): TrackedPaymentView | null {
  return hasUnguessableNumber(o) ? { orderNumber: o.orderNumber, paymentStatus: o.paymentStatus } : null;
}

/** The guest checkout answer: the only public view with the receipt token and link. */
export function toCheckoutView(o: OrderRow, receiptBase: string): CheckoutOrderView {
  return {
    _id: o.id,
    orderNumber: o.orderNumber,
    items: o.items,
    customerName: o.customerName,
    status: o.status,
    type: o.type,
    table: o.tableId,
    pdv: o.pdvId,
    paymentMethod: o.paymentMethod,
    isTab: o.isTab,
    total: o.total,
    pixPayload: o.pixPayload,
    pixQrCodeBase64: o.pixQrCodeBase64,
    paymentGateway: o.paymentGateway,
    paymentStatus: o.paymentStatus,
    paymentAttempts: o.paymentAttempts,
    receiptToken: o.receiptToken,
    receiptUrl: o.receiptToken ? `${receiptBase}/${o.receiptToken}` : null,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

const tabOpen = (tableNumber: number, tab: OrderRow) =>
  new Conflict(`Table ${tableNumber} already has an open tab (${tab.orderNumber}): add items to it`, 'tab_open', [{ field: 'table', message: tab.id }]);

const guestNumber = (day: string) => `${compactDate(day)}-${randomBytes(5).toString('hex')}`;
const MAX_LIST_DAYS = 366;
/** How long the business type and PDV branch behind kitchen events are cached (as the tenant resolver). */
const KITCHEN_TARGET_TTL_MS = 5_000;

export interface OrdersDeps {
  menu: MenuService;
  tables: TablesService;
  branches: BranchesService;
}

export function ordersService(deps: Deps, { menu, tables, branches }: OrdersDeps) {
  const { db, clock, realtime, config, log } = deps;

  /** Prices lines from the menu; anything the client says about price is ignored. */
  async function priceLines(tenantId: string, inputs: LineInput[], field = 'items'): Promise<OrderLine[]> {
    const ids = inputs.map((l, i) => {
      const id = l.menuItem ?? l.menuItemId;
      if (!id) throw new Invalid(`${field}.${i}.menuItem`, 'is required');
      return id;
    });
    const items = await menu.itemsForOrder(tenantId, ids);
    return inputs.map((input, i) => {
      const item = items.get(ids[i]);
      if (!item) throw new Invalid(`${field}.${i}.menuItem`, `unknown menu item ${ids[i]}`);
      if (!item.orderable) throw new Invalid(`${field}.${i}.menuItem`, `${item.name} is not available`);
      const chosen = menu.priceSelections(item, input.modifiers ?? [], `${field}.${i}.modifiers`);
      const modifiers: OrderLineModifier[] = [];
      for (const c of chosen) {
        let group = modifiers.find((m) => m.groupId === c.groupId);
        if (!group) modifiers.push((group = { groupId: c.groupId, groupName: c.groupName, options: [] }));
        group.options.push({ name: c.option, priceAdjustment: c.priceAdjustment });
      }
      const allergens = [...new Set([...item.allergens, ...(input.allergens ?? []).map((a) => a.trim()).filter(Boolean)])];
      return {
        menuItem: item.id,
        name: item.name,
        price: item.price + chosen.reduce((s, c) => s + c.priceAdjustment, 0),
        quantity: input.quantity,
        ...(input.notes ? { notes: input.notes } : {}),
        ...(allergens.length ? { allergens } : {}),
        ...(modifiers.length ? { modifiers } : {}),
      };
    });
  }

  async function resolveTable(tenant: TenantRef, table: string | number) {
    if (tenant.businessType !== 'restaurant') throw new Invalid('table', `tables are not available for the business type ${tenant.businessType}`);
    const found =
      isId(table)
        ? await tables.findById(tenant.id, table)
        : await tables.findByNumber(tenant.id, Number(table));
    if (!found) throw new Invalid('table', `unknown table ${table}`);
    return found;
  }

  /** Staff act on their PDVs' orders, branch managers on their branches'; orders without a PDV are tenant-wide. */
  async function assertInScope(ctx: TenantCtx, pdvId: string | null) {
    if (ctx.branchScope.all || pdvId === null) return;
    const allowed = await branches.pdvScope(ctx.tenantId, ctx.branchScope);
    if (!allowed?.includes(pdvId)) throw new Forbidden('You have no access to this point of sale', 'branch_scope');
  }

  async function load(ctx: TenantCtx, id: string, exec: Db, lock = false) {
    const order = await q.findOrder(exec, ctx.tenantId, id, { lock });
    if (!order) throw new NotFound('Order');
    await assertInScope(ctx, order.pdvId);
    return order;
  }

  /** Frees the table once no open dine-in order is left on it. */
  async function releaseTable(tx: Db, order: OrderRow) {
    if (!order.tableId || order.type !== 'dine_in') return;
    if ((await q.countOpenOnTable(tx, order.tenantId, order.tableId, order.id)) === 0) {
      await tables.setStatus(order.tenantId, order.tableId, 'available', tx);
    }
  }

  const kitchenTargets = new Map<string, { target: KitchenTarget | null; until: number }>();
  /** Where an order's kitchen event goes; null when the tenant has no kitchen (mercado, padaria). */
  async function kitchenTargetOf(tenantId: string, pdvId: string | null): Promise<KitchenTarget | null> {
    const key = `${tenantId}:${pdvId ?? ''}`;
    const now = Date.now();
    const hit = kitchenTargets.get(key);
    if (hit && hit.until > now) return hit.target;
    const [tenant, pdv] = await Promise.all([deps.tenants.byId(tenantId), pdvId ? branches.findPdv(tenantId, pdvId) : null]);
    const target = tenant?.businessType === 'restaurant' ? { pdvId, branchId: pdv?.branch ?? null } : null;
    if (kitchenTargets.size > 10_000) kitchenTargets.clear();
    kitchenTargets.set(key, { target, until: now + KITCHEN_TARGET_TTL_MS });
    return target;
  }

  /**
   * An order's event to the kitchen sockets whose branch scope covers its PDV (awaited by the caller so
   * that one client's events keep their order). Never throws: a lost event is logged.
   */
  async function toKitchen(order: OrderRow, event: KitchenEvent, payload: unknown) {
    try {
      const target = await kitchenTargetOf(order.tenantId, order.pdvId);
      if (target) realtime.toKitchen(order.tenantId, event, payload, target);
    } catch (err) {
      log.warn({ err, orderId: order.id, event }, 'kitchen event not sent');
    }
  }

  async function announce(order: OrderRow, event: 'newOrder' | 'orderUpdate') {
    await toKitchen(order, event, { order: toOrderView(order) });
    // Nobody can be tracking an order that did not exist a moment ago.
    if (event === 'orderUpdate') realtime.toOrder(order.tenantId, order.orderNumber, 'orderUpdate', toTrackedView(order));
  }

  const receiptBase = (tenant: TenantRef) => `${config.publicUrl.replace(/\/+$/, '')}/t/${tenant.slug}/receipts`;

  const today = (tenant: { timezone: string }) => localDate(clock.now(), tenant.timezone);

  const service = {
    priceLines,
    announce,
    toKitchen,
    /** The guest checkout answer for an order of `tenant`. */
    checkoutView: (tenant: TenantRef, order: OrderRow) => toCheckoutView(order, receiptBase(tenant)),

    /**
     * POST /t/:slug/orders. Without a user it is a guest checkout (shape b of spec 4.7) answered with
     * the checkout view; with a staff or admin token a staff order (shape a) with a sequential daily
     * number, answered with the full order.
     */
    async create(tenant: TenantRef, ctx: TenantCtx | null, input: CreateOrderInput): Promise<OrderView | CheckoutOrderView> {
      const order = await service.insert(tenant, ctx, input);
      return ctx ? toOrderView(order) : toCheckoutView(order, receiptBase(tenant));
    },

    /** Creates the order and announces it; `create` and the wallet checkout choose the view. */
    async insert(
      tenant: TenantRef,
      ctx: TenantCtx | null,
      input: CreateOrderInput,
      /** Fields set by the caller, e.g. the payment of a wallet checkout. */
      extra: Partial<Pick<OrderRow, 'source' | 'paymentGateway' | 'paymentAttempts' | 'paymentStartedAt' | 'paymentStatus' | 'paymentTransactionId' | 'paidAt' | 'receiptToken' | 'receiptExpiresAt'>> = {},
    ): Promise<OrderRow> {
      const guest = ctx === null;
      if (guest) {
        if (!input.pdv) throw new Invalid('pdv', 'is required for guest checkout');
        if (!input.customerName) throw new Invalid('customerName', 'is required for guest checkout');
        if (!input.paymentMethod || !(GUEST_PAYMENT as readonly string[]).includes(input.paymentMethod)) {
          throw new Invalid('paymentMethod', `guest checkout accepts ${GUEST_PAYMENT.join(', ')}`);
        }
      }
      const lines = await priceLines(tenant.id, input.items);
      const pdv = input.pdv ? await branches.findPdv(tenant.id, input.pdv) : null;
      if (input.pdv && (!pdv || !pdv.active)) throw new Invalid('pdv', `unknown point of sale ${input.pdv}`);
      if (ctx) await assertInScope(ctx, pdv?._id ?? null);
      const table = input.table !== undefined ? await resolveTable(tenant, input.table) : null;
      const day = today(tenant);
      if (!guest && table && input.orderType === 'dine_in') {
        const openTab = await q.findOpenTab(db, tenant.id, table._id);
        if (openTab) throw tabOpen(table.number, openTab);
      }
      // The daily number is taken in its own statement, outside the order's transaction: the
      // counter row is then locked for one statement, not for the whole order. A number is
      // skipped only when the insert below fails (a lost race for a tab, a database error).
      const staffNumber = guest ? null : staffOrderNumber(day, await q.nextDailySequence(db, tenant.id, day));

      for (let attempt = 0; ; attempt++) {
        try {
          const order = await db.transaction(async (tx) => {
            const openTab = table && input.orderType === 'dine_in' ? await q.findOpenTab(tx, tenant.id, table._id) : null;
            if (openTab && !guest) throw tabOpen(table!.number, openTab);
            const isTab = Boolean(table && input.orderType === 'dine_in' && !openTab);
            const orderNumber = staffNumber ?? guestNumber(day);
            const row = await q.insertOrder(tx, {
              tenantId: tenant.id,
              id: newId(),
              orderNumber,
              source: guest ? 'guest' : 'staff',
              type: input.orderType,
              tableId: table?._id ?? null,
              pdvId: pdv?._id ?? null,
              items: lines,
              total: totalOf(lines),
              customerName: input.customerName ?? null,
              customerPhone: input.customerPhone ?? null,
              customerEmail: input.customerEmail?.toLowerCase() ?? null,
              paymentMethod: input.paymentMethod ?? null,
              isTab,
              createdBy: ctx?.user.id ?? null,
              ...extra,
            });
            if (isTab) await tables.setStatus(tenant.id, table!._id, 'occupied', tx);
            return row;
          });
          await announce(order, 'newOrder');
          return order;
        } catch (err) {
          if (isUniqueViolation(err, q.OPEN_TAB_KEY)) throw new Conflict(`Table ${table?.number} already has an open tab`, 'tab_open');
          if (guest && attempt < 3 && isUniqueViolation(err, q.NUMBER_KEY)) continue;
          throw err;
        }
      }
    },

    async list(ctx: TenantCtx, query: { status?: OrderStatus; from?: string; to?: string; limit?: number; pdvIds?: string[] }) {
      const from = query.from ?? today(ctx.tenant);
      const to = query.to ?? from;
      if (to < from) throw new Invalid('to', 'must not be before from');
      if ((Date.parse(to) - Date.parse(from)) / 86_400_000 > MAX_LIST_DAYS) throw new Invalid('to', `the period is at most ${MAX_LIST_DAYS} days`);
      const scope = await branches.pdvScope(ctx.tenantId, ctx.branchScope);
      const filter = Boolean(query.pdvIds?.length);
      const rows = await q.listOrders(db, ctx.tenantId, {
        status: query.status,
        from: startOfLocalDay(from, ctx.tenant.timezone),
        to: startOfLocalDay(addDays(to, 1), ctx.tenant.timezone),
        limit: query.limit ?? 200,
        pdvIds: filter ? query.pdvIds!.filter((p) => !scope || scope.includes(p)) : scope,
        // A filter by PDVs means those PDVs only; the scope alone also shows tenant-wide orders.
        withoutPdv: !filter,
      });
      return rows.map(toOrderView);
    },

    async track(tenantId: string, orderNumber: string): Promise<TrackedOrderView> {
      const order = await q.findOrderByNumber(db, tenantId, orderNumber);
      if (!order) throw new NotFound('Order');
      return toTrackedView(order);
    },

    findByNumber: (tenantId: string, orderNumber: string) => q.findOrderByNumber(db, tenantId, orderNumber),

    async openTab(ctx: TenantCtx, tableId: string): Promise<OrderView | null> {
      if (!(await tables.findById(ctx.tenantId, tableId))) throw new NotFound('Table');
      const order = await q.findOpenTab(db, ctx.tenantId, tableId);
      if (!order) return null;
      await assertInScope(ctx, order.pdvId);
      return toOrderView(order);
    },

    /** Adds a round to an open order; the row lock keeps two waiters from losing each other's lines. */
    async addItems(ctx: TenantCtx, id: string, items: LineInput[]): Promise<OrderView> {
      const added = await priceLines(ctx.tenantId, items);
      const order = await db.transaction(async (tx) => {
        const current = await load(ctx, id, tx, true);
        if (!isOpen(current.status)) throw new Conflict(`Order ${current.orderNumber} is ${current.status}: no items can be added`, 'order_closed');
        const lines = mergeLines(current.items, added);
        return q.updateOrder(tx, ctx.tenantId, id, { items: lines, total: totalOf(lines) });
      });
      await announce(order, 'orderUpdate');
      return toOrderView(order);
    },

    async closeTab(ctx: TenantCtx, id: string, paymentMethod?: OrderRow['paymentMethod']): Promise<OrderView> {
      const order = await db.transaction(async (tx) => {
        const current = await load(ctx, id, tx, true);
        if (!isOpen(current.status)) throw new Conflict(`Order ${current.orderNumber} is already ${current.status}`, 'order_closed');
        const closed = await q.updateOrder(tx, ctx.tenantId, id, {
          status: 'delivered',
          closedAt: clock.now(),
          ...(paymentMethod ? { paymentMethod } : {}),
        });
        await releaseTable(tx, closed);
        return closed;
      });
      await announce(order, 'orderUpdate');
      return toOrderView(order);
    },

    async setStatus(ctx: TenantCtx, id: string, status: OrderStatus): Promise<OrderView> {
      let changed = false;
      const order = await db.transaction(async (tx) => {
        const current = await load(ctx, id, tx, true);
        if (current.status === status) return current;
        if (!canMove(current.status, status)) {
          throw new Conflict(`An order cannot move from ${current.status} to ${status}`, 'invalid_transition', [
            { field: 'status', message: `${current.status} -> ${status}` },
          ]);
        }
        changed = true;
        const updated = await q.updateOrder(tx, ctx.tenantId, id, { status, ...(isOpen(status) ? {} : { closedAt: clock.now() }) });
        if (!isOpen(status)) await releaseTable(tx, updated);
        return updated;
      });
      if (changed) await announce(order, 'orderUpdate');
      return toOrderView(order);
    },

    /**
     * Splits a bill into child orders that reference the parent's number: by lines (each part names
     * line indexes and quantities, covering every unit exactly once) or into N equal parts (cents
     * spread so the parts add up to the total exactly).
     */
    async split(ctx: TenantCtx, id: string, body: { parts?: number; lines?: { line: number; quantity: number }[][] }) {
      if ((body.parts === undefined) === (body.lines === undefined)) throw new InvalidRequest('Give either parts (equal split) or lines (split by items)');
      const result = await db.transaction(async (tx) => {
        const parent = await load(ctx, id, tx, true);
        if (parent.status === 'cancelled') throw new Conflict('A cancelled order cannot be split', 'order_closed');
        if (parent.isSplitBill) throw new Conflict('A part of a split bill cannot be split again', 'already_split');
        if ((await q.countSplitChildren(tx, ctx.tenantId, parent.orderNumber)) > 0) throw new Conflict(`Order ${parent.orderNumber} is already split`, 'already_split');
        let partLines: OrderLine[][];
        if (body.parts !== undefined) {
          const shares = equalShares(parent.total, body.parts);
          partLines = shares.map((share, i) => [
            { menuItem: null, name: `Parte ${i + 1}/${shares.length} do pedido ${parent.orderNumber}`, price: share, quantity: 1 },
          ]);
        } else {
          const taken = parent.items.map(() => 0);
          partLines = body.lines!.map((part, p) =>
            part.map(({ line, quantity }, j) => {
              const source = parent.items[line];
              if (!source) throw new Invalid(`lines.${p}.${j}.line`, `order has no line ${line}`);
              taken[line] += quantity;
              return { ...source, quantity };
            }),
          );
          taken.forEach((n, line) => {
            if (n !== parent.items[line].quantity) {
              throw new Invalid('lines', `line ${line} (${parent.items[line].name}) has ${parent.items[line].quantity} units; the parts take ${n}`);
            }
          });
        }
        const day = today(ctx.tenant);
        const children: OrderRow[] = [];
        for (const items of partLines) {
          children.push(
            await q.insertOrder(tx, {
              tenantId: ctx.tenantId,
              id: newId(),
              orderNumber: staffOrderNumber(day, await q.nextDailySequence(tx, ctx.tenantId, day)),
              source: 'split',
              status: parent.status,
              type: parent.type,
              tableId: parent.tableId,
              pdvId: parent.pdvId,
              items,
              total: totalOf(items),
              customerName: parent.customerName,
              isSplitBill: true,
              splitBillReference: parent.orderNumber,
              createdBy: ctx.user.id,
            }),
          );
        }
        return { parent, children };
      });
      return { parent: toOrderView(result.parent), parts: result.children.map(toOrderView) };
    },

    /** For the payments service: the order inside its transaction, locked, after the scope check. */
    loadForUpdate: load,
  };
  return service;
}

export type OrdersService = ReturnType<typeof ordersService>;

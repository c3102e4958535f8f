import { randomBytes } from 'node:crypto';
import { isId, newId } from '../../db/ids.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { TenantRow } from '../../db/schema/tenants.js';
import type { DeliveryProvider } from '../../db/schema/delivery.js';
import type { BillAdjustment, Discount, MarketplaceDetails, OrderLine, OrderLineModifier, OrderRow, OrderStatus } from '../../db/schema/orders.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Deps } from '../../platform/deps.js';
import type { KitchenEvent, KitchenTarget } from '../../platform/realtime.js';
import { Conflict, Forbidden, Invalid, InvalidRequest, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import type { TenantRef } from '../../platform/tenancy.js';
import type { ClaimKey } from '../../platform/idempotency.js';
import { addDays, localDate, startOfLocalDay } from '../../platform/time.js';
import type { BranchesService } from '../branches/index.js';
import type { MenuService } from '../menu/index.js';
import type { ShiftsService } from '../shifts/index.js';
import type { TablesService } from '../tables/index.js';
import type { TenantsService } from '../tenants/index.js';
import { buildPixPayload } from '../../platform/pix/brcode.js';
import { pixQrPngBase64 } from '../../platform/pix/qr.js';
import * as q from './orders.queries.js';
import { floorOperations } from './orders.floor.js';
import { salesOfPeriod } from './orders.sales.js';
import type { AuditService } from '../audit/index.js';
import { canMove, isCorrection, isOpen, mergeLines, staffOrderNumber, compactDate } from './orders.rules.js';
import { billedQuantity, billOf, computeBill, hasGramPrecision, milli, splitByLines, splitEqually, withinLimit } from './orders.bill.js';
import {
  GUEST_PAYMENT,
  type CheckoutOrderView,
  type CreateOrderInput,
  type OrderView,
  type TrackedOrderView,
  type TrackedPaymentView,
} from './orders.schemas.js';

type LineInput = CreateOrderInput['items'][number];

/** Stores an Idempotency-Key in the order's transaction (see platform/idempotency.ts). */
export type OrderClaim = ClaimKey;
/** What is still to collect (a bill paid in full and then reduced owes nothing, never a negative amount). */
export const amountDue = (o: Pick<OrderRow, 'total' | 'amountPaid'>) => Math.max(0, o.total - o.amountPaid);

/** The parts of the bill, as every view of an order shows them; a public view (guest, receipt) does not say who gave the discount. */
export const toBillView = (o: OrderRow, publicView = false) => ({
  itemsTotal: o.itemsTotal,
  discountTotal: o.discountTotal,
  discount: o.orderDiscount && publicView ? { kind: o.orderDiscount.kind, value: o.orderDiscount.value, reason: o.orderDiscount.reason } : o.orderDiscount,
  serviceChargePercent: o.serviceChargeBp / 100,
  serviceChargeRemoved: o.serviceChargeRemoved,
  serviceCharge: o.serviceCharge,
  covers: o.covers,
  coverCharge: o.coverCharge,
  rounding: o.rounding ?? { lines: 0, discounts: 0, serviceCharge: 0 },
});

/** A line as the guest sees it: a discount without who gave it. */
function publicLine(l: OrderLine) {
  if (!l.discount) return l;
  const { kind, value, reason } = l.discount;
  return { ...l, discount: { kind, value, reason } };
}

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
    source: o.source,
    externalProvider: o.externalProvider,
    externalId: o.externalId,
    marketplace: o.marketplace,
    ...toBillView(o),
    total: o.total,
    amountPaid: o.amountPaid,
    amountDue: amountDue(o),
    isSplit: o.splitAt !== null,
    adjustments: o.adjustments,
    statusHistory: o.statusHistory,
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
    serviceCharge: o.serviceCharge,
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
    items: o.items.map(publicLine),
    customerName: o.customerName,
    status: o.status,
    type: o.type,
    table: o.tableId,
    pdv: o.pdvId,
    paymentMethod: o.paymentMethod,
    isTab: o.isTab,
    ...toBillView(o, true),
    total: o.total,
    amountPaid: o.amountPaid,
    amountDue: amountDue(o),
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

const paymentInProgress = (o: OrderRow) =>
  new Conflict(`A payment of order ${o.orderNumber} is in progress: wait for its result (at most 60 s)`, 'payment_in_progress');
const splitClosed = (o: OrderRow) =>
  new Conflict(`Order ${o.orderNumber} was split: its parts are paid and changed, not it`, 'order_split');
const splitPart = (o: OrderRow) =>
  new Conflict(`Order ${o.orderNumber} is a part of split bill ${o.splitBillReference}: its amounts are fixed`, 'split_part');
/** How long a receipt link works after the bill is paid in full. */
export const RECEIPT_TTL_MS = 10 * 60_000;

const guestNumber = (day: string) => `${compactDate(day)}-${randomBytes(5).toString('hex')}`;
const MAX_LIST_DAYS = 366;
/** How long the business type and PDV branch behind kitchen events are cached (as the tenant resolver). */
const KITCHEN_TARGET_TTL_MS = 5_000;

/**
 * Told, inside the transaction that cancels an order (locked) with money taken, to give it back: the
 * payments module records cash refunds and queues the gateways' (and rewrites the order's payment fields).
 */
export type CancelListener = (tx: TenantTx, order: OrderRow) => Promise<OrderRow>;

/** Who may cancel an order with money taken (and so refund it). */
export const REFUND_ROLES = ['admin', 'branch_manager', 'superadmin'] as const;
/** Who may give a discount above the tenant's limit or void an item the kitchen has accepted. */
export const MANAGER_ROLES = REFUND_ROLES;
const isManager = (ctx: TenantCtx) => (MANAGER_ROLES as readonly string[]).includes(ctx.role);

/** Told, inside the transaction that changed an order's bill, to re-derive its payment fields (the payments module). */
export type BillListener = (tx: TenantTx, order: OrderRow) => Promise<OrderRow>;
/**
 * Told, inside the order's transaction, that an order's lines or state may have changed (a payment, a
 * status, a round, a split, a merge): the inventory brings what the order took out of stock up to date.
 */
export type StockListener = (tx: TenantTx, order: OrderRow) => Promise<void>;

/**
 * Told, inside the order's transaction, that an order was created (a guest's, staff's, wallet or split
 * part; not a round joining a tab) or changed status: where the apps module queues its webhooks, so an
 * event exists exactly when its change commits.
 */
export type OrderEventListener = (tx: TenantTx, event: OrderEvent) => Promise<void>;
export interface OrderEvent {
  type: 'order.created' | 'order.statusChanged';
  order: OrderRow;
  /** The status before the change; null for `order.created`. */
  previousStatus: OrderStatus | null;
}

export interface OrdersDeps {
  menu: MenuService;
  tables: TablesService;
  branches: BranchesService;
  tenants: Pick<TenantsService, 'findById'>;
  shifts: Pick<ShiftsService, 'openShiftOf'>;
  audit: Pick<AuditService, 'record'>;
}

export function ordersService(deps: Deps, { menu, tables, branches, tenants, shifts, audit }: OrdersDeps) {
  const { clock, realtime, config, log } = deps;

  /** Prices lines from the menu; anything the client says about price is ignored. Pass a `TenantTx` to read inside it. */
  async function priceLines(t: TenantDb, inputs: LineInput[], field = 'items'): Promise<OrderLine[]> {
    const ids = inputs.map((l, i) => {
      const id = l.menuItem ?? l.menuItemId;
      if (!id) throw new Invalid(`${field}.${i}.menuItem`, 'is required');
      return id;
    });
    const items = await menu.itemsForOrder(t, ids);
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
      if (item.unit === 'kg' ? !hasGramPrecision(input.quantity) : !Number.isInteger(input.quantity)) {
        throw new Invalid(`${field}.${i}.quantity`, item.unit === 'kg' ? 'has at most 3 decimals (kilograms)' : `must be a whole number: ${item.name} is sold by the unit`);
      }
      return {
        menuItem: item.id,
        name: item.name,
        // An option may lower the price (half portion); the line never goes below zero.
        price: Math.max(0, item.price + chosen.reduce((s, c) => s + c.priceAdjustment, 0)),
        quantity: input.quantity,
        unit: item.unit,
        station: item.station,
        ...(item.preparationTime !== null ? { preparationTime: item.preparationTime } : {}),
        ...(input.notes ? { notes: input.notes } : {}),
        ...(allergens.length ? { allergens } : {}),
        ...(modifiers.length ? { modifiers } : {}),
      };
    });
  }

  async function resolveTable(tx: TenantTx, tenant: TenantRef, table: string | number) {
    if (tenant.businessType !== 'restaurant') throw new Invalid('table', `tables are not available for the business type ${tenant.businessType}`);
    const found = isId(table) ? await tables.findById(tx, table) : await tables.findByNumber(tx, Number(table));
    if (!found) throw new Invalid('table', `unknown table ${table}`);
    return found;
  }

  /** Staff act on their PDVs' orders, branch managers on their branches'; orders without a PDV are tenant-wide. */
  async function assertInScope(tx: TenantTx, ctx: TenantCtx, pdvId: string | null) {
    if (ctx.branchScope.all || pdvId === null) return;
    const allowed = await branches.pdvScope(tx, ctx.branchScope);
    if (!allowed?.includes(pdvId)) throw new Forbidden('You have no access to this point of sale', 'branch_scope');
  }

  /** The order inside the caller's transaction (locked when `lock`), after the scope check. */
  async function load(tx: TenantTx, ctx: TenantCtx, id: string, lock = false) {
    const order = await q.findOrder(tx.db, tx.tenantId, id, { lock });
    if (!order) throw new NotFound('Order');
    await assertInScope(tx, ctx, order.pdvId);
    return order;
  }

  /** Frees the table once no open dine-in order is left on it. */
  async function releaseTable(tx: TenantTx, order: OrderRow) {
    if (!order.tableId || order.type !== 'dine_in') return;
    if ((await q.countOpenOnTable(tx.db, tx.tenantId, order.tableId, order.id)) === 0) {
      await tables.setStatus(tx, order.tableId, 'available');
    }
  }

  const kitchenTargets = new Map<string, { target: KitchenTarget | null; until: number }>();
  /** Where an order's kitchen event goes; null when the tenant has no kitchen (mercado, padaria). */
  async function kitchenTargetOf(t: TenantDb, pdvId: string | null): Promise<KitchenTarget | null> {
    const key = `${t.tenantId}:${pdvId ?? ''}`;
    const now = Date.now();
    const hit = kitchenTargets.get(key);
    if (hit && hit.until > now) return hit.target;
    const [tenant, pdv] = await Promise.all([deps.tenants.byId(t.tenantId), pdvId ? branches.findPdv(t, pdvId) : null]);
    const target = tenant?.businessType === 'restaurant' ? { pdvId, branchId: pdv?.branch ?? null } : null;
    if (kitchenTargets.size > 10_000) kitchenTargets.clear();
    kitchenTargets.set(key, { target, until: now + KITCHEN_TARGET_TTL_MS });
    return target;
  }

  /**
   * An order's event to the kitchen sockets whose branch scope covers its PDV (awaited by the caller so
   * that one client's events keep their order). Never throws: a lost event is logged. `t` is the
   * order's tenant handle (outside any transaction: called after `run` returns).
   */
  async function toKitchen(t: TenantDb, order: OrderRow, event: KitchenEvent, payload: unknown) {
    try {
      if (order.tenantId !== t.tenantId) throw new Error('the order is not of the handle\'s tenant');
      const target = await kitchenTargetOf(t, order.pdvId);
      if (target) realtime.toKitchen(order.tenantId, event, payload, target);
    } catch (err) {
      log.warn({ err, orderId: order.id, event }, 'kitchen event not sent');
    }
  }

  async function announce(t: TenantDb, order: OrderRow, event: 'newOrder' | 'orderUpdate') {
    await toKitchen(t, order, event, { order: toOrderView(order) });
    // Nobody can be tracking an order that did not exist a moment ago.
    if (event === 'orderUpdate') realtime.toOrder(order.tenantId, order.orderNumber, 'orderUpdate', toTrackedView(order));
  }

  const receiptBase = (tenant: TenantRef) => `${config.publicUrl.replace(/\/+$/, '')}/t/${tenant.slug}/receipts`;

  const today = (tenant: { timezone: string }) => localDate(clock.now(), tenant.timezone);

  const cancelListeners: CancelListener[] = [];
  const billListeners: BillListener[] = [];
  const stockListeners: StockListener[] = [];
  const eventListeners: OrderEventListener[] = [];
  async function orderEvent(tx: TenantTx, type: OrderEvent['type'], order: OrderRow, previousStatus: OrderStatus | null) {
    for (const listener of eventListeners) await listener(tx, { type, order, previousStatus });
  }
  /** Runs the stock listeners on `order` (after it was written), and answers it. */
  async function stockChanged(tx: TenantTx, order: OrderRow): Promise<OrderRow> {
    for (const listener of stockListeners) await listener(tx, order);
    return order;
  }

  tables.onRelease(async (tx, tableId) => {
    const active = await q.findActiveOnTable(tx.db, tx.tenantId, tableId);
    if (active) throw new Conflict(`Order ${active.orderNumber} is still open on this table: close or cancel it first`, 'table_in_use');
  });
  /** Orders `insert` answered by adding a round to an existing tab (not a new order). */
  const joinedTabs = new WeakSet<OrderRow>();

  /**
   * Writes a recomputed bill (and `extra` fields) in the caller's transaction, then lets the payments
   * module re-derive the payment fields: a paid bill that grew (the table ordered dessert) owes the
   * difference again, a part-paid one that shrank to what was paid is paid. A bill never goes below
   * what was collected: that is a refund, not an edit.
   */
  async function rewrite(
    tx: TenantTx,
    current: OrderRow,
    bill: ReturnType<typeof computeBill>,
    tenant: TenantRow | null,
    extra: Partial<OrderRow> = {},
  ): Promise<OrderRow> {
    if (bill.total < current.amountPaid) {
      throw new Conflict(
        `Order ${current.orderNumber} has ${current.amountPaid} cents paid: the bill cannot go below it (refund a payment first)`,
        'would_overpay',
      );
    }
    // A PIX order's code follows its bill: the QR on the table asks for what is due now.
    let pix = {};
    if (current.pixPayload !== null && bill.total !== current.total) {
      const pdv = current.pdvId ? await branches.findPdv(tx, current.pdvId) : null;
      pix = (await pixCharge(tenant, pdv, current.id, bill.total - current.amountPaid)) ?? { pixPayload: null, pixQrCodeBase64: null };
    }
    let updated = await q.updateOrder(tx.db, tx.tenantId, current.id, { ...bill, ...pix, ...extra });
    if (current.paymentAttempts > 0) for (const listener of billListeners) updated = await listener(tx, updated);
    return stockChanged(tx, updated);
  }

  /** The bill of an order can change (a round, a discount, a void, the service charge), or the Conflict that says why not. */
  function assertBillEditable(current: OrderRow) {
    if (current.status === 'cancelled') throw new Conflict(`Order ${current.orderNumber} is cancelled`, 'order_closed');
    if (current.splitAt) throw splitClosed(current);
    if (current.isSplitBill) throw splitPart(current);
    // The terminal is charging the old total: changing it now would leave a difference unpaid.
    if (current.paymentStatus === 'processing') throw paymentInProgress(current);
  }

  /** Adds priced lines to an open order as a new round: what add-items does, inside the caller's transaction. */
  async function addRound(tx: TenantTx, current: OrderRow, added: OrderLine[], tenant: TenantRow | null): Promise<OrderRow> {
    if (!isOpen(current.status)) throw new Conflict(`Order ${current.orderNumber} is ${current.status}: no items can be added`, 'order_closed');
    assertBillEditable(current);
    return rewrite(tx, current, billOf(current, mergeLines(current.items, added)), tenant);
  }

  /**
   * A change of the bill by the floor (discount, void, service charge, covers): the order locked, the
   * change computed by `edit` from it and the tenant's settings, recorded in `adjustments`, announced.
   */
  async function editBill(
    ctx: TenantCtx,
    id: string,
    edit: (
      o: OrderRow,
      tenant: { discountLimitBp: number },
    ) => {
      items?: OrderLine[];
      fields?: Partial<OrderRow>;
      adjustment: Omit<BillAdjustment, 'by' | 'at'> | Omit<BillAdjustment, 'by' | 'at'>[];
      /** A change beyond what any floor role may do (a discount above the limit, a void the kitchen had): audited. */
      audited?: { action: 'order.discount_above_limit' | 'order.void_after_kitchen'; details: Record<string, unknown> };
    } | null,
  ): Promise<OrderView> {
    const settings = await tenants.findById(ctx.tenantId);
    let changed = false;
    const order = await ctx.db.run(async (tx) => {
      const current = await load(tx, ctx, id, true);
      assertBillEditable(current);
      const change = edit(current, { discountLimitBp: settings?.discountLimitBp ?? 0 });
      if (!change) return current;
      changed = true;
      const next = { ...current, ...change.fields };
      const stamp = { by: ctx.user.id, at: clock.now().toISOString() };
      const added = ([] as Omit<BillAdjustment, 'by' | 'at'>[]).concat(change.adjustment).map((a) => ({ ...a, ...stamp }));
      const items = change.items ?? current.items;
      if (change.audited) {
        const { action, details } = change.audited;
        await audit.record(tx, { action, actorId: ctx.user.id, actorLabel: ctx.user.email, targetType: 'order', targetId: current.id, details: { orderNumber: current.orderNumber, ...details } });
      }
      return rewrite(tx, current, billOf(next, items), settings, { ...change.fields, adjustments: [...current.adjustments, ...added] });
    });
    if (changed) await announce(ctx.db, order, 'orderUpdate');
    return toOrderView(order);
  }

  /** The discount a body asks for, checked: whole cents, or a percentage to 2 decimals up to 100. */
  function discountOf(ctx: TenantCtx, body: { kind: Discount['kind']; value: number; reason: string }): Discount {
    if (body.kind === 'amount' && !Number.isInteger(body.value)) throw new Invalid('value', 'is in whole cents for an amount discount');
    if (body.kind === 'percent' && (body.value > 100 || Math.abs(body.value * 100 - Math.round(body.value * 100)) > 1e-6)) {
      throw new Invalid('value', 'is a percentage up to 100 with at most 2 decimals');
    }
    return { kind: body.kind, value: body.value, reason: body.reason.trim(), by: ctx.user.id, at: clock.now().toISOString() };
  }

  const describe = (d: Pick<Discount, 'kind' | 'value'>) => (d.kind === 'percent' ? `${d.value}%` : `${d.value} cents`);

  async function joinTab(tx: TenantTx, tabId: string, lines: OrderLine[], tenant: TenantRow | null): Promise<OrderRow> {
    const tab = await q.findOrder(tx.db, tx.tenantId, tabId, { lock: true });
    const joined = await addRound(tx, tab!, lines, tenant);
    joinedTabs.add(joined);
    return joined;
  }

  /**
   * A PIX charge of `amount` cents for an order: the BR Code "copia e cola" to the PDV's key or the
   * tenant's, its txid the order id, and its QR image. Null when neither has a key (the cashier then
   * confirms the PIX by hand).
   */
  async function pixCharge(tenant: TenantRow | null, pdv: { pixKey: string | null } | null, orderId: string, amount: number) {
    const key = pdv?.pixKey ?? tenant?.pixKey ?? null;
    if (!tenant || !key || amount <= 0) return null;
    const pixPayload = buildPixPayload({ key, amountCents: amount, merchantName: tenant.name, merchantCity: tenant.city ?? 'BRASIL', txid: orderId });
    return { pixPayload, pixQrCodeBase64: await pixQrPngBase64(pixPayload) };
  }

  /**
   * Everything an order must be before it is written: guest fields, lines priced from the menu, the PDV
   * (active, in the caller's scope), the table, no open tab of a staff dine-in on it. Writes nothing.
   */
  async function checkOrder(tx: TenantTx, tenant: TenantRef, ctx: TenantCtx | null, input: CreateOrderInput) {
    if (ctx === null) {
      if (!input.pdv) throw new Invalid('pdv', 'is required for guest checkout');
      if (!input.customerName) throw new Invalid('customerName', 'is required for guest checkout');
      if (!input.paymentMethod || !(GUEST_PAYMENT as readonly string[]).includes(input.paymentMethod)) {
        throw new Invalid('paymentMethod', `guest checkout accepts ${GUEST_PAYMENT.join(', ')}`);
      }
    }
    const lines = await priceLines(tx, input.items);
    const pdv = input.pdv ? await branches.findPdv(tx, input.pdv) : null;
    if (input.pdv && (!pdv || !pdv.active)) throw new Invalid('pdv', `unknown point of sale ${input.pdv}`);
    if (ctx) await assertInScope(tx, ctx, pdv?._id ?? null);
    const table = input.table !== undefined ? await resolveTable(tx, tenant, input.table) : null;
    return { lines, pdv, table };
  }

  /**
   * The bill settings a new order starts with: dine-in orders take the PDV's service charge and cover
   * charge, or the tenant's; takeout and counter orders have neither.
   */
  function newBill(
    settings: { serviceChargeBp: number; coverCharge: number } | null,
    pdv: { serviceChargeBp: number | null; coverCharge: number | null } | null,
    input: CreateOrderInput,
  ) {
    const dineIn = input.orderType === 'dine_in';
    if (!dineIn && input.covers) throw new Invalid('covers', 'is for dine_in orders');
    return {
      orderDiscount: null,
      serviceChargeBp: dineIn ? (pdv?.serviceChargeBp ?? settings?.serviceChargeBp ?? 0) : 0,
      serviceChargeRemoved: false,
      covers: dineIn ? (input.covers ?? 0) : 0,
      coverChargeUnit: dineIn ? (pdv?.coverCharge ?? settings?.coverCharge ?? 0) : 0,
    };
  }

  const service = {
    /** For the income statement: the bills of the orders paid in full in a range, summed (orders.sales.ts). */
    salesOfPeriod,
    // Running the floor (issue 11): move-table, merge, move-lines.
    ...floorOperations({ clock, tables, tenants, load, rewrite, assertBillEditable, releaseTable, announce, stockChanged, orderEvent, view: toOrderView }),
    announce,
    toKitchen,
    /** The guest checkout answer for an order of `tenant`. */
    checkoutView: (tenant: TenantRef, order: OrderRow) => toCheckoutView(order, receiptBase(tenant)),

    /**
     * POST /t/:slug/orders. Without a user it is a guest checkout (shape b of spec 4.7) answered with
     * the checkout view; with a staff or admin token a staff order (shape a) with a sequential daily
     * number, answered with the full order.
     */
    async create(
      tenant: TenantRef,
      ctx: TenantCtx | null,
      input: CreateOrderInput,
      claim?: OrderClaim,
    ): Promise<{ view: OrderView | CheckoutOrderView; joined: boolean }> {
      const order = await service.insert(tenant, ctx, input, { claim });
      return { view: ctx ? toOrderView(order) : toCheckoutView(order, receiptBase(tenant)), joined: joinedTabs.has(order) };
    },

    /** The answer `create` gave for order `id`, as it is now (an idempotent retry whose first answer was lost). */
    async createdView(tenant: TenantRef, ctx: TenantCtx | null, id: string): Promise<OrderView | CheckoutOrderView> {
      const order = await tenant.db.run((tx) => q.findOrder(tx.db, tx.tenantId, id));
      if (!order) throw new NotFound('Order');
      return ctx ? toOrderView(order) : toCheckoutView(order, receiptBase(tenant));
    },

    /**
     * Checks an order as `insert` would and answers its priced lines and total, writing nothing: the
     * wallet checkout charges only an order that will be accepted.
     */
    async check(tenant: TenantRef, ctx: TenantCtx | null, input: CreateOrderInput) {
      const settings = await tenants.findById(tenant.id);
      return tenant.db.run(async (tx) => {
        const { lines, pdv } = await checkOrder(tx, tenant, ctx, input);
        const bill = computeBill({ items: lines, ...newBill(settings, pdv, input) });
        return { lines: bill.items, total: bill.total };
      });
    },

    /** Creates the order and announces it; `create` and the wallet checkout choose the view. */
    async insert(
      tenant: TenantRef,
      ctx: TenantCtx | null,
      input: CreateOrderInput,
      /**
       * `source` set by the caller (a wallet checkout), and `onInsert`, run in the order's transaction
       * once the row exists (the wallet checkout records its approved payment there). `at`: the instant
       * it was taken, instead of now (a past sale of the demo seed: its day's number, `createdAt`).
       */
      opts: { source?: 'wallet'; onInsert?: (tx: TenantTx, order: OrderRow) => Promise<OrderRow>; at?: Date; claim?: OrderClaim } = {},
    ): Promise<OrderRow> {
      const guest = ctx === null;
      const day = opts.at ? localDate(opts.at, tenant.timezone) : today(tenant);
      const settings = await tenants.findById(tenant.id);
      // First transaction: the checks, then the daily number, last, so that the counter row is
      // locked for that statement and the commit only, not for the whole order. A number is
      // skipped only when the insert below fails (a lost race for a tab, a database error).
      const { lines, pdv, table, staffNumber } = await tenant.db.run(async (tx) => {
        const { lines, pdv, table } = await checkOrder(tx, tenant, ctx, input);
        const staffNumber = guest ? null : staffOrderNumber(day, await q.nextDailySequence(tx.db, tx.tenantId, day));
        return { lines, pdv, table, staffNumber };
      });
      const id = newId();
      const billSettings = newBill(settings, pdv, input);
      const bill = computeBill({ items: lines, ...billSettings });
      // A PIX order shows its BR Code at once (the guest pays from the phone; the cashier shows the QR).
      const pix = input.paymentMethod === 'pix' ? await pixCharge(settings, pdv, id, bill.total) : null;

      for (let attempt = 0; ; attempt++) {
        try {
          const order = await tenant.db.run(async (tx) => {
            const openTab = table && input.orderType === 'dine_in' ? await q.findOpenTab(tx.db, tx.tenantId, table._id) : null;
            // A dine-in order on a table with an open tab (staff's or a guest's) is a new round of it; a
            // prepaid online order stays an order of its own.
            if (openTab && !opts.onInsert) {
              const joined = await joinTab(tx, openTab.id, lines, settings);
              await opts.claim?.(tx.db, joined.id, 200);
              return joined;
            }
            const isTab = Boolean(table && input.orderType === 'dine_in' && !openTab);
            const orderNumber = staffNumber ?? guestNumber(day);
            const row = await q.insertOrder(tx.db, {
              tenantId: tx.tenantId,
              id,
              ...(pix ?? {}),
              orderNumber,
              source: opts.source ?? (guest ? 'guest' : 'staff'),
              type: input.orderType,
              tableId: table?._id ?? null,
              pdvId: pdv?._id ?? null,
              // The cashier shift open at its PDV (held until this transaction ends, so a close counts it or it has none).
              shiftId: pdv ? await shifts.openShiftOf(tx, pdv._id) : null,
              ...billSettings,
              ...bill,
              customerName: input.customerName ?? null,
              customerPhone: input.customerPhone ?? null,
              customerEmail: input.customerEmail?.toLowerCase() ?? null,
              paymentMethod: input.paymentMethod ?? null,
              isTab,
              createdBy: ctx?.user.id ?? null,
              ...(opts.at ? { createdAt: opts.at, updatedAt: opts.at } : {}),
            });
            if (isTab) await tables.setStatus(tx, table!._id, 'occupied');
            // A seated reservation of the table gets its tab (through the tables module's tab events).
            if (isTab) await tables.tabEvent(tx, { kind: 'opened', tableId: table!._id, orderId: row.id });
            const created = opts.onInsert ? await opts.onInsert(tx, row) : row;
            await opts.claim?.(tx.db, created.id, 201);
            await orderEvent(tx, 'order.created', created, null);
            return created;
          });
          await announce(tenant.db, order, joinedTabs.has(order) ? 'orderUpdate' : 'newOrder');
          return order;
        } catch (err) {
          // Two first orders on a free table at once: the one that lost the tab joins it.
          if (isUniqueViolation(err, q.OPEN_TAB_KEY) && attempt < 3) continue;
          if (guest && attempt < 3 && isUniqueViolation(err, q.NUMBER_KEY)) continue;
          throw err;
        }
      }
    },

    /**
     * An order from a delivery platform (the delivery module): `lines` already matched to menu items and
     * priced as the platform sold them; a takeout order without PDV or table, `source: marketplace`. One
     * order per (provider, externalId): a second call, or one that loses the race, answers the existing
     * order with `created: false`. `onInsert` runs in the order's transaction (the payments module records
     * the platform's prepaid payment there). Announced to the kitchen as `newOrder`.
     */
    async insertMarketplace(
      tenant: TenantRef,
      input: {
        provider: DeliveryProvider;
        externalId: string;
        lines: OrderLine[];
        customerName: string | null;
        customerPhone: string | null;
        customerEmail: string | null;
        details: MarketplaceDetails;
      },
      opts: { onInsert?: (tx: TenantTx, order: OrderRow) => Promise<OrderRow> } = {},
    ): Promise<{ order: OrderRow; created: boolean }> {
      if (!input.lines.length) throw new Invalid('items', 'an order needs at least one line');
      const bill = computeBill({ items: input.lines, orderDiscount: null, serviceChargeBp: 0, serviceChargeRemoved: false, covers: 0, coverChargeUnit: 0 });
      const day = today(tenant);
      for (let attempt = 0; ; attempt++) {
        try {
          const result = await tenant.db.run(async (tx) => {
            const existing = await q.findByExternal(tx.db, tx.tenantId, input.provider, input.externalId);
            if (existing) return { order: existing, created: false };
            const row = await q.insertOrder(tx.db, {
              tenantId: tx.tenantId,
              id: newId(),
              orderNumber: guestNumber(day),
              source: 'marketplace',
              type: 'takeout',
              tableId: null,
              pdvId: null,
              orderDiscount: null,
              serviceChargeBp: 0,
              serviceChargeRemoved: false,
              covers: 0,
              coverChargeUnit: 0,
              ...bill,
              customerName: input.customerName,
              customerPhone: input.customerPhone,
              customerEmail: input.customerEmail?.toLowerCase() ?? null,
              paymentMethod: null,
              isTab: false,
              createdBy: null,
              externalProvider: input.provider,
              externalId: input.externalId,
              marketplace: input.details,
            });
            const created = opts.onInsert ? await opts.onInsert(tx, row) : row;
            await orderEvent(tx, 'order.created', created, null);
            return { order: created, created: true };
          });
          if (result.created) await announce(tenant.db, result.order, 'newOrder');
          return result;
        } catch (err) {
          if (isUniqueViolation(err, q.EXTERNAL_KEY)) {
            const existing = await tenant.db.run((tx) => q.findByExternal(tx.db, tx.tenantId, input.provider, input.externalId));
            if (existing) return { order: existing, created: false };
          }
          if (attempt < 3 && isUniqueViolation(err, q.NUMBER_KEY)) continue;
          throw err;
        }
      }
    },

    /**
     * Orders of a period (default today), newest first, a page at a time. Without `from`, orders still
     * open from earlier days are included too: a tab that crossed midnight is not hidden from the floor.
     */
    async list(ctx: TenantCtx, query: { status?: OrderStatus; from?: string; to?: string; page?: number; limit?: number; pdvIds?: string[] }) {
      const from = query.from ?? today(ctx.tenant);
      const to = query.to ?? from;
      if (to < from) throw new Invalid('to', 'must not be before from');
      if ((Date.parse(to) - Date.parse(from)) / 86_400_000 > MAX_LIST_DAYS) throw new Invalid('to', `the period is at most ${MAX_LIST_DAYS} days`);
      const filter = Boolean(query.pdvIds?.length);
      const limit = query.limit ?? 200;
      const { rows, total } = await ctx.db.run(async (tx) => {
        const scope = await branches.pdvScope(tx, ctx.branchScope);
        return q.listOrders(tx.db, tx.tenantId, {
          status: query.status,
          from: startOfLocalDay(from, ctx.tenant.timezone),
          to: startOfLocalDay(addDays(to, 1), ctx.tenant.timezone),
          openBefore: query.from === undefined,
          limit,
          offset: ((query.page ?? 1) - 1) * limit,
          pdvIds: filter ? query.pdvIds!.filter((p) => !scope || scope.includes(p)) : scope,
          // A filter by PDVs means those PDVs only; the scope alone also shows tenant-wide orders.
          withoutPdv: !filter,
        });
      });
      return { orders: rows.map(toOrderView), total };
    },

    async track(t: TenantDb, orderNumber: string): Promise<TrackedOrderView> {
      const order = await service.findByNumber(t, orderNumber);
      if (!order) throw new NotFound('Order');
      return toTrackedView(order);
    },

    /** An order of the tenant by its number, or null (the public tracking room finds its order with it). */
    findByNumber: (t: TenantDb, orderNumber: string): Promise<OrderRow | null> =>
      t.run((tx) => q.findOrderByNumber(tx.db, tx.tenantId, orderNumber)),

    openTab: (ctx: TenantCtx, tableId: string): Promise<OrderView | null> =>
      ctx.db.run(async (tx) => {
        if (!(await tables.findById(tx, tableId))) throw new NotFound('Table');
        const order = await q.findActiveOnTable(tx.db, tx.tenantId, tableId);
        if (!order) return null;
        await assertInScope(tx, ctx, order.pdvId);
        return toOrderView(order);
      }),

    /** Adds a round to an open order; the row lock keeps two waiters from losing each other's lines. */
    async addItems(ctx: TenantCtx, id: string, items: LineInput[]): Promise<OrderView> {
      // The tenants table is read with the shared handle: before the tenant's transaction.
      const tenant = await tenants.findById(ctx.tenantId);
      const order = await ctx.db.run(async (tx) => {
        // Priced before the lock: the menu reads do not hold the order.
        const added = await priceLines(tx, items);
        return addRound(tx, await load(tx, ctx, id, true), added, tenant);
      });
      await announce(ctx.db, order, 'orderUpdate');
      return toOrderView(order);
    },

    async closeTab(ctx: TenantCtx, id: string, paymentMethod?: OrderRow['paymentMethod']): Promise<OrderView> {
      const order = await ctx.db.run(async (tx) => {
        const current = await load(tx, ctx, id, true);
        if (!isOpen(current.status)) throw new Conflict(`Order ${current.orderNumber} is already ${current.status}`, 'order_closed');
        const closed = await q.updateOrder(tx.db, tx.tenantId, id, {
          status: 'delivered',
          closedAt: clock.now(),
          ...(paymentMethod ? { paymentMethod } : {}),
        });
        await releaseTable(tx, closed);
        await orderEvent(tx, 'order.statusChanged', closed, current.status);
        return stockChanged(tx, closed);
      });
      await announce(ctx.db, order, 'orderUpdate');
      return toOrderView(order);
    },

    /** `at`: the instant of the change, instead of now (a past sale of the demo seed; no route passes it). */
    async setStatus(ctx: TenantCtx, id: string, status: OrderStatus, { at }: { at?: Date } = {}): Promise<OrderView> {
      const now = at ?? clock.now();
      let changed = false;
      const order = await ctx.db.run(async (tx) => {
        const current = await load(tx, ctx, id, true);
        if (current.status === status) return current;
        if (status === 'cancelled') {
          if (current.paymentStatus === 'processing') throw paymentInProgress(current);
          if (current.amountPaid > 0 && !(REFUND_ROLES as readonly string[]).includes(ctx.role)) {
            throw new Forbidden('Cancelling an order with money taken refunds it: an admin or branch manager does it', 'refund_role');
          }
        }
        if (!canMove(current.status, status)) {
          throw new Conflict(`An order cannot move from ${current.status} to ${status}`, 'invalid_transition', [
            { field: 'status', message: `${current.status} -> ${status}` },
          ]);
        }
        changed = true;
        const change = { from: current.status, to: status, at: now.toISOString(), by: ctx.user.id, correction: isCorrection(current.status, status) };
        let updated = await q.updateOrder(tx.db, tx.tenantId, id, {
          status,
          statusHistory: [...current.statusHistory, change],
          ...(isOpen(status) ? {} : { closedAt: now }),
        });
        if (status === 'cancelled' && updated.amountPaid > 0) for (const listener of cancelListeners) updated = await listener(tx, updated);
        if (!isOpen(status)) await releaseTable(tx, updated);
        await orderEvent(tx, 'order.statusChanged', updated, current.status);
        return stockChanged(tx, updated);
      });
      if (changed) await announce(ctx.db, order, 'orderUpdate');
      return toOrderView(order);
    },

    /**
     * Splits a bill into child orders that reference the parent's number: by lines (each part names
     * line indexes and quantities, covering every unit exactly once) or into N equal parts (cents
     * spread so the parts add up to the total exactly).
     */
    async split(ctx: TenantCtx, id: string, body: { parts?: number; lines?: { line: number; quantity: number }[][] }) {
      if ((body.parts === undefined) === (body.lines === undefined)) throw new InvalidRequest('Give either parts (equal split) or lines (split by items)');
      const result = await ctx.db.run(async (tx) => {
        const parent = await load(tx, ctx, id, true);
        if (parent.status === 'cancelled') throw new Conflict('A cancelled order cannot be split', 'order_closed');
        if (parent.isSplitBill) throw new Conflict('A part of a split bill cannot be split again', 'already_split');
        if (parent.splitAt || (await q.countSplitChildren(tx.db, tx.tenantId, parent.orderNumber)) > 0) {
          throw new Conflict(`Order ${parent.orderNumber} is already split`, 'already_split');
        }
        if (parent.paymentStatus === 'processing') throw paymentInProgress(parent);
        // Money taken on the whole bill cannot be shared out among parts afterwards.
        if (parent.amountPaid > 0) throw new Conflict(`Order ${parent.orderNumber} has approved payments: it cannot be split`, 'already_paid');
        let parts;
        if (body.parts !== undefined) {
          parts = splitEqually(parent, body.parts);
        } else {
          // taken[p][l]: thousandths of line l's units that part p takes.
          const taken = body.lines!.map((part, p) => {
            const row = parent.items.map(() => 0);
            part.forEach(({ line, quantity }, j) => {
              const source = parent.items[line];
              if (!source) throw new Invalid(`lines.${p}.${j}.line`, `order has no line ${line}`);
              if (source.unit === 'kg' ? !hasGramPrecision(quantity) : !Number.isInteger(quantity)) {
                throw new Invalid(`lines.${p}.${j}.quantity`, source.unit === 'kg' ? 'has at most 3 decimals (kilograms)' : 'must be a whole number');
              }
              row[line] += milli(quantity);
            });
            return row;
          });
          parent.items.forEach((l, line) => {
            const n = taken.reduce((sum, row) => sum + row[line], 0);
            if (n !== milli(billedQuantity(l))) {
              throw new Invalid('lines', `line ${line} (${l.name}) has ${billedQuantity(l)} units; the parts take ${n / 1000}`);
            }
          });
          // Lines written before the bill had amounts get them now.
          parts = splitByLines({ ...parent, items: billOf(parent, parent.items).items }, taken);
        }
        const day = today(ctx.tenant);
        const children: OrderRow[] = [];
        for (const part of parts) {
          children.push(
            await q.insertOrder(tx.db, {
              tenantId: tx.tenantId,
              id: newId(),
              orderNumber: staffOrderNumber(day, await q.nextDailySequence(tx.db, tx.tenantId, day)),
              source: 'split',
              status: parent.status,
              type: parent.type,
              tableId: parent.tableId,
              pdvId: parent.pdvId,
              ...part,
              serviceChargeBp: parent.serviceChargeBp,
              serviceChargeRemoved: parent.serviceChargeRemoved,
              customerName: parent.customerName,
              isSplitBill: true,
              splitBillReference: parent.orderNumber,
              createdBy: ctx.user.id,
            }),
          );
        }
        for (const child of children) await orderEvent(tx, 'order.created', child, null);
        // The parent is closed for payments and edits from now on: its parts carry the bill.
        const closed = await stockChanged(tx, await q.updateOrder(tx.db, tx.tenantId, parent.id, { splitAt: clock.now() }));
        return { parent: closed, children };
      });
      return { parent: toOrderView(result.parent), parts: result.children.map(toOrderView) };
    },

    /**
     * A discount on a line (`line`) or on the whole order, replacing the one it had. Above the tenant's
     * limit only a manager may give it (403 discount_limit).
     */
    setDiscount: (ctx: TenantCtx, id: string, body: { line?: number; kind: Discount['kind']; value: number; reason: string }) =>
      editBill(ctx, id, (o, { discountLimitBp }) => {
        const discount = discountOf(ctx, body);
        const priced = billOf(o, o.items).items;
        let base: number;
        if (body.line !== undefined) {
          if (!priced[body.line]) throw new Invalid('line', `order has no line ${body.line}`);
          base = priced[body.line].amount ?? 0;
        } else {
          base = priced.reduce((sum, l) => sum + (l.amount ?? 0) - (l.discountAmount ?? 0), 0);
        }
        const aboveLimit = !withinLimit(discount, base, discountLimitBp);
        if (aboveLimit && !isManager(ctx)) {
          throw new Forbidden(`A discount above ${discountLimitBp / 100}% needs an admin or branch manager`, 'discount_limit');
        }
        const adjustment = { kind: 'discount' as const, detail: describe(discount), reason: discount.reason };
        const audited = aboveLimit
          ? { action: 'order.discount_above_limit' as const, details: { line: body.line ?? null, kind: discount.kind, value: discount.value, baseCents: base, limitPercent: discountLimitBp / 100, reason: discount.reason } }
          : undefined;
        if (body.line === undefined) return { fields: { orderDiscount: discount }, adjustment, audited };
        return { items: o.items.map((l, i) => (i === body.line ? { ...l, discount } : l)), adjustment: { ...adjustment, line: body.line }, audited };
      }),

    /** Takes off the discount of a line (`line`) or of the order; nothing to take off changes nothing. */
    removeDiscount: (ctx: TenantCtx, id: string, line?: number) =>
      editBill(ctx, id, (o) => {
        if (line === undefined) {
          if (!o.orderDiscount) return null;
          return { fields: { orderDiscount: null }, adjustment: { kind: 'discount_removed', detail: describe(o.orderDiscount) } };
        }
        if (!o.items[line]) throw new Invalid('line', `order has no line ${line}`);
        const had = o.items[line].discount;
        if (!had) return null;
        const items = o.items.map((l, i) => {
          if (i !== line) return l;
          const { discount: _d, discountAmount: _a, ...rest } = l;
          return rest;
        });
        return { items, adjustment: { kind: 'discount_removed', line, detail: describe(had) } };
      }),

    /**
     * Voids units of a line: they stay on the line as `voidedQuantity` and leave the bill. Once the
     * kitchen has accepted the order (any status after pending), only a manager may (403 void_role).
     */
    voidLine: (ctx: TenantCtx, id: string, body: { line: number; quantity: number; reason: string }) =>
      editBill(ctx, id, (o) => {
        const line = o.items[body.line];
        if (!line) throw new Invalid('line', `order has no line ${body.line}`);
        if (line.unit === 'kg' ? !hasGramPrecision(body.quantity) : !Number.isInteger(body.quantity)) {
          throw new Invalid('quantity', line.unit === 'kg' ? 'has at most 3 decimals (kilograms)' : 'must be a whole number');
        }
        const left = billedQuantity(line);
        if (milli(body.quantity) > milli(left)) throw new Invalid('quantity', `line ${body.line} (${line.name}) has ${left} left`);
        if (o.status !== 'pending' && !isManager(ctx)) {
          throw new Forbidden('The kitchen has this order: voiding an item needs an admin or branch manager', 'void_role');
        }
        const voidedQuantity = (milli(line.voidedQuantity ?? 0) + milli(body.quantity)) / 1000;
        const detail = `${body.quantity} x ${line.name}`;
        // Only a manager may void once the kitchen has the order: that void is audited.
        const audited =
          o.status !== 'pending' ? { action: 'order.void_after_kitchen' as const, details: { line: body.line, detail, status: o.status, reason: body.reason.trim() } } : undefined;
        return {
          items: o.items.map((l, i) => (i === body.line ? { ...l, voidedQuantity } : l)),
          adjustment: { kind: 'void', line: body.line, detail, reason: body.reason.trim() },
          audited,
        };
      }),

    /** Removes or restores the service charge (optional for the customer), and/or sets the covers of a dine-in bill. */
    updateBill(ctx: TenantCtx, id: string, body: { serviceChargeRemoved?: boolean; covers?: number; reason?: string }) {
      const { serviceChargeRemoved: removed, covers, reason } = body;
      if (removed === undefined && covers === undefined) throw new InvalidRequest('Give serviceChargeRemoved or covers');
      return editBill(ctx, id, (o) => {
        if (covers !== undefined && o.type !== 'dine_in') throw new Invalid('covers', 'is for dine_in orders');
        const adjustment: Omit<BillAdjustment, 'by' | 'at'>[] = [];
        if (removed !== undefined && removed !== o.serviceChargeRemoved) {
          adjustment.push({ kind: 'service_charge', detail: removed ? 'removed' : 'restored', ...(reason ? { reason } : {}) });
        }
        if (covers !== undefined && covers !== o.covers) adjustment.push({ kind: 'covers', detail: `${o.covers} -> ${covers}`, ...(reason ? { reason } : {}) });
        if (adjustment.length === 0) return null;
        return { fields: { serviceChargeRemoved: removed ?? o.serviceChargeRemoved, covers: covers ?? o.covers }, adjustment };
      });
    },

    /**
     * For the payments service: the order, locked, after the caller's scope check. Pass the caller's
     * `TenantTx` as `t` to lock it in that transaction.
     */
    loadForUpdate: (t: TenantDb, ctx: TenantCtx, id: string): Promise<OrderRow> => t.run((tx) => load(tx, ctx, id, true)),

    /** A PIX charge for what is due on the order now (the cashier shows it; the guest's order got one at checkout). */
    async pixOf(ctx: TenantCtx, id: string) {
      const order = await service.findVisible(ctx.db, ctx, id);
      const due = amountDue(order);
      if (order.status === 'cancelled' || order.splitAt || due <= 0) throw new Conflict(`Order ${order.orderNumber} has nothing to pay`, 'nothing_due');
      const pdv = order.pdvId ? await branches.findPdv(ctx.db, order.pdvId) : null;
      const pix = await pixCharge(await tenants.findById(ctx.tenantId), pdv, order.id, due);
      if (!pix) throw new InvalidRequest('No PIX key is set for this restaurant or its point of sale', 'pix_not_configured');
      return { ...pix, amount: due, txid: order.id };
    },

    /** An order the caller may see (branch scope checked), not locked; `NotFound` otherwise. */
    findVisible: (t: TenantDb, ctx: TenantCtx, id: string): Promise<OrderRow> => t.run((tx) => load(tx, ctx, id, false)),

    /** For the payments module: the order locked in the caller's transaction, without a scope check (webhooks, jobs); null when missing. */
    lockById: (tx: TenantTx, id: string): Promise<OrderRow | null> => q.findOrder(tx.db, tx.tenantId, id, { lock: true }),

    /** For the accounting module: an order read (not locked) in the caller's transaction, without a scope check (jobs); null when missing. */
    findById: (tx: TenantTx, id: string): Promise<OrderRow | null> => q.findOrder(tx.db, tx.tenantId, id),

    /** For the payments module: a payment can start on this (locked) order, or the Conflict that says why not. */
    assertPayable(order: OrderRow) {
      if (order.status === 'cancelled') throw new Conflict(`Order ${order.orderNumber} is cancelled`, 'order_closed');
      if (order.splitAt) throw splitClosed(order);
      if (order.paymentStatus === 'processing') throw paymentInProgress(order);
      if (amountDue(order) <= 0) throw new Conflict(`Order ${order.orderNumber} is already paid`, 'already_paid');
    },

    /**
     * For the payments module: writes the payment fields its ledger derived, in the caller's transaction
     * (the order locked by it). A bill that becomes paid in full gets a receipt link for RECEIPT_TTL_MS.
     */
    applyPayment(tx: TenantTx, order: OrderRow, fields: Partial<OrderRow>): Promise<OrderRow> {
      const becomesPaid = fields.paymentStatus === 'approved' && order.paymentStatus !== 'approved';
      const now = clock.now();
      const receipt = becomesPaid ? { receiptToken: randomBytes(16).toString('hex'), receiptExpiresAt: new Date(now.getTime() + RECEIPT_TTL_MS) } : {};
      return q.updateOrder(tx.db, tx.tenantId, order.id, { ...fields, ...receipt }).then((row) => stockChanged(tx, row));
    },

    /** An order by its receipt token, or null. */
    findByReceipt: (t: TenantDb, token: string): Promise<OrderRow | null> => t.run((tx) => q.findByReceiptToken(tx.db, tx.tenantId, token)),

    /** The tracking room's `paymentUpdate` of an order; null for staff orders. */
    trackedPayment: toTrackedPayment,

    /** `listener` runs inside the transaction that changed the bill of an order with payments. */
    onBillChange(listener: BillListener) {
      billListeners.push(listener);
    },

    /** `listener` runs inside the transaction of every change of an order's lines or state that may move stock (see `StockListener`). */
    onStockChange(listener: StockListener) {
      stockListeners.push(listener);
    },

    /** `listener` runs inside the transaction that creates an order or changes its status (see `OrderEventListener`). */
    onOrderEvent(listener: OrderEventListener) {
      eventListeners.push(listener);
    },

    /** `listener` runs inside the transaction that cancels an order with money taken. */
    onCancelWithPayments(listener: CancelListener) {
      cancelListeners.push(listener);
    },
  };
  return service;
}

export type OrdersService = ReturnType<typeof ordersService>;

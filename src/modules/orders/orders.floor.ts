import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { TenantRow } from '../../db/schema/tenants.js';
import type { BillAdjustment, OrderLine, OrderRow } from '../../db/schema/orders.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Clock } from '../../platform/clock.js';
import { Conflict, Invalid, InvalidRequest, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import type { TablesService } from '../tables/index.js';
import type { TenantsService } from '../tenants/index.js';
import * as q from './orders.queries.js';
import { isOpen, mergeLines } from './orders.rules.js';
import { billedQuantity, billOf, type BillFields, hasGramPrecision, milli } from './orders.bill.js';
import type { OrderView } from './orders.schemas.js';

/**
 * Running the floor (issue 11): moving a tab to another table, merging two tabs, moving lines between
 * tabs. Each is one transaction on locked rows, recorded in the orders' `adjustments` and announced to
 * the kitchen like every other change. The orders service hands in its own building blocks (the scoped
 * load, the bill rewrite with its payment listeners, the table release, the kitchen announcement).
 */
export interface FloorNeeds {
  clock: Clock;
  tables: TablesService;
  tenants: Pick<TenantsService, 'findById'>;
  /** The order in the caller's transaction (locked when `lock`), after the branch scope check; `NotFound` otherwise. */
  load(tx: TenantTx, ctx: TenantCtx, id: string, lock?: boolean): Promise<OrderRow>;
  /** Writes a recomputed bill (409 `would_overpay` below what was paid) and lets the payments module re-derive its fields. */
  rewrite(tx: TenantTx, current: OrderRow, bill: BillFields, tenant: TenantRow | null, extra?: Partial<OrderRow>): Promise<OrderRow>;
  /** 409 for a cancelled or split order, a part of a split, a payment in flight. */
  assertBillEditable(order: OrderRow): void;
  /** Frees the order's table once no other open dine-in order is left on it. */
  releaseTable(tx: TenantTx, order: OrderRow): Promise<void>;
  announce(t: TenantDb, order: OrderRow, event: 'orderUpdate'): Promise<void>;
  /** Tells the stock listeners an order's lines or state changed (the merged order is cancelled). */
  stockChanged(tx: TenantTx, order: OrderRow): Promise<OrderRow>;
  /** Tells the order-event listeners (the merged order is cancelled). */
  orderEvent(tx: TenantTx, type: 'order.statusChanged', order: OrderRow, previousStatus: OrderRow['status']): Promise<void>;
  view(order: OrderRow): OrderView;
}

type Change = Omit<BillAdjustment, 'by' | 'at'>;

const closed = (o: OrderRow) => new Conflict(`Order ${o.orderNumber} is ${o.status}`, 'order_closed');
const tableInUse = (tableNumber: number | string, orderNumber?: string) =>
  new Conflict(
    orderNumber ? `Order ${orderNumber} is open on table ${tableNumber}: merge the tabs instead` : `Table ${tableNumber} has an open order`,
    'table_in_use',
  );
const fmt = (quantity: number, line: OrderLine) => `${quantity}${line.unit === 'kg' ? ' kg' : ''} x ${line.name}`;

export function floorOperations(needs: FloorNeeds) {
  const { clock, tables, tenants, load, rewrite, assertBillEditable, releaseTable, announce, stockChanged, orderEvent, view } = needs;
  // The reservations module asks, through the tables module, which order is open on a table (to seat a party at its tab).
  tables.setOrderLookup(async (tx, tableId) => {
    const o = await q.findActiveOnTable(tx.db, tx.tenantId, tableId);
    return o ? { id: o.id, orderNumber: o.orderNumber, isTab: o.isTab } : null;
  });

  const stamp = (ctx: TenantCtx) => ({ by: ctx.user.id, at: clock.now().toISOString() });
  const record = (o: OrderRow, ctx: TenantCtx, changes: Change[]) => [...o.adjustments, ...changes.map((c) => ({ ...c, ...stamp(ctx) }))];

  /** Open, and its bill editable (not split, no payment in flight): what every floor operation asks of an order. */
  function assertWorkable(o: OrderRow) {
    if (!isOpen(o.status)) throw closed(o);
    assertBillEditable(o);
  }

  /** Two orders locked in the order of their ids (two operations on the same pair never wait on each other), each scope-checked. */
  async function loadPair(tx: TenantTx, ctx: TenantCtx, id: string, otherId: string, field: string) {
    if (id === otherId) throw new Invalid(field, 'is this order');
    const [first, second] = [id, otherId].sort();
    const rows = new Map<string, OrderRow>();
    for (const key of [first, second]) rows.set(key, await load(tx, ctx, key, true));
    return { self: rows.get(id)!, other: rows.get(otherId)! };
  }

  const tableNumber = async (tx: TenantTx, tableId: string | null) => (tableId ? ((await tables.findById(tx, tableId))?.number ?? '?') : null);

  return {
    /**
     * Moves an open dine-in order to a free table: the old table is freed (once no other open order is
     * on it), the new one occupied, in one transaction. The target is locked before the order moves onto
     * it and checked again after, so two moves to one free table cannot both win (the tab's unique index
     * catches two tabs even earlier).
     */
    async moveTable(ctx: TenantCtx, id: string, tableId: string): Promise<OrderView> {
      let order: OrderRow;
      try {
        order = await ctx.db.run(async (tx) => {
          const current = await load(tx, ctx, id, true);
          if (current.type !== 'dine_in') throw new InvalidRequest(`Order ${current.orderNumber} is a ${current.type} order: only a dine-in order sits at a table`, 'not_dine_in');
          if (!current.tableId) throw new InvalidRequest(`Order ${current.orderNumber} has no table to move from`, 'no_table');
          assertWorkable(current);
          const target = await tables.findById(tx, tableId);
          if (!target) throw new NotFound('Table');
          if (target._id === current.tableId) throw new Invalid('tableId', `is already the table of order ${current.orderNumber}`);
          // The target locked before the order points at it: a foreign key's share lock taken first would let two moves deadlock.
          await tables.lock(tx, tableId);
          const busy = await q.findActiveOnTable(tx.db, tx.tenantId, tableId);
          if (busy) throw tableInUse(target.number, busy.orderNumber);
          const from = await tableNumber(tx, current.tableId);
          const moved = await q.updateOrder(tx.db, tx.tenantId, id, {
            tableId,
            adjustments: record(current, ctx, [{ kind: 'table_moved', detail: `table ${from} -> table ${target.number}` }]),
          });
          // Order, then table, as a new tab takes them; checked again with the order on it.
          if ((await q.countOpenOnTable(tx.db, tx.tenantId, tableId, id)) > 0) throw tableInUse(target.number);
          await tables.setStatus(tx, tableId, 'occupied');
          await releaseTable(tx, current);
          await tables.tabEvent(tx, { kind: 'moved', orderId: id, from: current.tableId, to: tableId });
          return moved;
        });
      } catch (err) {
        if (isUniqueViolation(err, q.OPEN_TAB_KEY)) throw tableInUse((await tables.findById(ctx.db, tableId))?.number ?? tableId);
        throw err;
      }
      await announce(ctx.db, order, 'orderUpdate');
      return view(order);
    },

    /**
     * Merges the open dine-in order `fromId` into `id`: its billed lines (with their line discounts) and
     * covers join this bill, recomputed; it ends `cancelled` (nothing to refund: an order with money taken,
     * or with an order discount, is refused) and its table is freed. Both orders record a `merged` adjustment.
     */
    async merge(ctx: TenantCtx, id: string, fromId: string): Promise<{ from: OrderView; to: OrderView }> {
      const settings = await tenants.findById(ctx.tenantId);
      const { from, to } = await ctx.db.run(async (tx) => {
        const { self: into, other: source } = await loadPair(tx, ctx, id, fromId, 'orderId');
        for (const o of [into, source]) {
          if (o.type !== 'dine_in') throw new InvalidRequest(`Order ${o.orderNumber} is a ${o.type} order: only dine-in tabs merge`, 'not_dine_in');
          assertWorkable(o);
        }
        if (source.amountPaid > 0) {
          throw new Conflict(`Order ${source.orderNumber} has ${source.amountPaid} cents paid: merge it the other way, or refund it first`, 'already_paid');
        }
        if (source.orderDiscount) {
          throw new Conflict(`Order ${source.orderNumber} has a discount on the whole order: take it off before merging`, 'order_discount');
        }
        const carried = source.items
          .filter((l) => milli(billedQuantity(l)) > 0)
          .map((line) => {
            // The billed units of the line as it was (its voided units stay behind on the cancelled order).
            const { voidedQuantity: _v, amount: _a, discountAmount: _d, ...l } = line;
            return { ...l, quantity: billedQuantity(line) };
          });
        const covers = into.covers + source.covers;
        const [intoTable, sourceTable] = [await tableNumber(tx, into.tableId), await tableNumber(tx, source.tableId)];
        const now = clock.now();
        const cancelled = await q.updateOrder(tx.db, tx.tenantId, source.id, {
          status: 'cancelled',
          closedAt: now,
          statusHistory: [...source.statusHistory, { from: source.status, to: 'cancelled', at: now.toISOString(), by: ctx.user.id, correction: false }],
          adjustments: record(source, ctx, [{ kind: 'merged', detail: `into order ${into.orderNumber}${intoTable ? ` (table ${intoTable})` : ''}` }]),
        });
        const detail = `order ${source.orderNumber}${sourceTable ? ` (table ${sourceTable})` : ''}: ${carried.length} line(s), ${source.covers} cover(s)`;
        const merged = await rewrite(tx, into, billOf({ ...into, covers }, mergeLines(into.items, carried)), settings, {
          covers,
          adjustments: record(into, ctx, [{ kind: 'merged', detail }]),
        });
        await releaseTable(tx, cancelled);
        await stockChanged(tx, cancelled);
        await orderEvent(tx, 'order.statusChanged', cancelled, source.status);
        await tables.tabEvent(tx, { kind: 'merged', orderId: source.id, into: into.id });
        return { from: cancelled, to: merged };
      });
      await announce(ctx.db, from, 'orderUpdate');
      await announce(ctx.db, to, 'orderUpdate');
      return { from: view(from), to: view(to) };
    },

    /**
     * Moves units of lines of `id` to the open order `toId`. The source lines keep their place with a
     * smaller `quantity` (not `voidedQuantity`: the units were not voided, they are billed elsewhere; the
     * `lines_moved` adjustment tells where); the moved units join the target as lines at the same unit
     * price, with their options and notes (a line discount stays on the source line). Both bills are
     * recomputed; the source may not drop below what was paid on it (409 `would_overpay`).
     */
    async moveLines(ctx: TenantCtx, id: string, body: { toOrderId: string; lines: { line: number; quantity: number }[] }) {
      const settings = await tenants.findById(ctx.tenantId);
      const { from, to } = await ctx.db.run(async (tx) => {
        const { self: source, other: target } = await loadPair(tx, ctx, id, body.toOrderId, 'toOrderId');
        for (const o of [source, target]) assertWorkable(o);
        // Thousandths taken of each line, in the order the lines are first named.
        const taken = new Map<number, number>();
        body.lines.forEach(({ line, quantity }, i) => {
          const l = source.items[line];
          if (!l) throw new Invalid(`lines.${i}.line`, `order has no line ${line}`);
          if (l.unit === 'kg' ? !hasGramPrecision(quantity) : !Number.isInteger(quantity)) {
            throw new Invalid(`lines.${i}.quantity`, l.unit === 'kg' ? 'has at most 3 decimals (kilograms)' : `must be a whole number: ${l.name} is sold by the unit`);
          }
          const total = (taken.get(line) ?? 0) + milli(quantity);
          if (total > milli(billedQuantity(l))) throw new Invalid(`lines.${i}.quantity`, `line ${line} (${l.name}) has ${billedQuantity(l)} left`);
          taken.set(line, total);
        });
        const moved: OrderLine[] = [];
        const out: Change[] = [];
        const into: Change[] = [];
        for (const [line, n] of taken) {
          const { menuItem, name, price, unit, notes, allergens, modifiers } = source.items[line];
          const quantity = n / 1000;
          moved.push({
            menuItem, name, price, quantity,
            ...(unit ? { unit } : {}), ...(notes ? { notes } : {}), ...(allergens ? { allergens } : {}), ...(modifiers ? { modifiers } : {}),
          });
          out.push({ kind: 'lines_moved', line, detail: `${fmt(quantity, source.items[line])} -> order ${target.orderNumber}` });
          into.push({ kind: 'lines_moved', detail: `${fmt(quantity, source.items[line])} <- order ${source.orderNumber}` });
        }
        const items = source.items.map((l, i) => (taken.has(i) ? { ...l, quantity: (milli(l.quantity) - taken.get(i)!) / 1000 } : l));
        const from = await rewrite(tx, source, billOf(source, items), settings, { adjustments: record(source, ctx, out) });
        const to = await rewrite(tx, target, billOf(target, mergeLines(target.items, moved)), settings, { adjustments: record(target, ctx, into) });
        return { from, to };
      });
      await announce(ctx.db, from, 'orderUpdate');
      await announce(ctx.db, to, 'orderUpdate');
      return { from: view(from), to: view(to) };
    },
  };
}

import type { QuantityUnit, StockUnit } from '../../db/schema/inventory.js';
import type { OrderLine, OrderRow } from '../../db/schema/orders.js';
import type { TenantTx } from '../../db/scopes.js';
import type { Deps } from '../../platform/deps.js';
import { NotFound } from '../../platform/domain-errors.js';
import { fromMilli, milli } from '../../platform/quantity.js';
import { billedQuantity } from '../orders/index.js';
import * as q from './recipes.queries.js';
import { InsufficientStock, type StockCore } from './stock.js';
import { convertible, toStockMilli } from './units.js';

/**
 * Deduction on sale (docs/decisions.md, "Inventory: recipes and deduction on sale"). Told of every
 * change of an order's lines or state, inside the order's transaction, it computes what the order
 * should have taken out of stock now (its target, per inventory item and place) and brings what it
 * took so far (`order_stock`) to it with `sale` exits and `return` entries through the stock core.
 * Running it again on the same order changes nothing: exactly once whatever retries happen.
 */

/** `num / den` rounded half up, both non-negative. */
const divHalfUp = (num: bigint, den: bigint) => (num * 2n + den) / (den * 2n);

/**
 * Thousandths of the stock unit in one `unit` (1000 for the stock unit itself, 1 for g of a kg item,
 * the pack size for a box), or null when `unit` cannot be counted in `stock`.
 */
export function unitFactor(unit: QuantityUnit, stock: StockUnit, packSizeMilli: number | null): number | null {
  return convertible(unit, stock, packSizeMilli) ? toStockMilli(1000, unit, stock, packSizeMilli) : null;
}

/** A recipe line as the arithmetic needs it. */
export interface RecipeAmount {
  menuItemId: string;
  itemId: string;
  /** Per unit sold, in thousandths of `unit`. */
  quantityMilli: number;
  unit: QuantityUnit;
  itemUnit: StockUnit;
  packSize: number | null;
  costCents: number;
}

/**
 * What a recipe line costs per unit sold, in cents: its quantity in the stock unit times the item's
 * cost per stock unit, rounded half up once (0.4 g of a R$ 20,00/kg spice is 0.8 cents: 1 cent).
 */
export function lineCost(r: Pick<RecipeAmount, 'quantityMilli' | 'unit' | 'itemUnit' | 'packSize' | 'costCents'>): number {
  const f = unitFactor(r.unit, r.itemUnit, r.packSize);
  if (f === null) return 0;
  // quantityMilli/1000 units x f/1000 stock units each x costCents per stock unit.
  return Number(divHalfUp(BigInt(r.quantityMilli) * BigInt(f) * BigInt(r.costCents), 1_000_000n));
}

/** Billed thousandths of each menu item on the lines (voided units left out; equal-split lines have no item). */
export function soldMilli(lines: readonly OrderLine[]): Map<string, number> {
  const sold = new Map<string, number>();
  for (const l of lines) {
    if (!l.menuItem) continue;
    const m = milli(billedQuantity(l));
    if (m > 0) sold.set(l.menuItem, (sold.get(l.menuItem) ?? 0) + m);
  }
  return sold;
}

/**
 * What `sold` (thousandths per menu item) uses of each inventory item, in thousandths of its stock unit:
 * the sum over the recipe lines of quantity x units sold, exact, rounded half up once per item (so 3 x
 * 0.4 g is 1.2 g, not 3 x 0 g). A line whose unit no longer converts (the box size was removed) counts
 * nothing.
 */
export function stockNeeded(sold: ReadonlyMap<string, number>, recipes: readonly RecipeAmount[]): Map<string, number> {
  const exact = new Map<string, bigint>();
  for (const r of recipes) {
    const units = sold.get(r.menuItemId);
    const f = unitFactor(r.unit, r.itemUnit, r.packSize);
    if (!units || f === null) continue;
    // quantityMilli x f / 1000 stock thousandths per unit sold, x units/1000: stock thousandths x 10^6.
    exact.set(r.itemId, (exact.get(r.itemId) ?? 0n) + BigInt(r.quantityMilli) * BigInt(f) * BigInt(units));
  }
  const needed = new Map<string, number>();
  for (const [itemId, value] of exact) needed.set(itemId, Number(divHalfUp(value, 1_000_000n)));
  return needed;
}

/**
 * The moment an order has used its ingredients: it is not cancelled, it is not a part of a split bill
 * (the parent deducts), and it was delivered, or paid (in full, or money was taken: a paid bill that grew
 * by a round owes again but its food was sold), or split (its parts carry the bill from then on).
 */
export const consumed = (o: Pick<OrderRow, 'status' | 'isSplitBill' | 'paymentStatus' | 'amountPaid' | 'splitAt'>) =>
  o.status !== 'cancelled' && !o.isSplitBill && (o.status === 'delivered' || o.paymentStatus === 'approved' || o.amountPaid > 0 || o.splitAt !== null);

const keyOf = (itemId: string, place: string) => `${itemId}|${place}`;

/**
 * One deduction event of an order: the `sale` exits (or the `return` entries) one sync wrote. Told to the
 * listeners of `onSaleMovements` inside the order's transaction (the accounting module posts its cost).
 */
export interface SaleMovements {
  orderId: string;
  orderNumber: string;
  reason: 'sale' | 'return';
  /** The movements written, in the order written. */
  movementIds: string[];
}
export type SaleMovementsListener = (tx: TenantTx, event: SaleMovements) => Promise<unknown> | unknown;

interface Target {
  itemId: string;
  /** The PDV id, or '' for the master catalog. */
  place: string;
  /** What the order should have taken, thousandths of the stock unit. */
  milli: number;
  /** What it has accounted for so far (`order_stock`). */
  accounted: number;
}

/** The listener the orders module calls (`onStockChange`): brings an order's stock movements to what it uses now. */
export function deduction({ core, log, listeners = [] }: { core: StockCore; log: Deps['log']; listeners?: readonly SaleMovementsListener[] }) {
  /** A `sale` exit of `wanted` thousandths, or what there is when stock is short (down to 0, the shortfall noted). */
  async function take(tx: TenantTx, order: OrderRow, t: Target, wanted: number, unitCostCents: number | null): Promise<string> {
    const base = { itemId: t.itemId, pdvId: t.place || null, type: 'exit', reason: 'sale', orderId: order.id, userId: null, unitCostCents } as const;
    try {
      return (await core.change(tx, { ...base, delta: -wanted, notes: `order ${order.orderNumber}` })).movement.id;
    } catch (err) {
      if (!(err instanceof InsufficientStock)) throw err;
      // The food was served: the sale takes what is recorded and says what was missing. The shortfall
      // counts as accounted (it is not taken again later from stock bought afterwards).
      const short = wanted - err.availableMilli;
      const { movement } = await core.change(tx, {
        ...base,
        delta: -err.availableMilli,
        notes: `order ${order.orderNumber}: short by ${fromMilli(short)} (${fromMilli(err.availableMilli)} of ${fromMilli(wanted)} in stock)`,
      });
      log.warn({ orderId: order.id, itemId: t.itemId, pdvId: base.pdvId, shortMilli: short }, 'sale deducted more than the recorded stock');
      return movement.id;
    }
  }

  return async function syncOrderStock(tx: TenantTx, order: OrderRow): Promise<void> {
    // A part of a split bill never deducts (its parent does); nothing is read for it.
    if (order.isSplitBill) return;
    const rows = await q.lockOrderStock(tx.db, tx.tenantId, order.id);
    const using = consumed(order);
    if (!using && rows.every((r) => r.deductedMilli === 0)) return;

    const sold = using ? soldMilli(order.items) : new Map<string, number>();
    const recipes = sold.size ? await q.recipesOf(tx.db, tx.tenantId, [...sold.keys()]) : [];
    const needed = stockNeeded(
      sold,
      recipes.map((r) => ({ ...r, unit: r.unit ?? r.itemUnit })),
    );
    const costs = new Map(recipes.map((r) => [r.itemId, r.costCents]));

    // Where each item is taken from: the order's PDV when the item is stocked there, else the catalog;
    // an item the order already took from a place keeps taking from it (no stock moved between places by a later round).
    const atPdv = order.pdvId ? await q.lockBranchItems(tx.db, tx.tenantId, order.pdvId, [...needed.keys()].sort()) : new Set<string>();
    const targets = new Map<string, Target>();
    for (const r of rows) targets.set(keyOf(r.itemId, r.place), { itemId: r.itemId, place: r.place, milli: 0, accounted: r.deductedMilli });
    for (const [itemId, m] of needed) {
      const before = rows.find((r) => r.itemId === itemId && r.deductedMilli > 0 && (r.place === '' || atPdv.has(itemId)));
      const place = before?.place ?? (atPdv.has(itemId) ? order.pdvId! : '');
      const key = keyOf(itemId, place);
      targets.set(key, { itemId, place, milli: m, accounted: targets.get(key)?.accounted ?? 0 });
    }

    const changes = [...targets.entries()].filter(([, t]) => t.milli !== t.accounted).sort(([a], [b]) => (a < b ? -1 : 1));
    if (!changes.length) return;
    const returning = changes.some(([, t]) => t.milli < t.accounted);
    const taken = returning ? await q.takenByOrder(tx.db, tx.tenantId, order.id) : new Map<string, number>();
    const missing = changes.map(([, t]) => t.itemId).filter((id) => !costs.has(id));
    for (const c of await q.itemCosts(tx.db, tx.tenantId, [...new Set(missing)])) costs.set(c.id, c.costCents);

    const exits: string[] = [];
    const returns: string[] = [];
    for (const [key, t] of changes) {
      try {
        if (t.milli > t.accounted) {
          exits.push(await take(tx, order, t, t.milli - t.accounted, costs.get(t.itemId) ?? null));
        } else {
          // Gives back what was really taken beyond the new target (a shortfall was never taken).
          const back = (taken.get(key) ?? 0) - t.milli;
          if (back > 0) {
            const { movement } = await core.change(tx, {
              itemId: t.itemId,
              pdvId: t.place || null,
              type: 'entry',
              reason: 'return',
              delta: back,
              orderId: order.id,
              unitCostCents: costs.get(t.itemId) ?? null,
              notes: `order ${order.orderNumber}${order.status === 'cancelled' ? ' cancelled' : ''}`,
              userId: null,
            });
            returns.push(movement.id);
          }
        }
      } catch (err) {
        // The item was deleted meanwhile (or its row at the PDV removed): there is no stock of it to move.
        if (!(err instanceof NotFound)) throw err;
        log.warn({ orderId: order.id, itemId: t.itemId, pdvId: t.place || null }, 'stock of a sold item is gone: nothing moved');
      }
    }
    await q.saveOrderStock(
      tx.db,
      tx.tenantId,
      order.id,
      changes.map(([, t]) => ({ itemId: t.itemId, place: t.place, deductedMilli: t.milli })),
    );
    for (const [reason, movementIds] of [['sale', exits], ['return', returns]] as const) {
      if (!movementIds.length) continue;
      for (const listener of listeners) await listener(tx, { orderId: order.id, orderNumber: order.orderNumber, reason, movementIds });
    }
  };
}

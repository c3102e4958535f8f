import { and, eq, isNull } from 'drizzle-orm';
import { newId } from '../../db/ids.js';
import { branchStock, inventoryItems, inventoryMovements, stockAlerts, type InventoryMovementRow, type MovementReason, type MovementType } from '../../db/schema/inventory.js';
import type { TenantTx } from '../../db/scopes.js';
import type { Clock } from '../../platform/clock.js';
import { Conflict, NotFound } from '../../platform/domain-errors.js';
import { fromMilli } from '../../platform/quantity.js';
import type { Realtime } from '../../platform/realtime.js';

/**
 * The one place where stock changes (docs/decisions.md, "Inventory"). Every change of an item's stock,
 * in the catalog (`pdvId` null) or at a PDV (its `branch_stock` row), goes through `change`: the row
 * locked, the new physical quantity checked (never below 0), the row written, a movement row with
 * before/after in the same transaction, the low-stock alert raised or closed, and the `/inventory`
 * events sent once the transaction has committed.
 */

/** Not enough stock for an exit: 409 `insufficient_stock` (branch-stock routes answer it as the spec's 400). */
export class InsufficientStock extends Conflict {
  constructor(
    readonly itemName: string,
    readonly availableMilli: number,
    readonly wantedMilli: number,
  ) {
    super(`Not enough ${itemName} in stock: ${fromMilli(availableMilli)} there, ${fromMilli(wantedMilli)} asked`, 'insufficient_stock');
  }
}

/** A count below the reserved quantity (with `keepReserved`): 409 `reserved_stock`; release the reservation first. */
export class ReservedStock extends Conflict {
  constructor(itemName: string, reservedMilli: number, countedMilli: number) {
    super(`${fromMilli(reservedMilli)} of ${itemName} are reserved: release the reservation before counting ${fromMilli(countedMilli)}`, 'reserved_stock');
  }
}

export interface StockChange {
  itemId: string;
  /** The PDV whose stock changes; null: the master catalog. */
  pdvId: string | null;
  type: MovementType;
  reason: MovementReason;
  /** Signed change of physical stock, in thousandths; or `set`, the counted stock (an adjustment). */
  delta?: number;
  set?: number;
  unitCostCents?: number | null;
  orderId?: string | null;
  labelId?: string | null;
  transferId?: string | null;
  notes?: string | null;
  /** Who made it; null for a public scan. */
  userId: string | null;
  /**
   * Leave the reserved stock alone: a decrease may not bring physical stock below the reserved quantity
   * (`InsufficientStock` for a delta, `ReservedStock` for a count). Off by default: physical >= 0 only.
   */
  keepReserved?: boolean;
}

/** A change of the reserved quantity (a `reservation` movement): physical stock does not move. */
export interface StockReservation {
  itemId: string;
  /** The PDV whose stock is held; null: the master catalog. */
  pdvId: string | null;
  reason: MovementReason;
  /** Signed change of the reserved quantity, in thousandths: > 0 holds, < 0 releases. */
  delta: number;
  notes?: string | null;
  userId: string | null;
}

/** Stock of one item at one place after a change. */
export interface StockLevel {
  itemId: string;
  itemName: string;
  pdvId: string | null;
  physicalMilli: number;
  reservedMilli: number;
  /** Null: no minimum (a branch-stock row without one). */
  minMilli: number | null;
}

export interface StockResult {
  movement: InventoryMovementRow;
  level: StockLevel;
}

/** A locked place: its level, its row id and the item's expiration date (for a new alert). */
type LockedPlace = StockLevel & { rowId: string; expirationDate: string | null };

/** The row of the place, locked; null when the item (or its row at the PDV) does not exist. */
async function lockPlace(tx: TenantTx, itemId: string, pdvId: string | null): Promise<LockedPlace | null> {
  if (pdvId === null) {
    const [row] = await tx.db
      .select()
      .from(inventoryItems)
      .where(and(eq(inventoryItems.tenantId, tx.tenantId), eq(inventoryItems.id, itemId), isNull(inventoryItems.deletedAt)))
      .for('update');
    if (!row) return null;
    const { physicalMilli, reservedMilli, minMilli, expirationDate } = row;
    return { rowId: row.id, itemId, itemName: row.name, pdvId: null, physicalMilli, reservedMilli, minMilli, expirationDate };
  }
  const [row] = await tx.db
    .select({ stock: branchStock, name: inventoryItems.name, expirationDate: inventoryItems.expirationDate })
    .from(branchStock)
    .innerJoin(inventoryItems, and(eq(inventoryItems.tenantId, branchStock.tenantId), eq(inventoryItems.id, branchStock.itemId)))
    .where(and(eq(branchStock.tenantId, tx.tenantId), eq(branchStock.itemId, itemId), eq(branchStock.pdvId, pdvId)))
    .for('update', { of: branchStock });
  if (!row) return null;
  const s = row.stock;
  const { physicalMilli, reservedMilli, minMilli } = s;
  return { rowId: s.id, itemId, itemName: row.name, pdvId, physicalMilli, reservedMilli, minMilli, expirationDate: row.expirationDate };
}

const availableOf = (l: StockLevel) => l.physicalMilli - l.reservedMilli;
/** The level of a locked place, without its row id and dates (what results and events carry). */
const levelOf = ({ itemId, itemName, pdvId, physicalMilli, reservedMilli, minMilli }: LockedPlace): StockLevel => ({
  itemId,
  itemName,
  pdvId,
  physicalMilli,
  reservedMilli,
  minMilli,
});
/** A catalog item alerts with a minimum above 0 (0 is "no minimum"); a PDV row when its minimum is set. */
const alerting = (l: StockLevel) => (l.pdvId === null ? (l.minMilli ?? 0) > 0 : l.minMilli !== null);

/** What the core needs besides the platform: a PDV's name (the branches module's). */
export interface StockCoreDeps {
  clock: Clock;
  realtime: Realtime;
  pdvName(tx: TenantTx, pdvId: string): Promise<string | null>;
}

export function stockCore({ clock, realtime, pdvName: nameOf }: StockCoreDeps) {
  /** The `/inventory` events of a level (and of a new alert), sent after the transaction commits. */
  function announce(tx: TenantTx, level: StockLevel, alert: typeof stockAlerts.$inferSelect | null) {
    const tenantId = tx.tenantId;
    const quantities = { physicalQuantity: fromMilli(level.physicalMilli), availableQuantity: fromMilli(availableOf(level)) };
    tx.afterCommit(() => {
      if (level.pdvId === null) {
        realtime.toInventory(tenantId, 'stockUpdate', { itemId: level.itemId, itemName: level.itemName, ...quantities });
      } else {
        realtime.toInventory(tenantId, 'stockUpdate', {
          type: 'branchStock',
          pdvId: level.pdvId,
          itemId: level.itemId,
          ...quantities,
          minQuantity: level.minMilli === null ? null : fromMilli(level.minMilli),
        });
      }
      if (alert) {
        const base = {
          _id: alert.id,
          itemId: alert.itemId,
          itemName: alert.itemName,
          availableQuantity: fromMilli(alert.availableMilli),
          minQuantity: fromMilli(alert.minMilli),
          createdAt: alert.createdAt.toISOString(),
        };
        realtime.toInventory(tenantId, 'lowStockAlert', alert.pdvId ? { ...base, type: 'branchStock', pdvId: alert.pdvId, pdvName: alert.pdvName } : base);
      }
    });
  }

  /**
   * Raises the alert of a level at or below its minimum (one open alert per item and place: a second
   * one is not made) or closes the open one of a level above it. Answers the alert it created.
   */
  async function checkAlert(tx: TenantTx, level: StockLevel, expiresAt: Date | null) {
    const open = and(
      eq(stockAlerts.tenantId, tx.tenantId),
      eq(stockAlerts.itemId, level.itemId),
      level.pdvId === null ? isNull(stockAlerts.pdvId) : eq(stockAlerts.pdvId, level.pdvId),
      isNull(stockAlerts.resolvedAt),
    );
    if (!alerting(level) || availableOf(level) > level.minMilli!) {
      await tx.db.update(stockAlerts).set({ resolvedAt: clock.now() }).where(open);
      return null;
    }
    const pdvName = level.pdvId ? await nameOf(tx, level.pdvId) : null;
    const [created] = await tx.db
      .insert(stockAlerts)
      .values({
        tenantId: tx.tenantId,
        id: newId(),
        itemId: level.itemId,
        itemName: level.itemName,
        pdvId: level.pdvId,
        pdvName,
        availableMilli: availableOf(level),
        minMilli: level.minMilli!,
        expiresAt,
        createdAt: clock.now(),
      })
      .onConflictDoNothing()
      .returning();
    if (!created) {
      // Still low: the open alert shows the latest quantity.
      await tx.db.update(stockAlerts).set({ availableMilli: availableOf(level) }).where(open);
    }
    return created ?? null;
  }

  /** The movement row of a change (`after` - `before` is its delta). */
  async function writeMovement(
    tx: TenantTx,
    c: Omit<StockChange, 'delta' | 'set' | 'keepReserved'>,
    q: { quantityMilli: number; beforeMilli: number; afterMilli: number },
    now: Date,
  ): Promise<InventoryMovementRow> {
    const [movement] = await tx.db
      .insert(inventoryMovements)
      .values({
        tenantId: tx.tenantId,
        id: newId(),
        itemId: c.itemId,
        pdvId: c.pdvId,
        type: c.type,
        reason: c.reason,
        quantityMilli: q.quantityMilli,
        deltaMilli: q.afterMilli - q.beforeMilli,
        beforeMilli: q.beforeMilli,
        afterMilli: q.afterMilli,
        unitCostCents: c.unitCostCents ?? null,
        orderId: c.orderId ?? null,
        labelId: c.labelId ?? null,
        transferId: c.transferId ?? null,
        notes: c.notes ?? null,
        createdBy: c.userId,
        createdAt: now,
      })
      .returning();
    return movement!;
  }

  /**
   * After a change of a level from `before`: its alert raised or closed (with the item's expiration date),
   * its events queued. A level that was above its minimum and still is has no open alert (the change that
   * raised one left it at or below, and a change of minimum rechecks), so the alert table is not touched.
   */
  async function settle(tx: TenantTx, before: LockedPlace, level: StockLevel) {
    const above = (l: StockLevel) => !alerting(l) || availableOf(l) > l.minMilli!;
    if (above(before) && above(level)) return announce(tx, level, null);
    const alert = await checkAlert(tx, level, before.expirationDate ? new Date(`${before.expirationDate}T00:00:00Z`) : null);
    announce(tx, level, alert);
  }

  return {
    /**
     * Changes the stock of one item at one place (see the file comment). `NotFound('Inventory item')`
     * when the item, or its row at the PDV, does not exist; `InsufficientStock` when the physical stock
     * would go below 0.
     */
    async change(tx: TenantTx, c: StockChange): Promise<StockResult> {
      const place = await lockPlace(tx, c.itemId, c.pdvId);
      if (!place) throw new NotFound(c.pdvId === null ? 'Inventory item' : 'Branch stock');
      const before = place.physicalMilli;
      const after = c.set ?? before + (c.delta ?? 0);
      if (after < 0) throw new InsufficientStock(place.itemName, before, before - after);
      if (c.keepReserved && after < before && after < place.reservedMilli) {
        if (c.set !== undefined) throw new ReservedStock(place.itemName, place.reservedMilli, after);
        throw new InsufficientStock(place.itemName, availableOf(place), before - after);
      }
      const now = clock.now();
      if (c.pdvId === null) {
        await tx.db
          .update(inventoryItems)
          .set({ physicalMilli: after, updatedAt: now })
          .where(and(eq(inventoryItems.tenantId, tx.tenantId), eq(inventoryItems.id, c.itemId)));
      } else {
        await tx.db
          .update(branchStock)
          .set({ physicalMilli: after, updatedAt: now })
          .where(and(eq(branchStock.tenantId, tx.tenantId), eq(branchStock.id, place.rowId)));
      }
      const movement = await writeMovement(tx, c, { quantityMilli: Math.abs(after - before), beforeMilli: before, afterMilli: after }, now);
      const level: StockLevel = { ...levelOf(place), physicalMilli: after };
      await settle(tx, place, level);
      return { movement, level };
    },

    /**
     * Holds (`delta` > 0) or releases (`delta` < 0) stock of one item at one place: the reserved quantity
     * changes, physical stock does not; a `reservation` movement records it (quantity the amount held or
     * released, delta 0), and the alert and events follow the new available quantity, like `change`.
     * `InsufficientStock` when a hold exceeds the available quantity; 409 `reservation_exceeded` when a
     * release exceeds the reserved quantity.
     */
    async reserve(tx: TenantTx, r: StockReservation): Promise<StockResult> {
      const place = await lockPlace(tx, r.itemId, r.pdvId);
      if (!place) throw new NotFound(r.pdvId === null ? 'Inventory item' : 'Branch stock');
      const available = availableOf(place);
      if (r.delta > 0 && r.delta > available) throw new InsufficientStock(place.itemName, available, r.delta);
      const reserved = place.reservedMilli + r.delta;
      if (reserved < 0) {
        throw new Conflict(
          `Only ${fromMilli(place.reservedMilli)} of ${place.itemName} reserved: ${fromMilli(-r.delta)} cannot be released`,
          'reservation_exceeded',
        );
      }
      const now = clock.now();
      if (r.pdvId === null) {
        await tx.db
          .update(inventoryItems)
          .set({ reservedMilli: reserved, updatedAt: now })
          .where(and(eq(inventoryItems.tenantId, tx.tenantId), eq(inventoryItems.id, r.itemId)));
      } else {
        await tx.db
          .update(branchStock)
          .set({ reservedMilli: reserved, updatedAt: now })
          .where(and(eq(branchStock.tenantId, tx.tenantId), eq(branchStock.id, place.rowId)));
      }
      const physical = place.physicalMilli;
      const movement = await writeMovement(
        tx,
        { ...r, type: 'reservation' },
        { quantityMilli: Math.abs(r.delta), beforeMilli: physical, afterMilli: physical },
        now,
      );
      const level: StockLevel = { ...levelOf(place), reservedMilli: reserved };
      await settle(tx, place, level);
      return { movement, level };
    },

    /**
     * After a change of a level's minimum or reserved quantity (no movement): raises or closes its alert
     * and sends its `stockUpdate`, like `change`.
     */
    async recheck(tx: TenantTx, level: StockLevel, expirationDate: string | null = null): Promise<void> {
      const alert = await checkAlert(tx, level, expirationDate ? new Date(`${expirationDate}T00:00:00Z`) : null);
      announce(tx, level, alert);
    },

    /** Deletes the open alerts of an item at a place (its row was removed). */
    async dropAlerts(tx: TenantTx, itemId: string, pdvId: string | null): Promise<void> {
      await tx.db
        .update(stockAlerts)
        .set({ resolvedAt: clock.now() })
        .where(
          and(
            eq(stockAlerts.tenantId, tx.tenantId),
            eq(stockAlerts.itemId, itemId),
            pdvId === null ? isNull(stockAlerts.pdvId) : eq(stockAlerts.pdvId, pdvId),
            isNull(stockAlerts.resolvedAt),
          ),
        );
    },
  };
}

export type StockCore = ReturnType<typeof stockCore>;

/** An `InventoryMovement` as the API shows it (spec 2): quantities as numbers with 3 decimals. */
export function toMovementView(m: InventoryMovementRow) {
  return {
    _id: m.id,
    item: m.itemId,
    pdv: m.pdvId,
    type: m.type,
    reason: m.reason,
    quantity: fromMilli(m.quantityMilli),
    delta: fromMilli(m.deltaMilli),
    before: fromMilli(m.beforeMilli),
    after: fromMilli(m.afterMilli),
    unitCost: m.unitCostCents,
    order: m.orderId,
    label: m.labelId,
    transfer: m.transferId,
    notes: m.notes,
    createdBy: m.createdBy,
    createdAt: m.createdAt.toISOString(),
  };
}

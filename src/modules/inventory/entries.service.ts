import type { TenantDb } from '../../db/scopes.js';
import type { InventoryParts } from './inventory.service.js';
import * as q from './items.queries.js';
import { toItemView } from './items.service.js';
import { toMovementView } from './stock.js';

/** What the purchasing module asks of the stock when goods arrive (a purchase order received, an invoice imported). */
export interface StockEntry {
  itemId: string;
  /** Thousandths of the item's unit, > 0. */
  quantityMilli: number;
  /** Cents per unit of the item, recorded on the movement; null when unknown. */
  unitCostCents: number | null;
  /** Also make it the item's cost (the last purchase price). */
  setCost?: boolean;
  notes?: string | null;
  userId: string;
}

/**
 * The inventory's side of purchasing: goods received become `entry` movements with reason `purchase`
 * through the stock core, in the caller's transaction (pass its `tx`), and the item's cost follows the
 * last purchase when asked.
 */
export function entriesPart({ deps, core }: InventoryParts) {
  return {
    receiveStock: (t: TenantDb, e: StockEntry) =>
      t.run(async (tx) => {
        const { movement, level } = await core.change(tx, {
          itemId: e.itemId,
          pdvId: null,
          type: 'entry',
          reason: 'purchase',
          delta: e.quantityMilli,
          unitCostCents: e.unitCostCents,
          notes: e.notes ?? null,
          userId: e.userId,
        });
        if (e.setCost && e.unitCostCents !== null) {
          await q.updateItem(tx.db, tx.tenantId, e.itemId, { costCents: e.unitCostCents, updatedAt: deps.clock.now() });
        }
        return { movement: toMovementView(movement), level };
      }),

    /** An item of the catalog as the catalog routes show it, or null (another tenant's, deleted, unknown). */
    findStockItem: (t: TenantDb, itemId: string) =>
      t.run(async (tx) => {
        const row = await q.findItem(tx.db, tx.tenantId, itemId);
        return row ? toItemView(row) : null;
      }),
  };
}

import type { QuantityUnit, StockUnit } from '../../db/schema/inventory.js';
import type { TenantDb } from '../../db/scopes.js';
import * as cq from './costing.queries.js';
import { unitFactor } from './deduction.js';
import type { InventoryParts } from './inventory.service.js';
import * as q from './recipes.queries.js';

/** A recipe line as the cost sheets (bom module) compute with it: the raw amounts, nothing rounded. */
export interface RecipeCostLine {
  menuItemId: string;
  inventoryItemId: string;
  inventoryItemName: string;
  /** Per unit (or kg) of the dish sold, in thousandths of `unit`. */
  quantityMilli: number;
  unit: QuantityUnit;
  itemUnit: StockUnit;
  /** Cents per `itemUnit`, now. */
  costCents: number;
  /** Thousandths of `itemUnit` in one `unit` (1000 for the item's own unit, 1 for g of a kg item), null when it no longer converts. */
  unitFactorMilli: number | null;
}

/** Reads for the cost sheets (spec 4.13): recipe lines at the items' current costs, and the dishes an item goes into. */
export function costingPart(_parts: InventoryParts) {
  return {
    /** The recipe lines of menu items (lines of deleted inventory items left out), by menu item then item name. */
    recipeCostLines: (t: TenantDb, menuItemIds: string[]): Promise<RecipeCostLine[]> =>
      t.run(async (tx) => {
        if (!menuItemIds.length) return [];
        return (await q.recipesOf(tx.db, tx.tenantId, [...new Set(menuItemIds)])).map((r) => {
          const unit = r.unit ?? r.itemUnit;
          return {
            menuItemId: r.menuItemId,
            inventoryItemId: r.itemId,
            inventoryItemName: r.itemName,
            quantityMilli: r.quantityMilli,
            unit,
            itemUnit: r.itemUnit,
            costCents: r.costCents,
            unitFactorMilli: unitFactor(unit, r.itemUnit, r.packSize),
          };
        });
      }),

    /** Ids of the menu items whose recipe uses any of these inventory items. */
    menuItemsUsing: (t: TenantDb, itemIds: string[]) => t.run((tx) => cq.menuItemsUsing(tx.db, tx.tenantId, [...new Set(itemIds)])),
  };
}

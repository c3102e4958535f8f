import { newId } from '../../db/ids.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import { Conflict, Invalid, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import { fromMilli, hasGramPrecision, milli } from '../../platform/quantity.js';
import type { MenuBomView } from '../menu/index.js';
import { deduction, lineCost, type SaleMovementsListener } from './deduction.js';
import type { InventoryParts } from './inventory.service.js';
import * as q from './recipes.queries.js';
import type { CreateIngredientInput, ProductIngredientView } from './recipes.schemas.js';
import { convertible } from './units.js';

/** A recipe line as the API shows it (spec 2 "ProductIngredient"). */
export function toIngredientView(r: q.RecipeLine): ProductIngredientView {
  return {
    _id: r.id,
    menuItem: r.menuItemId,
    inventoryItem: { _id: r.itemId, name: r.itemName, sku: r.sku, unit: r.itemUnit },
    quantityPerUnit: fromMilli(r.quantityMilli),
    unit: r.unit ?? r.itemUnit,
    tenant: r.tenantId,
  };
}

const pairTaken = () => new Conflict('This menu item already has this inventory item in its recipe: change or delete that line', 'ingredient_exists');

/**
 * Recipes (spec 4.8 `/inventory/ingredients`): how much of each stock item one unit of a menu item
 * uses; the menu item detail's `bom`; and the deduction on sale, registered with the orders module.
 */
export function recipesPart({ deps, needs: { menu, orders }, core }: InventoryParts) {
  /** The recipe of one menu item with the cost of each line and in all (integer cents); null without one. */
  async function bomOf(tx: TenantTx, menuItemId: string) {
    const lines = await q.recipesOf(tx.db, tx.tenantId, [menuItemId]);
    if (!lines.length) return null;
    const ingredients = lines.map((r) => {
      const unit = r.unit ?? r.itemUnit;
      return {
        inventoryItem: { _id: r.itemId, name: r.itemName, sku: r.sku, unit: r.itemUnit },
        quantityPerUnit: fromMilli(r.quantityMilli),
        unit,
        cost: lineCost({ ...r, unit }),
      };
    });
    return { ingredients, cost: ingredients.reduce((sum, i) => sum + i.cost, 0) };
  }

  // The public item detail shows what goes into the dish, not what it costs.
  menu.setBomSource(async (tx, menuItemId) => {
    const bom = await bomOf(tx, menuItemId);
    const view: MenuBomView | null = bom && { ingredients: bom.ingredients.map(({ cost: _cost, ...line }) => line) };
    return view;
  });
  const saleListeners: SaleMovementsListener[] = [];
  orders.onStockChange(deduction({ core, log: deps.log, listeners: saleListeners }));

  return {
    /** The recipe of a menu item (404 when the menu item is not the tenant's). */
    listIngredients: (t: TenantDb, menuItemId: string): Promise<ProductIngredientView[]> =>
      t.run(async (tx) => {
        await menu.getItem(tx, menuItemId);
        return (await q.recipesOf(tx.db, tx.tenantId, [menuItemId])).map(toIngredientView);
      }),

    /**
     * Adds a line to a menu item's recipe. 404 for a menu item or inventory item that is not the
     * tenant's (or deleted); 400 for more than 3 decimals or a unit that does not convert to the item's;
     * 409 when the pair exists. Bumps the menu version (the item detail shows the recipe).
     */
    createIngredient: (t: TenantDb, input: CreateIngredientInput): Promise<ProductIngredientView> => {
      if (!hasGramPrecision(input.quantityPerUnit)) throw new Invalid('quantityPerUnit', 'has at most 3 decimals');
      return t.run(async (tx) => {
        await menu.getItem(tx, input.menuItemId);
        const item = await q.findLiveItem(tx.db, tx.tenantId, input.inventoryItemId);
        if (!item) throw new NotFound('Inventory item');
        const unit = input.unit ?? item.unit;
        if (!convertible(unit, item.unit, item.packSize)) {
          throw new Invalid(
            'unit',
            unit === 'cx' ? `${item.name} has no pack size: a box cannot be counted` : `${unit} cannot be counted in ${item.unit}, the unit of ${item.name}`,
          );
        }
        if (await q.findPair(tx.db, tx.tenantId, input.menuItemId, item.id)) throw pairTaken();
        const id = newId();
        try {
          await q.insertRecipeLine(tx.db, {
            tenantId: tx.tenantId,
            id,
            menuItemId: input.menuItemId,
            itemId: item.id,
            quantityMilli: milli(input.quantityPerUnit),
            // Stored as said or as the item's unit then: the line keeps its meaning whatever happens to the item.
            unit,
          });
        } catch (err) {
          if (isUniqueViolation(err, q.PAIR_KEY)) throw pairTaken();
          throw err;
        }
        await menu.touch(tx);
        return toIngredientView((await q.findRecipeLine(tx.db, tx.tenantId, id))!);
      });
    },

    /** Removes a recipe line (404 when it is not the tenant's); bumps the menu version. */
    deleteIngredient: (t: TenantDb, id: string): Promise<{ deleted: true }> =>
      t.run(async (tx) => {
        if (!(await q.deleteRecipeLine(tx.db, tx.tenantId, id))) throw new NotFound('Ingredient');
        await menu.touch(tx);
        return { deleted: true };
      }),

    /**
     * `listener` runs inside the order's transaction after each deduction event that wrote movements: once
     * for its `sale` exits, once for its `return` entries (the accounting module posts their cost).
     */
    onSaleMovements(listener: SaleMovementsListener) {
      saleListeners.push(listener);
    },

    /** For the accounting module: stock movements of the caller's tenant by id (quantity, unit cost, order), in no particular order. */
    movementsByIds: (tx: TenantTx, ids: string[]) => q.movementsByIds(tx.db, tx.tenantId, ids),

    /** The recipe of a menu item with its costs (for the staff; the public detail shows no cost); null without a recipe. */
    recipeBom: (t: TenantDb, menuItemId: string) => t.run((tx) => bomOf(tx, menuItemId)),
  };
}

import { Type, type Static } from '@sinclair/typebox';
import { QUANTITY_UNITS, STOCK_UNITS } from '../../db/schema/inventory.js';
import { Body, Id, StringEnum } from '../../platform/schemas.js';

/** Largest quantity of one ingredient per unit sold (a recipe line), in its unit. */
export const MAX_QUANTITY_PER_UNIT = 100_000;

/** A recipe line (spec 2 "ProductIngredient"), the inventory item populated. */
export const ProductIngredient = Type.Object({
  _id: Type.String(),
  menuItem: Type.String({ description: 'menu item id' }),
  inventoryItem: Type.Object({ _id: Type.String(), name: Type.String(), sku: Type.String(), unit: StringEnum(STOCK_UNITS) }),
  quantityPerUnit: Type.Number({ description: 'per unit (or kg, for an item sold by weight) of the menu item, in `unit`; 3 decimals' }),
  unit: StringEnum(QUANTITY_UNITS, { description: "the unit of quantityPerUnit: the inventory item's, or a smaller one of its kind (g, ml), or its box (cx)" }),
  tenant: Type.String(),
});

export const IngredientsQuery = Type.Object({ menuItemId: Id });

export const CreateIngredientBody = Body({
  menuItemId: Id,
  inventoryItemId: Id,
  quantityPerUnit: Type.Number({
    minimum: 0.001,
    maximum: MAX_QUANTITY_PER_UNIT,
    description: 'at least 0.001, at most 3 decimals, per unit (or kg) of the menu item sold',
  }),
  unit: Type.Optional(
    StringEnum(QUANTITY_UNITS, { description: "default the inventory item's unit; must be of its kind (g or kg for kg, ml or l for l; cx needs a pack size)" }),
  ),
});

export const IngredientDeleted = Type.Object({ deleted: Type.Boolean() });

export type ProductIngredientView = Static<typeof ProductIngredient>;
export type CreateIngredientInput = Static<typeof CreateIngredientBody>;

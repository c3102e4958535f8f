import { Type, type Static } from '@sinclair/typebox';
import { INDIRECT_COST_TYPES, INDIRECT_UNIT_TYPES, SNAPSHOT_TRIGGERS } from '../../db/schema/bom.js';
import { QUANTITY_UNITS } from '../../db/schema/inventory.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/** Cost sheets (spec 2 "BOM records", 4.13). Money is integer cents, like the menu's prices. */

/** Highest fixed indirect cost per unit: R$ 1.000.000,00 (the inventory's cost ceiling). */
export const MAX_FIXED_CENTS = 100_000_000;
/** Highest `percentage_of_direct` fraction: 10 (1000% of the direct cost). */
export const MAX_FRACTION = 10;
/** History page: default 20 (spec 8), at most 100. */
export const HISTORY_DEFAULT = 20;
export const HISTORY_MAX = 100;

const Cents = (description: string) => Type.Integer({ description: `integer cents; ${description}` });
const ExactCents = (description: string) => Type.Number({ description: `cents with the fraction kept (up to 6 decimals); ${description}` });

export const IngredientLine = Type.Object({
  inventoryItemId: Type.String(),
  inventoryItemName: Type.String(),
  quantityPerUnit: Type.Number({ description: 'per unit (or kg) of the dish sold, in `unit`' }),
  unit: StringEnum(QUANTITY_UNITS),
  currentCostPrice: Cents("per stock unit of the inventory item (the item's cost)"),
  lineCost: ExactCents('quantity in the stock unit x currentCostPrice, not rounded (0 when the unit no longer converts)'),
});
export type IngredientLineView = Static<typeof IngredientLine>;

export const BomIndirectCost = Type.Object(
  {
    _id: Type.String(),
    menuItem: Type.String(),
    type: StringEnum(INDIRECT_COST_TYPES),
    label: Type.String(),
    valuePerUnit: Type.Number({ description: 'fixed: integer cents per unit; percentage_of_direct: a fraction of the direct cost (0.15 = 15%)' }),
    unitType: StringEnum(INDIRECT_UNIT_TYPES),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'BomIndirectCost' },
);
export type BomIndirectCostView = Static<typeof BomIndirectCost>;

export const IndirectLine = Type.Object({
  _id: Type.String(),
  type: StringEnum(INDIRECT_COST_TYPES),
  label: Type.String(),
  valuePerUnit: Type.Number(),
  unitType: StringEnum(INDIRECT_UNIT_TYPES),
  amount: ExactCents('what it adds per unit (a percentage of the exact direct cost)'),
});
export type IndirectLineView = Static<typeof IndirectLine>;

export const BomCostSnapshot = Type.Object(
  {
    _id: Type.String(),
    menuItem: Type.String(),
    sellingPrice: Cents('the menu price when the snapshot was taken'),
    totalDirectCost: Cents('sum of the exact recipe lines, rounded half up once'),
    totalIndirectCost: Cents('sum of the exact indirect costs, rounded half up once'),
    totalCostPerUnit: Cents('totalDirectCost + totalIndirectCost'),
    marginPercent: Nullable(Type.Number({ description: '(sellingPrice - totalCostPerUnit) / sellingPrice x 100, 2 decimals; null when the price is 0' })),
    targetMargin: Nullable(Type.Number({ description: 'the margin asked for (0 to 0.99), or null' })),
    suggestedSellingPrice: Nullable(Cents('totalCostPerUnit / (1 - targetMargin), rounded up to the cent; null without targetMargin')),
    triggeredBy: StringEnum(SNAPSHOT_TRIGGERS),
    ingredientSnapshot: Type.Array(IngredientLine),
    indirectSnapshot: Type.Array(IndirectLine),
    createdBy: Nullable(Type.String()),
    createdAt: Timestamp,
  },
  { $id: 'BomCostSnapshot' },
);
export type BomCostSnapshotView = Static<typeof BomCostSnapshot>;

export const SnapshotSummary = Type.Object({
  totalDirectCost: Type.Integer(),
  totalIndirectCost: Type.Integer(),
  totalCostPerUnit: Type.Integer(),
  triggeredBy: StringEnum(SNAPSHOT_TRIGGERS),
  createdAt: Timestamp,
});

/** One row per menu item (see the menu's MENU_ITEMS_PAGE): the panel expects every dish, so the default is the maximum. */
export const BOM_LIST_PAGE = pageLimits({ default: 1000, maximum: 1000, what: 'dishes' });
export const BomListQuery = Type.Object(pageQuery(BOM_LIST_PAGE));

export const BomListEntry = Type.Object({
  menuItemId: Type.String(),
  name: Type.String(),
  sellingPrice: Cents('the current menu price'),
  hasRecipe: Type.Boolean(),
  latestSnapshot: Nullable(SnapshotSummary),
  marginPercent: Nullable(Type.Number({ description: 'from the latest snapshot and the current price, 2 decimals; null without a snapshot or at price 0' })),
});
export type BomListEntryView = Static<typeof BomListEntry>;

export const BomDetail = Type.Object({
  menuItem: Type.Object({ _id: Type.String(), name: Type.String(), price: Cents('the current menu price') }),
  ingredients: Type.Array(IngredientLine),
  indirectCosts: Type.Array(BomIndirectCost),
  latestSnapshot: Nullable(BomCostSnapshot),
});
export type BomDetailView = Static<typeof BomDetail>;

export const MenuItemParams = Type.Object({ slug: Type.String({ maxLength: 64 }), menuItemId: Id });

export const CalculateBody = Body({
  targetMargin: Type.Optional(Type.Number({ minimum: 0, maximum: 0.99, description: 'the wanted margin, 0 to 0.99, at most 6 decimals' })),
});
export type CalculateInput = Static<typeof CalculateBody>;

export const HistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: HISTORY_MAX, description: `snapshots, newest first (default ${HISTORY_DEFAULT}, at most ${HISTORY_MAX})` })),
});

const fields = {
  type: StringEnum(INDIRECT_COST_TYPES),
  label: Type.String({ minLength: 1, maxLength: 120, pattern: '\\S' }),
  valuePerUnit: Type.Number({
    minimum: 0,
    maximum: MAX_FIXED_CENTS,
    description: `fixed: integer cents per unit (at most ${MAX_FIXED_CENTS}); percentage_of_direct: a fraction 0 to ${MAX_FRACTION}, at most 6 decimals (0.15 = 15%)`,
  }),
  unitType: StringEnum(INDIRECT_UNIT_TYPES),
};

export const CreateIndirectBody = Body({ menuItemId: Id, ...fields });
export type CreateIndirectInput = Static<typeof CreateIndirectBody>;

export const UpdateIndirectBody = Body({
  type: Type.Optional(fields.type),
  label: Type.Optional(fields.label),
  valuePerUnit: Type.Optional(fields.valuePerUnit),
  unitType: Type.Optional(fields.unitType),
});
export type UpdateIndirectInput = Static<typeof UpdateIndirectBody>;

export const Deleted = Type.Object({ deleted: Type.Boolean() });

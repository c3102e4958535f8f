import { Type, type Static } from '@sinclair/typebox';
import { ITEM_STATUSES, MOVEMENT_REASONS, MOVEMENT_TYPES, STOCK_UNITS } from '../../db/schema/inventory.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, CalendarDate, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/**
 * The catalog (spec 4.8 "/inventory"), its movements and alerts. Quantities are JSON numbers with at most
 * 3 decimals (kg, l, un); costs are integer cents per stock unit.
 */

/** Largest quantity a request may carry (kg, l or units): 10 million. */
export const MAX_QUANTITY = 10_000_000;
/** Largest cost of one stock unit, in cents (R$ 1 million). */
export const MAX_COST_CENTS = 100_000_000;

const Text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S', ...(description ? { description } : {}) });
const Quantity = (description: string, minimum = 0) => Type.Number({ minimum, maximum: MAX_QUANTITY, description: `${description}; at most 3 decimals` });
const Cents = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_COST_CENTS, description });

export const AlertParams = Type.Object({ slug: Type.String({ maxLength: 64 }), id: Id });

/** An inventory item in the catalog vocabulary, with the stock views' extra fields. */
export const InventoryItem = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    sku: Type.String(),
    ean: Nullable(Type.String({ description: 'EAN-8, UPC-A, EAN-13 or GTIN-14 barcode' })),
    unit: StringEnum(STOCK_UNITS),
    packSize: Nullable(Type.Number({ description: 'units of `unit` in one box (cx); null: not sold in boxes' })),
    currentStock: Type.Number({ description: 'physical stock (the stock views’ physicalQuantity)' }),
    reservedQuantity: Type.Number({ description: 'held by reservations' }),
    availableQuantity: Type.Number({ description: 'currentStock - reservedQuantity' }),
    minStock: Type.Number({ description: 'low-stock alert at or below it (minQuantity); 0: no alert' }),
    cost: Type.Integer({ description: 'cost of one unit, cents (costPrice)' }),
    expirationDate: Nullable(Type.String({ format: 'date' })),
    status: StringEnum(ITEM_STATUSES),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'InventoryItem' },
);

/** The catalog grows with the business; the panel and scanners expect every item, so the default is the maximum. */
export const ITEMS_PAGE = pageLimits({ default: 500, maximum: 500, what: 'items' });

export const ListItemsQuery = Type.Object({
  ...pageQuery(ITEMS_PAGE),
  status: Type.Optional(StringEnum(ITEM_STATUSES, { description: 'only items with this status' })),
  ean: Type.Optional(Type.String({ pattern: '^[0-9]{8,14}$', description: 'the item with this barcode (a scanner)' })),
});

const itemFields = {
  name: Text(120),
  sku: Type.String({ minLength: 1, maxLength: 64, pattern: '^\\S(?:.*\\S)?$', description: 'unique among the tenant’s items; no surrounding spaces' }),
  unit: StringEnum(STOCK_UNITS),
  minStock: Quantity('low-stock alert at or below it; 0: no alert'),
  cost: Cents('cost of one unit, cents'),
  ean: Type.String({ pattern: '^[0-9]{8,14}$', description: 'EAN-8, UPC-A, EAN-13 or GTIN-14; check digit verified; unique' }),
  packSize: Quantity('units of `unit` in one box (cx)', 0.001),
  expirationDate: CalendarDate('the stock’s expiration date'),
  status: StringEnum(ITEM_STATUSES, { description: 'default active' }),
};

export const CreateItemBody = Body({
  name: itemFields.name,
  sku: itemFields.sku,
  currentStock: Quantity('opening stock: written as an entry movement (reason adjustment) when above 0'),
  minStock: itemFields.minStock,
  unit: itemFields.unit,
  cost: itemFields.cost,
  ean: Type.Optional(Nullable(itemFields.ean)),
  packSize: Type.Optional(Nullable(itemFields.packSize)),
  expirationDate: Type.Optional(Nullable(itemFields.expirationDate)),
  status: Type.Optional(itemFields.status),
});

export const UpdateItemBody = Body({
  name: Type.Optional(itemFields.name),
  sku: Type.Optional(itemFields.sku),
  currentStock: Type.Optional(Type.Number({ description: 'not editable: stock changes only by movements (400)' })),
  minStock: Type.Optional(itemFields.minStock),
  unit: Type.Optional(StringEnum(STOCK_UNITS, { description: 'only while the item has no stock, recipe line or branch row (409 unit_in_use)' })),
  cost: Type.Optional(itemFields.cost),
  ean: Type.Optional(Nullable(itemFields.ean)),
  packSize: Type.Optional(Nullable(itemFields.packSize)),
  expirationDate: Type.Optional(Nullable(itemFields.expirationDate)),
  status: Type.Optional(itemFields.status),
});

/** An `InventoryMovement` (spec 2), as `toMovementView` (stock.ts) shows it. */
export const InventoryMovement = Type.Object(
  {
    _id: Type.String(),
    item: Type.String(),
    pdv: Nullable(Type.String({ description: 'the PDV whose stock moved; null: the master catalog' })),
    type: StringEnum(MOVEMENT_TYPES),
    reason: StringEnum(MOVEMENT_REASONS),
    quantity: Type.Number({ description: 'the amount moved (or held or released, for a reservation)' }),
    delta: Type.Number({ description: 'signed change of physical stock (0 for a reservation)' }),
    before: Type.Number({ description: 'physical stock before' }),
    after: Type.Number({ description: 'physical stock after' }),
    unitCost: Nullable(Type.Integer({ description: 'cents per unit, for an entry' })),
    order: Nullable(Type.String()),
    label: Nullable(Type.String()),
    transfer: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    createdBy: Nullable(Type.String()),
    createdAt: Timestamp,
  },
  { $id: 'InventoryMovement' },
);

export const MovementBody = Body({
  type: StringEnum(MOVEMENT_TYPES, { description: 'transfer: 400 (POST /branch-stock/transfer)' }),
  quantity: Type.Number({
    minimum: 0,
    maximum: MAX_QUANTITY,
    description: 'at most 3 decimals; at least 0.001, except for an adjustment, where it is the counted stock (0 allowed)',
  }),
  reason: StringEnum(MOVEMENT_REASONS, {
    description:
      'entry: purchase, production, return, adjustment; exit: sale, loss, theft, expiration, production, adjustment; ' +
      'adjustment: adjustment; reservation: sale or production (hold), return (release)',
  }),
  notes: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  unitCost: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_COST_CENTS, description: 'cents per unit; entries only' }))),
});

export const ListMovementsQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'from 1 (default 1)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'movements a page (default 20)' })),
});

export const MovementPage = Type.Object({
  data: Type.Array(InventoryMovement),
  total: Type.Integer({ description: 'movements of the item the caller may see' }),
  page: Type.Integer(),
  totalPages: Type.Integer(),
});

export const InventoryStats = Type.Object(
  {
    totalItems: Type.Integer({ description: 'items with status active' }),
    totalValue: Type.Integer({ description: 'sum of physical stock x cost over every item, cents' }),
    lowStock: Type.Integer({ description: 'items with a minimum (> 0) and available stock at or below it' }),
    expired: Type.Integer({ description: 'items with status expired' }),
    blocked: Type.Integer({ description: 'items with status blocked' }),
  },
  { $id: 'InventoryStats' },
);

const ExpiringItem = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  sku: Type.String(),
  expirationDate: Type.String({ format: 'date' }),
  availableQuantity: Type.Number(),
  unit: StringEnum(STOCK_UNITS),
});

export const ExpirationAlerts = Type.Object(
  {
    expiredItems: Type.Array(ExpiringItem, { description: 'expiration date before today (the tenant’s time zone)' }),
    expiringIn7: Type.Array(ExpiringItem, { description: 'expiring today up to 7 days from today' }),
    expiringIn30: Type.Array(ExpiringItem, { description: 'expiring 8 to 30 days from today' }),
  },
  { $id: 'ExpirationAlerts' },
);

export const StockAlert = Type.Object(
  {
    _id: Type.String(),
    item: Type.String(),
    itemName: Type.String(),
    availableQuantity: Type.Number({ description: 'when raised, then the latest while the stock stays low' }),
    minQuantity: Type.Number(),
    pdv: Nullable(Type.String({ description: 'null: the master catalog' })),
    pdvName: Nullable(Type.String()),
    expiresAt: Nullable(Timestamp),
    createdAt: Timestamp,
    readBy: Type.Array(Type.String(), { description: 'users who have read it' }),
  },
  { $id: 'StockAlert' },
);

export const AlertCount = Type.Object({ count: Type.Integer() });

export type InventoryItemView = Static<typeof InventoryItem>;
export type CreateItemInput = Static<typeof CreateItemBody>;
export type UpdateItemInput = Static<typeof UpdateItemBody>;
export type ListItemsInput = Static<typeof ListItemsQuery>;
export type MovementInput = Static<typeof MovementBody>;
export type ListMovementsInput = Static<typeof ListMovementsQuery>;
export type MovementPageView = Static<typeof MovementPage>;
export type InventoryStatsView = Static<typeof InventoryStats>;
export type ExpirationAlertsView = Static<typeof ExpirationAlerts>;
export type ExpiringItemView = Static<typeof ExpiringItem>;
export type StockAlertView = Static<typeof StockAlert>;

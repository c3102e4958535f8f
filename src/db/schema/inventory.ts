import { sql } from 'drizzle-orm';
import { bigint, date, foreignKey, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { pdvs } from './branches.js';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

/**
 * Inventory (spec 2 "InventoryItem" ... "BranchStock", 4.8). Every quantity is an exact decimal with 3
 * places stored as integer thousandths (`*_milli`, bigint): 1.5 kg is 1500. Costs are integer cents per
 * stock unit. docs/decisions.md, "Inventory".
 */

/** Units an item is counted in. */
export const STOCK_UNITS = ['kg', 'l', 'un'] as const;
export type StockUnit = (typeof STOCK_UNITS)[number];

/** Units a recipe or a purchase may use: the stock units, their smaller ones, and a box of `packSize` units. */
export const QUANTITY_UNITS = ['kg', 'g', 'l', 'ml', 'un', 'cx'] as const;
export type QuantityUnit = (typeof QUANTITY_UNITS)[number];

export const ITEM_STATUSES = ['active', 'expired', 'blocked'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export const MOVEMENT_TYPES = ['entry', 'exit', 'adjustment', 'transfer', 'reservation'] as const;
export type MovementType = (typeof MOVEMENT_TYPES)[number];

export const MOVEMENT_REASONS = ['purchase', 'sale', 'transfer', 'adjustment', 'production', 'loss', 'theft', 'expiration', 'return'] as const;
export type MovementReason = (typeof MOVEMENT_REASONS)[number];

export const LABEL_REASONS = ['loss', 'theft', 'expiration', 'adjustment'] as const;
export type LabelReason = (typeof LABEL_REASONS)[number];

export const LABEL_STATUSES = ['pending', 'used'] as const;
export type LabelStatus = (typeof LABEL_STATUSES)[number];

const milli = (name: string) => bigint(name, { mode: 'number' });

/** The master catalog of stock items (one row per item; soft-deleted, since movements name it). */
export const inventoryItems = pgTable(
  'inventory_items',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    name: text('name').notNull(),
    sku: text('sku').notNull(),
    /** EAN-8/EAN-13/GTIN barcode, check digit validated. */
    ean: text('ean'),
    unit: text('unit', { enum: STOCK_UNITS }).notNull(),
    /** Units of `unit` in one box (`cx`), for recipes and purchases counted in boxes; null: no boxes. */
    packSize: milli('pack_size_milli'),
    physicalMilli: milli('physical_milli').notNull().default(0),
    /** Held for open orders or transfers: available = physical - reserved. */
    reservedMilli: milli('reserved_milli').notNull().default(0),
    minMilli: milli('min_milli').notNull().default(0),
    /** Cost of one `unit`, in cents. */
    costCents: bigint('cost_cents', { mode: 'number' }).notNull().default(0),
    expirationDate: date('expiration_date', { mode: 'string' }),
    status: text('status', { enum: ITEM_STATUSES }).notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('inventory_items_sku_key').on(t.tenantId, t.sku).where(sql`${t.deletedAt} is null`),
    uniqueIndex('inventory_items_ean_key').on(t.tenantId, t.ean).where(sql`${t.deletedAt} is null and ${t.ean} is not null`),
  ],
);

/** Stock of an item at one PDV (spec "BranchStock"); one row per (item, PDV). */
export const branchStock = pgTable(
  'branch_stock',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    itemId: id('item_id').notNull(),
    pdvId: id('pdv_id').notNull(),
    physicalMilli: milli('physical_milli').notNull().default(0),
    reservedMilli: milli('reserved_milli').notNull().default(0),
    /** Null: no minimum set, so no alert. */
    minMilli: milli('min_milli'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('branch_stock_item_pdv_key').on(t.tenantId, t.itemId, t.pdvId),
    index('branch_stock_pdv_idx').on(t.tenantId, t.pdvId),
    foreignKey({ name: 'branch_stock_item_fk', columns: [t.tenantId, t.itemId], foreignColumns: [inventoryItems.tenantId, inventoryItems.id] }),
    foreignKey({ name: 'branch_stock_pdv_fk', columns: [t.tenantId, t.pdvId], foreignColumns: [pdvs.tenantId, pdvs.id] }),
  ],
);

/**
 * Every change of stock, written in the transaction of the change: the catalog's (`pdv_id` null) or a
 * PDV's. `quantity` is the magnitude, `delta` the signed change of physical stock, `before`/`after` the
 * physical stock around it.
 */
export const inventoryMovements = pgTable(
  'inventory_movements',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    itemId: id('item_id').notNull(),
    pdvId: id('pdv_id'),
    type: text('type', { enum: MOVEMENT_TYPES }).notNull(),
    reason: text('reason', { enum: MOVEMENT_REASONS }).notNull(),
    quantityMilli: milli('quantity_milli').notNull(),
    deltaMilli: milli('delta_milli').notNull(),
    beforeMilli: milli('before_milli').notNull(),
    afterMilli: milli('after_milli').notNull(),
    unitCostCents: bigint('unit_cost_cents', { mode: 'number' }),
    /** The order a sale or return belongs to. */
    orderId: id('order_id'),
    /** The label a scan consumed. */
    labelId: id('label_id'),
    /** Both sides of a transfer share it. */
    transferId: id('transfer_id'),
    notes: text('notes'),
    /** Null for a public scan (the label's creator is on the label). */
    createdBy: id('created_by'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('inventory_movements_item_idx').on(t.tenantId, t.itemId, t.createdAt),
    index('inventory_movements_order_idx').on(t.tenantId, t.orderId),
    foreignKey({ name: 'inventory_movements_item_fk', columns: [t.tenantId, t.itemId], foreignColumns: [inventoryItems.tenantId, inventoryItems.id] }),
  ],
);

/** A recipe line: how much of a stock item one unit of a menu item uses (spec "ProductIngredient"). */
export const productIngredients = pgTable(
  'product_ingredients',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    menuItemId: id('menu_item_id').notNull(),
    itemId: id('item_id').notNull(),
    /** Per unit (or kg) of the menu item sold, in `unit`. */
    quantityMilli: milli('quantity_milli').notNull(),
    /** The unit of `quantity`; null: the item's own unit. */
    unit: text('unit', { enum: QUANTITY_UNITS }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('product_ingredients_pair_key').on(t.tenantId, t.menuItemId, t.itemId),
    foreignKey({ name: 'product_ingredients_item_fk', columns: [t.tenantId, t.itemId], foreignColumns: [inventoryItems.tenantId, inventoryItems.id] }),
  ],
);

/**
 * A low-stock alert: created when available stock falls to or below the minimum, one open alert per item
 * and PDV (`pdv_id` null: the catalog), closed (`resolved_at`) when stock is above the minimum again.
 */
export const stockAlerts = pgTable(
  'stock_alerts',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    itemId: id('item_id').notNull(),
    itemName: text('item_name').notNull(),
    pdvId: id('pdv_id'),
    pdvName: text('pdv_name'),
    availableMilli: milli('available_milli').notNull(),
    minMilli: milli('min_milli').notNull(),
    /** The item's expiration date when the alert was raised. */
    expiresAt: ts('expires_at'),
    readBy: jsonb('read_by').$type<string[]>().notNull().default([]),
    resolvedAt: ts('resolved_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('stock_alerts_open_key').on(t.tenantId, t.itemId, sql`coalesce(${t.pdvId}, '')`).where(sql`${t.resolvedAt} is null`),
    index('stock_alerts_created_idx').on(t.tenantId, t.createdAt),
  ],
);

/** A printed label whose QR code, scanned once, takes its quantity out of stock (spec "LabelToken"). */
export const labelTokens = pgTable(
  'label_tokens',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    token: uuid('token').notNull(),
    itemId: id('item_id').notNull(),
    /** The PDV whose stock the scan takes from; null: the catalog. */
    pdvId: id('pdv_id'),
    quantityMilli: milli('quantity_milli').notNull(),
    reason: text('reason', { enum: LABEL_REASONS }).notNull(),
    notes: text('notes'),
    status: text('status', { enum: LABEL_STATUSES }).notNull().default('pending'),
    createdBy: id('created_by').notNull(),
    usedAt: ts('used_at'),
    movementId: id('movement_id'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('label_tokens_token_key').on(t.token),
    foreignKey({ name: 'label_tokens_item_fk', columns: [t.tenantId, t.itemId], foreignColumns: [inventoryItems.tenantId, inventoryItems.id] }),
  ],
);

/**
 * What each order has taken out of stock, per item and place, so that deduction on sale is exactly once:
 * the deduction brings an order's net sale movements to what its lines need now (0 once cancelled).
 */
export const orderStock = pgTable(
  'order_stock',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    orderId: id('order_id').notNull(),
    itemId: id('item_id').notNull(),
    /** The PDV whose stock was used; '' for the catalog (part of the key). */
    place: text('place').notNull(),
    deductedMilli: milli('deducted_milli').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.orderId, t.itemId, t.place] })],
);

export type InventoryItemRow = typeof inventoryItems.$inferSelect;
export type BranchStockRow = typeof branchStock.$inferSelect;
export type InventoryMovementRow = typeof inventoryMovements.$inferSelect;
export type ProductIngredientRow = typeof productIngredients.$inferSelect;
export type StockAlertRow = typeof stockAlerts.$inferSelect;
export type LabelTokenRow = typeof labelTokens.$inferSelect;
export type OrderStockRow = typeof orderStock.$inferSelect;

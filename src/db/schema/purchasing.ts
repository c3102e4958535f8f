import { bigint, boolean, char, date, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

/**
 * Purchasing (spec 2 "Supplier", "PurchaseOrder", "SuggestedPurchaseOrder"; 4.8 suppliers, purchase
 * orders, predictions, import-nfs). Quantities are integer thousandths (`*_milli`) like the inventory's;
 * money is integer cents. docs/decisions.md, "Purchasing".
 */

export const PURCHASE_ORDER_STATUSES = ['draft', 'sent', 'partial', 'received', 'cancelled'] as const;
export type PurchaseOrderStatus = (typeof PURCHASE_ORDER_STATUSES)[number];

export const SUGGESTION_STATUSES = ['pending', 'approved', 'dismissed'] as const;
export type SuggestionStatus = (typeof SUGGESTION_STATUSES)[number];

const milli = (name: string) => bigint(name, { mode: 'number' });
const cents = (name: string) => bigint(name, { mode: 'number' });

export const suppliers = pgTable(
  'suppliers',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    name: text('name').notNull(),
    /** 14 characters, check digits verified; null when not given. */
    cnpj: text('cnpj'),
    email: text('email'),
    phone: text('phone'),
    contactName: text('contact_name'),
    address: text('address'),
    categories: jsonb('categories').$type<string[]>().notNull().default([]),
    notes: text('notes'),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), index('suppliers_cnpj_idx').on(t.tenantId, t.cnpj)],
);

/** A line of a purchase order: ordered and received quantities in thousandths of the item's unit. */
export interface PurchaseOrderLine {
  inventoryItemId: string;
  itemName: string;
  quantityMilli: number;
  unitCostCents: number;
  /** quantity x unit cost, rounded half up to the cent. */
  subtotalCents: number;
  receivedMilli: number;
}

export const purchaseOrders = pgTable(
  'purchase_orders',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    /** PO-YYYYMMDD-NNNN, the day in the tenant's time zone, NNNN from `purchase_order_counters`. */
    orderNumber: text('order_number').notNull(),
    supplierId: id('supplier_id'),
    items: jsonb('items').$type<PurchaseOrderLine[]>().notNull(),
    totalCostCents: cents('total_cost_cents').notNull(),
    expectedDelivery: date('expected_delivery', { mode: 'string' }),
    notes: text('notes'),
    status: text('status', { enum: PURCHASE_ORDER_STATUSES }).notNull().default('draft'),
    /** The suggestion it was approved from, if any. */
    suggestionId: id('suggestion_id'),
    createdBy: id('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex('purchase_orders_number_key').on(t.tenantId, t.orderNumber)],
);

/** The last purchase order number of a tenant's day (the NNNN of PO-YYYYMMDD-NNNN). */
export const purchaseOrderCounters = pgTable(
  'purchase_order_counters',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    last: integer('last').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.day] })],
);

/** A restock proposal from demand prediction (spec "SuggestedPurchaseOrder"). */
export const suggestedPurchaseOrders = pgTable(
  'suggested_purchase_orders',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    status: text('status', { enum: SUGGESTION_STATUSES }).notNull().default('pending'),
    horizonDays: integer('horizon_days').notNull(),
    /** What it proposes, item by item (the suggestions' IngredientDemand rows it was made from). */
    items: jsonb('items').$type<Record<string, unknown>[]>().notNull(),
    totalCostCents: cents('total_cost_cents').notNull(),
    purchaseOrderId: id('purchase_order_id'),
    decidedBy: id('decided_by'),
    decidedAt: ts('decided_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), index('suggested_purchase_orders_created_idx').on(t.tenantId, t.createdAt)],
);

/** Units of a menu item sold on a local day (the daily snapshot job), for demand prediction. */
export const salesSnapshots = pgTable(
  'sales_snapshots',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    menuItemId: id('menu_item_id').notNull(),
    quantityMilli: milli('quantity_milli').notNull(),
    orders: integer('orders').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.day, t.menuItemId] }), index('sales_snapshots_item_idx').on(t.tenantId, t.menuItemId, t.day)],
);

/** An imported supplier invoice (NF-e), by its 44-digit access key: importing it again is refused. */
export const importedInvoices = pgTable(
  'imported_invoices',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    nfeKey: char('nfe_key', { length: 44 }).notNull(),
    nfeNumber: text('nfe_number').notNull(),
    emitterCnpj: text('emitter_cnpj').notNull(),
    emitterName: text('emitter_name').notNull(),
    supplierId: id('supplier_id'),
    totalCents: cents('total_cents').notNull(),
    itemsCount: integer('items_count').notNull(),
    /** What was done, line by line (matched, created, skipped), as the import answered it. */
    summary: jsonb('summary').$type<Record<string, unknown>>().notNull(),
    importedBy: id('imported_by'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex('imported_invoices_key').on(t.tenantId, t.nfeKey)],
);

/** A supplier's product code mapped to an inventory item, confirmed once and used for the next invoices. */
export const supplierItemMappings = pgTable(
  'supplier_item_mappings',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    /** The supplier's CNPJ (14 characters), as on its invoices. */
    supplierCnpj: text('supplier_cnpj').notNull(),
    /** `cProd` of the invoice line. */
    supplierCode: text('supplier_code').notNull(),
    itemId: id('item_id').notNull(),
    /** Stock units per invoice unit (thousandths): 12 when the invoice counts boxes of 12 of an item counted in `un`. */
    factorMilli: milli('factor_milli').notNull().default(1000),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.supplierCnpj, t.supplierCode] })],
);

export type SupplierRow = typeof suppliers.$inferSelect;
export type PurchaseOrderRow = typeof purchaseOrders.$inferSelect;
export type SuggestedPurchaseOrderRow = typeof suggestedPurchaseOrders.$inferSelect;
export type SalesSnapshotRow = typeof salesSnapshots.$inferSelect;
export type ImportedInvoiceRow = typeof importedInvoices.$inferSelect;
export type SupplierItemMappingRow = typeof supplierItemMappings.$inferSelect;

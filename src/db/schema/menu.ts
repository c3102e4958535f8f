import { sql } from 'drizzle-orm';
import { bigint, boolean, foreignKey, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

export const MODIFIER_GROUP_TYPES = ['single', 'multiple'] as const;
/** How an item is sold: by the unit, or by weight with quantities in kg to 3 decimals (padarias, mercados). */
export const MENU_UNITS = ['un', 'kg'] as const;
export type MenuUnit = (typeof MENU_UNITS)[number];
/** Where an item is prepared: the kitchen screen shows each station its own lines (lines without one count as `kitchen`). */
export const KITCHEN_STATIONS = ['kitchen', 'bar', 'desserts'] as const;
export type Station = (typeof KITCHEN_STATIONS)[number];
export type ModifierGroupType = (typeof MODIFIER_GROUP_TYPES)[number];

/** One choice inside a modifier group; `priceAdjustment` in integer cents, never negative. */
export interface ModifierOption {
  name: string;
  priceAdjustment: number;
  isDefault: boolean;
  available: boolean;
}

export const menuCategories = pgTable(
  'menu_categories',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    name: text('name').notNull(),
    order: integer('order').notNull().default(0),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), index('menu_categories_order_idx').on(t.tenantId, t.order)],
);

/**
 * Items are soft-deleted (`deleted_at`): orders keep pointing at them.
 * `category_id` is null only on deleted items whose category was removed afterwards.
 */
export const menuItems = pgTable(
  'menu_items',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    categoryId: id('category_id'),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    price: bigint('price', { mode: 'number' }).notNull(),
    /** `kg`: the price is per kilogram. */
    unit: text('unit', { enum: MENU_UNITS }).notNull().default('un'),
    preparationTime: integer('preparation_time'),
    /** Place within its category on the menu (then by name). */
    order: integer('order').notNull().default(0),
    station: text('station', { enum: KITCHEN_STATIONS }).notNull().default('kitchen'),
    isAvailable: boolean('is_available').notNull().default(true),
    isActive: boolean('is_active').notNull().default(true),
    allergens: text('allergens').array().notNull().default(sql`'{}'`),
    /** Fiscal data of the item on an NF-e / NFC-e (null: the tenant's defaults; docs/decisions.md, "Fiscal"). */
    ncm: text('ncm'),
    cfop: text('cfop'),
    cest: text('cest'),
    /** CSOSN (Simples Nacional) or CST (regime normal) of ICMS. */
    taxCode: text('tax_code'),
    /** The item's code at each delivery platform (`{ provider_a: 'X-123' }`): how their orders name it. */
    externalCodes: jsonb('external_codes').$type<Partial<Record<'provider_a' | 'provider_b' | 'provider_c', string>>>().notNull().default({}),
    deletedAt: ts('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({
      name: 'menu_items_category_fk',
      columns: [t.tenantId, t.categoryId],
      foreignColumns: [menuCategories.tenantId, menuCategories.id],
    }),
    index('menu_items_category_idx').on(t.tenantId, t.categoryId),
  ],
);

/** Soft-deleted (`deleted_at`) and detached from every item when deleted. */
export const modifierGroups = pgTable(
  'modifier_groups',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    type: text('type', { enum: MODIFIER_GROUP_TYPES }).notNull(),
    required: boolean('required').notNull().default(false),
    minSelections: integer('min_selections').notNull(),
    maxSelections: integer('max_selections').notNull(),
    options: jsonb('options').$type<ModifierOption[]>().notNull(),
    deletedAt: ts('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
);

/** Which modifier groups an item offers, in the order the admin gave them. */
export const menuItemModifierGroups = pgTable(
  'menu_item_modifier_groups',
  {
    tenantId: id('tenant_id').notNull(),
    itemId: id('item_id').notNull(),
    groupId: id('group_id').notNull(),
    position: integer('position').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.itemId, t.groupId] }),
    foreignKey({
      name: 'menu_item_modifier_groups_item_fk',
      columns: [t.tenantId, t.itemId],
      foreignColumns: [menuItems.tenantId, menuItems.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'menu_item_modifier_groups_group_fk',
      columns: [t.tenantId, t.groupId],
      foreignColumns: [modifierGroups.tenantId, modifierGroups.id],
    }).onDelete('cascade'),
    index('menu_item_modifier_groups_group_idx').on(t.tenantId, t.groupId),
  ],
);

/**
 * One row per tenant, bumped in the same transaction as every menu write.
 * Public menu reads compare it to decide whether a cached body is still current,
 * so no process ever serves a menu older than the last committed write.
 */
export const menuVersions = pgTable('menu_versions', {
  tenantId: id('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  version: bigint('version', { mode: 'number' }).notNull().default(1),
});

export type MenuCategoryRow = typeof menuCategories.$inferSelect;
export type MenuItemRow = typeof menuItems.$inferSelect;
export type ModifierGroupRow = typeof modifierGroups.$inferSelect;

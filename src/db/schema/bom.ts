import { bigint, index, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

/** Cost sheets (spec 2 "BOM records", 4.13): a dish's indirect costs and the snapshots of its cost. */

export const INDIRECT_COST_TYPES = ['labor', 'energy', 'packaging', 'other'] as const;
export type IndirectCostType = (typeof INDIRECT_COST_TYPES)[number];
/** `fixed`: a currency amount per unit; `percentage_of_direct`: a fraction of the direct cost (0.15 = 15%). */
export const INDIRECT_UNIT_TYPES = ['fixed', 'percentage_of_direct'] as const;
export type IndirectUnitType = (typeof INDIRECT_UNIT_TYPES)[number];
/** What made a snapshot: a user's calculate, or a supplier invoice that changed an ingredient's cost. */
export const SNAPSHOT_TRIGGERS = ['manual', 'nfe_import'] as const;
export type SnapshotTrigger = (typeof SNAPSHOT_TRIGGERS)[number];

export const bomIndirectCosts = pgTable(
  'bom_indirect_costs',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    menuItemId: id('menu_item_id').notNull(),
    type: text('type', { enum: INDIRECT_COST_TYPES }).notNull(),
    label: text('label').notNull(),
    unitType: text('unit_type', { enum: INDIRECT_UNIT_TYPES }).notNull(),
    /** `fixed`: cents per unit; `percentage_of_direct`: the fraction in millionths (0.15 = 150000). */
    value: bigint('value', { mode: 'number' }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), index('bom_indirect_costs_item_idx').on(t.tenantId, t.menuItemId)],
);

/** A dish's cost at one moment: direct (recipe x current costs), indirect, per unit; never changed after. */
export const bomSnapshots = pgTable(
  'bom_snapshots',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    menuItemId: id('menu_item_id').notNull(),
    /** Cents per unit (fractions of a cent kept in the lines, rounded once here). */
    directCents: bigint('direct_cents', { mode: 'number' }).notNull(),
    indirectCents: bigint('indirect_cents', { mode: 'number' }).notNull(),
    totalCents: bigint('total_cents', { mode: 'number' }).notNull(),
    /** The menu price when it was taken. */
    sellingPriceCents: bigint('selling_price_cents', { mode: 'number' }).notNull(),
    /** The asked margin in millionths, and the price it suggests (cents, rounded up). */
    targetMargin: bigint('target_margin', { mode: 'number' }),
    suggestedPriceCents: bigint('suggested_price_cents', { mode: 'number' }),
    triggeredBy: text('triggered_by', { enum: SNAPSHOT_TRIGGERS }).notNull(),
    /** The ingredient lines and indirect costs as they were. */
    lines: jsonb('lines').$type<Record<string, unknown>[]>().notNull(),
    indirect: jsonb('indirect').$type<Record<string, unknown>[]>().notNull(),
    createdBy: id('created_by'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), index('bom_snapshots_item_idx').on(t.tenantId, t.menuItemId, t.createdAt)],
);

export type BomIndirectCostRow = typeof bomIndirectCosts.$inferSelect;
export type BomSnapshotRow = typeof bomSnapshots.$inferSelect;

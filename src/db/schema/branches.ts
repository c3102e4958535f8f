import { sql } from 'drizzle-orm';
import { bigint, boolean, foreignKey, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

/** A physical store of the tenant; one of them is the headquarters. */
export const branches = pgTable(
  'branches',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    active: boolean('active').notNull().default(true),
    isHQ: boolean('is_hq').notNull().default(false),
    cnpj: text('cnpj'),
    address: text('address'),
    city: text('city'),
    state: text('state'),
    cep: text('cep'),
    ibsCbsEnabled: boolean('ibs_cbs_enabled').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('branches_slug_key').on(t.tenantId, t.slug),
    // One headquarters per tenant.
    uniqueIndex('branches_hq_key').on(t.tenantId).where(sql`${t.isHQ}`),
  ],
);

/** A point of sale (counter, tablet, card terminal) inside a branch. */
export const pdvs = pgTable(
  'pdvs',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    branchId: id('branch_id').notNull(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    serviceMode: text('service_mode').notNull().default('balcao'),
    active: boolean('active').notNull().default(true),
    gatewayATerminalSerial: text('gateway_a_terminal_serial'),
    /** A PIX key of this point of sale, instead of the tenant's. */
    pixKey: text('pix_key'),
    /** This point of sale's service charge in basis points; null to use the tenant's. */
    serviceChargeBp: integer('service_charge_bp'),
    /** This point of sale's cover charge per person in cents; null to use the tenant's. */
    coverCharge: bigint('cover_charge', { mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('pdvs_slug_key').on(t.tenantId, t.slug),
    foreignKey({ name: 'pdvs_branch_fk', columns: [t.tenantId, t.branchId], foreignColumns: [branches.tenantId, branches.id] }),
    index('pdvs_branch_idx').on(t.tenantId, t.branchId),
    // A card terminal belongs to one PDV of the whole platform.
    uniqueIndex('pdvs_terminal_key').on(t.gatewayATerminalSerial),
  ],
);

export type BranchRow = typeof branches.$inferSelect;
export type PdvRow = typeof pdvs.$inferSelect;

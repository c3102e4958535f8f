import { sql } from 'drizzle-orm';
import { bigint, foreignKey, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { branches, pdvs } from './branches.js';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

export const SHIFT_STATUSES = ['open', 'closed'] as const;
export type ShiftStatus = (typeof SHIFT_STATUSES)[number];

/** Cash taken out of the drawer during a shift ("sangria") or put in ("suprimento"). */
export const CASH_MOVEMENT_KINDS = ['withdrawal', 'addition'] as const;
export type CashMovementKind = (typeof CASH_MOVEMENT_KINDS)[number];

/** Amounts per payment method, in cents (`cash`, `credit_card`, `pix`...). */
export type MethodAmounts = Record<string, number>;

/**
 * A cashier's shift at a PDV: opened with a float, closed with the amounts counted per method against
 * those expected from its payments and cash movements. One open shift per PDV.
 */
export const shifts = pgTable(
  'shifts',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    branchId: id('branch_id').notNull(),
    pdvId: id('pdv_id').notNull(),
    /** The operator working the shift. */
    userId: id('user_id').notNull(),
    openedBy: id('opened_by').notNull(),
    startedAt: ts('started_at').notNull(),
    /** Cash in the drawer at the start, in cents. */
    openingFloat: bigint('opening_float', { mode: 'number' }).notNull(),
    status: text('status', { enum: SHIFT_STATUSES }).notNull().default('open'),
    closedAt: ts('closed_at'),
    closedBy: id('closed_by'),
    counted: jsonb('counted').$type<MethodAmounts>(),
    expected: jsonb('expected').$type<MethodAmounts>(),
    /** counted - expected per method: negative is missing money. */
    difference: jsonb('difference').$type<MethodAmounts>(),
    closingNotes: text('closing_notes'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('shifts_one_open_per_pdv').on(t.tenantId, t.pdvId).where(sql`${t.status} = 'open'`),
    index('shifts_branch_idx').on(t.tenantId, t.branchId, t.startedAt),
    foreignKey({ name: 'shifts_pdv_fk', columns: [t.tenantId, t.pdvId], foreignColumns: [pdvs.tenantId, pdvs.id] }),
    foreignKey({ name: 'shifts_branch_fk', columns: [t.tenantId, t.branchId], foreignColumns: [branches.tenantId, branches.id] }),
  ],
);

export const cashMovements = pgTable(
  'cash_movements',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    shiftId: id('shift_id').notNull(),
    kind: text('kind', { enum: CASH_MOVEMENT_KINDS }).notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    reason: text('reason').notNull(),
    createdBy: id('created_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('cash_movements_shift_idx').on(t.tenantId, t.shiftId),
    foreignKey({ name: 'cash_movements_shift_fk', columns: [t.tenantId, t.shiftId], foreignColumns: [shifts.tenantId, shifts.id] }),
  ],
);

export type ShiftRow = typeof shifts.$inferSelect;
export type CashMovementRow = typeof cashMovements.$inferSelect;

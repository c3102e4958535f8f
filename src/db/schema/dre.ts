import { boolean, date, index, pgTable, primaryKey, text, uniqueIndex, bigint } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

/**
 * The income statement's inputs (spec 2 "ExpenseCategory", "CostCenter", "OperatingExpense", 4.12): expenses
 * by category and cost center. Money is integer cents inside, decimal currency units at the API.
 */

/** The DRE line a category feeds; `revenue` appears on system rows only (spec 2). */
export const EXPENSE_DRE_GROUPS = ['revenue', 'revenue_deduction', 'cogs', 'opex', 'da', 'financial'] as const;
export type ExpenseDreGroup = (typeof EXPENSE_DRE_GROUPS)[number];

const categoryColumns = {
  id: id('id').notNull(),
  code: text('code').notNull(),
  name: text('name').notNull(),
  dreGroup: text('dre_group', { enum: EXPENSE_DRE_GROUPS }).notNull(),
  active: boolean('active').notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
};

/** The system categories (spec: `tenant` null), shared by every tenant, seeded by the migration, never deleted. */
export const systemExpenseCategories = pgTable('system_expense_categories', categoryColumns, (t) => [
  primaryKey({ columns: [t.id] }),
  uniqueIndex('system_expense_categories_code_key').on(t.code),
]);

/** A tenant's own categories (a code unique for the tenant across both). */
export const expenseCategories = pgTable(
  'expense_categories',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    ...categoryColumns,
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex('expense_categories_code_key').on(t.tenantId, t.code)],
);

export const costCenters = pgTable(
  'cost_centers',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex('cost_centers_code_key').on(t.tenantId, t.code)],
);

export const operatingExpenses = pgTable(
  'operating_expenses',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    description: text('description').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    competenceDate: date('competence_date', { mode: 'string' }).notNull(),
    /** A system or tenant category. */
    categoryId: id('category_id').notNull(),
    costCenterId: id('cost_center_id'),
    receiptUrl: text('receipt_url'),
    createdBy: id('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('operating_expenses_date_idx').on(t.tenantId, t.competenceDate),
    index('operating_expenses_category_idx').on(t.tenantId, t.categoryId),
    index('operating_expenses_cost_center_idx').on(t.tenantId, t.costCenterId),
  ],
);

export type SystemExpenseCategoryRow = typeof systemExpenseCategories.$inferSelect;
export type ExpenseCategoryRow = typeof expenseCategories.$inferSelect;
export type CostCenterRow = typeof costCenters.$inferSelect;
export type OperatingExpenseRow = typeof operatingExpenses.$inferSelect;

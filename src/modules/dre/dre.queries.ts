import { and, asc, count, desc, eq, gte, inArray, lt, sum, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import {
  costCenters,
  expenseCategories,
  operatingExpenses,
  systemExpenseCategories,
  type CostCenterRow,
  type ExpenseCategoryRow,
  type OperatingExpenseRow,
  type SystemExpenseCategoryRow,
} from '../../db/schema/dre.js';

/** SQL of the income statement: categories (system and tenant), cost centers, operating expenses. */

export const CATEGORY_CODE_KEY = 'expense_categories_code_key';
export const COST_CENTER_CODE_KEY = 'cost_centers_code_key';

type Lock = 'update' | 'share';

// ---- categories

export function listSystemCategories(db: Db): Promise<SystemExpenseCategoryRow[]> {
  return db.select().from(systemExpenseCategories).orderBy(asc(systemExpenseCategories.code));
}

export function listTenantCategories(db: Db, tenantId: string): Promise<ExpenseCategoryRow[]> {
  return db.select().from(expenseCategories).where(eq(expenseCategories.tenantId, tenantId)).orderBy(asc(expenseCategories.code));
}

export async function findSystemCategory(db: Db, id: string): Promise<SystemExpenseCategoryRow | null> {
  const [row] = await db.select().from(systemExpenseCategories).where(eq(systemExpenseCategories.id, id));
  return row ?? null;
}

export async function findSystemCategoryByCode(db: Db, code: string): Promise<SystemExpenseCategoryRow | null> {
  const [row] = await db.select().from(systemExpenseCategories).where(eq(systemExpenseCategories.code, code));
  return row ?? null;
}

/** A tenant category, optionally locked for the rest of the transaction (`share` against its delete), or null. */
export async function findTenantCategory(db: Db, tenantId: string, id: string, lock?: Lock): Promise<ExpenseCategoryRow | null> {
  const query = db
    .select()
    .from(expenseCategories)
    .where(and(eq(expenseCategories.tenantId, tenantId), eq(expenseCategories.id, id)));
  const [row] = lock ? await query.for(lock) : await query;
  return row ?? null;
}

export async function insertCategory(db: Db, row: typeof expenseCategories.$inferInsert): Promise<ExpenseCategoryRow> {
  const [created] = await db.insert(expenseCategories).values(row).returning();
  return created!;
}

export async function deleteCategory(db: Db, tenantId: string, id: string) {
  await db.delete(expenseCategories).where(and(eq(expenseCategories.tenantId, tenantId), eq(expenseCategories.id, id)));
}

/** System and tenant categories by id (the tenant's may be inactive), for the views. */
export async function categoriesByIds(db: Db, tenantId: string, ids: string[]) {
  if (!ids.length) return [];
  const fields = { id: expenseCategories.id, name: expenseCategories.name, dreGroup: expenseCategories.dreGroup };
  const own = await db
    .select(fields)
    .from(expenseCategories)
    .where(and(eq(expenseCategories.tenantId, tenantId), inArray(expenseCategories.id, ids)));
  const system = await db
    .select({ id: systemExpenseCategories.id, name: systemExpenseCategories.name, dreGroup: systemExpenseCategories.dreGroup })
    .from(systemExpenseCategories)
    .where(inArray(systemExpenseCategories.id, ids));
  return [...system, ...own];
}

// ---- cost centers

export function listCostCenters(db: Db, tenantId: string): Promise<CostCenterRow[]> {
  return db.select().from(costCenters).where(eq(costCenters.tenantId, tenantId)).orderBy(asc(costCenters.code));
}

export async function findCostCenter(db: Db, tenantId: string, id: string, lock?: Lock): Promise<CostCenterRow | null> {
  const query = db
    .select()
    .from(costCenters)
    .where(and(eq(costCenters.tenantId, tenantId), eq(costCenters.id, id)));
  const [row] = lock ? await query.for(lock) : await query;
  return row ?? null;
}

export async function costCentersByIds(db: Db, tenantId: string, ids: string[]): Promise<CostCenterRow[]> {
  if (!ids.length) return [];
  return db
    .select()
    .from(costCenters)
    .where(and(eq(costCenters.tenantId, tenantId), inArray(costCenters.id, ids)));
}

export async function insertCostCenter(db: Db, row: typeof costCenters.$inferInsert): Promise<CostCenterRow> {
  const [created] = await db.insert(costCenters).values(row).returning();
  return created!;
}

export async function deactivateCostCenter(db: Db, tenantId: string, id: string, now: Date) {
  await db
    .update(costCenters)
    .set({ active: false, updatedAt: now })
    .where(and(eq(costCenters.tenantId, tenantId), eq(costCenters.id, id)));
}

export async function deleteCostCenter(db: Db, tenantId: string, id: string) {
  await db.delete(costCenters).where(and(eq(costCenters.tenantId, tenantId), eq(costCenters.id, id)));
}

// ---- expenses

/** How many expenses name the category, or the cost center. */
export async function countExpenses(db: Db, tenantId: string, by: { categoryId: string } | { costCenterId: string }) {
  const [row] = await db
    .select({ n: count() })
    .from(operatingExpenses)
    .where(
      and(
        eq(operatingExpenses.tenantId, tenantId),
        'categoryId' in by ? eq(operatingExpenses.categoryId, by.categoryId) : eq(operatingExpenses.costCenterId, by.costCenterId),
      ),
    );
  return row!.n;
}

export interface ExpenseFilter {
  /** Competence dates in [from, to). */
  from?: string;
  to?: string;
  categoryId?: string;
  costCenterId?: string;
}

function expenseWhere(tenantId: string, f: ExpenseFilter): SQL | undefined {
  return and(
    eq(operatingExpenses.tenantId, tenantId),
    f.from ? gte(operatingExpenses.competenceDate, f.from) : undefined,
    f.to ? lt(operatingExpenses.competenceDate, f.to) : undefined,
    f.categoryId ? eq(operatingExpenses.categoryId, f.categoryId) : undefined,
    f.costCenterId ? eq(operatingExpenses.costCenterId, f.costCenterId) : undefined,
  );
}

/** A page of expenses, newest competence first, and how many match. */
export async function listExpenses(db: Db, tenantId: string, f: ExpenseFilter, page: { offset: number; limit: number }) {
  const where = expenseWhere(tenantId, f);
  const [{ n }] = (await db.select({ n: count() }).from(operatingExpenses).where(where)) as [{ n: number }];
  const rows = await db
    .select()
    .from(operatingExpenses)
    .where(where)
    .orderBy(desc(operatingExpenses.competenceDate), desc(operatingExpenses.createdAt), desc(operatingExpenses.id))
    .limit(page.limit)
    .offset(page.offset);
  return { rows, total: n };
}

/** The expenses of a period summed by category, in cents. */
export async function expenseTotalsByCategory(db: Db, tenantId: string, f: ExpenseFilter): Promise<{ categoryId: string; cents: number }[]> {
  const rows = await db
    .select({ categoryId: operatingExpenses.categoryId, cents: sum(operatingExpenses.amountCents) })
    .from(operatingExpenses)
    .where(expenseWhere(tenantId, f))
    .groupBy(operatingExpenses.categoryId);
  return rows.map((r) => ({ categoryId: r.categoryId, cents: Number(r.cents ?? 0) }));
}

export async function findExpense(db: Db, tenantId: string, id: string, lock = false): Promise<OperatingExpenseRow | null> {
  const query = db
    .select()
    .from(operatingExpenses)
    .where(and(eq(operatingExpenses.tenantId, tenantId), eq(operatingExpenses.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function insertExpense(db: Db, row: typeof operatingExpenses.$inferInsert): Promise<OperatingExpenseRow> {
  const [created] = await db.insert(operatingExpenses).values(row).returning();
  return created!;
}

export async function updateExpense(
  db: Db,
  tenantId: string,
  id: string,
  fields: Partial<typeof operatingExpenses.$inferInsert>,
): Promise<OperatingExpenseRow> {
  const [row] = await db
    .update(operatingExpenses)
    .set(fields)
    .where(and(eq(operatingExpenses.tenantId, tenantId), eq(operatingExpenses.id, id)))
    .returning();
  return row!;
}

export async function deleteExpense(db: Db, tenantId: string, id: string) {
  await db.delete(operatingExpenses).where(and(eq(operatingExpenses.tenantId, tenantId), eq(operatingExpenses.id, id)));
}


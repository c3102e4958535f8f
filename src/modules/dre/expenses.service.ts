import { newId } from '../../db/ids.js';
import type { CostCenterRow, OperatingExpenseRow } from '../../db/schema/dre.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import { Invalid, NotFound, type RequestPart } from '../../platform/domain-errors.js';
import { addDays, isCalendarDate } from '../../platform/time.js';
import * as q from './dre.queries.js';
import type { CreateExpenseInput, ExpensePageView, ListExpensesInput, OperatingExpenseView, UpdateExpenseInput } from './dre.schemas.js';
import type { DreParts } from './dre.service.js';

/** What an expense listener is told, inside the transaction of the change (`before`: the row as it was, on update). */
export interface ExpenseChange {
  kind: 'created' | 'updated' | 'deleted';
  expense: OperatingExpenseRow;
  before?: OperatingExpenseRow;
}
export type ExpenseListener = (tx: TenantTx, change: ExpenseChange) => Promise<void>;

/** Currency units to cents: > 0 and at most 2 decimals (the schema bounds it), else `Invalid` naming the field. */
export function toCents(amount: number, field = 'amount'): number {
  const cents = Math.round(amount * 100);
  if (cents / 100 !== amount) throw new Invalid(field, 'must have at most 2 decimals');
  if (cents <= 0) throw new Invalid(field, 'must be at least 0.01');
  return cents;
}

/** YYYY-MM-DD of a competence input: YYYY-MM is its month's first day; YYYY-MM-DD must be a real day. */
export function competenceOf(value: string, field = 'competenceDate', part?: RequestPart): string {
  const date = value.length === 7 ? `${value}-01` : value;
  if (!isCalendarDate(date)) throw new Invalid(field, 'is not a day of the calendar', part ? { in: part } : undefined);
  return date;
}

/** The first day of the month after `date` (YYYY-MM-DD). */
export function nextMonth(date: string): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
}

const DEFAULT_LIMIT = 20;

/** Operating expenses (spec 4.12 `/dre/expenses`): amounts in cents inside, currency units at the API. */
export function expensesPart({ deps }: DreParts) {
  const listeners: ExpenseListener[] = [];
  const tell = async (tx: TenantTx, change: ExpenseChange) => {
    for (const listener of listeners) await listener(tx, change);
  };

  /** The views of expense rows, their categories and cost centers read in two selects. */
  async function viewsOf(tx: TenantTx, rows: OperatingExpenseRow[]): Promise<OperatingExpenseView[]> {
    const categories = new Map((await q.categoriesByIds(tx.db, tx.tenantId, [...new Set(rows.map((r) => r.categoryId))])).map((c) => [c.id, c]));
    const centerIds = [...new Set(rows.flatMap((r) => (r.costCenterId ? [r.costCenterId] : [])))];
    const centers = new Map((await q.costCentersByIds(tx.db, tx.tenantId, centerIds)).map((c) => [c.id, c]));
    return rows.map((r) => {
      const c = categories.get(r.categoryId);
      const cc = r.costCenterId ? centers.get(r.costCenterId) : undefined;
      return {
        _id: r.id,
        description: r.description,
        amount: r.amountCents / 100,
        competenceDate: r.competenceDate,
        category: { _id: r.categoryId, name: c?.name ?? '?', dreGroup: c?.dreGroup ?? 'opex' },
        costCenter: cc ? { _id: cc.id, code: cc.code, name: cc.name } : null,
        receiptUrl: r.receiptUrl,
        createdAt: r.createdAt.toISOString(),
        updatedAt: r.updatedAt.toISOString(),
      };
    });
  }
  const viewOf = async (tx: TenantTx, row: OperatingExpenseRow) => (await viewsOf(tx, [row]))[0]!;

  /** An active system or tenant category, held (share) until the transaction ends, else `Invalid` on `categoryId`. */
  async function usableCategory(tx: TenantTx, id: string) {
    const category = (await q.findSystemCategory(tx.db, id)) ?? (await q.findTenantCategory(tx.db, tx.tenantId, id, 'share'));
    if (!category) throw new Invalid('categoryId', 'is not an expense category of this tenant or of the system');
    if (!category.active) throw new Invalid('categoryId', `is the inactive category ${category.code} ${category.name}`);
    return category;
  }

  /** An active cost center of the tenant, held (share) until the transaction ends, else `Invalid` on `costCenterId`. */
  async function usableCostCenter(tx: TenantTx, id: string): Promise<CostCenterRow> {
    const center = await q.findCostCenter(tx.db, tx.tenantId, id, 'share');
    if (!center) throw new Invalid('costCenterId', 'is not a cost center of this tenant');
    if (!center.active) throw new Invalid('costCenterId', `is the deactivated cost center ${center.code} ${center.name}`);
    return center;
  }

  return {
    /**
     * A page of expenses, newest competence date first. `competenceDate` YYYY-MM filters a month, YYYY-MM-DD
     * a day; `categoryId` a category (404 when it is neither the system's nor the tenant's).
     */
    listExpenses: (t: TenantDb, query: ListExpensesInput): Promise<ExpensePageView> =>
      t.run(async (tx) => {
        const page = query.page ?? 1;
        const limit = query.limit ?? DEFAULT_LIMIT;
        const filter: q.ExpenseFilter = {};
        if (query.competenceDate) {
          const from = competenceOf(query.competenceDate, 'competenceDate', 'querystring');
          Object.assign(filter, { from, to: query.competenceDate.length === 7 ? nextMonth(from) : addDays(from, 1) });
        }
        if (query.categoryId) {
          const found = (await q.findSystemCategory(tx.db, query.categoryId)) ?? (await q.findTenantCategory(tx.db, tx.tenantId, query.categoryId));
          if (!found) throw new NotFound('Expense category');
          filter.categoryId = query.categoryId;
        }
        const { rows, total } = await q.listExpenses(tx.db, tx.tenantId, filter, { offset: (page - 1) * limit, limit });
        return { items: await viewsOf(tx, rows), total, page, limit, pages: Math.ceil(total / limit) };
      }),

    getExpense: (t: TenantDb, id: string): Promise<OperatingExpenseView> =>
      t.run(async (tx) => {
        const row = await q.findExpense(tx.db, tx.tenantId, id);
        if (!row) throw new NotFound('Expense');
        return viewOf(tx, row);
      }),

    /** Books an expense on an active category (system or tenant) and, optionally, an active cost center. */
    createExpense: (t: TenantDb, caller: { userId: string }, input: CreateExpenseInput): Promise<OperatingExpenseView> =>
      t.run(async (tx) => {
        const amountCents = toCents(input.amount);
        const competenceDate = competenceOf(input.competenceDate);
        await usableCategory(tx, input.categoryId);
        if (input.costCenterId) await usableCostCenter(tx, input.costCenterId);
        const now = deps.clock.now();
        const row = await q.insertExpense(tx.db, {
          tenantId: tx.tenantId,
          id: newId(),
          description: input.description.trim(),
          amountCents,
          competenceDate,
          categoryId: input.categoryId,
          costCenterId: input.costCenterId ?? null,
          receiptUrl: input.receiptUrl ?? null,
          createdBy: caller.userId,
          createdAt: now,
          updatedAt: now,
        });
        await tell(tx, { kind: 'created', expense: row });
        return viewOf(tx, row);
      }),

    /**
     * Changes any field of an expense (null clears `costCenterId` or `receiptUrl`). A new category or cost
     * center must be active; the ones it has keep it even when they were deactivated since.
     */
    updateExpense: (t: TenantDb, id: string, input: UpdateExpenseInput): Promise<OperatingExpenseView> =>
      t.run(async (tx) => {
        const fields: Partial<OperatingExpenseRow> = {};
        if (input.amount !== undefined) fields.amountCents = toCents(input.amount);
        if (input.competenceDate !== undefined) fields.competenceDate = competenceOf(input.competenceDate);
        const before = await q.findExpense(tx.db, tx.tenantId, id, true);
        if (!before) throw new NotFound('Expense');
        if (input.description !== undefined) fields.description = input.description.trim();
        if (input.categoryId !== undefined && input.categoryId !== before.categoryId) await usableCategory(tx, input.categoryId);
        if (input.categoryId !== undefined) fields.categoryId = input.categoryId;
        if (input.costCenterId && input.costCenterId !== before.costCenterId) await usableCostCenter(tx, input.costCenterId);
        if (input.costCenterId !== undefined) fields.costCenterId = input.costCenterId;
        if (input.receiptUrl !== undefined) fields.receiptUrl = input.receiptUrl;
        const row = await q.updateExpense(tx.db, tx.tenantId, id, { ...fields, updatedAt: deps.clock.now() });
        await tell(tx, { kind: 'updated', expense: row, before });
        return viewOf(tx, row);
      }),

    deleteExpense: (t: TenantDb, id: string): Promise<{ deleted: true }> =>
      t.run(async (tx) => {
        const row = await q.findExpense(tx.db, tx.tenantId, id, true);
        if (!row) throw new NotFound('Expense');
        await q.deleteExpense(tx.db, tx.tenantId, id);
        await tell(tx, { kind: 'deleted', expense: row });
        return { deleted: true as const };
      }),

    /**
     * `listener` runs inside the transaction of every expense created, updated or deleted (after the write;
     * a throw rolls the change back). The accounting module posts the expense through it.
     */
    onExpenseChange(listener: ExpenseListener) {
      listeners.push(listener);
    },

    /** For the accounting module's posting job: an expense and its category (code, group, system or not), in the caller's transaction; null when gone. */
    async expenseForPosting(tx: TenantTx, id: string) {
      const expense = await q.findExpense(tx.db, tx.tenantId, id);
      if (!expense) return null;
      const category =
        (await q.findTenantCategory(tx.db, tx.tenantId, expense.categoryId)) ?? (await q.findSystemCategory(tx.db, expense.categoryId));
      if (!category) return null;
      return { expense, category: { code: category.code, name: category.name, dreGroup: category.dreGroup, system: !('tenantId' in category) } };
    },
  };
}


import { newId } from '../../db/ids.js';
import type { ExpenseCategoryRow, SystemExpenseCategoryRow } from '../../db/schema/dre.js';
import type { TenantDb } from '../../db/scopes.js';
import { Conflict, InvalidRequest, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import * as q from './dre.queries.js';
import type { CreateCategoryInput, ExpenseCategoryView } from './dre.schemas.js';
import type { DreParts } from './dre.service.js';

export function toCategoryView(row: SystemExpenseCategoryRow | ExpenseCategoryRow): ExpenseCategoryView {
  return {
    _id: row.id,
    code: row.code,
    name: row.name,
    dreGroup: row.dreGroup,
    active: row.active,
    tenant: 'tenantId' in row ? row.tenantId : null,
  };
}

const taken = (code: string, owner: string) => new Conflict(`The code ${code} is taken by ${owner}`, 'category_code_taken');

/** Expense categories (spec 4.12 `/dre/categories`): the system ones (tenant null) and the tenant's. */
export function categoriesPart({ deps }: DreParts) {
  return {
    /** The system categories by code, then the tenant's by code. */
    listCategories: (t: TenantDb): Promise<ExpenseCategoryView[]> =>
      t.run(async (tx) => [...(await q.listSystemCategories(tx.db)), ...(await q.listTenantCategories(tx.db, tx.tenantId))].map(toCategoryView)),

    /** A tenant category; its code (upper case) unique across the system categories and the tenant's (409 category_code_taken). */
    createCategory: (t: TenantDb, input: CreateCategoryInput): Promise<ExpenseCategoryView> =>
      t.run(async (tx) => {
        const code = input.code.toUpperCase();
        const system = await q.findSystemCategoryByCode(tx.db, code);
        if (system) throw taken(code, `the system category ${system.name}`);
        const now = deps.clock.now();
        try {
          const row = await q.insertCategory(tx.db, {
            tenantId: tx.tenantId,
            id: newId(),
            code,
            name: input.name.trim(),
            dreGroup: input.dreGroup,
            active: true,
            createdAt: now,
            updatedAt: now,
          });
          return toCategoryView(row);
        } catch (err) {
          if (isUniqueViolation(err, q.CATEGORY_CODE_KEY)) throw taken(code, 'another category of this tenant');
          throw err;
        }
      }),

    /**
     * Removes a tenant category: 400 system_category for a system one (spec 7), 409 category_in_use while
     * expenses name it (spec 7), 404 when neither the system's nor the tenant's.
     */
    deleteCategory: (t: TenantDb, id: string): Promise<{ deleted: true }> =>
      t.run(async (tx) => {
        const system = await q.findSystemCategory(tx.db, id);
        if (system) throw new InvalidRequest(`${system.code} ${system.name} is a system category: it cannot be deleted`, 'system_category');
        // Locked: an expense being booked on it holds it (share) until it commits, and is counted below.
        const row = await q.findTenantCategory(tx.db, tx.tenantId, id, 'update');
        if (!row) throw new NotFound('Expense category');
        const n = await q.countExpenses(tx.db, tx.tenantId, { categoryId: id });
        if (n > 0) throw new Conflict(`${n} expense(s) are booked on ${row.code} ${row.name}: move or delete them first`, 'category_in_use');
        await q.deleteCategory(tx.db, tx.tenantId, id);
        return { deleted: true as const };
      }),
  };
}

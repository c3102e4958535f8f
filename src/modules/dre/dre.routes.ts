import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  CostCenter,
  CostCenterDeleted,
  CreateCategoryBody,
  CreateCostCenterBody,
  CreateExpenseBody,
  Deleted,
  Dre,
  DreQuery,
  ExpenseCategory,
  ExpensePage,
  ListExpensesQuery,
  OperatingExpense,
  UpdateExpenseBody,
} from './dre.schemas.js';
import type { DreService } from './dre.service.js';

const BASE = '/t/:slug/dre';
const tags = ['dre'];
/** Spec 4.12: admin (superadmin passes). */
const auth = { roles: ['admin'] } as const;

/** Spec 4.12: the DRE of a month, operating expenses, expense categories, cost centers. */
export function dreRoutes(app: RouteApp, { dre }: { dre: DreService }) {
  app.get(BASE, {
    schema: {
      tags,
      summary: 'The income statement (DRE) of a month, accrual basis, currency units; `costCenterId`: only what is booked on that cost center',
      params: TenantParams,
      querystring: DreQuery,
      response: withErrors({ 200: Dre }),
    },
    config: { auth },
    handler: (req) => dre.statement(ctxOf(req).db, req.query),
  });

  // ---- expenses

  app.get(`${BASE}/expenses`, {
    schema: {
      tags,
      summary: 'Operating expenses, newest competence first (`competenceDate` YYYY-MM a month or YYYY-MM-DD a day; page 1, limit 20, at most 100)',
      params: TenantParams,
      querystring: ListExpensesQuery,
      response: withErrors({ 200: ExpensePage }),
    },
    config: { auth },
    handler: (req) => dre.listExpenses(ctxOf(req).db, req.query),
  });

  app.post(`${BASE}/expenses`, {
    schema: {
      tags,
      summary: 'Book an operating expense (amount in currency units, on an active category; optional active cost center and receipt URL)',
      params: TenantParams,
      body: CreateExpenseBody,
      response: withErrors({ 201: OperatingExpense }),
    },
    config: { auth },
    handler: async (req, reply) => {
      const ctx = ctxOf(req);
      return reply.code(201).send(await dre.createExpense(ctx.db, { userId: ctx.user.id }, req.body));
    },
  });

  app.put(`${BASE}/expenses/:id`, {
    schema: {
      tags,
      summary: 'Change an expense (any field of the create body; null clears costCenterId or receiptUrl)',
      params: TenantIdParams,
      body: UpdateExpenseBody,
      response: withErrors({ 200: OperatingExpense }),
    },
    config: { auth },
    handler: (req) => dre.updateExpense(ctxOf(req).db, req.params.id, req.body),
  });

  app.delete(`${BASE}/expenses/:id`, {
    schema: { tags, summary: 'Delete an expense', params: TenantIdParams, response: withErrors({ 200: Deleted }) },
    config: { auth },
    handler: (req) => dre.deleteExpense(ctxOf(req).db, req.params.id),
  });

  // ---- categories

  app.get(`${BASE}/categories`, {
    schema: {
      tags,
      summary: 'Expense categories: the system ones (tenant null) by code, then the tenant’s by code',
      params: TenantParams,
      response: withErrors({ 200: Type.Array(ExpenseCategory) }),
    },
    config: { auth },
    handler: (req) => dre.listCategories(ctxOf(req).db),
  });

  app.post(`${BASE}/categories`, {
    schema: {
      tags,
      summary: 'Add a tenant category (409 category_code_taken when the tenant or the system has the code)',
      params: TenantParams,
      body: CreateCategoryBody,
      response: withErrors({ 201: ExpenseCategory }, [400, 401, 403, 404, 409]),
    },
    config: { auth },
    handler: async (req, reply) => reply.code(201).send(await dre.createCategory(ctxOf(req).db, req.body)),
  });

  app.delete(`${BASE}/categories/:id`, {
    schema: {
      tags,
      summary: 'Remove a tenant category (400 system_category for a system one; 409 category_in_use while expenses are booked on it)',
      params: TenantIdParams,
      response: withErrors({ 200: Deleted }, [400, 401, 403, 404, 409]),
    },
    config: { auth },
    handler: (req) => dre.deleteCategory(ctxOf(req).db, req.params.id),
  });

  // ---- cost centers

  app.get(`${BASE}/cost-centers`, {
    schema: {
      tags,
      summary: 'Cost centers by code (deactivated ones included, `active: false`)',
      params: TenantParams,
      response: withErrors({ 200: Type.Array(CostCenter) }),
    },
    config: { auth },
    handler: (req) => dre.listCostCenters(ctxOf(req).db),
  });

  app.post(`${BASE}/cost-centers`, {
    schema: {
      tags,
      summary: 'Add a cost center (409 cost_center_code_taken)',
      params: TenantParams,
      body: CreateCostCenterBody,
      response: withErrors({ 201: CostCenter }, [400, 401, 403, 404, 409]),
    },
    config: { auth },
    handler: async (req, reply) => reply.code(201).send(await dre.createCostCenter(ctxOf(req).db, req.body)),
  });

  app.delete(`${BASE}/cost-centers/:id`, {
    schema: {
      tags,
      summary: 'Delete a cost center; one that expenses name is deactivated instead (`deactivated: true`, listed with active false, no new expenses)',
      params: TenantIdParams,
      response: withErrors({ 200: CostCenterDeleted }),
    },
    config: { auth },
    handler: (req) => dre.deleteCostCenter(ctxOf(req).db, req.params.id),
  });
}

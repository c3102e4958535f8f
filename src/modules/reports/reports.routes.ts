import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { BranchStats, CompareQuery, CompareReport, DailyReport, DailyReportQuery, PeriodQuery } from './reports.schemas.js';
import type { ReportsService } from './reports.service.js';

/**
 * Money reports (daily report, comparison): admins, branch managers (their branches only) and accountants,
 * who close the books from them. The live dashboard (`stats`: open shifts, operators) is operational:
 * admins and branch managers only. Superadmins pass every rule. docs/decisions.md, "Branch reports".
 */
const moneyRoles = ['admin', 'branch_manager', 'accountant'] as const;
const dashboardRoles = ['admin', 'branch_manager'] as const;

const BASE = '/api/t/:slug/admin/branches';

export function reportsRoutes(app: RouteApp, { reports }: { reports: ReportsService }) {
  app.get(`${BASE}/:id/daily-report`, {
    schema: {
      tags: ['branches'],
      summary: "A branch's day: revenue by payment method, tips, orders and shifts, per PDV and in total",
      params: TenantIdParams,
      querystring: DailyReportQuery,
      response: withErrors({ 200: DailyReport }),
    },
    config: { auth: { roles: moneyRoles, branchParam: 'id' } },
    handler: (req) => reports.dailyReport(ctxOf(req), req.params.id, req.query.date),
  });

  app.get(`${BASE}/:id/stats`, {
    schema: {
      tags: ['branches'],
      summary: "A branch's revenue and orders of a period (default today) and its open shifts now",
      params: TenantIdParams,
      querystring: PeriodQuery,
      response: withErrors({ 200: BranchStats }),
    },
    config: { auth: { roles: dashboardRoles, branchParam: 'id' } },
    handler: (req) => reports.stats(ctxOf(req), req.params.id, req.query),
  });

  app.get(`${BASE}/compare`, {
    schema: {
      tags: ['branches'],
      summary: 'Revenue, orders, average ticket, payment methods, tips and shifts per branch for a period',
      params: TenantParams,
      querystring: CompareQuery,
      response: withErrors({ 200: CompareReport }),
    },
    config: { auth: { roles: moneyRoles } },
    handler: (req) => reports.compare(ctxOf(req), req.query),
  });
}

import type { TenantDb } from '../../db/scopes.js';
import type { BranchScope } from '../../platform/auth/guards.js';
import type { Deps } from '../../platform/deps.js';
import { Invalid, NotFound } from '../../platform/domain-errors.js';
import { addDays, localDate, startOfLocalDay } from '../../platform/time.js';
import * as q from './reports.queries.js';
import type { BranchStatsView, CompareReportView, DailyReportView } from './reports.schemas.js';

/** What a report needs of the caller: the tenant's handle and time zone, and the branches they may see. */
export interface ReportCtx {
  db: TenantDb;
  tenant: { timezone: string };
  branchScope: BranchScope;
}

/** The longest period a report covers, in days (a leap year). */
export const MAX_PERIOD_DAYS = 366;

const DAY_MS = 86_400_000;
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/** The local days [from, to] as an instant range: from the start of `from` to the start of the day after `to`. */
function rangeOf(from: string, to: string, timeZone: string): q.Range {
  return { start: startOfLocalDay(from, timeZone).toISOString(), end: startOfLocalDay(addDays(to, 1), timeZone).toISOString() };
}

function checkPeriod(from: string, to: string) {
  if (to < from) throw new Invalid('to', `must be on or after from (${from})`, { in: 'querystring' });
  if (daysBetween(from, to) + 1 > MAX_PERIOD_DAYS) throw new Invalid('to', `the period is at most ${MAX_PERIOD_DAYS} days`, { in: 'querystring' });
}

const sum = (rows: readonly q.Money[]): q.Money => {
  const total: q.Money = { revenue: 0, cash: 0, card: 0, pix: 0, other: 0, tips: 0, orders: 0, shifts: 0 };
  for (const r of rows) for (const k of Object.keys(total) as (keyof q.Money)[]) total[k] += r[k];
  return total;
};

/** revenue / orders in whole cents, half up; 0 without orders. */
const averageTicket = (m: q.Money) => (m.orders === 0 ? 0 : Math.round(m.revenue / m.orders));

/**
 * Branch reports (spec 4.10): read-only aggregates over orders, payments, shifts and PDVs, one statement
 * each (reports.queries.ts has the revenue rule). Days are the tenant's local days.
 */
export function reportsService(deps: Pick<Deps, 'clock'>) {
  const today = (ctx: ReportCtx) => localDate(deps.clock.now(), ctx.tenant.timezone);

  return {
    async dailyReport(ctx: ReportCtx, branchId: string, date?: string): Promise<DailyReportView> {
      const day = date ?? today(ctx);
      const byPdv = await ctx.db.run((tx) => q.dailyByPdv(tx.db, tx.tenantId, branchId, rangeOf(day, day, ctx.tenant.timezone)));
      if (!byPdv) throw new NotFound('Branch');
      return { date: day, totals: sum(byPdv), byPdv };
    },

    async compare(ctx: ReportCtx, period: { from: string; to: string }): Promise<CompareReportView> {
      checkPeriod(period.from, period.to);
      const scope = ctx.branchScope.all ? null : ctx.branchScope.branchIds;
      const rows = await ctx.db.run((tx) => q.byBranch(tx.db, tx.tenantId, rangeOf(period.from, period.to, ctx.tenant.timezone), scope));
      const totals = sum(rows);
      return {
        from: period.from,
        to: period.to,
        totals: { ...totals, averageTicket: averageTicket(totals) },
        branches: rows.map((r) => ({ ...r, averageTicket: averageTicket(r) })),
      };
    },

    async stats(ctx: ReportCtx, branchId: string, period: { from?: string; to?: string }): Promise<BranchStatsView> {
      // `to` defaults to today, `from` to `to`: nothing given is today; `from` alone is from then to today.
      const to = period.to ?? today(ctx);
      const from = period.from ?? to;
      checkPeriod(from, to);
      const stats = await ctx.db.run((tx) => q.branchStats(tx.db, tx.tenantId, branchId, rangeOf(from, to, ctx.tenant.timezone)));
      if (!stats) throw new NotFound('Branch');
      return {
        from,
        to,
        totalRevenue: stats.revenue,
        totalOrders: stats.orders,
        activeShifts: stats.activeShifts,
        activeOperators: stats.activeOperators,
        lowStockItems: 0,
      };
    },
  };
}

export type ReportsService = ReturnType<typeof reportsService>;

import type { FiscalDocumentRow } from '../../db/schema/fiscal.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import { Invalid, NotFound } from '../../platform/domain-errors.js';
import { addDays, localDate, startOfLocalDay } from '../../platform/time.js';
import type { FiscalDocView } from './documents.schemas.js';
import type { FiscalParts } from './fiscal.service.js';
import { toFiscalDocView, type FiscalOrderSummary } from './fiscal.view.js';
import * as q from './portal.queries.js';
import type { DashboardInput, DashboardView, DereView, DocumentsInput, DocumentsPageView, PeriodInput, SplitPaymentView } from './portal.schemas.js';

/**
 * Split payment of the tax reform (LC 214/2025 arts. 31-34): in 2026, the test year, CBS at 0.9% and IBS at 0.1% (the
 * transition title, Livro I Título VIII), shown on the documents and compensable with PIS and COFINS, so no burden changes yet.
 */
export const SPLIT_RATES = { cbs: 0.009, ibs: 0.001 } as const;

/** The longest period the summaries cover. */
const MAX_PERIOD_DAYS = 366;

const taxCents = (taxes: Record<string, unknown>, key: string) => {
  const v = taxes[key];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0;
};

/** The accountant portal (spec 4.9): the month's counts, the documents, the split payment and DeRE summaries. */
export function portalPart(parts: FiscalParts) {
  const { clock } = parts.deps;
  const { orders } = parts.needs;

  /** [start, end) of whole local days, checked: 400 naming endDate when it comes first or the span is too long. */
  function periodOf(ctx: TenantCtx, startDate: string | undefined, endDate: string | undefined, maxDays?: number): q.Period {
    const tz = ctx.tenant.timezone;
    if (startDate && endDate) {
      if (endDate < startDate) throw new Invalid('endDate', 'must not be before startDate', { in: 'querystring' });
      if (maxDays && endDate > addDays(startDate, maxDays - 1)) throw new Invalid('endDate', `must be at most ${maxDays} days after startDate`, { in: 'querystring' });
    }
    return {
      from: startDate ? startOfLocalDay(startDate, tz) : undefined,
      to: endDate ? startOfLocalDay(addDays(endDate, 1), tz) : undefined,
    };
  }

  /** The rows as FiscalDocs with their orders (read through the orders service, one per order). */
  async function views(ctx: TenantCtx, rows: FiscalDocumentRow[]): Promise<FiscalDocView[]> {
    return ctx.db.run(async (tx) => {
      const summaries = new Map<string, FiscalOrderSummary | null>();
      for (const orderId of new Set(rows.map((r) => r.orderId))) {
        const o = await orders.findById(tx, orderId);
        summaries.set(orderId, o ? { _id: o.id, orderNumber: o.orderNumber, total: o.total, customerName: o.customerName } : null);
      }
      return rows.map((r) => toFiscalDocView(r, summaries.get(r.orderId) ?? null, ctx.tenant.slug));
    });
  }

  return {
    async accountantDashboard(ctx: TenantCtx, input: DashboardInput): Promise<DashboardView> {
      const today = localDate(clock.now(), ctx.tenant.timezone);
      const year = input.year ?? Number(today.slice(0, 4));
      const month = input.month ?? Number(today.slice(5, 7));
      const first = `${year}-${String(month).padStart(2, '0')}-01`;
      const next = month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
      const rows = await ctx.db.run((tx) =>
        q.countsBy(tx.db, tx.tenantId, { from: startOfLocalDay(first, ctx.tenant.timezone), to: startOfLocalDay(next, ctx.tenant.timezone) }));
      const view: DashboardView = { year, month, authorized: 0, rejected: 0, pending: 0, cancelled: 0, byType: { nfe: 0, nfce: 0, nfse: 0 } };
      for (const r of rows) {
        view[r.status] += r.n;
        view.byType[r.tipo] += r.n;
      }
      return view;
    },

    async accountantDocuments(ctx: TenantCtx, input: DocumentsInput): Promise<DocumentsPageView> {
      const page = input.page ?? 1;
      const limit = input.limit ?? 20;
      const period = periodOf(ctx, input.startDate, input.endDate);
      const { rows, total } = await ctx.db.run((tx) =>
        q.pageOf(tx.db, tx.tenantId, { ...period, status: input.status, offset: (page - 1) * limit, limit }));
      return { data: await views(ctx, rows), total };
    },

    async accountantDocument(ctx: TenantCtx, id: string): Promise<FiscalDocView> {
      const row = await ctx.db.run((tx) => q.findDocument(tx.db, tx.tenantId, id));
      if (!row) throw new NotFound('Fiscal document not found');
      return (await views(ctx, [row]))[0];
    },

    async splitPayment(ctx: TenantCtx, input: PeriodInput): Promise<SplitPaymentView> {
      const period = periodOf(ctx, input.startDate, input.endDate, MAX_PERIOD_DAYS);
      const docs = (await ctx.db.run((tx) => q.acceptedIn(tx.db, tx.tenantId, period))).filter((d) => d.status === 'authorized');
      const sum = (key: string) => docs.reduce((s, d) => s + taxCents(d.taxes, key), 0);
      const totalRevenue = docs.reduce((s, d) => s + d.totalCents, 0);
      const icms = sum('icmsCents');
      const pis = sum('pisCents');
      const cofins = sum('cofinsCents');
      const cbs = Math.round(totalRevenue * SPLIT_RATES.cbs);
      const ibs = Math.round(totalRevenue * SPLIT_RATES.ibs);
      const totalTax = icms + pis + cofins;
      return {
        periodo: { inicio: input.startDate, fim: input.endDate },
        orderCount: new Set(docs.map((d) => d.orderId)).size,
        totalRevenue,
        totalTax,
        totalNet: totalRevenue - totalTax,
        splitPaymentImpact: cbs + ibs,
        taxBreakdown: { icms, pis, cofins, cbs, ibs, rates: { ...SPLIT_RATES }, compensable: true },
      };
    },

    async dere(ctx: TenantCtx, input: PeriodInput): Promise<DereView> {
      const period = periodOf(ctx, input.startDate, input.endDate, MAX_PERIOD_DAYS);
      const { docs, methods } = await ctx.db.run(async (tx) => {
        const docs = await q.acceptedIn(tx.db, tx.tenantId, period);
        // How each order still documented was paid (the order's payment method; several payments: \`mixed\`).
        const methods = new Map<string, string>();
        for (const orderId of new Set(docs.filter((d) => d.status === 'authorized').map((d) => d.orderId))) {
          methods.set(orderId, (await orders.findById(tx, orderId))?.paymentMethod ?? 'nao_informado');
        }
        return { docs, methods };
      });
      const live = docs.filter((d) => d.status === 'authorized');
      const receitaBruta = docs.reduce((s, d) => s + d.totalCents, 0);
      const cancelamentos = docs.filter((d) => d.status === 'cancelled').reduce((s, d) => s + d.totalCents, 0);
      const impostos = live.reduce((s, d) => s + taxCents(d.taxes, 'icmsCents') + taxCents(d.taxes, 'pisCents') + taxCents(d.taxes, 'cofinsCents'), 0);
      const byType = { nfe: 0, nfce: 0 };
      const byPayment: Record<string, number> = {};
      for (const d of live) {
        byType[d.tipo] += d.totalCents;
        const method = methods.get(d.orderId) ?? 'nao_informado';
        byPayment[method] = (byPayment[method] ?? 0) + d.totalCents;
      }
      const deducoes = { cancelamentos, impostos, total: cancelamentos + impostos };
      return {
        periodo: { inicio: input.startDate, fim: input.endDate },
        receitaBruta,
        deducoes,
        receitaLiquida: receitaBruta - deducoes.total,
        orderCount: new Set(live.map((d) => d.orderId)).size,
        byType,
        byPayment,
      };
    },
  };
}

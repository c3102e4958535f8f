import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import type { AccountingService } from './accounting.service.js';
import { Aging, CreateReceivableBody, ListReceivablesQuery, Receivable, ReceivablePage, SettleBody, WriteOffBody } from './receivables.schemas.js';

const BASE = '/t/:slug/accounting/receivables';
const tags = ['accounting'];
/** Spec 4.11: admin (superadmin passes); the accountant reads the reports, not the books. */
const books = { permission: 'manage_accounting' } as const;

/** Receivables (spec 4.11 `/receivables`; the create route is beyond the spec). */
export function receivablesRoutes(app: RouteApp, { accounting }: { accounting: AccountingService }) {
  const caller = (req: Parameters<typeof ctxOf>[0]) => {
    const ctx = ctxOf(req);
    return { userId: ctx.user.id, timezone: ctx.tenant.timezone };
  };

  app.get(BASE, {
    schema: {
      tags,
      summary: 'Receivables, soonest due first (status, source, dueFrom, dueTo filter; page from 1, limit 20 up to 100)',
      params: TenantParams,
      querystring: ListReceivablesQuery,
      response: withErrors({ 200: ReceivablePage }),
    },
    config: { auth: books },
    handler: (req) => accounting.listReceivables(ctxOf(req).db, req.query),
  });

  app.get(`${BASE}/aging`, {
    schema: {
      tags,
      summary: 'Aging of the open and partial receivables on the tenant’s today: over 90 days overdue, 61-90, 31-60, 1-30, not yet due',
      params: TenantParams,
      response: withErrors({ 200: Aging }),
    },
    config: { auth: books },
    handler: (req) => accounting.receivablesAging(ctxOf(req).db, caller(req)),
  });

  app.post(BASE, {
    schema: {
      tags,
      summary: 'A sale on credit: posts D clientes C receita de vendas (or the revenue account given); 409 period_closed',
      params: TenantParams,
      body: CreateReceivableBody,
      response: withErrors({ 201: Receivable }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    handler: async (req, reply) => reply.code(201).send(await accounting.createReceivable(ctxOf(req).db, caller(req), req.body)),
  });

  app.post(`${BASE}/:id/settle`, {
    schema: {
      tags,
      summary: 'A full or partial receipt: D caixa or banco the amount, D taxas de cartão the fee, C the receivable amount + fee',
      description: '400 over the outstanding; 409 receivable_settled, receivable_written_off, period_closed.',
      params: TenantIdParams,
      body: SettleBody,
      response: withErrors({ 200: Receivable }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    handler: (req) => accounting.settleReceivable(ctxOf(req).db, caller(req), req.params.id, req.body),
  });

  app.post(`${BASE}/:id/write-off`, {
    schema: {
      tags,
      summary: 'Write off the outstanding: D perdas com créditos incobráveis C the receivable; status written_off with the reason',
      description: '409 nothing_outstanding, receivable_written_off, period_closed.',
      params: TenantIdParams,
      body: WriteOffBody,
      response: withErrors({ 200: Receivable }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    handler: (req) => accounting.writeOffReceivable(ctxOf(req).db, caller(req), req.params.id, req.body),
  });
}

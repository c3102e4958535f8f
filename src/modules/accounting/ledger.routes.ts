import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantParams, withErrors } from '../../platform/schemas.js';
import type { AccountingService } from './accounting.service.js';
import { BalanceteQuery, BalanceteRow, PeriodBody, PeriodClosing, RazaoLine, RazaoQuery } from './ledger.schemas.js';

const manageAccounting = { permission: 'manage_accounting' } as const;
const base = '/t/:slug/accounting/ledger';

/** Periods and the ledger (spec 4.11): balancete, razão, the list of periods, close and reopen. */
export function ledgerRoutes(app: RouteApp, { accounting }: { accounting: AccountingService }) {
  app.get(`${base}/balancete`, {
    schema: {
      tags: ['accounting'],
      summary: "The month's trial balance: posted entries only, per account with lines in the month, balance by the balance rule",
      params: TenantParams,
      querystring: BalanceteQuery,
      response: withErrors({ 200: Type.Array(BalanceteRow) }),
    },
    config: { auth: manageAccounting },
    handler: (req) => accounting.balancete(ctxOf(req).db, req.query),
  });

  app.get(`${base}/razao`, {
    schema: {
      tags: ['accounting'],
      summary: 'The ledger of an analytic account between two dates (included), with its running balance from the balance before startDate',
      description: '400 for a synthetic account; 404 for an account the tenant does not see.',
      params: TenantParams,
      querystring: RazaoQuery,
      response: withErrors({ 200: Type.Array(RazaoLine) }),
    },
    config: { auth: manageAccounting },
    handler: (req) => accounting.razao(ctxOf(req).db, req.query),
  });

  app.get(`${base}/periods`, {
    schema: {
      tags: ['accounting'],
      summary: 'Every month with entries (or closed once), oldest first: open, closed or reopened, with the snapshot of its last closing',
      params: TenantParams,
      response: withErrors({ 200: Type.Array(PeriodClosing) }, [401, 403, 404]),
    },
    config: { auth: manageAccounting },
    handler: (req) => accounting.periods(ctxOf(req).db),
  });

  app.post(`${base}/close`, {
    schema: {
      tags: ['accounting'],
      summary: 'Close a month: its balancete is stored as the snapshot; nothing is posted, reversed or dated in it until reopened (409 when closed already)',
      params: TenantParams,
      body: PeriodBody,
      response: withErrors({ 200: PeriodClosing }, [400, 401, 403, 404, 409]),
    },
    config: { auth: manageAccounting },
    handler: (req) => {
      const ctx = ctxOf(req);
      return accounting.close(ctx.db, ctx.user.id, req.body);
    },
  });

  app.post(`${base}/reopen`, {
    schema: {
      tags: ['accounting'],
      summary: 'Reopen a closed month for corrections (409 when it is not closed)',
      params: TenantParams,
      body: PeriodBody,
      response: withErrors({ 200: PeriodClosing }, [400, 401, 403, 404, 409]),
    },
    config: { auth: manageAccounting },
    handler: (req) => {
      const ctx = ctxOf(req);
      return accounting.reopen(ctx.db, ctx.user.id, req.body);
    },
  });
}

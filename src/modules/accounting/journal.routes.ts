import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import type { AccountingService } from './accounting.service.js';
import { ChartAccount, CreateAccountBody, SeedResult } from './chart.schemas.js';
import { CreateEntryBody, JournalEntry, JournalPage, ListJournalQuery, ReverseEntryBody } from './journal.schemas.js';

const BASE = '/t/:slug/accounting';
const tags = ['accounting'];
/** Spec 4.11: admin (superadmin passes); the accountant reads the reports, not the books. */
const books = { permission: 'manage_accounting' } as const;

/** The chart and the journal (spec 4.11 `/chart`, `/journal`). */
export function journalRoutes(app: RouteApp, { accounting }: { accounting: AccountingService }) {
  app.get(`${BASE}/chart`, {
    schema: {
      tags,
      summary: 'The chart of accounts: the system accounts (tenant null), then the tenant’s, each by code',
      params: TenantParams,
      response: withErrors({ 200: Type.Array(ChartAccount) }),
    },
    config: { auth: books },
    handler: (req) => accounting.listChart(ctxOf(req).db),
  });

  app.post(`${BASE}/chart`, {
    schema: {
      tags,
      summary: 'Add a tenant account (409 code_taken; the parent an active synthetic account of the same nature)',
      params: TenantParams,
      body: CreateAccountBody,
      response: withErrors({ 201: ChartAccount }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    handler: async (req, reply) => reply.code(201).send(await accounting.createAccount(ctxOf(req).db, req.body)),
  });

  app.delete(`${BASE}/chart/:id`, {
    schema: {
      tags,
      summary: 'Deactivate a tenant account (active: false; 400 system_account, 409 account_has_children; posted lines stay)',
      params: TenantIdParams,
      response: withErrors({ 200: ChartAccount }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    handler: (req) => accounting.deactivateAccount(ctxOf(req).db, req.params.id),
  });

  app.post(`${BASE}/chart/seed/defaults`, {
    schema: {
      tags,
      summary: 'Superadmin: load the default restaurant chart into the system chart (codes already there are left alone)',
      params: TenantParams,
      response: withErrors({ 200: SeedResult }),
    },
    config: { auth: { superadmin: true } },
    handler: () => accounting.seedDefaultChart(),
  });

  app.get(`${BASE}/journal`, {
    schema: {
      tags,
      summary: 'Journal entries, newest competence date first (page from 1, limit 20 up to 100, status filters)',
      params: TenantParams,
      querystring: ListJournalQuery,
      response: withErrors({ 200: JournalPage }),
    },
    config: { auth: books },
    handler: (req) => accounting.listEntries(ctxOf(req).db, req.query),
  });

  app.post(`${BASE}/journal`, {
    schema: {
      tags,
      summary: 'A draft entry (debits = credits to the cent, active analytic accounts; 409 period_closed)',
      params: TenantParams,
      body: CreateEntryBody,
      response: withErrors({ 201: JournalEntry }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    handler: async (req, reply) => {
      const ctx = ctxOf(req);
      return reply.code(201).send(await accounting.createEntry(ctx.db, ctx.user.id, req.body));
    },
  });

  app.post(`${BASE}/journal/:id/post`, {
    schema: {
      tags,
      summary: 'Post a draft (409 not_draft, period_closed, account_inactive); posted entries never change',
      params: TenantIdParams,
      response: withErrors({ 200: JournalEntry }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    handler: (req) => {
      const ctx = ctxOf(req);
      return accounting.postEntry(ctx.db, ctx.user.id, req.params.id);
    },
  });

  app.post(`${BASE}/journal/:id/reverse`, {
    schema: {
      tags,
      summary:
        'Reverse a posted entry: a posted counter-entry on its date, debits and credits swapped; the original stays posted with reversedBy ' +
        '(409 not_posted, already_reversed, reversal_entry, period_closed)',
      params: TenantIdParams,
      body: ReverseEntryBody,
      response: withErrors({ 201: JournalEntry }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    handler: async (req, reply) => {
      const ctx = ctxOf(req);
      return reply.code(201).send(await accounting.reverseEntry(ctx.db, ctx.user.id, req.params.id, req.body));
    },
  });
}

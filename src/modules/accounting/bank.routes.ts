import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import { Invalid } from '../../platform/domain-errors.js';
import type { RouteApp } from '../../platform/http.js';
import { pageWindow, sendPage } from '../../platform/pagination.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import type { AccountingService } from './accounting.service.js';
import {
  STATEMENT_PAGE,
  AutoMatchResult,
  BankAccount,
  CreateBankAccountBody,
  IgnoreBody,
  ImportResult,
  LineParams,
  MatchBody,
  StatementLine,
  StatementQuery,
} from './bank.schemas.js';
import { MAX_STATEMENT_BYTES } from './bank.service.js';

const BASE = '/t/:slug/accounting/bank';
const tags = ['accounting'];
/** Spec 4.11: admin (superadmin passes); the accountant reads the reports, not the books. */
const books = { permission: 'manage_accounting' } as const;
/** The form field is the body's, though the route declares no body schema. */
const BODY = { in: 'body' } as const;

/** Bank accounts, statement import and reconciliation (spec 4.11 `/bank`; match, ignore, unmatch are beyond the spec). */
export function bankRoutes(app: RouteApp, { accounting }: { accounting: AccountingService }) {
  app.get(BASE, {
    schema: {
      tags,
      summary: 'The bank accounts, by name, each with its ledger account and how many statement lines are unmatched',
      params: TenantParams,
      response: withErrors({ 200: Type.Array(BankAccount) }),
    },
    config: { auth: books },
    handler: (req) => accounting.listBankAccounts(ctxOf(req).db),
  });

  app.post(BASE, {
    schema: {
      tags,
      summary: 'A bank account (ledger account: an active analytic ativo account, default bancos); 409 bank_account_exists',
      params: TenantParams,
      body: CreateBankAccountBody,
      response: withErrors({ 201: BankAccount }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    handler: async (req, reply) => reply.code(201).send(await accounting.createBankAccount(ctxOf(req).db, req.body)),
  });

  // Multipart is registered in this plugin's scope only: no other route accepts it.
  app.register(async (scope: RouteApp) => {
    await scope.register(multipart, { limits: { fileSize: MAX_STATEMENT_BYTES, files: 1, fields: 1, parts: 2 } });

    scope.post(`${BASE}/:id/import`, {
      schema: {
        tags,
        summary: 'Import a statement (OFX 1.x SGML / 2.x XML, or CSV): lines already there (same bank transaction id) are not added again',
        description:
          'multipart/form-data, field `file` (at most 2 MB: 413 over it). 400: not a readable OFX or CSV (code unreadable_statement, ' +
          'unknown_csv_layout, no_statement), an OFX of another account (wrong_account), a credit-card statement (credit_card_statement).',
        params: TenantIdParams,
        response: withErrors({ 201: ImportResult }, [400, 401, 403, 404, 413]),
      },
      config: { auth: books },
      handler: async (req, reply) => {
        if (!req.isMultipart()) throw new Invalid('file', 'send the statement as the multipart/form-data field "file"', BODY);
        let bytes: Buffer | null = null;
        let name: string | null = null;
        for await (const part of req.parts()) {
          if (part.type !== 'file' || part.fieldname !== 'file') throw new Invalid(part.fieldname, 'is not a known field (the statement goes in "file")', BODY);
          bytes = await part.toBuffer();
          name = part.filename || null;
        }
        if (!bytes || bytes.length === 0) throw new Invalid('file', 'is required: the OFX or CSV statement', BODY);
        const ctx = ctxOf(req);
        return reply.code(201).send(await accounting.importStatement(ctx.db, ctx.user.id, req.params.id, { name, bytes }));
      },
    });
  });

  app.get(`${BASE}/:id/statement`, {
    schema: {
      tags,
      summary: 'The statement lines of a bank account by date (status unmatched / matched / ignored, from, to filter)',
      params: TenantIdParams,
      querystring: StatementQuery,
      response: withErrors({ 200: Type.Array(StatementLine) }),
    },
    config: { auth: books },
    handler: async (req, reply) => {
      const { lines, total } = await accounting.statement(ctxOf(req).db, req.params.id, req.query);
      return sendPage(req, reply, pageWindow(req.query, STATEMENT_PAGE), total, lines);
    },
  });

  app.post(`${BASE}/:id/auto-match`, {
    schema: {
      tags,
      summary: 'Pair unmatched lines with posted entries of the same amount on the bank’s ledger account dated within 3 days (each entry once)',
      params: TenantIdParams,
      response: withErrors({ 200: AutoMatchResult }),
    },
    config: { auth: books },
    handler: (req) => {
      const ctx = ctxOf(req);
      return accounting.autoMatch(ctx.db, ctx.user.id, req.params.id);
    },
  });

  app.post(`${BASE}/:id/statement/:lineId/match`, {
    schema: {
      tags,
      summary: 'Match an unmatched line with a posted entry that has a line on the bank’s ledger account (409 line_not_unmatched, entry_matched)',
      params: LineParams,
      body: MatchBody,
      response: withErrors({ 200: StatementLine }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    handler: (req) => {
      const ctx = ctxOf(req);
      return accounting.matchLine(ctx.db, ctx.user.id, req.params.id, req.params.lineId, req.body);
    },
  });

  app.post(`${BASE}/:id/statement/:lineId/ignore`, {
    schema: {
      tags,
      summary: 'Set a line aside (status ignored, with an optional reason); 409 line_matched',
      params: LineParams,
      body: IgnoreBody,
      response: withErrors({ 200: StatementLine }, [400, 401, 403, 404, 409]),
    },
    config: { auth: books },
    // The body is optional: a bare POST ignores the line without a reason.
    preValidation: async (req) => {
      req.body ??= {};
    },
    handler: (req) => {
      const ctx = ctxOf(req);
      return accounting.ignoreLine(ctx.db, ctx.user.id, req.params.id, req.params.lineId, req.body);
    },
  });

  app.post(`${BASE}/:id/statement/:lineId/unmatch`, {
    schema: {
      tags,
      summary: 'Put a matched or ignored line back to unmatched',
      params: LineParams,
      response: withErrors({ 200: StatementLine }),
    },
    config: { auth: books },
    handler: (req) => accounting.unmatchLine(ctxOf(req).db, req.params.id, req.params.lineId),
  });
}

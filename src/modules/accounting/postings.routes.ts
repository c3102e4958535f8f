import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantParams, withErrors } from '../../platform/schemas.js';
import type { AccountingService } from './accounting.service.js';
import { AccountMapping, MappingBody, MappingParams } from './postings.schemas.js';

const BASE = '/t/:slug/accounting/mappings';
const tags = ['accounting'];
/** The books: admin (superadmin passes); the accountant and staff 403. */
const books = { permission: 'manage_accounting' } as const;

/** The account mapping of the automatic postings (beyond the spec): which account each posting key uses, and the tenant's overrides. */
export function postingsRoutes(app: RouteApp, { accounting }: { accounting: AccountingService }) {
  app.get(BASE, {
    schema: {
      tags,
      summary: 'The posting keys of the automatic postings, each with its default code and the account in use (the tenant’s override, else the default)',
      params: TenantParams,
      response: withErrors({ 200: Type.Array(AccountMapping) }),
    },
    config: { auth: books },
    handler: (req) => accounting.listMappings(ctxOf(req).db),
  });

  app.put(`${BASE}/:key`, {
    schema: {
      tags,
      summary: 'Point a posting key at an active analytic account of the tenant or the system chart (400 otherwise; 404 for an unknown key); the next postings use it',
      params: MappingParams,
      body: MappingBody,
      response: withErrors({ 200: AccountMapping }),
    },
    config: { auth: books },
    handler: (req) => {
      const ctx = ctxOf(req);
      return accounting.setMapping(ctx.db, ctx.user.id, req.params.key, req.body.accountId);
    },
  });

  app.delete(`${BASE}/:key`, {
    schema: {
      tags,
      summary: 'Back to the default account of a posting key (404 for an unknown key)',
      params: MappingParams,
      response: withErrors({ 200: AccountMapping }),
    },
    config: { auth: books },
    handler: (req) => accounting.clearMapping(ctxOf(req).db, req.params.key),
  });
}

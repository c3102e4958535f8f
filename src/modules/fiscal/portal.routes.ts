import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { FiscalDoc } from './documents.schemas.js';
import type { AuthService } from '../auth/index.js';
import type { FiscalService } from './fiscal.service.js';
import { Dashboard, DashboardQuery, Dere, DocumentsPage, DocumentsQuery, InviteBody, InviteResult, PeriodQuery, SplitPayment } from './portal.schemas.js';

const BASE = '/t/:slug/accountant';
const tags = ['accountant'];
/** Spec 4.9: accountant, admin (superadmin passes). */
const readers = { roles: ['admin', 'accountant'] } as const;

/**
 * The accountant portal (spec 4.9 `/t/:slug/accountant/...`; the exports are the exports part's). The invite goes
 * through the auth service (accounts, invitation links, mail).
 */
export function portalRoutes(app: RouteApp, { fiscal, auth }: { fiscal: FiscalService; auth: AuthService }) {
  app.get(`${BASE}/dashboard`, {
    schema: {
      tags,
      summary: 'Fiscal documents of a month (the tenant’s time zone) by status and by type',
      params: TenantParams,
      querystring: DashboardQuery,
      response: withErrors({ 200: Dashboard }),
    },
    config: { auth: readers },
    handler: (req) => fiscal.accountantDashboard(ctxOf(req), req.query),
  });

  app.get(`${BASE}/documents`, {
    schema: {
      tags,
      summary: 'Fiscal documents, newest first, filtered by status and days (page from 1, limit 20 up to 100)',
      params: TenantParams,
      querystring: DocumentsQuery,
      response: withErrors({ 200: DocumentsPage }),
    },
    config: { auth: readers },
    handler: (req) => fiscal.accountantDocuments(ctxOf(req), req.query),
  });

  app.get(`${BASE}/documents/:id`, {
    schema: {
      tags,
      summary: 'One fiscal document',
      params: TenantIdParams,
      response: withErrors({ 200: FiscalDoc }),
    },
    config: { auth: readers },
    handler: (req) => fiscal.accountantDocument(ctxOf(req), req.params.id),
  });

  app.get(`${BASE}/split-payment`, {
    schema: {
      tags,
      summary: 'Split payment summary of the period’s authorised documents: revenue, taxes due, CBS and IBS withheld at settlement',
      description: 'Cents. CBS 0.9% and IBS 0.1% of the revenue (LC 214/2025: split payment arts. 31-34; the 2026 test rates of its transition title, compensable with PIS and COFINS).',
      params: TenantParams,
      querystring: PeriodQuery,
      response: withErrors({ 200: SplitPayment }),
    },
    config: { auth: readers },
    handler: (req) => fiscal.splitPayment(ctxOf(req), req.query),
  });

  app.get(`${BASE}/dere`, {
    schema: {
      tags,
      summary: 'DeRE summary of the period: gross revenue of the accepted documents, cancellations and taxes deducted, by type and payment',
      params: TenantParams,
      querystring: PeriodQuery,
      response: withErrors({ 200: Dere }),
    },
    config: { auth: readers },
    handler: (req) => fiscal.dere(ctxOf(req), req.query),
  });

  app.post(`${BASE}/invite`, {
    schema: {
      tags,
      summary: 'Invite an accountant: an accountant membership for the email and an invitation mail',
      description:
        'A new email gets an account whose password is chosen through the mailed link (single use, valid 7 days); a known one is linked and told. '
        + 'The mail goes through the mail transport (SMTP when SMTP_URL is set, else the log). 409 already_member.',
      params: TenantParams,
      body: InviteBody,
      response: withErrors({ 201: InviteResult }, [400, 401, 403, 404, 409]),
    },
    config: { auth: { roles: ['admin'] } },
    handler: async (req, reply) => {
      const ctx = ctxOf(req);
      const out = await auth.invite(ctx.db, { email: req.body.email, name: req.body.name, role: 'accountant', tenantName: ctx.tenant.name, invitedBy: ctx.user });
      return reply.code(201).send({ message: `Invitation sent to ${out.email}` });
    },
  });
}

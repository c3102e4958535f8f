import { ctxOf, tenantOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantParams, withErrors } from '../../platform/schemas.js';
import { ExportDownload, ExportLink, ExportPeriodQuery, ExportTokenParams, ZipDownload } from './exports.schemas.js';
import type { FiscalService } from './fiscal.service.js';

/** Accountant routes: roles accountant, admin, superadmin (spec 4.9). */
const accountants = { roles: ['admin', 'accountant'] } as const;

/** The accountant's exports (spec 4.9): EFD ICMS/IPI, EFD-Contribuições (links to expiring downloads) and the XML batch. */
export function exportsRoutes(app: RouteApp, { fiscal }: { fiscal: FiscalService }) {
  for (const kind of ['efd', 'efd-contribuicoes'] as const) {
    app.get(`/t/:slug/accountant/export/${kind}`, {
      schema: {
        tags: ['fiscal'],
        summary: kind === 'efd' ? 'EFD ICMS/IPI (SPED Fiscal) of a month: a link to the text file' : 'EFD-Contribuições (PIS/COFINS) of a month: a link to the text file',
        description:
          'The period\'s authorised and cancelled NF-e / NFC-e (emission date in the tenant\'s time zone). startDate and endDate in one month ' +
          '(400 `efd_period`); the tenant needs a valid CNPJ and a state (400 `cnpj_required`, `cnpj_invalid`, `state_required`). The url ' +
          'downloads the ISO-8859-1, CR LF, `|`-delimited file without a token for 15 minutes, then 404.',
        params: TenantParams,
        querystring: ExportPeriodQuery,
        response: withErrors({ 200: ExportLink }),
      },
      config: { auth: accountants },
      handler: async (req) => {
        const ctx = ctxOf(req);
        const { token, expiresAt } = await fiscal.createEfdExport(ctx.db, ctx.tenant.timezone, ctx.user.id, kind, req.query);
        return { url: `/t/${ctx.tenant.slug}/accountant/export/files/${token}`, expiresAt: expiresAt.toISOString() };
      },
    });
  }

  app.get('/t/:slug/accountant/export/files/:token', {
    schema: {
      tags: ['fiscal'],
      summary: 'Download an EFD export by its link (the token is the secret; valid 15 minutes)',
      description: 'No Authorization header needed. 404 when the token is unknown, belongs to another tenant, or has expired.',
      params: ExportTokenParams,
      response: withErrors({ 200: ExportDownload }),
    },
    config: { auth: { public: true } },
    handler: async (req, reply) => {
      const file = await fiscal.exportFile(tenantOf(req).db, req.params.token);
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.fileName}"`)
        .header('cache-control', 'no-store')
        .send(file.body);
    },
  });

  app.get('/t/:slug/accountant/export/xml-batch', {
    schema: {
      tags: ['fiscal'],
      summary: 'ZIP of the period\'s authorised NF-e / NFC-e XML, streamed',
      description: 'One `<access key>.xml` per document authorised (status `authorized`) with an emission date in [startDate, endDate] (tenant\'s time zone).',
      params: TenantParams,
      querystring: ExportPeriodQuery,
      response: withErrors({ 200: ZipDownload }),
    },
    config: { auth: accountants },
    handler: async (req, reply) => {
      const ctx = ctxOf(req);
      const zip = await fiscal.xmlBatch(ctx.db, ctx.tenant.timezone, req.query);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${zip.fileName}"`)
        .header('cache-control', 'no-store')
        .send(zip.stream);
    },
  });
}

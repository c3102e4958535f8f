import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantParams, withErrors } from '../../platform/schemas.js';
import type { AccountingService } from './accounting.service.js';
import { ExportFile, ExportQuery } from './exports.schemas.js';
import { reportReaders } from './reports.routes.js';

/** The ledger exports (spec 4.11 `/export`), beside the reports under `/t/:slug/admin/accounting`. */
export function exportsRoutes(app: RouteApp, { accounting }: { accounting: AccountingService }) {
  app.get('/t/:slug/admin/accounting/export', {
    schema: {
      tags: ['accounting'],
      summary: 'Download the posted entries of a period: erp_a / erp_b JSON, erp_c CSV or the SPED ECD text file',
      description:
        'Only posted entries with a competence date in [start, end] (both included). `Content-Disposition: attachment; filename=...`: ' +
        '`razao-<slug>-<start>-<end>-erp_a.json`, `...-erp_b.json`, `razao-<slug>-<start>-<end>.csv`, and the SPED file’s own name. ' +
        'erp_a: `{ layout, version, company, period, currency, amountUnit: cents, entries: [{ number, date, description, reverses, ' +
        'source, lines: [{ line, account, accountName, debitCents, creditCents, memo }] }], totals }`. erp_b: `{ layout, versao, empresa, ' +
        'periodo, lancamentos: [{ documento, data (dd/mm/yyyy), contaDebito, contaCredito, valor ("1234.56"), historico }], ' +
        'totalLancamentos, valorTotal }`, one row per debit/credit pair. erp_c: CSV (RFC 4180, comma, CRLF, header row) ' +
        '`Account,Debit,Credit,Date,Ref`, one row per line, amounts with a decimal point, ISO dates, Ref the entry number. ' +
        'sped: ISO-8859-1 text, `|` delimited. 400 when a parameter is missing or end is before start.',
      params: TenantParams,
      querystring: ExportQuery,
      response: withErrors({ 200: ExportFile }),
    },
    config: { auth: reportReaders },
    handler: async (req, reply) => {
      const file = await accounting.exportBooks(ctxOf(req).db, req.query);
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('cache-control', 'no-store')
        .send(file.body);
    },
  });
}

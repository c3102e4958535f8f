import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import yazl from 'yazl';
import { newId } from '../../db/ids.js';
import type { TenantRow } from '../../db/schema/tenants.js';
import type { TenantDb } from '../../db/scopes.js';
import { Invalid, NotFound } from '../../platform/domain-errors.js';
import { spedCompany } from '../../platform/sped-text.js';
import { efdContribuicoes } from './efd.contribuicoes.js';
import { efdIcms } from './efd.icms.js';
import { itemOf, taxesOf, type EfdCompany, type EfdInput } from './efd.model.js';
import * as q from './exports.queries.js';
import type { ExportPeriodQuery } from './exports.schemas.js';
import type { FiscalParts } from './fiscal.service.js';

/** How long an export's download link works. */
export const EXPORT_TTL_MS = 15 * 60 * 1000;

export type EfdKind = 'efd' | 'efd-contribuicoes';

/** startDate <= endDate, both in one calendar month (0000: DT_FIN in the month of DT_INI). */
function checkPeriod(query: ExportPeriodQuery, oneMonth: boolean) {
  if (query.endDate < query.startDate) throw new Invalid('endDate', 'must not be before startDate', { in: 'querystring' });
  if (oneMonth && query.startDate.slice(0, 7) !== query.endDate.slice(0, 7)) {
    throw new Invalid('endDate', 'must be in the month of startDate: an EFD file covers one month at most', { in: 'querystring', code: 'efd_period' });
  }
}

/** The company as the 0000 / 0005 / 0140 registers need it (400 with a code when the CNPJ or the state is missing). */
export function companyOf(tenant: TenantRow): EfdCompany {
  return {
    ...spedCompany(tenant, 'The EFD'),
    cep: tenant.cep ?? '',
    address: tenant.address ?? '',
    addressNumber: tenant.addressNumber ?? '',
    district: tenant.district ?? '',
    email: tenant.email ?? '',
    regime: tenant.regimeTributario ?? '',
  };
}

/** The accountant's exports (spec 4.9 `/accountant/export/...`). */
export function exportsPart(parts: FiscalParts) {
  const { deps } = parts;

  async function inputOf(t: TenantDb, tz: string, query: ExportPeriodQuery): Promise<EfdInput> {
    const tenant = await parts.needs.tenants.findById(t.tenantId);
    if (!tenant) throw new NotFound('Tenant');
    const company = companyOf(tenant);
    const { startDate: start, endDate: end } = query;
    const [docs, voids] = await t.run(async (tx) => [
      await q.documentsBetween(tx.db, tx.tenantId, tz, start, end, ['authorized', 'cancelled']),
      await q.voidsBetween(tx.db, tx.tenantId, tz, start, end),
    ] as const);
    return {
      company,
      start,
      end,
      documents: docs.map((d) => ({
        model: d.model === 55 ? 55 : 65,
        series: d.series,
        number: d.number,
        key: d.nfeKey,
        status: d.status === 'cancelled' ? 'cancelled' : 'authorized',
        date: d.date,
        totalCents: d.totalCents,
        customerCpf: d.customerCpf,
        items: (Array.isArray(d.items) ? d.items : []).map((raw, i) => itemOf(raw ?? {}, i)),
        taxes: taxesOf(d.taxes ?? {}),
      })),
      voids,
    };
  }

  return {
    /**
     * Builds the period's EFD ICMS/IPI (`efd`) or EFD-Contribuições file, keeps it in `fiscal_exports`
     * behind a random token, and answers the link (valid EXPORT_TTL_MS).
     */
    async createEfdExport(t: TenantDb, tz: string, userId: string, kind: EfdKind, query: ExportPeriodQuery): Promise<{ token: string; expiresAt: Date }> {
      checkPeriod(query, true);
      const input = await inputOf(t, tz, query);
      const bytes = kind === 'efd' ? efdIcms(input) : efdContribuicoes(input);
      const token = randomBytes(32).toString('hex');
      const expiresAt = new Date(deps.clock.now().getTime() + EXPORT_TTL_MS);
      const prefix = kind === 'efd' ? 'EFD-ICMS-IPI' : 'EFD-CONTRIBUICOES';
      await t.run((tx) =>
        q.insertExport(tx.db, {
          tenantId: tx.tenantId,
          id: newId(),
          token,
          kind,
          fileName: `${prefix}-${input.company.cnpj}-${query.startDate}-${query.endDate}.txt`,
          contentType: 'text/plain; charset=iso-8859-1',
          // Latin-1 bytes kept as base64 (the column is text).
          body: bytes.toString('base64'),
          expiresAt,
          createdBy: userId,
        }),
      );
      return { token, expiresAt };
    },

    /** An export's file by its token, within its validity (404 otherwise: unknown, another tenant's, or expired). */
    async exportFile(t: TenantDb, token: string): Promise<{ fileName: string; contentType: string; body: Buffer }> {
      const row = await t.run((tx) => q.exportByToken(tx.db, tx.tenantId, token));
      if (!row) throw new NotFound('Export');
      if (row.expiresAt.getTime() <= deps.clock.now().getTime()) throw new NotFound('Export', 'This download link has expired: export the file again');
      return { fileName: row.fileName, contentType: row.contentType, body: Buffer.from(row.body, 'base64') };
    },

    /**
     * The period's authorised documents' XML as a ZIP stream, one `<access key>.xml` per document (documents
     * without a stored XML are left out). The rows are read first; the ZIP is written as it is sent.
     */
    async xmlBatch(t: TenantDb, tz: string, query: ExportPeriodQuery): Promise<{ fileName: string; stream: Readable; count: number }> {
      checkPeriod(query, false);
      const files = await t.run(async (tx) => {
        const docs = await q.documentsBetween(tx.db, tx.tenantId, tz, query.startDate, query.endDate, ['authorized']);
        const keyOf = new Map(docs.map((d) => [d.id, d.nfeKey]));
        const xml = await q.xmlOf(tx.db, tx.tenantId, docs.map((d) => d.id));
        return xml.map((x) => ({ name: `${keyOf.get(x.documentId)}.xml`, body: x.body })).sort((a, b) => a.name.localeCompare(b.name));
      });
      const zip = new yazl.ZipFile();
      const out = new PassThrough();
      zip.outputStream.pipe(out);
      for (const f of files) zip.addBuffer(Buffer.from(f.body, 'utf8'), f.name, { mtime: deps.clock.now(), compress: true });
      zip.end();
      return { fileName: `xml-${query.startDate}-${query.endDate}.zip`, stream: out, count: files.length };
    },
  };
}

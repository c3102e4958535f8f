import type { TenantDb } from '../../db/scopes.js';
import type { TenantRow } from '../../db/schema/tenants.js';
import { Invalid, NotFound } from '../../platform/domain-errors.js';
import type { AccountingParts } from './accounting.service.js';
import * as q from './exports.queries.js';
import type { ErpAFile, ErpBFile, ExportFormat, ExportQuery } from './exports.schemas.js';
import { spedEcd } from './sped.js';

/** A file to download. */
export interface ExportedFile {
  filename: string;
  contentType: string;
  body: Buffer;
}

/** Cents as a decimal string with a point and 2 decimals: 123456 -> "1234.56", -5 -> "-0.05". */
export function decimal(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** YYYY-MM-DD -> dd/mm/yyyy. */
export const brDate = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;

/** One RFC 4180 field: quoted (inner quotes doubled) when it holds a comma, a quote, CR or LF. */
export const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

interface Entry {
  number: string;
  date: string;
  description: string;
  reverses: string | null;
  source: string | null;
  lines: q.ExportLine[];
}

/** The lines grouped into their entries, in order. */
function entriesOf(lines: q.ExportLine[]): Entry[] {
  const entries = new Map<string, Entry>();
  for (const l of lines) {
    let entry = entries.get(l.entryId);
    if (!entry) {
      entry = { number: l.entryNumber, date: l.competenceDate, description: l.description, reverses: l.reverses, source: l.sourceType, lines: [] };
      entries.set(l.entryId, entry);
    }
    entry.lines.push(l);
  }
  return [...entries.values()];
}

/**
 * An entry as debit/credit pairs: its debit lines and its credit lines are walked in line order, each pair
 * taking what is left of the smaller side, so a 1-debit / 3-credit entry gives three pairs, and every
 * pair sums back to the entry's total.
 */
export function pairsOf(lines: { accountCode: string; debitCents: number; creditCents: number }[]): { debit: string; credit: string; cents: number }[] {
  const debits = lines.filter((l) => l.debitCents > 0).map((l) => ({ code: l.accountCode, left: l.debitCents }));
  const credits = lines.filter((l) => l.creditCents > 0).map((l) => ({ code: l.accountCode, left: l.creditCents }));
  const pairs: { debit: string; credit: string; cents: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < debits.length && j < credits.length) {
    const cents = Math.min(debits[i]!.left, credits[j]!.left);
    pairs.push({ debit: debits[i]!.code, credit: credits[j]!.code, cents });
    debits[i]!.left -= cents;
    credits[j]!.left -= cents;
    if (debits[i]!.left === 0) i++;
    if (credits[j]!.left === 0) j++;
  }
  return pairs;
}

function erpA(tenant: TenantRow, query: ExportQuery, lines: q.ExportLine[]): ErpAFile {
  const entries = entriesOf(lines);
  return {
    layout: 'erp_a',
    version: 1,
    company: { name: tenant.name, slug: tenant.slug, cnpj: tenant.cnpj },
    period: { start: query.start, end: query.end },
    currency: 'BRL',
    amountUnit: 'cents',
    entries: entries.map((e) => ({
      number: e.number,
      date: e.date,
      description: e.description,
      reverses: e.reverses,
      source: e.source,
      lines: e.lines.map((l) => ({
        line: l.lineNo,
        account: l.accountCode,
        accountName: l.accountName,
        debitCents: l.debitCents,
        creditCents: l.creditCents,
        memo: l.memo,
      })),
    })),
    totals: {
      entries: entries.length,
      lines: lines.length,
      debitCents: lines.reduce((s, l) => s + l.debitCents, 0),
      creditCents: lines.reduce((s, l) => s + l.creditCents, 0),
    },
  };
}

function erpB(tenant: TenantRow, query: ExportQuery, lines: q.ExportLine[]): ErpBFile {
  const rows: ErpBFile['lancamentos'] = [];
  let total = 0;
  for (const e of entriesOf(lines)) {
    for (const p of pairsOf(e.lines)) {
      rows.push({ documento: e.number, data: brDate(e.date), contaDebito: p.debit, contaCredito: p.credit, valor: decimal(p.cents), historico: e.description });
      total += p.cents;
    }
  }
  return {
    layout: 'erp_b',
    versao: 1,
    empresa: { nome: tenant.name, cnpj: tenant.cnpj },
    periodo: { inicio: brDate(query.start), fim: brDate(query.end) },
    lancamentos: rows,
    totalLancamentos: rows.length,
    valorTotal: decimal(total),
  };
}

/** erp_c: `Account,Debit,Credit,Date,Ref`, one row per journal line, CRLF, decimal point, ISO dates, UTF-8. */
function erpC(lines: q.ExportLine[]): string {
  const rows = [['Account', 'Debit', 'Credit', 'Date', 'Ref']];
  for (const l of lines) rows.push([l.accountCode, decimal(l.debitCents), decimal(l.creditCents), l.competenceDate, l.entryNumber]);
  return rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value, null, 2) + '\n', 'utf8');

/** The ledger exports (spec 4.11 `/export`). docs/decisions.md, "Accounting: reports and exports". */
export function exportsPart({ deps, needs }: AccountingParts) {
  return {
    /**
     * The posted entries with a competence date in `[start, end]` as a file in `format`. The tenant's
     * registration (name, CNPJ) is read first, outside the tenant transaction.
     */
    async exportBooks(t: TenantDb, query: ExportQuery): Promise<ExportedFile> {
      if (query.end < query.start) throw new Invalid('end', 'must not be before start', { in: 'querystring' });
      const tenant = await needs.tenants.findById(t.tenantId);
      if (!tenant) throw new NotFound('Tenant');
      const base = `razao-${tenant.slug}-${query.start}-${query.end}`;
      if (query.format === 'sped') {
        // The SPED ECD generator (sped.ts): whole months of one year, the tenant's CNPJ and state (400 otherwise).
        const file = await t.run((tx) => spedEcd(tx, deps, { start: query.start, end: query.end, tenant }));
        return { filename: file.filename, contentType: 'text/plain; charset=iso-8859-1', body: file.body };
      }
      const lines = await t.run((tx) => q.postedLinesBetween(tx.db, tx.tenantId, query.start, query.end));
      const format: Exclude<ExportFormat, 'sped'> = query.format;
      switch (format) {
        case 'erp_a':
          return { filename: `${base}-erp_a.json`, contentType: 'application/json; charset=utf-8', body: json(erpA(tenant, query, lines)) };
        case 'erp_b':
          return { filename: `${base}-erp_b.json`, contentType: 'application/json; charset=utf-8', body: json(erpB(tenant, query, lines)) };
        case 'erp_c':
          return { filename: `${base}.csv`, contentType: 'text/csv; charset=utf-8', body: Buffer.from(erpC(lines), 'utf8') };
      }
    },
  };
}

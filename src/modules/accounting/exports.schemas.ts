import { Type, type Static } from '@sinclair/typebox';
import { CalendarDate, StringEnum } from '../../platform/schemas.js';

/** The ledger exports (spec 4.11 `/export`): two JSON layouts, a CSV and the SPED ECD text file. */
export const EXPORT_FORMATS = ['erp_a', 'erp_b', 'erp_c', 'sped'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const ExportQuery = Type.Object({
  format: StringEnum(EXPORT_FORMATS, {
    description: 'erp_a: JSON, entries with nested lines; erp_b: JSON, one debit/credit pair per row; erp_c: CSV Account,Debit,Credit,Date,Ref; sped: SPED ECD',
  }),
  start: CalendarDate('first competence date, included'),
  end: CalendarDate('last competence date, included; not before start'),
});
export type ExportQuery = Static<typeof ExportQuery>;

const binary = { schema: { type: 'string', format: 'binary' } };
/** The file, sent as an attachment (`Content-Disposition: attachment; filename=...`); erp_a and erp_b are JSON documents. */
export const ExportFile = Type.Unsafe<Buffer>({
  description: 'the file, as an attachment',
  content: { 'application/json': { schema: { type: 'object', description: 'the erp_a or erp_b layout (see the route)' } }, 'text/csv': binary, 'text/plain': binary },
});

/** erp_a: one object per entry with its lines (integer cents). */
export interface ErpAFile {
  layout: 'erp_a';
  version: 1;
  company: { name: string; slug: string; cnpj: string | null };
  period: { start: string; end: string };
  currency: 'BRL';
  amountUnit: 'cents';
  entries: {
    number: string;
    date: string;
    description: string;
    reverses: string | null;
    source: string | null;
    lines: { line: number; account: string; accountName: string; debitCents: number; creditCents: number; memo: string | null }[];
  }[];
  totals: { entries: number; lines: number; debitCents: number; creditCents: number };
}

/** erp_b: flat rows, one per debit/credit pair, dates dd/mm/yyyy, amounts as decimal strings. */
export interface ErpBFile {
  layout: 'erp_b';
  versao: 1;
  empresa: { nome: string; cnpj: string | null };
  periodo: { inicio: string; fim: string };
  lancamentos: { documento: string; data: string; contaDebito: string; contaCredito: string; valor: string; historico: string }[];
  totalLancamentos: number;
  valorTotal: string;
}

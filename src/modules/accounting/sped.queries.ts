import { and, asc, eq, gte, lt, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { chartAccounts, journalEntries, journalLines, systemAccounts, type AccountNature, type AccountType } from '../../db/schema/accounting.js';

/** SQL of the SPED ECD export (sped.ts): the chart, balances before a date, the posted entries of a period. */

export interface SpedAccount {
  id: string;
  code: string;
  name: string;
  nature: AccountNature;
  type: AccountType;
  parentId: string | null;
  createdAt: Date;
  /** A system chart account (tenant null). */
  system: boolean;
}

export interface SpedLine {
  accountId: string;
  debitCents: number;
  creditCents: number;
  memo: string | null;
}

export interface SpedEntry {
  id: string;
  number: string;
  date: string;
  description: string;
  totalCents: number;
  sourceType: string | null;
  sourceId: string | null;
  lines: SpedLine[];
}

/** The system chart and the tenant's accounts (inactive ones too: history may name them). */
export async function chartOf(db: Db, tenantId: string): Promise<SpedAccount[]> {
  const cols = (t: typeof systemAccounts | typeof chartAccounts) => ({
    id: t.id,
    code: t.code,
    name: t.name,
    nature: t.nature,
    type: t.type,
    parentId: t.parentId,
    createdAt: t.createdAt,
  });
  const system = await db.select(cols(systemAccounts)).from(systemAccounts);
  const own = await db.select(cols(chartAccounts)).from(chartAccounts).where(eq(chartAccounts.tenantId, tenantId));
  return [...system.map((a) => ({ ...a, system: true })), ...own.map((a) => ({ ...a, system: false }))];
}

const postedJoin = (tenantId: string) =>
  and(eq(journalLines.tenantId, tenantId), eq(journalEntries.tenantId, tenantId), eq(journalEntries.status, 'posted'));

/**
 * Debits - credits (cents) per account of the posted lines dated before `yearStart` and before `start`
 * (`yearStart` <= `start`), in one statement so both come from the same snapshot.
 */
export async function netsBefore(db: Db, tenantId: string, yearStart: string, start: string): Promise<Record<'beforeYear' | 'beforeStart', Map<string, number>>> {
  const net = sql`${journalLines.debitCents} - ${journalLines.creditCents}`;
  const rows = await db
    .select({
      accountId: journalLines.accountId,
      beforeYear: sql`coalesce(sum(${net}) filter (where ${journalEntries.competenceDate} < ${yearStart}), 0)`.mapWith(Number),
      beforeStart: sql`sum(${net})`.mapWith(Number),
    })
    .from(journalLines)
    .innerJoin(journalEntries, and(eq(journalEntries.tenantId, journalLines.tenantId), eq(journalEntries.id, journalLines.entryId)))
    .where(and(postedJoin(tenantId), lt(journalEntries.competenceDate, start)))
    .groupBy(journalLines.accountId);
  const map = (pick: (r: (typeof rows)[number]) => number) => new Map(rows.filter((r) => pick(r) !== 0).map((r) => [r.accountId, pick(r)]));
  return { beforeYear: map((r) => r.beforeYear), beforeStart: map((r) => r.beforeStart) };
}

/** The posted entries dated in [start, end] with their lines, by date, then number, then line. */
export async function postedEntries(db: Db, tenantId: string, start: string, end: string): Promise<SpedEntry[]> {
  const rows = await db
    .select({
      id: journalEntries.id,
      number: journalEntries.entryNumber,
      date: journalEntries.competenceDate,
      description: journalEntries.description,
      totalCents: journalEntries.totalCents,
      sourceType: journalEntries.sourceType,
      sourceId: journalEntries.sourceId,
      accountId: journalLines.accountId,
      debitCents: journalLines.debitCents,
      creditCents: journalLines.creditCents,
      memo: journalLines.memo,
    })
    .from(journalLines)
    .innerJoin(journalEntries, and(eq(journalEntries.tenantId, journalLines.tenantId), eq(journalEntries.id, journalLines.entryId)))
    .where(and(postedJoin(tenantId), gte(journalEntries.competenceDate, start), lte(journalEntries.competenceDate, end)))
    .orderBy(asc(journalEntries.competenceDate), asc(journalEntries.entryNumber), asc(journalLines.lineNo));
  const entries: SpedEntry[] = [];
  for (const r of rows) {
    let e = entries[entries.length - 1];
    if (!e || e.id !== r.id) {
      const { accountId: _a, debitCents: _d, creditCents: _c, memo: _m, ...head } = r;
      e = { ...head, lines: [] };
      entries.push(e);
    }
    e.lines.push({ accountId: r.accountId, debitCents: r.debitCents, creditCents: r.creditCents, memo: r.memo });
  }
  return entries;
}

/** The year of the tenant's first posted entry (the first book's year), or null. */
export async function firstPostedYear(db: Db, tenantId: string): Promise<number | null> {
  const [row] = await db
    .select({ first: sql<number | string | null>`min(extract(year from ${journalEntries.competenceDate}))::int` })
    .from(journalEntries)
    .where(and(eq(journalEntries.tenantId, tenantId), eq(journalEntries.status, 'posted')));
  return row?.first == null ? null : Number(row.first);
}

import { and, asc, eq, gte, lt, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import {
  chartAccounts,
  journalCounters,
  journalEntries,
  journalLines,
  periodClosings,
  systemAccounts,
  type AccountNature,
  type AccountType,
  type PeriodClosingRow,
} from '../../db/schema/accounting.js';

/** The natures whose balance is debits - credits (spec 4.11, "Balance rule"); the others are credits - debits. */
export const DEBIT_NATURES: readonly AccountNature[] = ['ativo', 'custo', 'despesa'];

/** `[first day, first day of the next month)` of a month, as dates. */
export function monthRange(year: number, month: number): { start: string; next: string } {
  const pad = (n: number) => String(n).padStart(2, '0');
  const next = month === 12 ? { y: year + 1, m: 1 } : { y: year, m: month + 1 };
  return { start: `${year}-${pad(month)}-01`, next: `${next.y}-${pad(next.m)}-01` };
}

const debitNatured = (nature: unknown) => sql`(${nature}) in ('ativo', 'custo', 'despesa')`;

export interface BalanceteCents {
  accountId: string;
  accountCode: string;
  accountName: string;
  nature: AccountNature;
  debitCents: number;
  creditCents: number;
  balanceCents: number;
}

/**
 * The month's balancete in one aggregate: posted entries only, one row per account with lines, its
 * current code, name and nature from the tenant's chart or the system's, the balance by the rule.
 */
export async function balanceteCents(db: Db, tenantId: string, year: number, month: number): Promise<BalanceteCents[]> {
  const { start, next } = monthRange(year, month);
  // The month's lines summed per account first (the entries found by date, their lines by the entry
  // index), then the few sums meet the charts: accounts are never deleted, so each sum finds its account.
  const sums = db.$with('sums').as(
    db
      .select({
        accountId: sql<string>`${journalLines.accountId}`.as('account_id'),
        debits: sql<string>`sum(${journalLines.debitCents})`.as('debits'),
        credits: sql<string>`sum(${journalLines.creditCents})`.as('credits'),
      })
      .from(journalEntries)
      .innerJoin(journalLines, and(eq(journalLines.tenantId, journalEntries.tenantId), eq(journalLines.entryId, journalEntries.id)))
      .where(
        and(
          eq(journalEntries.tenantId, tenantId),
          eq(journalLines.tenantId, tenantId),
          eq(journalEntries.status, 'posted'),
          gte(journalEntries.competenceDate, start),
          lt(journalEntries.competenceDate, next),
        ),
      )
      .groupBy(journalLines.accountId),
  );
  const nature = sql<AccountNature>`coalesce(${chartAccounts.nature}, ${systemAccounts.nature})`;
  const code = sql<string>`coalesce(${chartAccounts.code}, ${systemAccounts.code})`;
  return db
    .with(sums)
    .select({
      accountId: sums.accountId,
      accountCode: code,
      accountName: sql<string>`coalesce(${chartAccounts.name}, ${systemAccounts.name})`,
      nature,
      debitCents: sql`${sums.debits}`.mapWith(Number),
      creditCents: sql`${sums.credits}`.mapWith(Number),
      balanceCents: sql`case when ${debitNatured(nature)} then ${sums.debits} - ${sums.credits} else ${sums.credits} - ${sums.debits} end`.mapWith(Number),
    })
    .from(sums)
    .leftJoin(chartAccounts, and(eq(chartAccounts.tenantId, tenantId), eq(chartAccounts.id, sums.accountId)))
    .leftJoin(systemAccounts, eq(systemAccounts.id, sums.accountId))
    .orderBy(asc(code), asc(sums.accountId));
}

export interface AccountRef {
  id: string;
  nature: AccountNature;
  type: AccountType;
}

/** An account of the tenant's chart or of the system chart (another tenant's is not seen: null). */
export async function findAccount(db: Db, tenantId: string, id: string): Promise<AccountRef | null> {
  const cols = { id: chartAccounts.id, nature: chartAccounts.nature, type: chartAccounts.type };
  const [own] = await db.select(cols).from(chartAccounts).where(and(eq(chartAccounts.tenantId, tenantId), eq(chartAccounts.id, id)));
  if (own) return own;
  const [system] = await db
    .select({ id: systemAccounts.id, nature: systemAccounts.nature, type: systemAccounts.type })
    .from(systemAccounts)
    .where(eq(systemAccounts.id, id));
  return system ?? null;
}

const postedLinesOf = (tenantId: string, accountId: string) =>
  and(
    eq(journalLines.tenantId, tenantId),
    eq(journalEntries.tenantId, tenantId),
    eq(journalLines.accountId, accountId),
    eq(journalEntries.status, 'posted'),
  );

/** Debits - credits (cents) of the account's posted lines dated before `date`. */
export async function netBefore(db: Db, tenantId: string, accountId: string, date: string): Promise<number> {
  const [row] = await db
    .select({ net: sql`coalesce(sum(${journalLines.debitCents} - ${journalLines.creditCents}), 0)`.mapWith(Number) })
    .from(journalLines)
    .innerJoin(journalEntries, and(eq(journalEntries.tenantId, journalLines.tenantId), eq(journalEntries.id, journalLines.entryId)))
    .where(and(postedLinesOf(tenantId, accountId), lt(journalEntries.competenceDate, date)));
  return row?.net ?? 0;
}

export interface RazaoCents {
  entryNumber: string;
  competenceDate: string;
  description: string;
  debitCents: number;
  creditCents: number;
  /** Running debits - credits from the first line of the range (the caller adds the opening and the sign). */
  runningNetCents: number;
}

/**
 * The account's posted lines in `[startDate, endDate]`, by date, then entry number (its numeric part:
 * `length` first so JE-2026-100000 follows JE-2026-99999), then line, with a running net by a window sum.
 */
export async function razaoCents(db: Db, tenantId: string, accountId: string, startDate: string, endDate: string): Promise<RazaoCents[]> {
  const order = sql`${journalEntries.competenceDate}, length(${journalEntries.entryNumber}), ${journalEntries.entryNumber}, ${journalLines.lineNo}`;
  return db
    .select({
      entryNumber: journalEntries.entryNumber,
      competenceDate: journalEntries.competenceDate,
      description: journalEntries.description,
      debitCents: journalLines.debitCents,
      creditCents: journalLines.creditCents,
      runningNetCents: sql`sum(${journalLines.debitCents} - ${journalLines.creditCents}) over (order by ${order} rows unbounded preceding)`.mapWith(Number),
    })
    .from(journalLines)
    .innerJoin(journalEntries, and(eq(journalEntries.tenantId, journalLines.tenantId), eq(journalEntries.id, journalLines.entryId)))
    .where(and(postedLinesOf(tenantId, accountId), gte(journalEntries.competenceDate, startDate), lte(journalEntries.competenceDate, endDate)))
    .orderBy(asc(journalEntries.competenceDate), sql`length(${journalEntries.entryNumber})`, asc(journalEntries.entryNumber), asc(journalLines.lineNo));
}

/** Every month with an entry (any status), as year and month. */
export async function monthsWithEntries(db: Db, tenantId: string): Promise<{ year: number; month: number }[]> {
  const year = sql`extract(year from ${journalEntries.competenceDate})::int`;
  const month = sql`extract(month from ${journalEntries.competenceDate})::int`;
  return db
    .select({ year: year.mapWith(Number), month: month.mapWith(Number) })
    .from(journalEntries)
    .where(eq(journalEntries.tenantId, tenantId))
    .groupBy(year, month);
}

export function listPeriodRows(db: Db, tenantId: string): Promise<PeriodClosingRow[]> {
  return db.select().from(periodClosings).where(eq(periodClosings.tenantId, tenantId));
}

/**
 * Serialises the work on one month of a tenant: the close and the reopen take it exclusively (a
 * transaction-scoped advisory lock), so they wait for each other even before the month has a row.
 */
export async function lockPeriodExclusive(db: Db, tenantId: string, year: number, month: number): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${periodLockKey(tenantId, year, month)}))`);
}

/** The same lock, shared: what a write dated in the month would take so a close waits for it (see docs/decisions.md). */
export async function lockPeriodShared(db: Db, tenantId: string, year: number, month: number): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock_shared(hashtext(${periodLockKey(tenantId, year, month)}))`);
}

export const periodLockKey = (tenantId: string, year: number, month: number) => `accounting-period:${tenantId}:${year}-${month}`;

/** The month's closing row, locked until the transaction ends (`for update`): a posting's `for share` read waits for it. */
export async function lockPeriodRow(db: Db, tenantId: string, year: number, month: number): Promise<PeriodClosingRow | null> {
  const [row] = await db
    .select()
    .from(periodClosings)
    .where(and(eq(periodClosings.tenantId, tenantId), eq(periodClosings.year, year), eq(periodClosings.month, month)))
    .for('update');
  return row ?? null;
}

/**
 * Waits for the writes in flight on the month: locks its entries (a posting or a reversal holds its
 * entry's row) and then the tenant's entry counter of the year (a new entry holds it). In that order,
 * the order the journal takes them, so no deadlock. Used by the first close of a month, before its row exists.
 */
export async function lockMonthWrites(db: Db, tenantId: string, year: number, month: number): Promise<void> {
  const { start, next } = monthRange(year, month);
  await db
    .select({ id: journalEntries.id })
    .from(journalEntries)
    .where(and(eq(journalEntries.tenantId, tenantId), gte(journalEntries.competenceDate, start), lt(journalEntries.competenceDate, next)))
    .orderBy(asc(journalEntries.id))
    .for('update');
  await db
    .select({ year: journalCounters.year })
    .from(journalCounters)
    .where(and(eq(journalCounters.tenantId, tenantId), eq(journalCounters.year, year)))
    .for('update');
}

export async function insertPeriodRow(db: Db, row: typeof periodClosings.$inferInsert): Promise<PeriodClosingRow> {
  const [created] = await db.insert(periodClosings).values(row).returning();
  return created;
}

export async function updatePeriodRow(
  db: Db,
  tenantId: string,
  year: number,
  month: number,
  patch: Partial<Pick<PeriodClosingRow, 'status' | 'trialBalanceSnapshot' | 'closedAt' | 'closedBy' | 'reopenedAt' | 'reopenedBy'>>,
): Promise<PeriodClosingRow> {
  const [row] = await db
    .update(periodClosings)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(and(eq(periodClosings.tenantId, tenantId), eq(periodClosings.year, year), eq(periodClosings.month, month)))
    .returning();
  return row;
}

import { and, eq, gte, inArray, lte, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { bankAccounts, chartAccounts, journalEntries, journalLines, systemAccounts, type AccountNature } from '../../db/schema/accounting.js';

/** An account's current code, name, nature and DRE group: the tenant's chart, else the system chart. */
const accountInfo = {
  code: sql<string>`coalesce(${chartAccounts.code}, ${systemAccounts.code})`,
  name: sql<string>`coalesce(${chartAccounts.name}, ${systemAccounts.name})`,
  nature: sql<AccountNature | null>`coalesce(${chartAccounts.nature}, ${systemAccounts.nature})`,
  dreGroup: sql<string | null>`coalesce(${chartAccounts.dreGroup}, ${systemAccounts.dreGroup})`,
};

const postedLines = (tenantId: string) =>
  and(eq(journalLines.tenantId, tenantId), eq(journalEntries.tenantId, tenantId), eq(journalEntries.status, 'posted'));
const entryOfLine = and(eq(journalEntries.tenantId, journalLines.tenantId), eq(journalEntries.id, journalLines.entryId));

export interface AccountBalanceCents {
  accountId: string;
  code: string;
  name: string;
  nature: AccountNature | null;
  dreGroup: string | null;
  /** By the balance rule (ativo, custo, despesa: debits - credits; the others: credits - debits), every posted line up to asOf. */
  balanceCents: number;
  /** The same, lines dated before `yearStart` only (the earlier years' share of a result account). */
  priorCents: number;
}

/**
 * The balance of every account with posted lines up to `asOf`, in one statement: the lines are summed
 * per account first (the only pass over `journal_lines`), then the few sums meet the charts for the
 * current code, name and nature, and the balance rule is applied.
 */
export async function balancesAsOf(db: Db, tenantId: string, asOf: string, yearStart: string): Promise<AccountBalanceCents[]> {
  const sums = db.$with('sums').as(
    db
      .select({
        accountId: sql<string>`${journalLines.accountId}`.as('account_id'),
        net: sql<string>`sum(${journalLines.debitCents} - ${journalLines.creditCents})`.as('net'),
        prior: sql<string>`coalesce(sum(${journalLines.debitCents} - ${journalLines.creditCents}) filter (where ${journalEntries.competenceDate} < ${yearStart}), 0)`.as(
          'prior',
        ),
      })
      .from(journalLines)
      .innerJoin(journalEntries, entryOfLine)
      .where(and(postedLines(tenantId), lte(journalEntries.competenceDate, asOf)))
      .groupBy(journalLines.accountId),
  );
  const sign = sql`case when coalesce(${chartAccounts.nature}, ${systemAccounts.nature}) in ('ativo', 'custo', 'despesa') then 1 else -1 end`;
  return db
    .with(sums)
    .select({
      accountId: sums.accountId,
      ...accountInfo,
      balanceCents: sql`${sign} * ${sums.net}`.mapWith(Number),
      priorCents: sql`${sign} * ${sums.prior}`.mapWith(Number),
    })
    .from(sums)
    .leftJoin(chartAccounts, and(eq(chartAccounts.tenantId, tenantId), eq(chartAccounts.id, sums.accountId)))
    .leftJoin(systemAccounts, eq(systemAccounts.id, sums.accountId));
}

/** The ledger accounts of the tenant's bank accounts (active or not: their history is cash). */
export async function bankLedgerAccountIds(db: Db, tenantId: string): Promise<string[]> {
  const rows = await db.selectDistinct({ id: bankAccounts.ledgerAccountId }).from(bankAccounts).where(eq(bankAccounts.tenantId, tenantId));
  return rows.map((r) => r.id);
}

export interface CashFlowAccountCents {
  accountId: string;
  code: string;
  name: string;
  nature: AccountNature | null;
  dreGroup: string | null;
  /** Credits - debits on this account in the period's posted entries that move a cash account (its cash effect). */
  cashCents: number;
  /** Credits - debits on this account in the period's posted entries that move no cash account. */
  nonCashCents: number;
}

/**
 * Per non-cash account, credits - debits over the posted entries of `[start, end]`, split by whether the
 * entry moves a cash account. In an entry that moves cash, the non-cash lines' credits - debits add up to
 * the cash it moved (the entry balances), so each counterpart gets its exact share.
 */
export async function cashFlowByAccount(db: Db, tenantId: string, cashIds: string[], start: string, end: string): Promise<CashFlowAccountCents[]> {
  const cash = sql`exists (select 1 from journal_lines c where c.tenant_id = ${journalEntries.tenantId} and c.entry_id = ${journalEntries.id} and ${inArray(
    sql`c.account_id`,
    cashIds,
  )})`;
  const sums = db.$with('sums').as(
    db
      .select({
        accountId: sql<string>`${journalLines.accountId}`.as('account_id'),
        cash: sql<string>`coalesce(sum(${journalLines.creditCents} - ${journalLines.debitCents}) filter (where ${cash}), 0)`.as('cash'),
        other: sql<string>`coalesce(sum(${journalLines.creditCents} - ${journalLines.debitCents}) filter (where not ${cash}), 0)`.as('other'),
      })
      .from(journalLines)
      .innerJoin(journalEntries, entryOfLine)
      .where(
        and(
          postedLines(tenantId),
          gte(journalEntries.competenceDate, start),
          lte(journalEntries.competenceDate, end),
          cashIds.length > 0 ? notInArray(journalLines.accountId, cashIds) : undefined,
        ),
      )
      .groupBy(journalLines.accountId),
  );
  return db
    .with(sums)
    .select({
      accountId: sums.accountId,
      ...accountInfo,
      cashCents: sql`${sums.cash}`.mapWith(Number),
      nonCashCents: sql`${sums.other}`.mapWith(Number),
    })
    .from(sums)
    .leftJoin(chartAccounts, and(eq(chartAccounts.tenantId, tenantId), eq(chartAccounts.id, sums.accountId)))
    .leftJoin(systemAccounts, eq(systemAccounts.id, sums.accountId));
}

/** Debits - credits of the cash accounts: every posted line before `start`, and up to `end`. */
export async function cashBalances(
  db: Db,
  tenantId: string,
  cashIds: string[],
  start: string,
  end: string,
): Promise<{ openingCents: number; closingCents: number }> {
  if (cashIds.length === 0) return { openingCents: 0, closingCents: 0 };
  const net = sql`${journalLines.debitCents} - ${journalLines.creditCents}`;
  const [row] = await db
    .select({
      openingCents: sql`coalesce(sum(${net}) filter (where ${journalEntries.competenceDate} < ${start}), 0)`.mapWith(Number),
      closingCents: sql`coalesce(sum(${net}), 0)`.mapWith(Number),
    })
    .from(journalLines)
    .innerJoin(journalEntries, entryOfLine)
    .where(and(postedLines(tenantId), inArray(journalLines.accountId, cashIds), lte(journalEntries.competenceDate, end)));
  return row ?? { openingCents: 0, closingCents: 0 };
}

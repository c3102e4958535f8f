import { and, asc, count, eq, gte, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import {
  bankAccounts,
  bankImports,
  bankStatementLines,
  journalEntries,
  journalLines,
  type BankAccountRow,
  type BankStatementLineRow,
  type StatementLineStatus,
} from '../../db/schema/accounting.js';

/** SQL on bank accounts, imports and statement lines. */

export async function findBankAccount(db: Db, tenantId: string, id: string): Promise<BankAccountRow | null> {
  const [row] = await db
    .select()
    .from(bankAccounts)
    .where(and(eq(bankAccounts.tenantId, tenantId), eq(bankAccounts.id, id)));
  return row ?? null;
}

/**
 * Locks every bank account of the tenant on this ledger account (in id order): matching runs one at a time
 * per ledger account, so two runs (on one bank account, or on two sharing the ledger account) never pair
 * one entry twice.
 */
export async function lockLedger(db: Db, tenantId: string, ledgerAccountId: string): Promise<void> {
  await db
    .select({ id: bankAccounts.id })
    .from(bankAccounts)
    .where(and(eq(bankAccounts.tenantId, tenantId), eq(bankAccounts.ledgerAccountId, ledgerAccountId)))
    .orderBy(asc(bankAccounts.id))
    .for('update');
}

export async function listBankAccounts(db: Db, tenantId: string) {
  const unmatched = db
    .select({ bankAccountId: bankStatementLines.bankAccountId, n: count().as('n') })
    .from(bankStatementLines)
    .where(and(eq(bankStatementLines.tenantId, tenantId), eq(bankStatementLines.status, 'unmatched')))
    .groupBy(bankStatementLines.bankAccountId)
    .as('u');
  return db
    .select({ account: bankAccounts, unmatched: sql<number>`coalesce(${unmatched.n}, 0)` })
    .from(bankAccounts)
    .leftJoin(unmatched, eq(unmatched.bankAccountId, bankAccounts.id))
    .where(eq(bankAccounts.tenantId, tenantId))
    .orderBy(asc(bankAccounts.name), asc(bankAccounts.id));
}

export async function insertBankAccount(db: Db, row: typeof bankAccounts.$inferInsert): Promise<BankAccountRow> {
  const [created] = await db.insert(bankAccounts).values(row).returning();
  return created!;
}

export async function insertImport(db: Db, row: typeof bankImports.$inferInsert) {
  await db.insert(bankImports).values(row);
}

/** Inserts the lines whose (account, fitId) is new; returns how many were added. */
export async function insertLines(db: Db, rows: (typeof bankStatementLines.$inferInsert)[]): Promise<number> {
  let added = 0;
  for (let i = 0; i < rows.length; i += 500) {
    const created = await db
      .insert(bankStatementLines)
      .values(rows.slice(i, i + 500))
      .onConflictDoNothing({ target: [bankStatementLines.tenantId, bankStatementLines.bankAccountId, bankStatementLines.fitId] })
      .returning({ id: bankStatementLines.id });
    added += created.length;
  }
  return added;
}

export interface LineFilter {
  status?: StatementLineStatus;
  from?: string;
  to?: string;
  lineId?: string;
}

const lineWhere = (tenantId: string, bankAccountId: string, f: LineFilter) =>
  and(
    eq(bankStatementLines.tenantId, tenantId),
    eq(bankStatementLines.bankAccountId, bankAccountId),
    f.status ? eq(bankStatementLines.status, f.status) : undefined,
    f.from ? gte(bankStatementLines.postedDate, f.from) : undefined,
    f.to ? lte(bankStatementLines.postedDate, f.to) : undefined,
    f.lineId ? eq(bankStatementLines.id, f.lineId) : undefined,
  );

const linesWithEntry = (db: Db) =>
  db
    .select({
      line: bankStatementLines,
      entry: {
        id: journalEntries.id,
        entryNumber: journalEntries.entryNumber,
        competenceDate: journalEntries.competenceDate,
        description: journalEntries.description,
      },
    })
    .from(bankStatementLines)
    .leftJoin(journalEntries, and(eq(journalEntries.tenantId, bankStatementLines.tenantId), eq(journalEntries.id, bankStatementLines.matchedEntryId)));

const lineOrder = [asc(bankStatementLines.postedDate), asc(bankStatementLines.createdAt), asc(bankStatementLines.fitId), asc(bankStatementLines.id)];

export async function statementLines(db: Db, tenantId: string, bankAccountId: string, f: LineFilter) {
  return linesWithEntry(db)
    .where(lineWhere(tenantId, bankAccountId, f))
    .orderBy(...lineOrder);
}

/** One page of the statement by date (fitId and id break ties), and the number of matching lines. */
export async function statementPage(db: Db, tenantId: string, bankAccountId: string, f: LineFilter, page: { offset: number; limit: number }) {
  const where = lineWhere(tenantId, bankAccountId, f);
  const rows = await linesWithEntry(db)
    .where(where)
    .orderBy(...lineOrder)
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(bankStatementLines).where(where);
  return { rows, total: total!.n };
}

export async function lockLine(db: Db, tenantId: string, bankAccountId: string, id: string): Promise<BankStatementLineRow | null> {
  const [row] = await db
    .select()
    .from(bankStatementLines)
    .where(and(eq(bankStatementLines.tenantId, tenantId), eq(bankStatementLines.bankAccountId, bankAccountId), eq(bankStatementLines.id, id)))
    .for('update');
  return row ?? null;
}

export async function updateLine(db: Db, tenantId: string, id: string, fields: Partial<typeof bankStatementLines.$inferInsert>): Promise<BankStatementLineRow> {
  const [row] = await db
    .update(bankStatementLines)
    .set(fields)
    .where(and(eq(bankStatementLines.tenantId, tenantId), eq(bankStatementLines.id, id)))
    .returning();
  return row!;
}

export async function unmatchedLines(db: Db, tenantId: string, bankAccountId: string): Promise<BankStatementLineRow[]> {
  return db
    .select()
    .from(bankStatementLines)
    .where(and(eq(bankStatementLines.tenantId, tenantId), eq(bankStatementLines.bankAccountId, bankAccountId), eq(bankStatementLines.status, 'unmatched')))
    .orderBy(asc(bankStatementLines.postedDate), asc(bankStatementLines.fitId));
}

export async function countUnmatched(db: Db, tenantId: string, bankAccountId: string): Promise<number> {
  const [{ n }] = (await db
    .select({ n: count() })
    .from(bankStatementLines)
    .where(and(eq(bankStatementLines.tenantId, tenantId), eq(bankStatementLines.bankAccountId, bankAccountId), eq(bankStatementLines.status, 'unmatched')))) as [
    { n: number },
  ];
  return Number(n);
}

/**
 * Posted entries, neither reversed nor reversals, dated between `from` and `to`, with their net movement
 * on the ledger account (debits - credits, cents, not zero), that no statement line is matched to yet.
 */
export async function candidateEntries(db: Db, tenantId: string, ledgerAccountId: string, from: string, to: string) {
  const net = sql<string>`sum(${journalLines.debitCents} - ${journalLines.creditCents})`;
  const rows = await db
    .select({ id: journalEntries.id, entryNumber: journalEntries.entryNumber, competenceDate: journalEntries.competenceDate, net })
    .from(journalEntries)
    .innerJoin(journalLines, and(eq(journalLines.tenantId, journalEntries.tenantId), eq(journalLines.entryId, journalEntries.id)))
    .where(
      and(
        eq(journalEntries.tenantId, tenantId),
        eq(journalEntries.status, 'posted'),
        isNull(journalEntries.reversedById),
        isNull(journalEntries.reversesId),
        gte(journalEntries.competenceDate, from),
        lte(journalEntries.competenceDate, to),
        eq(journalLines.accountId, ledgerAccountId),
        sql`not exists (select 1 from ${bankStatementLines} m where m.tenant_id = ${journalEntries.tenantId} and m.matched_entry_id = ${journalEntries.id})`,
      ),
    )
    .groupBy(journalEntries.id, journalEntries.entryNumber, journalEntries.competenceDate)
    .having(sql`${net} <> 0`);
  return rows.map((r) => ({ ...r, net: Number(r.net) }));
}

/** The entry's net movement on the ledger account (null when it has no line on it), its status and number. */
export async function entryOnLedger(db: Db, tenantId: string, entryId: string, ledgerAccountId: string) {
  const [entry] = await db
    .select()
    .from(journalEntries)
    .where(and(eq(journalEntries.tenantId, tenantId), eq(journalEntries.id, entryId)));
  if (!entry) return null;
  const lines = await db
    .select({ debit: journalLines.debitCents, credit: journalLines.creditCents })
    .from(journalLines)
    .where(and(eq(journalLines.tenantId, tenantId), eq(journalLines.entryId, entryId), eq(journalLines.accountId, ledgerAccountId)));
  return { entry, touches: lines.length > 0, net: lines.reduce((s, l) => s + l.debit - l.credit, 0) };
}

export async function lineMatchedTo(db: Db, tenantId: string, entryId: string): Promise<BankStatementLineRow | null> {
  const [row] = await db
    .select()
    .from(bankStatementLines)
    .where(and(eq(bankStatementLines.tenantId, tenantId), isNotNull(bankStatementLines.matchedEntryId), eq(bankStatementLines.matchedEntryId, entryId)));
  return row ?? null;
}

export async function linesByIds(db: Db, tenantId: string, ids: string[]): Promise<BankStatementLineRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(bankStatementLines)
    .where(and(eq(bankStatementLines.tenantId, tenantId), inArray(bankStatementLines.id, ids)));
}

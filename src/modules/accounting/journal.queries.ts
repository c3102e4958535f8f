import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { journalCounters, journalEntries, journalLines, type EntryStatus, type JournalEntryRow, type JournalLineRow } from '../../db/schema/accounting.js';

/** SQL on the journal: entries, their lines and the per-year counter. */

/**
 * The next number of the tenant's year: one upsert returning the counter, so entries made at once never
 * share a number (the second waits on the counter row until the first commits or rolls back).
 */
export async function nextEntryNumber(db: Db, tenantId: string, year: number): Promise<number> {
  const [row] = await db
    .insert(journalCounters)
    .values({ tenantId, year, last: 1 })
    .onConflictDoUpdate({ target: [journalCounters.tenantId, journalCounters.year], set: { last: sql`${journalCounters.last} + 1` } })
    .returning({ last: journalCounters.last });
  return row!.last;
}

export async function insertEntry(db: Db, entry: typeof journalEntries.$inferInsert, lines: (typeof journalLines.$inferInsert)[]) {
  const [created] = await db.insert(journalEntries).values(entry).returning();
  const rows = await db.insert(journalLines).values(lines).returning();
  return { entry: created!, lines: rows.sort((a, b) => a.lineNo - b.lineNo) };
}

/** The entry locked for the rest of the transaction (a post or reverse of one entry runs one at a time). */
export async function lockEntry(db: Db, tenantId: string, id: string): Promise<JournalEntryRow | null> {
  const [row] = await db
    .select()
    .from(journalEntries)
    .where(and(eq(journalEntries.tenantId, tenantId), eq(journalEntries.id, id)))
    .for('update');
  return row ?? null;
}

export async function updateEntry(db: Db, tenantId: string, id: string, fields: Partial<typeof journalEntries.$inferInsert>): Promise<JournalEntryRow> {
  const [row] = await db
    .update(journalEntries)
    .set(fields)
    .where(and(eq(journalEntries.tenantId, tenantId), eq(journalEntries.id, id)))
    .returning();
  return row!;
}

export async function linesOf(db: Db, tenantId: string, entryIds: string[]): Promise<JournalLineRow[]> {
  if (entryIds.length === 0) return [];
  return db
    .select()
    .from(journalLines)
    .where(and(eq(journalLines.tenantId, tenantId), inArray(journalLines.entryId, entryIds)))
    .orderBy(asc(journalLines.entryId), asc(journalLines.lineNo));
}

/** A page of entries, newest competence date first (then the highest number), and how many match. */
export async function listEntries(db: Db, tenantId: string, filter: { status?: EntryStatus; offset: number; limit: number }) {
  const where = and(eq(journalEntries.tenantId, tenantId), filter.status ? eq(journalEntries.status, filter.status) : undefined);
  const rows = await db
    .select()
    .from(journalEntries)
    .where(where)
    .orderBy(desc(journalEntries.competenceDate), desc(journalEntries.entryNumber), desc(journalEntries.id))
    .limit(filter.limit)
    .offset(filter.offset);
  const [{ n }] = (await db.select({ n: count() }).from(journalEntries).where(where)) as [{ n: number }];
  return { rows, total: Number(n) };
}

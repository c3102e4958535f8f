import { and, asc, count, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { receivables, type ReceivableRow, type ReceivableSource, type ReceivableStatus } from '../../db/schema/accounting.js';

/** SQL on receivables. */

export async function insertReceivable(db: Db, row: typeof receivables.$inferInsert): Promise<ReceivableRow> {
  const [created] = await db.insert(receivables).values(row).returning();
  return created!;
}

/** The receivable locked for the rest of the transaction: settles and write-offs of one receivable run one at a time. */
export async function lockReceivable(db: Db, tenantId: string, id: string): Promise<ReceivableRow | null> {
  const [row] = await db
    .select()
    .from(receivables)
    .where(and(eq(receivables.tenantId, tenantId), eq(receivables.id, id)))
    .for('update');
  return row ?? null;
}

export async function updateReceivable(db: Db, tenantId: string, id: string, fields: Partial<typeof receivables.$inferInsert>): Promise<ReceivableRow> {
  const [row] = await db
    .update(receivables)
    .set(fields)
    .where(and(eq(receivables.tenantId, tenantId), eq(receivables.id, id)))
    .returning();
  return row!;
}

export interface ReceivableFilter {
  status?: ReceivableStatus;
  source?: ReceivableSource;
  dueFrom?: string;
  dueTo?: string;
  offset: number;
  limit: number;
}

/** A page of receivables, soonest due first (then the oldest), and how many match. */
export async function listReceivables(db: Db, tenantId: string, f: ReceivableFilter) {
  const where = and(
    eq(receivables.tenantId, tenantId),
    f.status ? eq(receivables.status, f.status) : undefined,
    f.source ? eq(receivables.source, f.source) : undefined,
    f.dueFrom ? gte(receivables.dueDate, f.dueFrom) : undefined,
    f.dueTo ? lte(receivables.dueDate, f.dueTo) : undefined,
  );
  const rows = await db
    .select()
    .from(receivables)
    .where(where)
    .orderBy(asc(receivables.dueDate), asc(receivables.createdAt), asc(receivables.id))
    .limit(f.limit)
    .offset(f.offset);
  const [{ n }] = (await db.select({ n: count() }).from(receivables).where(where)) as [{ n: number }];
  return { rows, total: Number(n) };
}

/**
 * Outstanding of the open and partial receivables by days overdue on `today` (today - due date): bucket 0
 * over 90, 1 from 61 to 90, 2 from 31 to 60, 3 from 1 to 30, 4 not yet due (due today or later).
 */
export async function aging(db: Db, tenantId: string, today: string) {
  const overdue = sql`(${today}::date - ${receivables.dueDate})`;
  const bucket = sql<number>`case when ${overdue} > 90 then 0 when ${overdue} > 60 then 1 when ${overdue} > 30 then 2 when ${overdue} > 0 then 3 else 4 end`;
  const rows = await db
    .select({
      bucket,
      cents: sql<string>`sum(${receivables.amountCents} - ${receivables.receivedCents} - ${receivables.writtenOffCents})`,
      n: count(),
    })
    .from(receivables)
    .where(and(eq(receivables.tenantId, tenantId), inArray(receivables.status, ['open', 'partial'])))
    .groupBy(sql`1`);
  return rows.map((r) => ({ bucket: Number(r.bucket), cents: Number(r.cents), count: Number(r.n) }));
}

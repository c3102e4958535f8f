import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { diningTables, type DiningTableRow } from '../../db/schema/tables.js';

export const NUMBER_KEY = 'dining_tables_number_key';

const live = (tenantId: string, id: string) =>
  and(eq(diningTables.tenantId, tenantId), eq(diningTables.id, id), isNull(diningTables.deletedAt));

export function listTables(db: Db, tenantId: string): Promise<DiningTableRow[]> {
  return db
    .select()
    .from(diningTables)
    .where(and(eq(diningTables.tenantId, tenantId), isNull(diningTables.deletedAt)))
    .orderBy(asc(diningTables.number));
}

export async function findTable(db: Db, tenantId: string, id: string): Promise<DiningTableRow | null> {
  const [row] = await db.select().from(diningTables).where(live(tenantId, id));
  return row ?? null;
}

/** A live table, its row locked until the transaction ends (`select ... for update`): serialises the writes that hold or seat it. */
export async function lockTable(db: Db, tenantId: string, id: string): Promise<DiningTableRow | null> {
  const [row] = await db.select().from(diningTables).where(live(tenantId, id)).for('update');
  return row ?? null;
}

export async function findTableByNumber(db: Db, tenantId: string, number: number): Promise<DiningTableRow | null> {
  const [row] = await db
    .select()
    .from(diningTables)
    .where(and(eq(diningTables.tenantId, tenantId), eq(diningTables.number, number), isNull(diningTables.deletedAt)));
  return row ?? null;
}

export async function insertTable(db: Db, row: typeof diningTables.$inferInsert): Promise<DiningTableRow> {
  const [created] = await db.insert(diningTables).values(row).returning();
  return created;
}

export async function updateTable(
  db: Db,
  tenantId: string,
  id: string,
  patch: Partial<Pick<DiningTableRow, 'number' | 'capacity' | 'location' | 'status'>>,
): Promise<DiningTableRow | null> {
  const [row] = await db
    .update(diningTables)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(live(tenantId, id))
    .returning();
  return row ?? null;
}

/** Soft delete unless the table is occupied; tells which of the two happened. */
export async function softDeleteTable(db: Db, tenantId: string, id: string): Promise<'deleted' | 'occupied' | 'missing'> {
  const [row] = await db
    .update(diningTables)
    .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(live(tenantId, id), sql`${diningTables.status} <> 'occupied'`))
    .returning({ id: diningTables.id });
  if (row) return 'deleted';
  return (await findTable(db, tenantId, id)) ? 'occupied' : 'missing';
}

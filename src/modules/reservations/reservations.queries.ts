import { and, asc, between, count, desc, eq, inArray, isNull, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { reservations, type ReservationRow, type ReservationStatus } from '../../db/schema/tables.js';
import { HOLDING_STATUSES } from './reservations.rules.js';

/** One page by date and time (the id breaks ties), and the number of matching reservations. */
export async function listReservations(
  db: Db,
  tenantId: string,
  filter: { date?: string; status?: ReservationStatus },
  page: { offset: number; limit: number },
): Promise<{ rows: ReservationRow[]; total: number }> {
  const where: SQL[] = [eq(reservations.tenantId, tenantId)];
  if (filter.date) where.push(eq(reservations.date, filter.date));
  if (filter.status) where.push(eq(reservations.status, filter.status));
  const rows = await db
    .select()
    .from(reservations)
    .where(and(...where))
    .orderBy(asc(reservations.date), asc(reservations.time), asc(reservations.createdAt), asc(reservations.id))
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(reservations).where(and(...where));
  return { rows, total: total!.n };
}

export async function findReservation(db: Db, tenantId: string, id: string, { lock = false } = {}): Promise<ReservationRow | null> {
  const query = db
    .select()
    .from(reservations)
    .where(and(eq(reservations.tenantId, tenantId), eq(reservations.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function insertReservation(db: Db, row: typeof reservations.$inferInsert): Promise<ReservationRow> {
  const [created] = await db.insert(reservations).values(row).returning();
  return created;
}

export async function updateReservation(
  db: Db,
  tenantId: string,
  id: string,
  patch: Partial<Omit<typeof reservations.$inferInsert, 'tenantId' | 'id' | 'createdAt'>>,
): Promise<ReservationRow | null> {
  const [row] = await db
    .update(reservations)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(and(eq(reservations.tenantId, tenantId), eq(reservations.id, id)))
    .returning();
  return row ?? null;
}

/** The reservations holding a table (pending, confirmed, seated) on the days from `from` to `to`, but `exceptId`. */
export function listHolding(db: Db, tenantId: string, tableId: string, from: string, to: string, exceptId: string | null): Promise<ReservationRow[]> {
  const where: SQL[] = [
    eq(reservations.tenantId, tenantId),
    eq(reservations.tableId, tableId),
    between(reservations.date, from, to),
    inArray(reservations.status, [...HOLDING_STATUSES]),
  ];
  if (exceptId) where.push(ne(reservations.id, exceptId));
  return db.select().from(reservations).where(and(...where));
}

/** The party seated at a table in the last 12 hours whose tab is not linked yet, the latest first; locked. */
export async function findSeatedWithoutOrder(db: Db, tenantId: string, tableId: string): Promise<ReservationRow | null> {
  const [row] = await db
    .select()
    .from(reservations)
    .where(
      and(
        eq(reservations.tenantId, tenantId),
        eq(reservations.tableId, tableId),
        eq(reservations.status, 'seated'),
        isNull(reservations.orderId),
        sql`${reservations.updatedAt} > now() - interval '12 hours'`,
      ),
    )
    .orderBy(desc(reservations.updatedAt), desc(reservations.id))
    .limit(1)
    .for('update');
  return row ?? null;
}

/** The reservations linked to an order (a tab), locked. */
export function findByOrder(db: Db, tenantId: string, orderId: string): Promise<ReservationRow[]> {
  return db
    .select()
    .from(reservations)
    .where(and(eq(reservations.tenantId, tenantId), eq(reservations.orderId, orderId)))
    .for('update');
}

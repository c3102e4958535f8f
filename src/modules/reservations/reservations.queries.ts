import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { reservations, type ReservationRow, type ReservationStatus } from '../../db/schema/tables.js';

export function listReservations(
  db: Db,
  tenantId: string,
  filter: { date?: string; status?: ReservationStatus },
): Promise<ReservationRow[]> {
  const where: SQL[] = [eq(reservations.tenantId, tenantId)];
  if (filter.date) where.push(eq(reservations.date, filter.date));
  if (filter.status) where.push(eq(reservations.status, filter.status));
  return db
    .select()
    .from(reservations)
    .where(and(...where))
    .orderBy(asc(reservations.date), asc(reservations.time), asc(reservations.createdAt), asc(reservations.id));
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

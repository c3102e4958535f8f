import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { cashMovements, shifts, type CashMovementRow, type ShiftRow } from '../../db/schema/shifts.js';

/** One open shift per PDV (partial unique index on status = 'open'). */
export const ONE_OPEN_KEY = 'shifts_one_open_per_pdv';

export async function insertShift(db: Db, row: typeof shifts.$inferInsert): Promise<ShiftRow> {
  const [created] = await db.insert(shifts).values(row).returning();
  return created!;
}

export async function findShift(db: Db, tenantId: string, id: string): Promise<ShiftRow | null> {
  const [row] = await db.select().from(shifts).where(and(eq(shifts.tenantId, tenantId), eq(shifts.id, id)));
  return row ?? null;
}

/** The shift, its row locked until the transaction ends (movements and the close serialise on it). */
export async function lockShift(db: Db, tenantId: string, id: string): Promise<ShiftRow | null> {
  const [row] = await db
    .select()
    .from(shifts)
    .where(and(eq(shifts.tenantId, tenantId), eq(shifts.id, id)))
    .for('update');
  return row ?? null;
}

/**
 * The id of the shift open at the PDV, its row share-locked until the transaction ends: a close (which
 * locks it for update) waits for the order or payment being linked to it, and one that committed first
 * leaves it closed, so nothing is linked to a shift after its count.
 */
export async function openShiftIdOfPdv(db: Db, tenantId: string, pdvId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: shifts.id })
    .from(shifts)
    .where(and(eq(shifts.tenantId, tenantId), eq(shifts.pdvId, pdvId), eq(shifts.status, 'open')))
    .for('share');
  return row?.id ?? null;
}

/** The open shifts of these PDVs. */
export function openShiftsOfPdvs(db: Db, tenantId: string, pdvIds: string[]): Promise<ShiftRow[]> {
  if (!pdvIds.length) return Promise.resolve([]);
  return db
    .select()
    .from(shifts)
    .where(and(eq(shifts.tenantId, tenantId), inArray(shifts.pdvId, pdvIds), eq(shifts.status, 'open')))
    .orderBy(asc(shifts.startedAt), asc(shifts.id));
}

/** A page of a branch's shifts (only those PDVs when given), newest first, and how many there are. */
export async function listShifts(
  db: Db,
  tenantId: string,
  filter: { branchId: string; pdvIds: string[] | null; offset: number; limit: number },
): Promise<{ rows: ShiftRow[]; total: number }> {
  const where = and(
    eq(shifts.tenantId, tenantId),
    eq(shifts.branchId, filter.branchId),
    filter.pdvIds ? (filter.pdvIds.length ? inArray(shifts.pdvId, filter.pdvIds) : sql`false`) : undefined,
  );
  const rows = await db.select().from(shifts).where(where).orderBy(desc(shifts.startedAt), desc(shifts.id)).offset(filter.offset).limit(filter.limit);
  const [{ n }] = await db.select({ n: count() }).from(shifts).where(where);
  return { rows, total: n };
}

export async function closeShift(
  db: Db,
  tenantId: string,
  id: string,
  patch: Pick<typeof shifts.$inferInsert, 'closedAt' | 'closedBy' | 'counted' | 'expected' | 'difference' | 'closingNotes'>,
): Promise<ShiftRow> {
  const [row] = await db
    .update(shifts)
    .set({ ...patch, status: 'closed', updatedAt: sql`now()` })
    .where(and(eq(shifts.tenantId, tenantId), eq(shifts.id, id)))
    .returning();
  return row!;
}

export async function insertMovement(db: Db, row: typeof cashMovements.$inferInsert): Promise<CashMovementRow> {
  const [created] = await db.insert(cashMovements).values(row).returning();
  return created!;
}

export function movementsOfShift(db: Db, tenantId: string, shiftId: string): Promise<CashMovementRow[]> {
  return db
    .select()
    .from(cashMovements)
    .where(and(eq(cashMovements.tenantId, tenantId), eq(cashMovements.shiftId, shiftId)))
    .orderBy(asc(cashMovements.createdAt), asc(cashMovements.id));
}

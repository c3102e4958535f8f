import { and, desc, eq, gte, inArray, isNull, lt, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { DeliveryProvider } from '../../db/schema/delivery.js';
import { orderCounters, orders, type OrderRow, type OrderStatus } from '../../db/schema/orders.js';

export const OPEN_TAB_KEY = 'orders_open_tab_key';
export const NUMBER_KEY = 'orders_number_key';

/** Next staff order number of the day: one atomic upsert, so concurrent orders never share one. */
export async function nextDailySequence(db: Db, tenantId: string, day: string): Promise<number> {
  const [row] = await db
    .insert(orderCounters)
    .values({ tenantId, day, last: 1 })
    .onConflictDoUpdate({ target: [orderCounters.tenantId, orderCounters.day], set: { last: sql`${orderCounters.last} + 1` } })
    .returning({ last: orderCounters.last });
  return row.last;
}

export async function insertOrder(db: Db, row: typeof orders.$inferInsert): Promise<OrderRow> {
  const [created] = await db.insert(orders).values(row).returning();
  return created;
}

export async function findOrder(db: Db, tenantId: string, id: string, { lock = false } = {}): Promise<OrderRow | null> {
  const query = db.select().from(orders).where(and(eq(orders.tenantId, tenantId), eq(orders.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function findOrderByNumber(db: Db, tenantId: string, orderNumber: string): Promise<OrderRow | null> {
  const [row] = await db.select().from(orders).where(and(eq(orders.tenantId, tenantId), eq(orders.orderNumber, orderNumber)));
  return row ?? null;
}

export async function findByExternal(db: Db, tenantId: string, provider: DeliveryProvider, externalId: string): Promise<OrderRow | null> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.tenantId, tenantId), eq(orders.externalProvider, provider), eq(orders.externalId, externalId)));
  return row ?? null;
}

export const EXTERNAL_KEY = 'orders_external_key';

export async function findOpenTab(db: Db, tenantId: string, tableId: string): Promise<OrderRow | null> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.tenantId, tenantId), eq(orders.tableId, tableId), eq(orders.isTab, true), notInArray(orders.status, ['delivered', 'cancelled'])));
  return row ?? null;
}

/** The table's active order: its open tab, else the oldest open dine-in order on it. */
export async function findActiveOnTable(db: Db, tenantId: string, tableId: string): Promise<OrderRow | null> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.tenantId, tenantId), eq(orders.tableId, tableId), eq(orders.type, 'dine_in'), notInArray(orders.status, ['delivered', 'cancelled'])))
    .orderBy(desc(orders.isTab), orders.createdAt)
    .limit(1);
  return row ?? null;
}

export async function countOpenOnTable(db: Db, tenantId: string, tableId: string, exceptId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(orders)
    .where(
      and(
        eq(orders.tenantId, tenantId),
        eq(orders.tableId, tableId),
        eq(orders.type, 'dine_in'),
        notInArray(orders.status, ['delivered', 'cancelled']),
        sql`${orders.id} <> ${exceptId}`,
      ),
    );
  return row?.n ?? 0;
}

export async function findByReceiptToken(db: Db, tenantId: string, token: string): Promise<OrderRow | null> {
  const [row] = await db.select().from(orders).where(and(eq(orders.tenantId, tenantId), eq(orders.receiptToken, token)));
  return row ?? null;
}

export async function updateOrder(db: Db, tenantId: string, id: string, patch: Partial<typeof orders.$inferInsert>): Promise<OrderRow> {
  const [row] = await db
    .update(orders)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(and(eq(orders.tenantId, tenantId), eq(orders.id, id)))
    .returning();
  return row;
}

export async function countSplitChildren(db: Db, tenantId: string, parentNumber: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(orders)
    .where(and(eq(orders.tenantId, tenantId), eq(orders.splitBillReference, parentNumber)));
  return row?.n ?? 0;
}

export interface OrderFilter {
  status?: OrderStatus;
  from: Date;
  to: Date;
  /** Also orders still open that were created before `from` (a tab that crossed midnight). */
  openBefore: boolean;
  limit: number;
  offset: number;
  /** null: every order; a list: orders of those PDVs, plus orders without a PDV when `withoutPdv`. */
  pdvIds: string[] | null;
  withoutPdv: boolean;
}

function orderConditions(tenantId: string, f: OrderFilter): SQL[] {
  const inPeriod = and(gte(orders.createdAt, f.from), lt(orders.createdAt, f.to))!;
  const stillOpen = and(lt(orders.createdAt, f.from), notInArray(orders.status, ['delivered', 'cancelled']))!;
  const conditions: SQL[] = [eq(orders.tenantId, tenantId), f.openBefore ? or(inPeriod, stillOpen)! : inPeriod];
  if (f.status) conditions.push(eq(orders.status, f.status));
  if (f.pdvIds) {
    const ofPdvs = f.pdvIds.length ? inArray(orders.pdvId, f.pdvIds) : sql`false`;
    conditions.push(f.withoutPdv ? or(isNull(orders.pdvId), ofPdvs)! : ofPdvs);
  }
  return conditions;
}

/** A page of the orders of the filter, newest first, and how many there are in all. */
export async function listOrders(db: Db, tenantId: string, f: OrderFilter): Promise<{ rows: OrderRow[]; total: number }> {
  const where = and(...orderConditions(tenantId, f));
  const rows = await db.select().from(orders).where(where).orderBy(desc(orders.createdAt), desc(orders.id)).limit(f.limit).offset(f.offset);
  // The count only when the page does not tell it (a first page shorter than the limit is all there is).
  if (f.offset === 0 && rows.length < f.limit) return { rows, total: rows.length };
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(orders).where(where);
  return { rows, total: row?.n ?? 0 };
}

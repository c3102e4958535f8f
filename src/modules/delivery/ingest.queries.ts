import { and, count, desc, eq, inArray, isNotNull, lt, ne } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { deliveryEvents, type DeliveryEventStatus, type DeliveryProvider } from '../../db/schema/delivery.js';

export type DeliveryEventRow = typeof deliveryEvents.$inferSelect;
export type DeliveryEventPatch = Partial<Omit<typeof deliveryEvents.$inferInsert, 'tenantId' | 'id'>>;

export async function insertEvent(db: Db, row: typeof deliveryEvents.$inferInsert): Promise<DeliveryEventRow> {
  const [inserted] = await db.insert(deliveryEvents).values(row).returning();
  return inserted;
}

export async function findEvent(db: Db, tenantId: string, id: string, lock = false): Promise<DeliveryEventRow | null> {
  const query = db
    .select()
    .from(deliveryEvents)
    .where(and(eq(deliveryEvents.tenantId, tenantId), eq(deliveryEvents.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function updateEvent(db: Db, tenantId: string, id: string, patch: DeliveryEventPatch): Promise<DeliveryEventRow | null> {
  const [row] = await db
    .update(deliveryEvents)
    .set(patch)
    .where(and(eq(deliveryEvents.tenantId, tenantId), eq(deliveryEvents.id, id)))
    .returning();
  return row ?? null;
}

/** The order an earlier event of the same platform order created (or found), if any. */
export async function orderOfExternal(db: Db, tenantId: string, provider: DeliveryProvider, externalOrderId: string, exceptEventId: string) {
  const [row] = await db
    .select({ orderId: deliveryEvents.orderId })
    .from(deliveryEvents)
    .where(
      and(
        eq(deliveryEvents.tenantId, tenantId),
        eq(deliveryEvents.provider, provider),
        eq(deliveryEvents.externalOrderId, externalOrderId),
        inArray(deliveryEvents.status, ['created', 'duplicate']),
        isNotNull(deliveryEvents.orderId),
        ne(deliveryEvents.id, exceptEventId),
      ),
    )
    .limit(1);
  return row?.orderId ?? null;
}

export async function listEvents(db: Db, tenantId: string, filter: { status?: DeliveryEventStatus; limit: number; offset: number }) {
  const where = and(eq(deliveryEvents.tenantId, tenantId), filter.status ? eq(deliveryEvents.status, filter.status) : undefined);
  const rows = await db
    .select()
    .from(deliveryEvents)
    .where(where)
    .orderBy(desc(deliveryEvents.receivedAt), desc(deliveryEvents.id))
    .limit(filter.limit)
    .offset(filter.offset);
  const [{ n }] = await db.select({ n: count() }).from(deliveryEvents).where(where);
  return { rows, total: Number(n) };
}

/** Deletes the tenant's finished events received before `before` (the review queue, `needs_review` and `queued`, stays). */
export async function deleteDoneEvents(db: Db, tenantId: string, before: Date): Promise<number> {
  const rows = await db
    .delete(deliveryEvents)
    .where(
      and(
        eq(deliveryEvents.tenantId, tenantId),
        inArray(deliveryEvents.status, ['created', 'duplicate', 'ignored', 'failed']),
        lt(deliveryEvents.receivedAt, before),
      ),
    )
    .returning({ id: deliveryEvents.id });
  return rows.length;
}

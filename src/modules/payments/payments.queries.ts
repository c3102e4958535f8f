import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { payments, type PaymentRow } from '../../db/schema/payments.js';

export const ONE_PROCESSING_KEY = 'payments_one_processing_key';

export function paymentsOfOrder(db: Db, tenantId: string, orderId: string): Promise<PaymentRow[]> {
  return db
    .select()
    .from(payments)
    .where(and(eq(payments.tenantId, tenantId), eq(payments.orderId, orderId)))
    .orderBy(asc(payments.attempt));
}

export async function findPayment(db: Db, tenantId: string, id: string): Promise<PaymentRow | null> {
  const [row] = await db.select().from(payments).where(and(eq(payments.tenantId, tenantId), eq(payments.id, id)));
  return row ?? null;
}

export async function insertPayment(db: Db, row: typeof payments.$inferInsert): Promise<PaymentRow> {
  const [inserted] = await db.insert(payments).values(row).returning();
  return inserted!;
}

export async function updatePayment(db: Db, tenantId: string, id: string, patch: Partial<typeof payments.$inferInsert>): Promise<PaymentRow> {
  const [row] = await db
    .update(payments)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(and(eq(payments.tenantId, tenantId), eq(payments.id, id)))
    .returning();
  return row!;
}

/**
 * What a cashier shift took per method: its approved payments whose refund was not decided, amount + tip
 * (cash handed over above the amount went back as change). The shifts module asks through `onTotals`.
 */
export async function salesOfShift(db: Db, tenantId: string, shiftId: string): Promise<Record<string, number>> {
  const rows = await db
    .select({ method: payments.method, cents: sql<string>`coalesce(sum(${payments.amount} + ${payments.tip}), 0)` })
    .from(payments)
    .where(and(eq(payments.tenantId, tenantId), eq(payments.shiftId, shiftId), eq(payments.status, 'approved'), isNull(payments.refundRequestedAt)))
    .groupBy(payments.method);
  return Object.fromEntries(rows.map((r) => [r.method, Number(r.cents)]));
}

// ---- Cross-tenant lookups: run only under `deps.bypass` (payment-webhook, payment-sweep). They answer
// whose payment it is, nothing more; it is then read and changed with that tenant's handle.

/** A payment's tenant, order and id, by the gateway's intent id, in any tenant. */
export async function paymentRefByIntent(db: Db, intentId: string): Promise<{ tenantId: string; orderId: string; id: string } | null> {
  const [row] = await db
    .select({ tenantId: payments.tenantId, orderId: payments.orderId, id: payments.id })
    .from(payments)
    .where(eq(payments.intentId, intentId))
    .orderBy(asc(payments.createdAt))
    .limit(1);
  return row ?? null;
}

/** Payments still `processing` that started before `before`, in every tenant. */
export function staleProcessing(db: Db, before: Date) {
  return db
    .select({ tenantId: payments.tenantId, id: payments.id })
    .from(payments)
    .where(and(eq(payments.status, 'processing'), lt(payments.createdAt, before)));
}

/** A payment's tenant, order and id, by its id in any tenant (our external reference at the gateway). */
export async function paymentRefById(db: Db, id: string): Promise<{ tenantId: string; orderId: string; id: string } | null> {
  const [row] = await db.select({ tenantId: payments.tenantId, orderId: payments.orderId, id: payments.id }).from(payments).where(eq(payments.id, id)).limit(1);
  return row ?? null;
}

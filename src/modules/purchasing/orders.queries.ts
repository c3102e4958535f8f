import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { purchaseOrderCounters, purchaseOrders, suppliers, type PurchaseOrderRow, type PurchaseOrderStatus } from '../../db/schema/purchasing.js';

/** The supplier as a purchase order shows it. */
export interface SupplierRef {
  id: string;
  name: string;
  cnpj: string | null;
}

export type OrderWithSupplier = { order: PurchaseOrderRow; supplier: SupplierRef | null };

const supplierRef = { id: suppliers.id, name: suppliers.name, cnpj: suppliers.cnpj };

const joined = (db: Db) =>
  db
    .select({ order: purchaseOrders, supplier: supplierRef })
    .from(purchaseOrders)
    .leftJoin(suppliers, and(eq(suppliers.tenantId, purchaseOrders.tenantId), eq(suppliers.id, purchaseOrders.supplierId)));

/** One page of the orders newest first (the id breaks ties), with their supplier; `status` filters. And the number of matching orders. */
export async function listOrders(
  db: Db,
  tenantId: string,
  filter: { status?: PurchaseOrderStatus },
  page: { offset: number; limit: number },
): Promise<{ rows: OrderWithSupplier[]; total: number }> {
  const where = and(eq(purchaseOrders.tenantId, tenantId), filter.status ? eq(purchaseOrders.status, filter.status) : undefined);
  const rows = await joined(db)
    .where(where)
    .orderBy(desc(purchaseOrders.createdAt), desc(purchaseOrders.orderNumber), desc(purchaseOrders.id))
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(purchaseOrders).where(where);
  return { rows, total: total!.n };
}

export async function findOrder(db: Db, tenantId: string, id: string): Promise<OrderWithSupplier | null> {
  const [row] = await joined(db).where(and(eq(purchaseOrders.tenantId, tenantId), eq(purchaseOrders.id, id)));
  return row ?? null;
}

/** The order locked for the rest of the transaction (receipts, edits and deletes of one order run one at a time), or null. */
export async function lockOrder(db: Db, tenantId: string, id: string): Promise<PurchaseOrderRow | null> {
  const [row] = await db
    .select()
    .from(purchaseOrders)
    .where(and(eq(purchaseOrders.tenantId, tenantId), eq(purchaseOrders.id, id)))
    .for('update');
  return row ?? null;
}

/**
 * The next number of the tenant's day (1, 2, ...): one upsert that returns the counter, so two orders made
 * at once never share a number (the second waits on the counter row until the first commits or rolls back).
 */
export async function nextOrderNumber(db: Db, tenantId: string, day: string): Promise<number> {
  const [row] = await db
    .insert(purchaseOrderCounters)
    .values({ tenantId, day, last: 1 })
    .onConflictDoUpdate({ target: [purchaseOrderCounters.tenantId, purchaseOrderCounters.day], set: { last: sql`${purchaseOrderCounters.last} + 1` } })
    .returning({ last: purchaseOrderCounters.last });
  return row!.last;
}

export async function insertOrder(db: Db, row: typeof purchaseOrders.$inferInsert) {
  const [created] = await db.insert(purchaseOrders).values(row).returning();
  return created!;
}

export async function updateOrder(db: Db, tenantId: string, id: string, fields: Partial<typeof purchaseOrders.$inferInsert>) {
  const [row] = await db
    .update(purchaseOrders)
    .set(fields)
    .where(and(eq(purchaseOrders.tenantId, tenantId), eq(purchaseOrders.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteOrder(db: Db, tenantId: string, id: string) {
  await db.delete(purchaseOrders).where(and(eq(purchaseOrders.tenantId, tenantId), eq(purchaseOrders.id, id)));
}

import { and, asc, desc, eq, gte, lte, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { salesSnapshots, suggestedPurchaseOrders, type SuggestedPurchaseOrderRow } from '../../db/schema/purchasing.js';
import type { SoldItem } from './snapshots.queries.js';

/** SQL on the predictions' own tables (sales_snapshots, suggested_purchase_orders). Tenant id always a parameter. */

/**
 * Makes the rows of a day exactly `sold`: upserts each item and deletes the day's rows of items no longer
 * sold (an order cancelled since the last build). Building a day twice gives the same rows.
 */
export async function replaceDay(db: Db, tenantId: string, day: string, sold: SoldItem[], now: Date) {
  const items = sold.map((s) => s.menuItemId);
  await db
    .delete(salesSnapshots)
    .where(
      and(eq(salesSnapshots.tenantId, tenantId), eq(salesSnapshots.day, day), items.length ? notInArray(salesSnapshots.menuItemId, items) : undefined),
    );
  if (!sold.length) return;
  await db
    .insert(salesSnapshots)
    .values(sold.map((s) => ({ tenantId, day, menuItemId: s.menuItemId, quantityMilli: s.quantityMilli, orders: s.orders, createdAt: now })))
    .onConflictDoUpdate({
      target: [salesSnapshots.tenantId, salesSnapshots.day, salesSnapshots.menuItemId],
      set: { quantityMilli: sql`excluded.quantity_milli`, orders: sql`excluded.orders` },
    });
}

/** The snapshot rows of the days [from, to], by item then day. */
export function snapshotsBetween(db: Db, tenantId: string, from: string, to: string) {
  return db
    .select({ day: salesSnapshots.day, menuItemId: salesSnapshots.menuItemId, quantityMilli: salesSnapshots.quantityMilli })
    .from(salesSnapshots)
    .where(and(eq(salesSnapshots.tenantId, tenantId), gte(salesSnapshots.day, from), lte(salesSnapshots.day, to)))
    .orderBy(asc(salesSnapshots.menuItemId), asc(salesSnapshots.day));
}

export async function insertSuggestion(db: Db, row: typeof suggestedPurchaseOrders.$inferInsert): Promise<SuggestedPurchaseOrderRow> {
  const [created] = await db.insert(suggestedPurchaseOrders).values(row).returning();
  return created!;
}

/** The newest suggestions first (ties by id), at most `limit`. */
export function latestSuggestions(db: Db, tenantId: string, limit: number) {
  return db
    .select()
    .from(suggestedPurchaseOrders)
    .where(eq(suggestedPurchaseOrders.tenantId, tenantId))
    .orderBy(desc(suggestedPurchaseOrders.createdAt), desc(suggestedPurchaseOrders.id))
    .limit(limit);
}

/** A suggestion, locked for its decision; null when it is not the tenant's. */
export async function lockSuggestion(db: Db, tenantId: string, id: string): Promise<SuggestedPurchaseOrderRow | null> {
  const [row] = await db
    .select()
    .from(suggestedPurchaseOrders)
    .where(and(eq(suggestedPurchaseOrders.tenantId, tenantId), eq(suggestedPurchaseOrders.id, id)))
    .for('update');
  return row ?? null;
}

export async function updateSuggestion(db: Db, tenantId: string, id: string, patch: Partial<typeof suggestedPurchaseOrders.$inferInsert>) {
  const [row] = await db
    .update(suggestedPurchaseOrders)
    .set(patch)
    .where(and(eq(suggestedPurchaseOrders.tenantId, tenantId), eq(suggestedPurchaseOrders.id, id)))
    .returning();
  return row!;
}

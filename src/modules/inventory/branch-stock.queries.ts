import { and, asc, count, eq, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { branchStock, inventoryItems, type StockUnit } from '../../db/schema/inventory.js';

/** SQL of the branch-stock part: `branch_stock` rows with their item's name, sku and unit. */

const withItem = {
  id: branchStock.id,
  itemId: branchStock.itemId,
  pdvId: branchStock.pdvId,
  physicalMilli: branchStock.physicalMilli,
  reservedMilli: branchStock.reservedMilli,
  minMilli: branchStock.minMilli,
  itemName: inventoryItems.name,
  sku: inventoryItems.sku,
  unit: inventoryItems.unit,
};
export type StockRowWithItem = {
  id: string;
  itemId: string;
  pdvId: string;
  physicalMilli: number;
  reservedMilli: number;
  minMilli: number | null;
  itemName: string;
  sku: string;
  unit: StockUnit;
};

const itemJoin = and(eq(inventoryItems.tenantId, branchStock.tenantId), eq(inventoryItems.id, branchStock.itemId));

/** A catalog item that is not deleted, or null. */
export async function findLiveItem(db: Db, tenantId: string, itemId: string) {
  const [row] = await db
    .select({
      id: inventoryItems.id,
      name: inventoryItems.name,
      sku: inventoryItems.sku,
      unit: inventoryItems.unit,
      expirationDate: inventoryItems.expirationDate,
    })
    .from(inventoryItems)
    .where(and(eq(inventoryItems.tenantId, tenantId), eq(inventoryItems.id, itemId), isNull(inventoryItems.deletedAt)));
  return row ?? null;
}

/**
 * Rows of live items, by PDV and item: within `pdvIds` (null: every PDV), of one PDV or one item when
 * asked, and only those at or below a set minimum when `low`.
 */
export async function listRows(
  db: Db,
  tenantId: string,
  f: { pdvIds: string[] | null; pdv?: string; item?: string; low?: boolean },
  page: { offset: number; limit: number; pdvOrder: string[] },
): Promise<{ rows: StockRowWithItem[]; total: number }> {
  const where: (SQL | undefined)[] = [eq(branchStock.tenantId, tenantId), isNull(inventoryItems.deletedAt)];
  if (f.pdvIds) where.push(f.pdvIds.length ? inArray(branchStock.pdvId, f.pdvIds) : sql`false`);
  if (f.pdv) where.push(eq(branchStock.pdvId, f.pdv));
  if (f.item) where.push(eq(branchStock.itemId, f.item));
  if (f.low) where.push(isNotNull(branchStock.minMilli), sql`${branchStock.physicalMilli} - ${branchStock.reservedMilli} <= ${branchStock.minMilli}`);
  // PDVs in the order given (their names, read by the caller from the branches module), then item name, then id.
  // (No PDV at all: no rank; a bare constant in ORDER BY would name a column.)
  const pdvRank = page.pdvOrder.length
    ? [asc(sql`array_position(ARRAY[${sql.join(page.pdvOrder.map((id) => sql`${id}`), sql`, `)}]::text[], ${branchStock.pdvId}::text)`)]
    : [];
  const rows = await db
    .select(withItem)
    .from(branchStock)
    .innerJoin(inventoryItems, itemJoin)
    .where(and(...where))
    .orderBy(...pdvRank, asc(branchStock.pdvId), asc(inventoryItems.name), asc(branchStock.id))
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(branchStock).innerJoin(inventoryItems, itemJoin).where(and(...where));
  return { rows, total: total!.n };
}

/** The row of an item at a PDV (its item deleted or not), locked when `lock`; null when there is none. */
export async function findRow(db: Db, tenantId: string, itemId: string, pdvId: string, lock = false): Promise<StockRowWithItem | null> {
  const query = db
    .select(withItem)
    .from(branchStock)
    .innerJoin(inventoryItems, itemJoin)
    .where(and(eq(branchStock.tenantId, tenantId), eq(branchStock.itemId, itemId), eq(branchStock.pdvId, pdvId)));
  const [row] = lock ? await query.for('update', { of: branchStock }) : await query;
  return row ?? null;
}

/**
 * Locks the rows of an item at these PDVs in the order of their PDV ids, the one order every
 * transaction that locks two rows uses (so two opposite transfers never wait for each other).
 */
export function lockRowsInOrder(db: Db, tenantId: string, itemId: string, pdvIds: string[]) {
  return db
    .select({ id: branchStock.id, pdvId: branchStock.pdvId })
    .from(branchStock)
    .where(and(eq(branchStock.tenantId, tenantId), eq(branchStock.itemId, itemId), inArray(branchStock.pdvId, pdvIds)))
    .orderBy(asc(branchStock.pdvId))
    .for('update');
}

/**
 * Creates the row of an item at a PDV with no stock, unless it exists (a concurrent creation of the
 * same row waits for the other and then does nothing). True when this call created it.
 */
export async function createRowIfMissing(db: Db, tenantId: string, itemId: string, pdvId: string, minMilli: number | null, now: Date): Promise<boolean> {
  const created = await db
    .insert(branchStock)
    .values({ tenantId, id: newId(), itemId, pdvId, physicalMilli: 0, reservedMilli: 0, minMilli, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning({ id: branchStock.id });
  return created.length > 0;
}

export async function setMinimum(db: Db, tenantId: string, rowId: string, minMilli: number | null, now: Date) {
  await db
    .update(branchStock)
    .set({ minMilli, updatedAt: now })
    .where(and(eq(branchStock.tenantId, tenantId), eq(branchStock.id, rowId)));
}

export async function deleteRow(db: Db, tenantId: string, rowId: string) {
  await db.delete(branchStock).where(and(eq(branchStock.tenantId, tenantId), eq(branchStock.id, rowId)));
}

import { and, asc, count, desc, eq, gte, inArray, isNotNull, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { branchStock, inventoryItems, inventoryMovements, labelTokens, productIngredients, stockAlerts, type ItemStatus } from '../../db/schema/inventory.js';

export const SKU_KEY = 'inventory_items_sku_key';
export const EAN_KEY = 'inventory_items_ean_key';

/** The catalog's rows (`pdv` null) and those of `pdvIds`; null: every place. */
function atPlaces(pdv: AnyPgColumn, pdvIds: string[] | null): SQL | undefined {
  if (pdvIds === null) return undefined;
  return pdvIds.length ? or(isNull(pdv), inArray(pdv, pdvIds)) : isNull(pdv);
}

const live = (tenantId: string) => and(eq(inventoryItems.tenantId, tenantId), isNull(inventoryItems.deletedAt));

const itemsWhere = (tenantId: string, filter: { status?: ItemStatus; ean?: string }) =>
  and(live(tenantId), filter.status ? eq(inventoryItems.status, filter.status) : undefined, filter.ean ? eq(inventoryItems.ean, filter.ean) : undefined);

/** Every live item by name, for other modules' computations (purchasing, predictions). */
export function listItems(db: Db, tenantId: string, filter: { status?: ItemStatus; ean?: string }) {
  return db.select().from(inventoryItems).where(itemsWhere(tenantId, filter)).orderBy(asc(inventoryItems.name), asc(inventoryItems.id));
}

/** One page of the live catalog by name (the id breaks ties), and the number of matching items. */
export async function listItemsPage(db: Db, tenantId: string, filter: { status?: ItemStatus; ean?: string }, page: { offset: number; limit: number }) {
  const where = itemsWhere(tenantId, filter);
  const rows = await db
    .select()
    .from(inventoryItems)
    .where(where)
    .orderBy(asc(inventoryItems.name), asc(inventoryItems.id))
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(inventoryItems).where(where);
  return { rows, total: total!.n };
}

export async function insertItem(db: Db, row: typeof inventoryItems.$inferInsert) {
  const [created] = await db.insert(inventoryItems).values(row).returning();
  return created!;
}

/** A live item, or null. */
export async function findItem(db: Db, tenantId: string, id: string) {
  const [row] = await db
    .select()
    .from(inventoryItems)
    .where(and(live(tenantId), eq(inventoryItems.id, id)));
  return row ?? null;
}

/** A live item, locked for the rest of the transaction (against stock changes and other edits), or null. */
export async function lockItem(db: Db, tenantId: string, id: string) {
  const [row] = await db
    .select()
    .from(inventoryItems)
    .where(and(live(tenantId), eq(inventoryItems.id, id)))
    .for('update');
  return row ?? null;
}

export async function updateItem(db: Db, tenantId: string, id: string, fields: Partial<typeof inventoryItems.$inferInsert>) {
  const [row] = await db
    .update(inventoryItems)
    .set(fields)
    .where(and(live(tenantId), eq(inventoryItems.id, id)))
    .returning();
  return row ?? null;
}

/** What still names an item: its recipe lines, its rows at PDVs, its labels not yet scanned. */
export async function itemUses(db: Db, tenantId: string, itemId: string) {
  // One statement at a time: a transaction's connection runs one query at once.
  const counted = async (query: Promise<{ n: number }[]>) => (await query)[0]!.n;
  const ofItem = and(eq(productIngredients.tenantId, tenantId), eq(productIngredients.itemId, itemId));
  const recipes = await counted(db.select({ n: count() }).from(productIngredients).where(ofItem));
  const boxRecipes = await counted(db.select({ n: count() }).from(productIngredients).where(and(ofItem, eq(productIngredients.unit, 'cx'))));
  const branchRows = await counted(
    db
      .select({ n: count() })
      .from(branchStock)
      .where(and(eq(branchStock.tenantId, tenantId), eq(branchStock.itemId, itemId))),
  );
  const pendingLabels = await counted(
    db
      .select({ n: count() })
      .from(labelTokens)
      .where(and(eq(labelTokens.tenantId, tenantId), eq(labelTokens.itemId, itemId), eq(labelTokens.status, 'pending'))),
  );
  return { recipes, branchRows, pendingLabels, boxRecipes };
}

/** Movements of an item, newest first: all of them, or those at the catalog and at `pdvIds`. */
export async function listMovements(db: Db, tenantId: string, itemId: string, pdvIds: string[] | null, page: { offset: number; limit: number }) {
  const where = and(
    eq(inventoryMovements.tenantId, tenantId),
    eq(inventoryMovements.itemId, itemId),
    atPlaces(inventoryMovements.pdvId, pdvIds),
  );
  const rows = await db
    .select()
    .from(inventoryMovements)
    .where(where)
    .orderBy(desc(inventoryMovements.createdAt), desc(inventoryMovements.id))
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(inventoryMovements).where(where);
  return { rows, total: total!.n };
}

/**
 * Spec 4.8 stats over the live catalog: active items; the value of the physical stock (each item's
 * quantity x cost rounded half up to the cent, as `costOf`, then summed); items with a minimum above 0
 * and available stock at or below it; expired and blocked items.
 */
export async function stats(db: Db, tenantId: string) {
  const [row] = await db
    .select({
      totalItems: sql<number>`count(*) filter (where ${inventoryItems.status} = 'active')`.mapWith(Number),
      totalValue: sql<number>`coalesce(sum(round(${inventoryItems.physicalMilli}::numeric * ${inventoryItems.costCents} / 1000)), 0)`.mapWith(Number),
      lowStock:
        sql<number>`count(*) filter (where ${inventoryItems.minMilli} > 0 and ${inventoryItems.physicalMilli} - ${inventoryItems.reservedMilli} <= ${inventoryItems.minMilli})`.mapWith(
          Number,
        ),
      expired: sql<number>`count(*) filter (where ${inventoryItems.status} = 'expired')`.mapWith(Number),
      blocked: sql<number>`count(*) filter (where ${inventoryItems.status} = 'blocked')`.mapWith(Number),
    })
    .from(inventoryItems)
    .where(live(tenantId));
  return row!;
}

/** Live items with stock whose expiration date is on or before `until`, soonest first. */
export function expiringItems(db: Db, tenantId: string, until: string) {
  return db
    .select()
    .from(inventoryItems)
    .where(and(live(tenantId), isNotNull(inventoryItems.expirationDate), lte(inventoryItems.expirationDate, until), gte(inventoryItems.physicalMilli, 1)))
    .orderBy(asc(inventoryItems.expirationDate), asc(inventoryItems.name), asc(inventoryItems.id));
}

/** Open alerts the user has not read, at the catalog or at `pdvIds` (null: every PDV). */
function unreadWhere(tenantId: string, userId: string, pdvIds: string[] | null): SQL | undefined {
  return and(
    eq(stockAlerts.tenantId, tenantId),
    isNull(stockAlerts.resolvedAt),
    sql`not (${stockAlerts.readBy} @> ${JSON.stringify([userId])}::jsonb)`,
    atPlaces(stockAlerts.pdvId, pdvIds),
  );
}

export function unreadAlerts(db: Db, tenantId: string, userId: string, pdvIds: string[] | null, limit: number) {
  return db
    .select()
    .from(stockAlerts)
    .where(unreadWhere(tenantId, userId, pdvIds))
    .orderBy(desc(stockAlerts.createdAt), desc(stockAlerts.id))
    .limit(limit);
}

export async function countUnreadAlerts(db: Db, tenantId: string, userId: string, pdvIds: string[] | null) {
  const [row] = await db.select({ n: count() }).from(stockAlerts).where(unreadWhere(tenantId, userId, pdvIds));
  return row!.n;
}

export async function findAlert(db: Db, tenantId: string, id: string) {
  const [row] = await db
    .select()
    .from(stockAlerts)
    .where(and(eq(stockAlerts.tenantId, tenantId), eq(stockAlerts.id, id)));
  return row ?? null;
}

/** Adds `userId` to the alert's readers once (the row lock makes two concurrent reads by one user add it once). */
export async function markAlertRead(db: Db, tenantId: string, id: string, userId: string) {
  const me = sql`${JSON.stringify([userId])}::jsonb`;
  const [row] = await db
    .update(stockAlerts)
    .set({ readBy: sql`case when ${stockAlerts.readBy} @> ${me} then ${stockAlerts.readBy} else ${stockAlerts.readBy} || ${me} end` })
    .where(and(eq(stockAlerts.tenantId, tenantId), eq(stockAlerts.id, id)))
    .returning();
  return row ?? null;
}

/** The open alerts of an item show its new name (a rename; closed alerts keep the name they were raised with). */
export async function renameOpenAlerts(db: Db, tenantId: string, itemId: string, name: string) {
  await db
    .update(stockAlerts)
    .set({ itemName: name })
    .where(and(eq(stockAlerts.tenantId, tenantId), eq(stockAlerts.itemId, itemId), isNull(stockAlerts.resolvedAt)));
}

/** One movement of an item by id. */
export async function findMovement(db: Db, tenantId: string, itemId: string, id: string) {
  const [row] = await db
    .select()
    .from(inventoryMovements)
    .where(and(eq(inventoryMovements.tenantId, tenantId), eq(inventoryMovements.itemId, itemId), eq(inventoryMovements.id, id)));
  return row ?? null;
}

import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { branchStock, inventoryItems, inventoryMovements, orderStock, productIngredients, type ProductIngredientRow } from '../../db/schema/inventory.js';

/** The unique index of a (menu item, inventory item) pair. */
export const PAIR_KEY = 'product_ingredients_pair_key';

/** The inventory item fields a recipe line shows and computes with. */
const itemFields = {
  itemName: inventoryItems.name,
  sku: inventoryItems.sku,
  itemUnit: inventoryItems.unit,
  packSize: inventoryItems.packSize,
  costCents: inventoryItems.costCents,
};

const recipeColumns = () => {
  const { tenantId, id, menuItemId, itemId, quantityMilli, unit, createdAt, updatedAt } = productIngredients;
  return { tenantId, id, menuItemId, itemId, quantityMilli, unit, createdAt, updatedAt, ...itemFields };
};

const withItem = and(eq(inventoryItems.tenantId, productIngredients.tenantId), eq(inventoryItems.id, productIngredients.itemId));

/**
 * The recipe lines of menu items, each with its inventory item; lines of a deleted inventory item are
 * left out (it is no longer stocked). Ordered by menu item, item name, id.
 */
export function recipesOf(db: Db, tenantId: string, menuItemIds: string[]) {
  return db
    .select(recipeColumns())
    .from(productIngredients)
    .innerJoin(inventoryItems, withItem)
    .where(and(eq(productIngredients.tenantId, tenantId), inArray(productIngredients.menuItemId, menuItemIds), isNull(inventoryItems.deletedAt)))
    .orderBy(asc(productIngredients.menuItemId), asc(inventoryItems.name), asc(productIngredients.id));
}

/** A recipe line with its inventory item's name, sku, unit, pack size and cost. */
export type RecipeLine = Awaited<ReturnType<typeof recipesOf>>[number];

export async function findRecipeLine(db: Db, tenantId: string, id: string): Promise<RecipeLine | null> {
  const [row] = await db
    .select(recipeColumns())
    .from(productIngredients)
    .innerJoin(inventoryItems, withItem)
    .where(and(eq(productIngredients.tenantId, tenantId), eq(productIngredients.id, id)));
  return row ?? null;
}

export async function findPair(db: Db, tenantId: string, menuItemId: string, itemId: string): Promise<ProductIngredientRow | null> {
  const [row] = await db
    .select()
    .from(productIngredients)
    .where(and(eq(productIngredients.tenantId, tenantId), eq(productIngredients.menuItemId, menuItemId), eq(productIngredients.itemId, itemId)));
  return row ?? null;
}

export async function insertRecipeLine(db: Db, row: typeof productIngredients.$inferInsert): Promise<void> {
  await db.insert(productIngredients).values(row);
}

export async function deleteRecipeLine(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(productIngredients)
    .where(and(eq(productIngredients.tenantId, tenantId), eq(productIngredients.id, id)))
    .returning({ id: productIngredients.id });
  return rows.length > 0;
}

/** A live (not deleted) inventory item. */
export async function findLiveItem(db: Db, tenantId: string, id: string) {
  const [row] = await db
    .select()
    .from(inventoryItems)
    .where(and(eq(inventoryItems.tenantId, tenantId), eq(inventoryItems.id, id), isNull(inventoryItems.deletedAt)));
  return row ?? null;
}

/** Cost and name of inventory items, deleted ones included (for the returns of an order). */
export function itemCosts(db: Db, tenantId: string, ids: string[]) {
  if (!ids.length) return Promise.resolve([]);
  return db
    .select({ id: inventoryItems.id, costCents: inventoryItems.costCents })
    .from(inventoryItems)
    .where(and(eq(inventoryItems.tenantId, tenantId), inArray(inventoryItems.id, ids)));
}

// ---- deduction on sale

/** What an order has taken out of stock so far, per item and place, the rows locked. */
export function lockOrderStock(db: Db, tenantId: string, orderId: string) {
  return db
    .select()
    .from(orderStock)
    .where(and(eq(orderStock.tenantId, tenantId), eq(orderStock.orderId, orderId)))
    .orderBy(asc(orderStock.itemId), asc(orderStock.place))
    .for('update');
}

/** Writes what an order has now accounted for, per item and place, in one statement. */
export async function saveOrderStock(db: Db, tenantId: string, orderId: string, rows: { itemId: string; place: string; deductedMilli: number }[]) {
  if (!rows.length) return;
  await db
    .insert(orderStock)
    .values(rows.map((r) => ({ tenantId, orderId, ...r })))
    .onConflictDoUpdate({
      target: [orderStock.tenantId, orderStock.orderId, orderStock.itemId, orderStock.place],
      set: { deductedMilli: sql`excluded.deducted_milli`, updatedAt: sql`now()` },
    });
}

/**
 * The items (of `itemIds`) that have a stock row at `pdvId`, those rows locked in item order: a sale
 * uses the PDV's stock of such an item, and the row cannot go away before the sale is written.
 */
export async function lockBranchItems(db: Db, tenantId: string, pdvId: string, itemIds: string[]): Promise<Set<string>> {
  if (!itemIds.length) return new Set();
  const rows = await db
    .select({ itemId: branchStock.itemId })
    .from(branchStock)
    .where(and(eq(branchStock.tenantId, tenantId), eq(branchStock.pdvId, pdvId), inArray(branchStock.itemId, itemIds)))
    .orderBy(asc(branchStock.itemId))
    .for('update');
  return new Set(rows.map((r) => r.itemId));
}

/** What the movements of an order took out, net, per item and place (`''` for the catalog): sales minus returns, thousandths. */
export async function takenByOrder(db: Db, tenantId: string, orderId: string): Promise<Map<string, number>> {
  const rows = await db
    .select({
      itemId: inventoryMovements.itemId,
      pdvId: inventoryMovements.pdvId,
      taken: sql<string>`-sum(${inventoryMovements.deltaMilli})`,
    })
    .from(inventoryMovements)
    .where(and(eq(inventoryMovements.tenantId, tenantId), eq(inventoryMovements.orderId, orderId)))
    .groupBy(inventoryMovements.itemId, inventoryMovements.pdvId);
  return new Map(rows.map((r) => [`${r.itemId}|${r.pdvId ?? ''}`, Number(r.taken)]));
}

/** Movements by id (the accounting module reads a sale's, a return's or a receipt's to post their cost). */
export function movementsByIds(db: Db, tenantId: string, ids: string[]) {
  if (!ids.length) return Promise.resolve([]);
  return db
    .select({
      id: inventoryMovements.id,
      itemId: inventoryMovements.itemId,
      type: inventoryMovements.type,
      reason: inventoryMovements.reason,
      quantityMilli: inventoryMovements.quantityMilli,
      deltaMilli: inventoryMovements.deltaMilli,
      unitCostCents: inventoryMovements.unitCostCents,
      orderId: inventoryMovements.orderId,
      notes: inventoryMovements.notes,
      createdAt: inventoryMovements.createdAt,
    })
    .from(inventoryMovements)
    .where(and(eq(inventoryMovements.tenantId, tenantId), inArray(inventoryMovements.id, ids)));
}

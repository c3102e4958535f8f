import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inventoryItems, productIngredients } from '../../db/schema/inventory.js';

/** Menu items whose recipe has a line of one of the (live) inventory items, each once, by id. */
export async function menuItemsUsing(db: Db, tenantId: string, itemIds: string[]): Promise<string[]> {
  if (!itemIds.length) return [];
  const rows = await db
    .selectDistinct({ menuItemId: productIngredients.menuItemId })
    .from(productIngredients)
    .innerJoin(inventoryItems, and(eq(inventoryItems.tenantId, productIngredients.tenantId), eq(inventoryItems.id, productIngredients.itemId)))
    .where(and(eq(productIngredients.tenantId, tenantId), inArray(productIngredients.itemId, itemIds), isNull(inventoryItems.deletedAt)))
    .orderBy(asc(productIngredients.menuItemId));
  return rows.map((r) => r.menuItemId);
}

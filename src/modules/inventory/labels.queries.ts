import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { branchStock, inventoryItems, labelTokens, type LabelTokenRow } from '../../db/schema/inventory.js';

/** Label tokens (spec "LabelToken"): SQL only, tenant id always a parameter. */

/** The item a label may be made for: in the catalog, not deleted. */
export async function findLiveItem(db: Db, tenantId: string, itemId: string) {
  const [row] = await db
    .select({ id: inventoryItems.id, name: inventoryItems.name })
    .from(inventoryItems)
    .where(and(eq(inventoryItems.tenantId, tenantId), eq(inventoryItems.id, itemId), isNull(inventoryItems.deletedAt)));
  return row ?? null;
}

/** True when the item has a stock row at the PDV. */
export async function hasBranchStock(db: Db, tenantId: string, itemId: string, pdvId: string) {
  const [row] = await db
    .select({ id: branchStock.id })
    .from(branchStock)
    .where(and(eq(branchStock.tenantId, tenantId), eq(branchStock.itemId, itemId), eq(branchStock.pdvId, pdvId)));
  return row !== undefined;
}

export async function insertLabel(db: Db, values: typeof labelTokens.$inferInsert) {
  const [row] = await db.insert(labelTokens).values(values).returning();
  return row!;
}

/** A label with what its printed face shows of the item (deleted items included: the label still names them). */
export async function findLabelWithItem(db: Db, tenantId: string, id: string) {
  const [row] = await db
    .select({
      label: labelTokens,
      item: { name: inventoryItems.name, sku: inventoryItems.sku, unit: inventoryItems.unit, expirationDate: inventoryItems.expirationDate },
    })
    .from(labelTokens)
    .innerJoin(inventoryItems, and(eq(inventoryItems.tenantId, labelTokens.tenantId), eq(inventoryItems.id, labelTokens.itemId)))
    .where(and(eq(labelTokens.tenantId, tenantId), eq(labelTokens.id, id)));
  return row ?? null;
}

/**
 * Marks the pending label with this token used and answers it; null when there is none (unknown, used,
 * or another tenant's). The row lock makes this the single winner among concurrent scans: the others wait
 * for it and, once it commits, find the label no longer pending.
 */
export async function claimPendingLabel(db: Db, tenantId: string, token: string, usedAt: Date): Promise<LabelTokenRow | null> {
  const [row] = await db
    .update(labelTokens)
    .set({ status: 'used', usedAt })
    .where(and(eq(labelTokens.tenantId, tenantId), eq(labelTokens.token, token), eq(labelTokens.status, 'pending')))
    .returning();
  return row ?? null;
}

/** Links a used label to its movement; the label's `usedAt` becomes the movement's time. */
export async function setLabelMovement(db: Db, tenantId: string, id: string, movement: { id: string; createdAt: Date }) {
  await db
    .update(labelTokens)
    .set({ movementId: movement.id, usedAt: movement.createdAt })
    .where(and(eq(labelTokens.tenantId, tenantId), eq(labelTokens.id, id)));
}

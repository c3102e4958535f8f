import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { bomIndirectCosts, bomSnapshots, type BomIndirectCostRow, type BomSnapshotRow } from '../../db/schema/bom.js';

// ---- indirect costs

/** The indirect costs of menu items, by menu item, then creation, then id. */
export function indirectOf(db: Db, tenantId: string, menuItemIds: string[]): Promise<BomIndirectCostRow[]> {
  if (!menuItemIds.length) return Promise.resolve([]);
  return db
    .select()
    .from(bomIndirectCosts)
    .where(and(eq(bomIndirectCosts.tenantId, tenantId), inArray(bomIndirectCosts.menuItemId, menuItemIds)))
    .orderBy(asc(bomIndirectCosts.menuItemId), asc(bomIndirectCosts.createdAt), asc(bomIndirectCosts.id));
}

export async function findIndirect(db: Db, tenantId: string, id: string, opts: { lock?: boolean } = {}): Promise<BomIndirectCostRow | null> {
  const query = db
    .select()
    .from(bomIndirectCosts)
    .where(and(eq(bomIndirectCosts.tenantId, tenantId), eq(bomIndirectCosts.id, id)));
  const [row] = opts.lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function insertIndirect(db: Db, row: typeof bomIndirectCosts.$inferInsert): Promise<BomIndirectCostRow> {
  const [created] = await db.insert(bomIndirectCosts).values(row).returning();
  return created!;
}

export async function updateIndirect(db: Db, tenantId: string, id: string, fields: Partial<typeof bomIndirectCosts.$inferInsert>) {
  const [row] = await db
    .update(bomIndirectCosts)
    .set(fields)
    .where(and(eq(bomIndirectCosts.tenantId, tenantId), eq(bomIndirectCosts.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteIndirect(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(bomIndirectCosts)
    .where(and(eq(bomIndirectCosts.tenantId, tenantId), eq(bomIndirectCosts.id, id)))
    .returning({ id: bomIndirectCosts.id });
  return rows.length > 0;
}

// ---- snapshots

export async function insertSnapshot(db: Db, row: typeof bomSnapshots.$inferInsert): Promise<BomSnapshotRow> {
  const [created] = await db.insert(bomSnapshots).values(row).returning();
  return created!;
}

/** A menu item's snapshots, newest first (time, then id). */
export function history(db: Db, tenantId: string, menuItemId: string, limit: number): Promise<BomSnapshotRow[]> {
  return db
    .select()
    .from(bomSnapshots)
    .where(and(eq(bomSnapshots.tenantId, tenantId), eq(bomSnapshots.menuItemId, menuItemId)))
    .orderBy(desc(bomSnapshots.createdAt), desc(bomSnapshots.id))
    .limit(limit);
}

/** The newest snapshot of each of the menu items (those without one are absent). */
export async function latestOf(db: Db, tenantId: string, menuItemIds: string[]): Promise<Map<string, BomSnapshotRow>> {
  if (!menuItemIds.length) return new Map();
  const rows = await db
    .selectDistinctOn([bomSnapshots.menuItemId])
    .from(bomSnapshots)
    .where(and(eq(bomSnapshots.tenantId, tenantId), inArray(bomSnapshots.menuItemId, menuItemIds)))
    .orderBy(asc(bomSnapshots.menuItemId), desc(bomSnapshots.createdAt), desc(bomSnapshots.id));
  return new Map(rows.map((r) => [r.menuItemId, r]));
}

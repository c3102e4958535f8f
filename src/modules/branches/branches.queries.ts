import { and, asc, eq, inArray, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isId } from '../../db/ids.js';
import { branches, pdvs } from '../../db/schema/branches.js';

export async function insertBranch(db: Db, row: typeof branches.$inferInsert) {
  const [created] = await db.insert(branches).values(row).returning();
  return created;
}

export async function insertPdv(db: Db, row: typeof pdvs.$inferInsert) {
  const [created] = await db.insert(pdvs).values(row).returning();
  return created;
}

/** A PDV by id or by slug. */
export async function findPdv(db: Db, tenantId: string, idOrSlug: string) {
  const [row] = await db
    .select()
    .from(pdvs)
    .where(and(eq(pdvs.tenantId, tenantId), isId(idOrSlug) ? or(eq(pdvs.id, idOrSlug), eq(pdvs.slug, idOrSlug)) : eq(pdvs.slug, idOrSlug)));
  return row ?? null;
}

/** The tenant's active PDV whose card terminal has this serial, or null. */
export async function findPdvByTerminal(db: Db, tenantId: string, serial: string) {
  const [row] = await db
    .select()
    .from(pdvs)
    .where(and(eq(pdvs.tenantId, tenantId), eq(pdvs.gatewayATerminalSerial, serial), eq(pdvs.active, true)));
  return row ?? null;
}

export function listPdvs(db: Db, tenantId: string) {
  return db.select().from(pdvs).where(eq(pdvs.tenantId, tenantId)).orderBy(asc(pdvs.slug));
}

export async function pdvIdsOfBranches(db: Db, tenantId: string, branchIds: string[]): Promise<string[]> {
  if (!branchIds.length) return [];
  const rows = await db.select({ id: pdvs.id }).from(pdvs).where(and(eq(pdvs.tenantId, tenantId), inArray(pdvs.branchId, branchIds)));
  return rows.map((r) => r.id);
}

export async function existingPdvIds(db: Db, tenantId: string, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  return (await db.select({ id: pdvs.id }).from(pdvs).where(and(eq(pdvs.tenantId, tenantId), inArray(pdvs.id, ids)))).map((r) => r.id);
}

export async function existingBranchIds(db: Db, tenantId: string, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  return (await db.select({ id: branches.id }).from(branches).where(and(eq(branches.tenantId, tenantId), inArray(branches.id, ids)))).map((r) => r.id);
}

import { and, asc, count, desc, eq, inArray, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isId } from '../../db/ids.js';
import { branches, pdvs, type BranchRow, type PdvRow } from '../../db/schema/branches.js';

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

/** Every PDV with its branch's name, by branch then PDV name. */
export function listPdvsWithBranch(db: Db, tenantId: string) {
  return db
    .select({ pdv: pdvs, branchName: branches.name })
    .from(pdvs)
    .innerJoin(branches, and(eq(branches.tenantId, pdvs.tenantId), eq(branches.id, pdvs.branchId)))
    .where(eq(pdvs.tenantId, tenantId))
    .orderBy(asc(branches.name), asc(pdvs.name));
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

// ---- branches

export const BRANCH_SLUG_KEY = 'branches_slug_key';
export const BRANCH_HQ_KEY = 'branches_hq_key';
export const PDV_SLUG_KEY = 'pdvs_slug_key';
export const PDV_TERMINAL_KEY = 'pdvs_terminal_key';

/**
 * Serialises the changes that must see every branch of the tenant (who is HQ, whether a branch has
 * PDVs) with a transaction-scoped advisory lock keyed by the tenant.
 */
export async function lockTenantBranches(db: Db, tenantId: string) {
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`branches:${tenantId}`}))`);
}

export async function findBranch(db: Db, tenantId: string, id: string): Promise<BranchRow | null> {
  const [row] = await db.select().from(branches).where(and(eq(branches.tenantId, tenantId), eq(branches.id, id)));
  return row ?? null;
}

export async function findHq(db: Db, tenantId: string): Promise<BranchRow | null> {
  const [row] = await db.select().from(branches).where(and(eq(branches.tenantId, tenantId), eq(branches.isHQ, true)));
  return row ?? null;
}

/** A page of the tenant's branches (HQ first, then by name), `only` limiting them to those ids, and how many match. */
export async function listBranches(
  db: Db,
  tenantId: string,
  filter: { active?: boolean; only?: string[]; offset: number; limit: number },
): Promise<{ rows: BranchRow[]; total: number }> {
  const where = and(
    eq(branches.tenantId, tenantId),
    filter.active === undefined ? undefined : eq(branches.active, filter.active),
    filter.only ? (filter.only.length ? inArray(branches.id, filter.only) : sql`false`) : undefined,
  );
  const rows = await db
    .select()
    .from(branches)
    .where(where)
    .orderBy(desc(branches.isHQ), asc(branches.name), asc(branches.id))
    .offset(filter.offset)
    .limit(filter.limit);
  const [{ n }] = await db.select({ n: count() }).from(branches).where(where);
  return { rows, total: n };
}

/** Takes the HQ flag off the tenant's current HQ (before giving it to another: one HQ per tenant is a unique index). */
export async function clearHq(db: Db, tenantId: string) {
  await db.update(branches).set({ isHQ: false, updatedAt: sql`now()` }).where(and(eq(branches.tenantId, tenantId), eq(branches.isHQ, true)));
}

export async function updateBranch(db: Db, tenantId: string, id: string, patch: Partial<Omit<BranchRow, 'tenantId' | 'id' | 'createdAt' | 'updatedAt'>>) {
  const [row] = await db
    .update(branches)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(and(eq(branches.tenantId, tenantId), eq(branches.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteBranch(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.delete(branches).where(and(eq(branches.tenantId, tenantId), eq(branches.id, id))).returning({ id: branches.id });
  return rows.length > 0;
}

export async function branchHasPdvs(db: Db, tenantId: string, branchId: string): Promise<boolean> {
  const rows = await db.select({ id: pdvs.id }).from(pdvs).where(and(eq(pdvs.tenantId, tenantId), eq(pdvs.branchId, branchId))).limit(1);
  return rows.length > 0;
}

export function listBranchPdvs(db: Db, tenantId: string, branchId: string): Promise<PdvRow[]> {
  return db.select().from(pdvs).where(and(eq(pdvs.tenantId, tenantId), eq(pdvs.branchId, branchId))).orderBy(asc(pdvs.slug));
}

export async function updatePdv(db: Db, tenantId: string, id: string, patch: Partial<Omit<PdvRow, 'tenantId' | 'id' | 'branchId' | 'createdAt' | 'updatedAt'>>) {
  const [row] = await db
    .update(pdvs)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(and(eq(pdvs.tenantId, tenantId), eq(pdvs.id, id)))
    .returning();
  return row ?? null;
}

export async function otherBranchExists(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.select({ id: branches.id }).from(branches).where(and(eq(branches.tenantId, tenantId), ne(branches.id, id))).limit(1);
  return rows.length > 0;
}

export async function findPdvById(db: Db, tenantId: string, id: string): Promise<PdvRow | null> {
  const [row] = await db.select().from(pdvs).where(and(eq(pdvs.tenantId, tenantId), eq(pdvs.id, id)));
  return row ?? null;
}

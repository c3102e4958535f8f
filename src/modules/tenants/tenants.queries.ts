import { asc, count, eq, inArray, not, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { tenants, type TenantRow } from '../../db/schema/tenants.js';

export type TenantPatch = Partial<typeof tenants.$inferInsert>;

export function listTenants(db: Db) {
  return db.select().from(tenants).orderBy(asc(tenants.createdAt), asc(tenants.id));
}

/** One page of the tenants, oldest first (the id breaks ties), and their number. */
export async function listTenantsPage(db: Db, page: { offset: number; limit: number }) {
  const rows = await db.select().from(tenants).orderBy(asc(tenants.createdAt), asc(tenants.id)).limit(page.limit).offset(page.offset);
  const [total] = await db.select({ n: count() }).from(tenants);
  return { rows, total: total!.n };
}

export async function findTenant(db: Db, id: string): Promise<TenantRow | null> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, id));
  return row ?? null;
}

/** Id, slug, name and activation of the given tenants, by name. */
export function tenantRefsByIds(db: Db, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .select({ id: tenants.id, slug: tenants.slug, name: tenants.name, isActive: tenants.isActive })
    .from(tenants)
    .where(inArray(tenants.id, ids))
    .orderBy(asc(tenants.name));
}

export async function findTenantBySlug(db: Db, slug: string): Promise<TenantRow | null> {
  const [row] = await db.select().from(tenants).where(eq(tenants.slug, slug));
  return row ?? null;
}

export async function insertTenant(db: Db, row: typeof tenants.$inferInsert): Promise<TenantRow> {
  const [created] = await db.insert(tenants).values(row).returning();
  return created;
}

export async function updateTenant(db: Db, id: string, patch: TenantPatch): Promise<TenantRow | null> {
  const [row] = await db.update(tenants).set({ ...patch, updatedAt: sql`now()` }).where(eq(tenants.id, id)).returning();
  return row ?? null;
}

/** Flips activation in one statement, so two toggles never read the same old value. */
export async function toggleTenant(db: Db, id: string) {
  const [row] = await db
    .update(tenants)
    .set({ isActive: not(tenants.isActive), updatedAt: sql`now()` })
    .where(eq(tenants.id, id))
    .returning({ isActive: tenants.isActive, slug: tenants.slug });
  return row ?? null;
}

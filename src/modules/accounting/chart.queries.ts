import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { chartAccounts, systemAccounts, type ChartAccountRow, type SystemAccountRow } from '../../db/schema/accounting.js';

/** SQL on the chart: `system_accounts` (shared, read-only to tenants) and the tenant's `chart_accounts`. */

export const listSystemAccounts = (db: Db): Promise<SystemAccountRow[]> => db.select().from(systemAccounts).orderBy(asc(systemAccounts.code));

export const listTenantAccounts = (db: Db, tenantId: string): Promise<ChartAccountRow[]> =>
  db.select().from(chartAccounts).where(eq(chartAccounts.tenantId, tenantId)).orderBy(asc(chartAccounts.code));

export async function findSystemAccount(db: Db, id: string): Promise<SystemAccountRow | null> {
  const [row] = await db.select().from(systemAccounts).where(eq(systemAccounts.id, id));
  return row ?? null;
}

export async function findSystemAccountByCode(db: Db, code: string): Promise<SystemAccountRow | null> {
  const [row] = await db.select().from(systemAccounts).where(eq(systemAccounts.code, code));
  return row ?? null;
}

/** A tenant account, locked `for share` (a deactivation waits for the child being created under it) or `for update`. */
export async function findTenantAccount(db: Db, tenantId: string, id: string, lock?: 'share' | 'update'): Promise<ChartAccountRow | null> {
  const q = db.select().from(chartAccounts).where(and(eq(chartAccounts.tenantId, tenantId), eq(chartAccounts.id, id)));
  const [row] = lock ? await q.for(lock) : await q;
  return row ?? null;
}

export async function findTenantAccountByCode(db: Db, tenantId: string, code: string): Promise<ChartAccountRow | null> {
  const [row] = await db.select().from(chartAccounts).where(and(eq(chartAccounts.tenantId, tenantId), eq(chartAccounts.code, code)));
  return row ?? null;
}

/** The accounts of these ids, of the system chart and the tenant's. */
export async function accountsByIds(db: Db, tenantId: string, ids: string[]) {
  if (ids.length === 0) return [];
  const [system, own] = [
    await db.select().from(systemAccounts).where(inArray(systemAccounts.id, ids)),
    await db.select().from(chartAccounts).where(and(eq(chartAccounts.tenantId, tenantId), inArray(chartAccounts.id, ids))),
  ];
  return [...system, ...own];
}

export async function activeChildren(db: Db, tenantId: string, parentId: string): Promise<ChartAccountRow[]> {
  return db
    .select()
    .from(chartAccounts)
    .where(and(eq(chartAccounts.tenantId, tenantId), eq(chartAccounts.parentId, parentId), eq(chartAccounts.active, true)))
    .orderBy(asc(chartAccounts.code));
}

export async function insertTenantAccount(db: Db, row: typeof chartAccounts.$inferInsert): Promise<ChartAccountRow> {
  const [created] = await db.insert(chartAccounts).values(row).returning();
  return created!;
}

export async function deactivateTenantAccount(db: Db, tenantId: string, id: string, now: Date): Promise<ChartAccountRow> {
  const [row] = await db
    .update(chartAccounts)
    .set({ active: false, updatedAt: now })
    .where(and(eq(chartAccounts.tenantId, tenantId), eq(chartAccounts.id, id)))
    .returning();
  return row!;
}

/** Inserts a system account unless its code is there (a seed running at the same time waits, then adds nothing). */
export async function insertSystemAccountIfMissing(db: Db, row: typeof systemAccounts.$inferInsert): Promise<boolean> {
  const created = await db.insert(systemAccounts).values(row).onConflictDoNothing({ target: systemAccounts.code }).returning({ id: systemAccounts.id });
  return created.length > 0;
}

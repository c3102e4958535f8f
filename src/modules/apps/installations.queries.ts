import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { appInstallations, apps, type AppScope, type InstallationStatus } from '../../db/schema/apps.js';

export type InstallationRow = typeof appInstallations.$inferSelect;

export async function insertInstallation(db: Db, row: typeof appInstallations.$inferInsert): Promise<InstallationRow> {
  const [created] = await db.insert(appInstallations).values(row).returning();
  return created;
}

export async function findInstallation(db: Db, tenantId: string, id: string, lock = false): Promise<InstallationRow | null> {
  const query = db.select().from(appInstallations).where(and(eq(appInstallations.tenantId, tenantId), eq(appInstallations.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

/** One page of the active installations, newest first (the id breaks ties), and their number. */
export async function listActiveWithApps(db: Db, tenantId: string, page: { offset: number; limit: number }) {
  const where = and(eq(appInstallations.tenantId, tenantId), eq(appInstallations.status, 'active'));
  const rows = await db
    .select({ installation: appInstallations, app: apps })
    .from(appInstallations)
    .innerJoin(apps, eq(apps.id, appInstallations.appId))
    .where(where)
    .orderBy(desc(appInstallations.createdAt), desc(appInstallations.id))
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(appInstallations).where(where);
  return { rows, total: total!.n };
}

/**
 * The guard's lookup: the installation whose token starts with `lookup`, in any tenant, through the
 * SECURITY DEFINER function of migration 0023 (one statement on the shared handle; see docs/decisions.md).
 */
export async function findByTokenLookup(db: Db, lookup: string) {
  const result = await db.execute<TokenRow>(sql`select * from installation_by_token_lookup(${lookup})`);
  const rows = (Array.isArray(result) ? result : (result as unknown as { rows: TokenRow[] }).rows) as TokenRow[];
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    installedBy: row.installed_by,
    scopes: row.scopes as AppScope[],
    status: row.status as InstallationStatus,
    accessTokenHash: row.access_token_hash,
  };
}

type TokenRow = { id: string; tenant_id: string; installed_by: string; scopes: string[]; status: string; access_token_hash: string };

export async function revokeInstallation(db: Db, tenantId: string, id: string, at: Date): Promise<InstallationRow> {
  const [row] = await db
    .update(appInstallations)
    .set({ status: 'revoked', revokedAt: at })
    .where(and(eq(appInstallations.tenantId, tenantId), eq(appInstallations.id, id)))
    .returning();
  return row;
}

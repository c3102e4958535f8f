import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { appInstallations, apps } from '../../db/schema/apps.js';

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

export async function listActiveWithApps(db: Db, tenantId: string) {
  return db
    .select({ installation: appInstallations, app: apps })
    .from(appInstallations)
    .innerJoin(apps, eq(apps.id, appInstallations.appId))
    .where(and(eq(appInstallations.tenantId, tenantId), eq(appInstallations.status, 'active')))
    .orderBy(desc(appInstallations.createdAt));
}

/** The guard's lookup: the installation whose token starts with `lookup` (any tenant: run it through the bypass). */
export async function findByTokenLookup(db: Db, lookup: string) {
  const [row] = await db
    .select({
      id: appInstallations.id,
      tenantId: appInstallations.tenantId,
      installedBy: appInstallations.installedBy,
      scopes: appInstallations.scopes,
      status: appInstallations.status,
      accessTokenHash: appInstallations.accessTokenHash,
    })
    .from(appInstallations)
    .where(eq(appInstallations.tokenLookup, lookup));
  return row ?? null;
}

export async function revokeInstallation(db: Db, tenantId: string, id: string, at: Date): Promise<InstallationRow> {
  const [row] = await db
    .update(appInstallations)
    .set({ status: 'revoked', revokedAt: at })
    .where(and(eq(appInstallations.tenantId, tenantId), eq(appInstallations.id, id)))
    .returning();
  return row;
}

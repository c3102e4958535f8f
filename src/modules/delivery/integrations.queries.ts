import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { marketplaceIntegrations, type DeliveryProvider } from '../../db/schema/delivery.js';

export type IntegrationRow = typeof marketplaceIntegrations.$inferSelect;
export type IntegrationInsert = typeof marketplaceIntegrations.$inferInsert;
export type IntegrationPatch = Partial<Pick<IntegrationRow, 'active' | 'credentials' | 'webhookSecret' | 'jwksUrl' | 'tokens' | 'lastSyncAt' | 'syncedItemCount'>>;

export async function insertIntegration(db: Db, row: IntegrationInsert): Promise<IntegrationRow> {
  const [created] = await db.insert(marketplaceIntegrations).values(row).returning();
  return created;
}

export async function listIntegrations(db: Db, tenantId: string, onlyActive = false): Promise<IntegrationRow[]> {
  const where = onlyActive
    ? and(eq(marketplaceIntegrations.tenantId, tenantId), eq(marketplaceIntegrations.active, true))
    : eq(marketplaceIntegrations.tenantId, tenantId);
  return db.select().from(marketplaceIntegrations).where(where).orderBy(asc(marketplaceIntegrations.provider));
}

export async function findIntegration(db: Db, tenantId: string, id: string, lock = false): Promise<IntegrationRow | null> {
  const query = db.select().from(marketplaceIntegrations).where(and(eq(marketplaceIntegrations.tenantId, tenantId), eq(marketplaceIntegrations.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function findByProvider(db: Db, tenantId: string, provider: DeliveryProvider): Promise<IntegrationRow | null> {
  const [row] = await db
    .select()
    .from(marketplaceIntegrations)
    .where(and(eq(marketplaceIntegrations.tenantId, tenantId), eq(marketplaceIntegrations.provider, provider)));
  return row ?? null;
}

export async function updateIntegration(db: Db, tenantId: string, id: string, patch: IntegrationPatch, at: Date): Promise<IntegrationRow | null> {
  const [row] = await db
    .update(marketplaceIntegrations)
    .set({ ...patch, updatedAt: at })
    .where(and(eq(marketplaceIntegrations.tenantId, tenantId), eq(marketplaceIntegrations.id, id)))
    .returning();
  return row ?? null;
}

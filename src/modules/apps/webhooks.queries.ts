import { and, arrayContains, count, desc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { appInstallations, apps, appWebhookDeliveries } from '../../db/schema/apps.js';

export type DeliveryRow = typeof appWebhookDeliveries.$inferSelect;

/** The installations that receive an event now: active, holding `webhooks.subscribe`, not disabled, their App with a URL. */
export async function subscribedInstallations(db: Db, tenantId: string) {
  return db
    .select({ id: appInstallations.id })
    .from(appInstallations)
    .innerJoin(apps, eq(apps.id, appInstallations.appId))
    .where(
      and(
        eq(appInstallations.tenantId, tenantId),
        eq(appInstallations.status, 'active'),
        isNull(appInstallations.webhooksDisabledAt),
        arrayContains(appInstallations.scopes, ['webhooks.subscribe']),
        isNotNull(apps.webhookUrl),
      ),
    );
}

export async function insertDeliveries(db: Db, rows: Array<typeof appWebhookDeliveries.$inferInsert>): Promise<DeliveryRow[]> {
  return rows.length ? db.insert(appWebhookDeliveries).values(rows).returning() : [];
}

export async function findDelivery(db: Db, tenantId: string, id: string, lock = false): Promise<DeliveryRow | null> {
  const query = db
    .select()
    .from(appWebhookDeliveries)
    .where(and(eq(appWebhookDeliveries.tenantId, tenantId), eq(appWebhookDeliveries.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function updateDelivery(db: Db, tenantId: string, id: string, patch: Partial<typeof appWebhookDeliveries.$inferInsert>) {
  await db
    .update(appWebhookDeliveries)
    .set(patch)
    .where(and(eq(appWebhookDeliveries.tenantId, tenantId), eq(appWebhookDeliveries.id, id)));
}

/** An installation with what a delivery needs of it and of its App. */
export async function installationForDelivery(db: Db, tenantId: string, id: string) {
  const [row] = await db
    .select({
      status: appInstallations.status,
      webhooksDisabledAt: appInstallations.webhooksDisabledAt,
      signingSecret: appInstallations.signingSecret,
      webhookUrl: apps.webhookUrl,
    })
    .from(appInstallations)
    .innerJoin(apps, eq(apps.id, appInstallations.appId))
    .where(and(eq(appInstallations.tenantId, tenantId), eq(appInstallations.id, id)));
  return row ?? null;
}

export async function setWebhooksDisabledAt(db: Db, tenantId: string, id: string, at: Date | null) {
  const [row] = await db
    .update(appInstallations)
    .set({ webhooksDisabledAt: at })
    .where(and(eq(appInstallations.tenantId, tenantId), eq(appInstallations.id, id)))
    .returning();
  return row ?? null;
}

/** One page of an installation's deliveries, newest first, and how many it has. */
export async function listDeliveries(db: Db, tenantId: string, installationId: string, page: number, limit: number) {
  const where = and(eq(appWebhookDeliveries.tenantId, tenantId), eq(appWebhookDeliveries.installationId, installationId));
  const rows = await db
    .select()
    .from(appWebhookDeliveries)
    .where(where)
    .orderBy(desc(appWebhookDeliveries.createdAt), desc(appWebhookDeliveries.id))
    .limit(limit)
    .offset((page - 1) * limit);
  const [{ total }] = await db.select({ total: count() }).from(appWebhookDeliveries).where(where);
  return { rows, total };
}

/** The operator's read of one installation's secret, in any tenant (through the bypass). */
export async function signingSecretById(db: Db, id: string): Promise<string | null> {
  const [row] = await db.select({ secret: appInstallations.signingSecret }).from(appInstallations).where(eq(appInstallations.id, id));
  return row?.secret ?? null;
}

import { and, asc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { catalogSyncRuns, deliveryStatusPushes, marketplaceIntegrations } from '../../db/schema/delivery.js';

export type SyncRunRow = typeof catalogSyncRuns.$inferSelect;
export type StatusPushRow = typeof deliveryStatusPushes.$inferSelect;
export type StatusPushPatch = Partial<Pick<StatusPushRow, 'result' | 'attempts' | 'error'>>;

/**
 * The id of the running transaction (64 bits with its epoch, never reused): one per committed write,
 * so it names one edit of a menu item (the key that coalesces a transaction's repeated changes of an item
 * without ever dropping a later transaction's).
 */
export async function currentTransactionId(db: Db): Promise<string> {
  const result = await db.execute<{ xid: string }>(sql`select pg_current_xact_id()::text as xid`);
  const rows = (Array.isArray(result) ? result : (result as unknown as { rows: { xid: string }[] }).rows) as { xid: string }[];
  return String(rows[0].xid);
}

// ---- catalog sync runs

export async function insertRun(db: Db, row: typeof catalogSyncRuns.$inferInsert): Promise<SyncRunRow> {
  const [created] = await db.insert(catalogSyncRuns).values(row).returning();
  return created;
}

/**
 * Counts one item's result on a run, atomically (`synced = synced + 1`); never past `total`, so a job run
 * twice (at-least-once delivery) cannot finish a run early by counting an item twice. Null when nothing was counted.
 */
export async function countRunItem(db: Db, tenantId: string, runId: string, outcome: { ok: true } | { ok: false; itemId: string; error: string }) {
  const set = outcome.ok
    ? { synced: sql`${catalogSyncRuns.synced} + 1` }
    : {
        failed: sql`${catalogSyncRuns.failed} + 1`,
        failures: sql`${catalogSyncRuns.failures} || ${JSON.stringify([{ itemId: outcome.itemId, error: outcome.error }])}::jsonb`,
      };
  const [row] = await db
    .update(catalogSyncRuns)
    .set(set)
    .where(
      and(
        eq(catalogSyncRuns.tenantId, tenantId),
        eq(catalogSyncRuns.id, runId),
        lt(sql`${catalogSyncRuns.synced} + ${catalogSyncRuns.failed}`, catalogSyncRuns.total),
      ),
    )
    .returning();
  return row ?? null;
}

/** Sets `finishedAt` once (the first caller wins); the row when this call finished it. */
export async function finishRun(db: Db, tenantId: string, runId: string, at: Date): Promise<SyncRunRow | null> {
  const [row] = await db
    .update(catalogSyncRuns)
    .set({ finishedAt: at })
    .where(and(eq(catalogSyncRuns.tenantId, tenantId), eq(catalogSyncRuns.id, runId), isNull(catalogSyncRuns.finishedAt)))
    .returning();
  return row ?? null;
}

export async function findRun(db: Db, tenantId: string, runId: string): Promise<SyncRunRow | null> {
  const [row] = await db.select().from(catalogSyncRuns).where(and(eq(catalogSyncRuns.tenantId, tenantId), eq(catalogSyncRuns.id, runId)));
  return row ?? null;
}

// ---- status pushes

/**
 * `created_at` is the database's `clock_timestamp()`: pushes of one order are inserted under its row lock
 * (the order's status change), so this time orders them as the changes happened, across processes too.
 */
export async function insertPush(db: Db, row: Omit<typeof deliveryStatusPushes.$inferInsert, 'createdAt' | 'updatedAt'>): Promise<StatusPushRow> {
  const [created] = await db
    .insert(deliveryStatusPushes)
    .values({ ...row, createdAt: sql`clock_timestamp()`, updatedAt: sql`clock_timestamp()` })
    .returning();
  return created;
}

export async function findPush(db: Db, tenantId: string, id: string, lock = false): Promise<StatusPushRow | null> {
  const query = db.select().from(deliveryStatusPushes).where(and(eq(deliveryStatusPushes.tenantId, tenantId), eq(deliveryStatusPushes.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function updatePush(db: Db, tenantId: string, id: string, patch: StatusPushPatch): Promise<StatusPushRow | null> {
  const [row] = await db
    .update(deliveryStatusPushes)
    .set({ ...patch, updatedAt: sql`clock_timestamp()` })
    .where(and(eq(deliveryStatusPushes.tenantId, tenantId), eq(deliveryStatusPushes.id, id)))
    .returning();
  return row ?? null;
}

/**
 * The oldest push of the same order, before `push`, still pending and not stale (touched within
 * `staleSeconds`): the one `push` waits for, so the platform hears the statuses in order.
 */
export async function earlierPendingPush(db: Db, push: StatusPushRow, staleSeconds: number): Promise<StatusPushRow | null> {
  const [row] = await db
    .select()
    .from(deliveryStatusPushes)
    .where(
      and(
        eq(deliveryStatusPushes.tenantId, push.tenantId),
        eq(deliveryStatusPushes.orderId, push.orderId),
        eq(deliveryStatusPushes.integrationId, push.integrationId),
        eq(deliveryStatusPushes.result, 'pending'),
        or(
          lt(deliveryStatusPushes.createdAt, push.createdAt),
          and(eq(deliveryStatusPushes.createdAt, push.createdAt), lt(deliveryStatusPushes.id, push.id)),
        ),
        gt(deliveryStatusPushes.updatedAt, sql`now() - make_interval(secs => ${staleSeconds})`),
      ),
    )
    .orderBy(asc(deliveryStatusPushes.createdAt), asc(deliveryStatusPushes.id))
    .limit(1);
  return row ?? null;
}

/** An order's pushes, oldest first, with their integration's provider. */
export async function listOrderPushes(db: Db, tenantId: string, orderId: string) {
  return db
    .select({ push: deliveryStatusPushes, provider: marketplaceIntegrations.provider })
    .from(deliveryStatusPushes)
    .innerJoin(
      marketplaceIntegrations,
      and(eq(marketplaceIntegrations.tenantId, deliveryStatusPushes.tenantId), eq(marketplaceIntegrations.id, deliveryStatusPushes.integrationId)),
    )
    .where(and(eq(deliveryStatusPushes.tenantId, tenantId), eq(deliveryStatusPushes.orderId, orderId)))
    .orderBy(asc(deliveryStatusPushes.createdAt), asc(deliveryStatusPushes.id));
}

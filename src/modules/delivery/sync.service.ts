import { newId } from '../../db/ids.js';
import { DELIVERY_PROVIDERS, type DeliveryProvider } from '../../db/schema/delivery.js';
import type { OrderStatus } from '../../db/schema/orders.js';
import type { TenantDb } from '../../db/scopes.js';
import { STATUS_MAP, type CatalogItem, type PushableStatus } from '../../integrations/delivery.js';
import { isIntegrationError } from '../../integrations/errors.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import { Conflict, NotFound, Rejected } from '../../platform/domain-errors.js';
import type { JobInfo } from '../../platform/jobs.js';
import type { ModuleDeps } from '../../platform/module.js';
import type { MenuService } from '../menu/index.js';
import type { OrdersService } from '../orders/index.js';
import { deliveryJobs } from './delivery.jobs.js';
import type { IntegrationRecord, IntegrationsService } from './integrations.service.js';
import * as q from './sync.queries.js';
import type { StatusPushRow } from './sync.queries.js';
import type { StatusPushView, SyncRunsView } from './sync.schemas.js';

/**
 * Catalog sync and status push (spec 4.14): menu items to each active platform's catalog, and a platform
 * order's status changes to its platform, both through the delivery queues.
 *
 * - A menu item change (inside its transaction) queues `delivery.sync` for each active integration, keyed
 *   by the writing transaction's id: repeated changes of an item in one transaction make one job, every later
 *   transaction its own (each job reads the item as it is when it runs, so none is stale).
 * - The sync routes open a `catalog_sync_runs` row per integration (total = active menu items) and queue one
 *   job per (item, integration); the last counted item finishes the run and sets `lastSyncAt` and
 *   `syncedItemCount` (the items the platform accepted).
 * - An order from a platform that changes status records a `delivery_status_pushes` row (skipped when the
 *   platform has no such status) and queues `delivery.status`; the pushes of one order reach the platform
 *   in order: a push waits (re-queued, no attempt spent) while an earlier one of the same order is pending.
 */

/** Seconds a status push waits before looking again at an earlier pending push of its order. */
export const PUSH_WAIT_SECONDS = 3;
/** An earlier pending push untouched this long is presumed lost (its job gone): later pushes stop waiting for it. */
export const PUSH_STALE_SECONDS = 15 * 60;

const PUSHABLE: readonly string[] = ['confirmed', 'preparing', 'ready', 'delivered', 'cancelled'] satisfies PushableStatus[];
const isProvider = (p: string | null): p is DeliveryProvider => !!p && (DELIVERY_PROVIDERS as readonly string[]).includes(p);

/** The platform's status for an internal one; null when it has none (unsupported, or not a pushable status). */
export function providerStatusOf(provider: DeliveryProvider, status: string): string | null {
  return PUSHABLE.includes(status) ? STATUS_MAP[provider][status as PushableStatus] : null;
}

function errorText(err: unknown): string {
  if (isIntegrationError(err)) return `${err.code ? `${err.code}: ` : ''}${err.message}`.slice(0, 1000);
  return (err instanceof Error ? err.message : String(err)).slice(0, 1000);
}

/** A refusal (4xx of the platform, credentials refused, provider switched off): retrying would not help. */
const isRefusal = (err: unknown) => (isIntegrationError(err) && err.kind === 'refused') || err instanceof Rejected;

/** Whether this run of a job is its last (no retry follows a throw). Without job info: never (the queue decides). */
const lastAttempt = (job: Pick<JobInfo, 'attempt' | 'retryLimit'> | undefined) => !!job && job.attempt > job.retryLimit;

export function toStatusPushView(p: StatusPushRow, provider: DeliveryProvider): StatusPushView {
  return {
    _id: p.id,
    order: p.orderId,
    integration: p.integrationId,
    provider,
    externalOrderId: p.externalOrderId,
    status: p.status as OrderStatus,
    providerStatus: p.providerStatus,
    result: p.result,
    attempts: p.attempts,
    error: p.error,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export interface SyncJob {
  tenantId: string;
  integrationId: string;
  itemId: string;
  runId: string | null;
}

export function syncService(
  deps: ModuleDeps,
  { integrations, menu, orders }: { integrations: IntegrationsService; menu: MenuService; orders: OrdersService },
) {
  const { clock, jobs, log, tenantDb } = deps;

  // ---- catalog sync

  menu.onItemChange(async (tx, itemId) => {
    const active = await integrations.listActive(tx);
    if (!active.length) return;
    const edit = await q.currentTransactionId(tx.db);
    for (const integration of active) {
      await jobs.send(
        deliveryJobs.sync,
        { tenantId: tx.tenantId, integrationId: integration.id, itemId, runId: null },
        { tx: tx.db, singletonKey: `${integration.id}:${itemId}:${edit}` },
      );
    }
  });

  /** Opens a full run for each integration and queues one job per (active item, integration), in one transaction. */
  async function startRuns(t: TenantDb, targets: IntegrationRecord[]): Promise<SyncRunsView> {
    if (!targets.length) return { runs: [] };
    const now = clock.now();
    const finished: { integrationId: string }[] = [];
    const runs = await t.run(async (tx) => {
      const items = await menu.listItems(tx, { isActive: true });
      const out: SyncRunsView['runs'] = [];
      for (const integration of targets) {
        const run = await q.insertRun(tx.db, {
          tenantId: tx.tenantId,
          id: newId(now.getTime()),
          integrationId: integration.id,
          full: true,
          total: items.length,
          startedAt: now,
          finishedAt: items.length ? null : now,
        });
        for (const item of items) {
          await jobs.send(
            deliveryJobs.sync,
            { tenantId: tx.tenantId, integrationId: integration.id, itemId: item._id, runId: run.id },
            { tx: tx.db, singletonKey: `${run.id}:${item._id}` },
          );
        }
        if (!items.length) finished.push({ integrationId: integration.id });
        out.push({ runId: run.id, integrationId: integration.id, provider: integration.provider, items: items.length });
      }
      return out;
    });
    // An empty menu: the run is complete at once (nothing at the platform to count).
    for (const f of finished) await integrations.markSynced(t, f.integrationId, now, 0);
    return { runs };
  }

  /** The item as the platform's catalog shows it (a deleted item: unavailable); null when there never was such an item. */
  async function catalogItemOf(t: TenantDb, provider: DeliveryProvider, itemId: string): Promise<CatalogItem | null> {
    const item = await menu.itemForSync(t, itemId);
    if (!item) return null;
    const categories = await menu.listCategories(t);
    const category = categories.find((c) => c._id === item.category)?.name ?? null;
    return {
      externalCode: item.externalCodes?.[provider] ?? item._id,
      name: item.name,
      description: item.description ?? null,
      priceCents: item.price,
      available: !item.deleted && item.isActive && item.isAvailable,
      category,
    };
  }

  /** Counts an item of a run; the count that completes the run finishes it and records the sync on the integration. */
  async function countOnRun(t: TenantDb, runId: string, integrationId: string, outcome: Parameters<typeof q.countRunItem>[3]) {
    await t.run(async (tx) => {
      const run = await q.countRunItem(tx.db, tx.tenantId, runId, outcome);
      if (!run || run.synced + run.failed < run.total) return;
      const now = clock.now();
      const done = await q.finishRun(tx.db, tx.tenantId, runId, now);
      if (done) await integrations.markSynced(tx, integrationId, now, done.synced);
    });
  }

  // ---- status push

  orders.onOrderEvent(async (tx, event) => {
    if (event.type !== 'order.statusChanged') return;
    const { order, previousStatus } = event;
    if (order.source !== 'marketplace' || !order.externalId || !isProvider(order.externalProvider)) return;
    const integration = await integrations.findActive(tx, order.externalProvider);
    if (!integration) return;
    // A platform order taken straight from pending to a later step was never accepted there: tell it first.
    const steps: string[] = previousStatus === 'pending' && ['preparing', 'ready', 'delivered'].includes(order.status) ? ['confirmed', order.status] : [order.status];
    for (const status of steps) {
      const providerStatus = providerStatusOf(integration.provider, status);
      const push = await q.insertPush(tx.db, {
        tenantId: tx.tenantId,
        id: newId(),
        integrationId: integration.id,
        orderId: order.id,
        externalOrderId: order.externalId,
        status,
        providerStatus,
        result: providerStatus ? 'pending' : 'skipped',
      });
      if (providerStatus) await jobs.send(deliveryJobs.status, { tenantId: tx.tenantId, pushId: push.id }, { tx: tx.db, singletonKey: push.id });
    }
  });

  async function finishPush(t: TenantDb, id: string, patch: q.StatusPushPatch) {
    await t.run((tx) => q.updatePush(tx.db, tx.tenantId, id, patch));
  }

  return {
    /** POST .../integrations/sync: a full sync of every active integration. */
    syncAll: async (t: TenantDb): Promise<SyncRunsView> => startRuns(t, await integrations.listActive(t)),

    /** POST .../integrations/:id/sync: 404 for an unknown (or another tenant's) integration, 409 when inactive. */
    async syncOne(t: TenantDb, integrationId: string): Promise<SyncRunsView> {
      const integration = await integrations.get(t, integrationId);
      if (!integration) throw new NotFound('Integration');
      if (!integration.active) throw new Conflict(`The ${integration.provider} integration is inactive: activate it first`, 'integration_inactive');
      return startRuns(t, [integration]);
    },

    /**
     * The `delivery.sync` job: one item to one integration's platform catalog. A run counts the item as synced
     * or failed (a refusal at once; an unreachable platform after the last attempt); a single-item sync that
     * succeeds updates `lastSyncAt`. Retryable errors throw (the queue retries).
     */
    async runSyncJob(data: SyncJob, job?: Pick<JobInfo, 'attempt' | 'retryLimit'>): Promise<string> {
      const t = tenantDb(data.tenantId);
      const integration = await integrations.get(t, data.integrationId);
      const fail = async (error: string) => {
        if (data.runId) await countOnRun(t, data.runId, data.integrationId, { ok: false, itemId: data.itemId, error });
        log.warn({ tenantId: data.tenantId, integrationId: data.integrationId, itemId: data.itemId, runId: data.runId, error }, 'catalog sync of an item failed');
        return 'failed';
      };
      if (!integration) return 'integration gone';
      if (!integration.active) return data.runId ? fail('the integration is inactive') : 'integration inactive';
      const client = integrations.client(integration.provider);
      if (!client) return fail(`${integration.provider} is switched off on this server`);
      try {
        const item = await catalogItemOf(t, integration.provider, data.itemId);
        if (!item) return data.runId ? fail('no such menu item') : 'no such item';
        const token = await integrations.accessToken(t, integration);
        await client.syncItem(token, integration.credentials.merchantId, item);
      } catch (err) {
        if (isRefusal(err) || lastAttempt(job)) return fail(errorText(err));
        throw err;
      }
      if (data.runId) await countOnRun(t, data.runId, data.integrationId, { ok: true });
      else await integrations.markSynced(t, data.integrationId, clock.now(), null);
      return 'synced';
    },

    /**
     * The `delivery.status` job: tells the platform one status of its order. Waits (re-queued, no attempt
     * spent) while an earlier push of the same order is pending; `pushed` once the platform accepts it;
     * retryable errors throw (4 retries with backoff); a refusal, or the last attempt, is `failed` with the error.
     */
    async runStatusJob(data: { tenantId: string; pushId: string }, job?: Pick<JobInfo, 'attempt' | 'retryLimit'>): Promise<string> {
      const t = tenantDb(data.tenantId);
      const claim = await t.run(async (tx): Promise<{ kind: 'done' | 'waiting' } | { kind: 'push'; push: StatusPushRow }> => {
        const push = await q.findPush(tx.db, tx.tenantId, data.pushId, true);
        if (!push || push.result !== 'pending' || !push.providerStatus) return { kind: 'done' };
        if (await q.earlierPendingPush(tx.db, push, PUSH_STALE_SECONDS)) {
          await jobs.send(deliveryJobs.status, data, { tx: tx.db, startAfter: PUSH_WAIT_SECONDS });
          return { kind: 'waiting' };
        }
        return { kind: 'push', push: (await q.updatePush(tx.db, tx.tenantId, push.id, { attempts: push.attempts + 1 }))! };
      });
      if (claim.kind !== 'push') return claim.kind;
      const { push } = claim;
      const integration = await integrations.get(t, push.integrationId);
      if (!integration?.active) {
        await finishPush(t, push.id, { result: 'failed', error: 'the integration is inactive' });
        return 'failed';
      }
      const client = integrations.client(integration.provider);
      if (!client) {
        await finishPush(t, push.id, { result: 'failed', error: `${integration.provider} is switched off on this server` });
        return 'failed';
      }
      try {
        const token = await integrations.accessToken(t, integration);
        await client.pushStatus(token, integration.credentials.merchantId, push.externalOrderId, push.providerStatus!);
      } catch (err) {
        const error = errorText(err);
        if (isRefusal(err) || lastAttempt(job)) {
          await finishPush(t, push.id, { result: 'failed', error });
          log.warn({ tenantId: data.tenantId, pushId: push.id, orderId: push.orderId, error }, 'status push failed');
          return 'failed';
        }
        await finishPush(t, push.id, { error });
        throw err;
      }
      await finishPush(t, push.id, { result: 'pushed', error: null });
      return 'pushed';
    },

    /** An order's pushes, oldest first (404 for an order the caller cannot see). */
    async orderPushes(ctx: TenantCtx, orderId: string): Promise<StatusPushView[]> {
      await orders.findVisible(ctx.db, ctx, orderId);
      const rows = await ctx.db.run((tx) => q.listOrderPushes(tx.db, tx.tenantId, orderId));
      return rows.map((r) => toStatusPushView(r.push, r.provider));
    },
  };
}

export type SyncService = ReturnType<typeof syncService>;

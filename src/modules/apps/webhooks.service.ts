import { performance } from 'node:perf_hooks';
import { newId } from '../../db/ids.js';
import type { DeliveryAttempt } from '../../db/schema/apps.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import { decryptSecret } from '../../platform/crypto.js';
import { Conflict, NotFound } from '../../platform/domain-errors.js';
import type { ModuleDeps } from '../../platform/module.js';
import { toOrderView, type OrderEvent, type OrdersService } from '../orders/index.js';
import { appsJobs } from './apps.jobs.js';
import { findInstallation } from './installations.queries.js';
import { toInstallationView } from './installations.service.js';
import type { InstallationView } from './installations.schemas.js';
import * as q from './webhooks.queries.js';
import type { DeliveryRow } from './webhooks.queries.js';
import type { DeliveriesInput, DeliveryPageView, DeliveryView } from './webhooks.schemas.js';
import { signingKey, toWhsec, webhookHeaders } from './webhooks.signature.js';
import { checkTarget, postJson, TargetRefused, type Resolver } from './webhooks.target.js';

/**
 * Webhooks to Apps (spec section 6, outbound): `order.created` and `order.statusChanged` for every active
 * installation holding `webhooks.subscribe`, signed the Standard Webhooks way (webhooks.signature.ts),
 * delivered by the `apps.deliver` job with its own retry schedule.
 */

/** Seconds before attempts 2, 3...: 8 attempts over about 27 hours. */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600];
/** The longest wait a `Retry-After` can ask for (longer asks wait this long). */
export const MAX_RETRY_AFTER_SECONDS = 24 * 3600;
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface WebhookOptions {
  /** Seconds before each retry; the attempts are one more than its length. */
  retryDelaysSeconds?: readonly number[];
  /** Deadline of one attempt (connect, send, status), ms. */
  timeoutMs?: number;
  /** How hosts resolve (tests); node's `dns.lookup` with every address by default. */
  resolve?: Resolver;
}

/**
 * The `apps.deliver` payload: the declared `{ tenantId, deliveryId }` and the attempt the job is for, so a
 * second run of the same job (at-least-once) finds the row past it and does nothing.
 */
export interface DeliverJob {
  tenantId: string;
  deliveryId: string;
  attempt?: number;
}

/** The JSON body of a webhook (stored as the delivery's payload; the same bytes on every attempt). */
export interface WebhookBody {
  id: string;
  type: OrderEvent['type'];
  timestamp: string;
  tenant: { _id: string; slug: string | null };
  data: { order: ReturnType<typeof toOrderView>; previousStatus?: string };
}

/** Seconds a `Retry-After` asks to wait (delta-seconds or an HTTP date), capped; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (!value) return null;
  const text = value.trim();
  let seconds: number;
  if (/^\d+$/.test(text)) seconds = Number(text);
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    seconds = Math.ceil((at - now.getTime()) / 1000);
  }
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS);
}

function toDeliveryView(d: DeliveryRow): DeliveryView {
  return {
    _id: d.id,
    installation: d.installationId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attemptCount: d.attemptCount,
    attempts: d.attempts.map((a) => ({ at: a.at, statusCode: a.statusCode, error: a.error, durationMs: a.durationMs })),
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body with the tenant's slug filled in (it is not readable inside the order's transaction; see the listener). */
function withTenantSlug(payload: unknown, slug: string): unknown {
  if (!isRecord(payload) || !isRecord(payload.tenant) || typeof payload.tenant.slug === 'string') return payload;
  return { ...payload, tenant: { ...payload.tenant, slug } };
}

type Claim =
  | { kind: 'skip'; reason: string }
  | { kind: 'send'; attempt: number; body: string; eventId: string; url: string; secretHex: string };

interface Outcome {
  statusCode: number | null;
  error: string | null;
  retryAfter: string | null;
  /** Never worth a retry (a refused target). */
  permanent: boolean;
  durationMs: number;
}

export function webhooksService(deps: ModuleDeps, { orders }: { orders: OrdersService }, options: WebhookOptions = {}) {
  const { clock, config, jobs, log } = deps;
  const delays = options.retryDelaysSeconds ?? DEFAULT_RETRY_DELAYS_SECONDS;
  const maxAttempts = delays.length + 1;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const attempts = deps.metrics.counter('app_webhook_deliveries_total', 'Attempts of webhooks to Apps by outcome: delivered, retried, failed, disabled (410 Gone)', ['outcome']);

  // Typed as the declared payload plus `attempt` (see DeliverJob): sent as a variable, so the extra field is allowed.
  const enqueue = (job: DeliverJob, opts: Parameters<typeof jobs.send>[2]) => jobs.send(appsJobs.deliver, job, opts);

  /**
   * Inside the order's transaction: one delivery row per subscribed installation, and its first job, so an
   * event exists exactly when its change commits. One event id for all installations (it names the event).
   * The tenant's slug is filled in at the first attempt: the tenants table is read through the shared
   * handle, which is closed inside a tenant transaction.
   */
  orders.onOrderEvent(async (tx, event) => {
    const targets = await q.subscribedInstallations(tx.db, tx.tenantId);
    if (!targets.length) return;
    const now = clock.now();
    const eventId = `evt_${newId(now.getTime())}`;
    const body: WebhookBody = {
      id: eventId,
      type: event.type,
      timestamp: now.toISOString(),
      tenant: { _id: tx.tenantId, slug: null },
      data: { order: toOrderView(event.order), ...(event.type === 'order.statusChanged' && event.previousStatus ? { previousStatus: event.previousStatus } : {}) },
    };
    const rows = await q.insertDeliveries(
      tx.db,
      targets.map((i) => ({
        tenantId: tx.tenantId,
        id: newId(),
        installationId: i.id,
        eventId,
        eventType: event.type,
        payload: body,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      })),
    );
    for (const row of rows) await enqueue({ tenantId: tx.tenantId, deliveryId: row.id, attempt: 1 }, { tx: tx.db, singletonKey: row.id });
  });

  /** Takes the next attempt of a pending delivery (or cancels it when its installation may no longer receive). */
  async function claim(job: DeliverJob, slug: string): Promise<Claim> {
    return deps.tenantDb(job.tenantId).run(async (tx) => {
      const row = await q.findDelivery(tx.db, tx.tenantId, job.deliveryId, true);
      if (!row) return { kind: 'skip', reason: 'no such delivery' };
      if (row.status !== 'pending') return { kind: 'skip', reason: `already ${row.status}` };
      // A run of the job that died mid-attempt (the process stopped) is retried by the queue: the attempt it
      // claimed (in flight: no next time set) is taken again; the App dedupes by webhook-id.
      const resumed = job.attempt !== undefined && job.attempt === row.attemptCount && row.nextAttemptAt === null && row.attemptCount > 0;
      const attempt = resumed ? row.attemptCount : row.attemptCount + 1;
      if (job.attempt !== undefined && job.attempt !== attempt) return { kind: 'skip', reason: `attempt ${job.attempt} is past (next is ${attempt})` };
      const now = clock.now();
      const inst = await q.installationForDelivery(tx.db, tx.tenantId, row.installationId);
      if (!inst || inst.status !== 'active' || inst.webhooksDisabledAt || !inst.webhookUrl) {
        await q.updateDelivery(tx.db, tx.tenantId, row.id, { status: 'cancelled', nextAttemptAt: null, updatedAt: now });
        return { kind: 'skip', reason: 'cancelled: installation revoked or webhooks disabled' };
      }
      const payload = withTenantSlug(row.payload, slug);
      // nextAttemptAt null while the attempt is in flight.
      await q.updateDelivery(tx.db, tx.tenantId, row.id, { attemptCount: attempt, nextAttemptAt: null, payload, updatedAt: now });
      return {
        kind: 'send',
        attempt,
        body: JSON.stringify(payload),
        eventId: row.eventId,
        url: inst.webhookUrl,
        secretHex: decryptSecret(config.encryptionKey, inst.signingSecret),
      };
    });
  }

  async function send(c: Extract<Claim, { kind: 'send' }>): Promise<Outcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const timestamp = Math.floor(clock.now().getTime() / 1000);
    try {
      const target = await checkTarget(c.url, { allowPrivate: config.webhooksAllowPrivateTargets ?? false, resolve: options.resolve });
      const res = await postJson(target, webhookHeaders(signingKey(c.secretHex), c.eventId, timestamp, c.body), c.body, timeoutMs);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return { statusCode: res.statusCode, error: ok ? null : `HTTP ${res.statusCode}`, retryAfter: res.retryAfter, permanent: false, durationMs: elapsed() };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { statusCode: null, error: message.slice(0, 500), retryAfter: null, permanent: err instanceof TargetRefused, durationMs: elapsed() };
    }
  }

  /** Writes the attempt and what follows it: delivered, failed (410, refused, last attempt) or the next attempt's job. */
  async function record(job: DeliverJob, attempt: number, at: Date, outcome: Outcome): Promise<string> {
    return deps.tenantDb(job.tenantId).run(async (tx) => {
      const row = await q.findDelivery(tx.db, tx.tenantId, job.deliveryId, true);
      if (!row || row.status !== 'pending' || row.attemptCount !== attempt) return 'superseded';
      const now = clock.now();
      const entry: DeliveryAttempt = { at: at.toISOString(), statusCode: outcome.statusCode, error: outcome.error, durationMs: outcome.durationMs };
      const attempts = [...row.attempts, entry];
      const base = { attempts, updatedAt: now, nextAttemptAt: null };
      const code = outcome.statusCode;
      if (code !== null && code >= 200 && code < 300) {
        await q.updateDelivery(tx.db, tx.tenantId, row.id, { ...base, status: 'delivered', deliveredAt: now });
        return 'delivered';
      }
      if (code === 410) {
        // Gone: the App asks for no more webhooks; the tenant admin enables them again.
        await q.updateDelivery(tx.db, tx.tenantId, row.id, { ...base, status: 'failed' });
        await q.setWebhooksDisabledAt(tx.db, tx.tenantId, row.installationId, now);
        return 'failed: 410 Gone, webhooks disabled';
      }
      if (outcome.permanent || attempt >= maxAttempts) {
        await q.updateDelivery(tx.db, tx.tenantId, row.id, { ...base, status: 'failed' });
        return outcome.permanent ? 'failed: target refused' : `failed after ${attempt} attempts`;
      }
      const wait = Math.max(delays[attempt - 1], parseRetryAfter(outcome.retryAfter, now) ?? 0);
      await q.updateDelivery(tx.db, tx.tenantId, row.id, { ...base, nextAttemptAt: new Date(now.getTime() + wait * 1000) });
      await enqueue(
        { tenantId: job.tenantId, deliveryId: row.id, attempt: attempt + 1 },
        { tx: tx.db, startAfter: wait, singletonKey: `${row.id}:${attempt + 1}` },
      );
      return `retry ${attempt + 1} in ${wait} s`;
    });
  }

  return {
    /**
     * The `apps.deliver` job: one attempt of one delivery. Idempotent: a delivery already delivered, failed or
     * cancelled, or past the job's attempt, is left alone. Answers what it did (the job's output).
     */
    async deliver(job: DeliverJob): Promise<string> {
      const tenant = await deps.tenants.byId(job.tenantId);
      if (!tenant) return 'no such tenant';
      const c = await claim(job, tenant.slug);
      if (c.kind === 'skip') return c.reason;
      const at = clock.now();
      const outcome = await send(c);
      const result = await record(job, c.attempt, at, outcome);
      const counted = result === 'delivered' ? 'delivered' : result.startsWith('retry') ? 'retried' : result.includes('disabled') ? 'disabled' : result.startsWith('failed') ? 'failed' : null;
      if (counted) attempts.inc({ outcome: counted });
      if (outcome.error) log.warn({ deliveryId: job.deliveryId, attempt: c.attempt, error: outcome.error, result }, 'webhook attempt failed');
      return result;
    },

    /** The delivery log of one installation of the tenant, newest first (404 for none in this tenant). */
    deliveries: (ctx: TenantCtx, installationId: string, { page, limit }: DeliveriesInput): Promise<DeliveryPageView> =>
      ctx.db.run(async (tx) => {
        if (!(await findInstallation(tx.db, tx.tenantId, installationId))) throw new NotFound('Installation');
        const { rows, total } = await q.listDeliveries(tx.db, tx.tenantId, installationId, page, limit);
        return { items: rows.map(toDeliveryView), total, page, limit, pages: Math.ceil(total / limit) };
      }),

    /** Webhooks again after a 410 disabled them (idempotent); 409 on a revoked installation. Deliveries already cancelled stay so. */
    enableWebhooks: (ctx: TenantCtx, installationId: string): Promise<InstallationView> =>
      ctx.db.run(async (tx) => {
        const inst = await findInstallation(tx.db, tx.tenantId, installationId, true);
        if (!inst) throw new NotFound('Installation');
        if (inst.status === 'revoked') throw new Conflict('The installation is revoked: install the App again', 'installation_revoked');
        if (!inst.webhooksDisabledAt) return toInstallationView(inst);
        return toInstallationView((await q.setWebhooksDisabledAt(tx.db, tx.tenantId, installationId, null))!);
      }),

    /**
     * The installation's signing secret as the App's publisher needs it (`whsec_<base64 of the 32 key bytes>`),
     * for the operator's CLI to hand over out of band; any tenant (the `app-operator` bypass). Never over HTTP.
     */
    async signingSecretOf(installationId: string): Promise<string> {
      const stored = await deps.bypass('app-operator', (db) => q.signingSecretById(db, installationId));
      if (!stored) throw new NotFound('Installation');
      return toWhsec(decryptSecret(config.encryptionKey, stored));
    },
  };
}

export type WebhooksService = ReturnType<typeof webhooksService>;

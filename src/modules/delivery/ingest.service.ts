import type { IncomingHttpHeaders } from 'node:http';
import { newId } from '../../db/ids.js';
import type { DeliveryEventStatus, DeliveryProvider } from '../../db/schema/delivery.js';
import type { MarketplaceDetails, OrderLine, OrderRow } from '../../db/schema/orders.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { DeliveryClient, DeliveryWebhookEvent, NormalizedLine, NormalizedOrder } from '../../integrations/delivery.js';
import { isIntegrationError } from '../../integrations/errors.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import { Conflict, Invalid, InvalidRequest, NotFound, Unauthenticated, Unavailable } from '../../platform/domain-errors.js';
import { claimOnce, IDEMPOTENCY_TTL_MS } from '../../platform/idempotency.js';
import type { ModuleDeps } from '../../platform/module.js';
import type { TenantRef } from '../../platform/tenancy.js';
import type { MenuService } from '../menu/index.js';
import type { OrdersService } from '../orders/index.js';
import type { PaymentsService } from '../payments/index.js';
import { deliveryJobs } from './delivery.jobs.js';
import * as q from './ingest.queries.js';
import { toDeliveryEventView, type DeliveryEventsInput } from './ingest.schemas.js';
import { providerAdapters, type WebhookIntegration } from './providers.js';

/** What ingestion uses of the integrations service (the brief's API; `IntegrationRecord` satisfies `Integration`). */
interface Integration extends WebhookIntegration {
  tenantId: string;
  active: boolean;
  credentials: { clientId: string; clientSecret: string; merchantId: string };
}
export interface IngestIntegrations {
  findActive(t: TenantDb, provider: DeliveryProvider): Promise<Integration | null>;
  get(t: TenantDb, id: string): Promise<Integration | null>;
  client(provider: DeliveryProvider): DeliveryClient | null;
  accessToken(t: TenantDb, integration: Integration): Promise<string>;
}

/** The order job's attempts (spec 8: 3), from its declaration. */
const MAX_ATTEMPTS = (deliveryJobs.order.options.retryLimit ?? 2) + 1;
/** Finished events are kept this long (the review queue stays until it is dealt with). */
const EVENT_RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 10 * 60_000;
const MAX_HEADER_KEY = 255;

/** How a line's options are kept on our order line (decision: as one `marketplace` modifier group, priced per unit). */
const OPTIONS_GROUP = { groupId: 'marketplace', groupName: 'Opções' } as const;

/** A platform error worth another attempt: the platform down, slow or rate limiting; or our database hiccuping. */
function isRetryable(err: unknown): boolean {
  if (isIntegrationError(err)) return err.retryable;
  // Our own refusals (a bad order) and the platforms' unreadable payloads will not get better.
  if (err instanceof Invalid || err instanceof InvalidRequest || err instanceof Conflict || err instanceof NotFound) return false;
  if (err instanceof Error && /PayloadError$/.test(err.name)) return false;
  return true;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/**
 * A line's options per unit of the line. The platforms differ: provider_b and provider_c give an option's
 * quantity per unit, provider_a (like iFood) for the whole line; the line's own total tells which it is.
 */
export function optionsPerUnit(line: NormalizedLine): { name: string; priceAdjustment: number }[] {
  const perUnitSum = line.options.reduce((sum, o) => sum + o.quantity * o.unitPriceCents, 0);
  const wholeLine = line.quantity > 1 && line.unitPriceCents * line.quantity + perUnitSum === line.totalCents;
  return line.options.map((o) => {
    const qty = wholeLine ? o.quantity / line.quantity : o.quantity;
    const label = Number.isInteger(qty) ? `${qty}x ${o.name}` : `${o.quantity}x ${o.name} (in all)`;
    return { name: label, priceAdjustment: Math.round(qty * o.unitPriceCents) };
  });
}

/** The platform's unit price of a line with its options, in cents (its own total wins when the two disagree). */
export function unitPriceOf(line: NormalizedLine): number {
  const unit = line.unitPriceCents + optionsPerUnit(line).reduce((sum, o) => sum + o.priceAdjustment, 0);
  if (unit * line.quantity !== line.totalCents && line.quantity > 0 && line.totalCents % line.quantity === 0) return line.totalCents / line.quantity;
  return unit;
}

function detailsOf(order: NormalizedOrder): MarketplaceDetails {
  return {
    displayId: order.displayId,
    fulfilment: order.fulfilment,
    placedAt: order.placedAt,
    deliveryAddress: order.deliveryAddress?.formatted ?? null,
    notes: order.notes,
    totals: { ...order.totals },
    payment: { ...order.payment },
  };
}

/** The metric outcome of a refused platform webhook. */
function refusalOutcome(err: unknown): string {
  if (err instanceof Unauthenticated) return 'invalid_signature';
  if (err instanceof NotFound) return 'no_integration';
  if (err instanceof InvalidRequest || err instanceof Invalid) return 'unreadable';
  if (err instanceof Unavailable) return 'unavailable';
  return 'error';
}

export function ingestService(
  deps: ModuleDeps,
  needs: { integrations: IngestIntegrations; menu: MenuService; orders: OrdersService; payments: PaymentsService },
) {
  const { clock, log, jobs } = deps;
  const { integrations, menu, orders, payments } = needs;
  const adapters = providerAdapters(deps.integrations);
  const pruned = new Map<string, number>();

  /** The tenant as the order services want it (the job has only its id). */
  async function tenantRef(tenantId: string): Promise<TenantRef> {
    const ref = await deps.tenants.byId(tenantId);
    if (!ref) throw new NotFound('Tenant not found');
    return ref;
  }

  /** The platform acting on its own orders (a cancellation): an admin-level context without a person. */
  function systemCtx(tenant: TenantRef, provider: DeliveryProvider): TenantCtx {
    return {
      tenantId: tenant.id,
      db: tenant.db,
      tenant,
      user: { id: `delivery:${provider}`, email: '', name: provider, isSuperadmin: false, sessionVersion: 0 },
      role: 'admin',
      branchScope: { all: true },
    };
  }

  const mark = (t: TenantDb, id: string, status: DeliveryEventStatus, patch: q.DeliveryEventPatch = {}) =>
    t.run((tx) => q.updateEvent(tx.db, tx.tenantId, id, { status, processedAt: clock.now(), ...patch }));

  const sendOrderJob = (tx: TenantTx, tenantId: string, eventId: string, singletonKey: string) =>
    jobs.send(deliveryJobs.order, { tenantId, eventId }, { tx: tx.db, singletonKey });

  /** Menu items by the platform's code (then by id), matched line by line; the lines that match nothing. */
  async function matchLines(t: TenantDb, provider: DeliveryProvider, order: NormalizedOrder) {
    const items = await menu.listItems(t);
    const byCode = new Map<string, (typeof items)[number]>();
    const byId = new Map(items.map((i) => [i._id, i]));
    for (const item of items) {
      const code = item.externalCodes[provider];
      if (code) byCode.set(code, item);
    }
    const lines: OrderLine[] = [];
    const unmatched: string[] = [];
    order.items.forEach((line, index) => {
      const item = line.externalCode ? (byCode.get(line.externalCode) ?? byId.get(line.externalCode)) : undefined;
      if (!item) {
        unmatched.push(`#${index + 1} ${line.name} (code ${line.externalCode ?? 'none'})`);
        return;
      }
      const notes = [line.notes].filter(Boolean).join('; ');
      lines.push({
        menuItem: item._id,
        name: item.name,
        price: unitPriceOf(line),
        quantity: line.quantity,
        unit: 'un',
        // The kitchen display routes the line to the item's station, and times it against its preparation time.
        station: item.station,
        ...(item.preparationTime ? { preparationTime: item.preparationTime } : {}),
        ...(notes ? { notes } : {}),
        ...(line.options.length
          ? {
              modifiers: [
                {
                  ...OPTIONS_GROUP,
                  options: optionsPerUnit(line),
                },
              ],
            }
          : {}),
      });
    });
    return { lines, unmatched };
  }

  /** The finished events of a tenant older than 30 days, at most once per 10 minutes per tenant and process. */
  async function pruneTenant(t: TenantDb) {
    const now = clock.now().getTime();
    if ((pruned.get(t.tenantId) ?? 0) > now) return;
    pruned.set(t.tenantId, now + PRUNE_EVERY_MS);
    try {
      const n = await t.run((tx) => q.deleteDoneEvents(tx.db, tx.tenantId, new Date(now - EVENT_RETENTION_MS)));
      if (n) log.info({ tenantId: t.tenantId, deleted: n }, 'delivery: old finished events deleted');
    } catch (err) {
      log.warn({ err, tenantId: t.tenantId }, 'delivery: could not delete old events');
    }
  }

  async function cancelOrder(t: TenantDb, event: q.DeliveryEventRow, parsed: DeliveryWebhookEvent) {
    const external = parsed.externalOrderId;
    const orderId = external ? await t.run((tx) => q.orderOfExternal(tx.db, tx.tenantId, event.provider, external, event.id)) : null;
    if (!orderId) {
      await mark(t, event.id, 'ignored', { error: 'cancelled by the platform: no order of ours for it' });
      return;
    }
    const tenant = await tenantRef(t.tenantId);
    try {
      await orders.setStatus(systemCtx(tenant, event.provider), orderId, 'cancelled');
      await mark(t, event.id, 'ignored', { orderId, error: null });
    } catch (err) {
      // Already closed (delivered, cancelled): nothing to undo here; said on the event.
      if (!(err instanceof Conflict)) throw err;
      await mark(t, event.id, 'ignored', { orderId, error: `cancelled by the platform, not cancelled here: ${err.message}` });
    }
  }

  async function processEvent(t: TenantDb, event: q.DeliveryEventRow) {
    const adapter = adapters[event.provider];
    const parsed = adapter.parse(event.payload);
    if (parsed.kind === 'cancelled') return cancelOrder(t, event, parsed);
    if (parsed.kind !== 'new_order') return mark(t, event.id, 'ignored');

    const external = parsed.externalOrderId ?? parsed.order?.externalId ?? null;
    if (external) {
      const existing = await t.run((tx) => q.orderOfExternal(tx.db, tx.tenantId, event.provider, external, event.id));
      if (existing) return mark(t, event.id, 'duplicate', { orderId: existing, error: null, reviewReason: null });
    }
    let order = parsed.order;
    if (!order) {
      const integration = await integrations.get(t, event.integrationId);
      if (!integration) throw new NotFound('The integration of this event no longer exists');
      const client = integrations.client(event.provider);
      if (!client) throw new InvalidRequest(`${event.provider} is off (no client): the order cannot be fetched`);
      if (!external) throw new InvalidRequest('The event names no order');
      order = await client.getOrder(await integrations.accessToken(t, integration), integration.credentials.merchantId, external);
    }
    const { lines, unmatched } = await matchLines(t, event.provider, order);
    if (unmatched.length) {
      return mark(t, event.id, 'needs_review', {
        externalOrderId: order.externalId,
        reviewReason: `Not on the menu (set the item's ${event.provider} code, then retry): ${unmatched.join(', ')}`.slice(0, 2000),
        error: null,
      });
    }
    const tenant = await tenantRef(t.tenantId);
    const reference = `${event.provider}:${order.externalId}`;
    const now = clock.now();
    const done = (orderId: string, created: boolean): q.DeliveryEventPatch => ({
      orderId,
      externalOrderId: order.externalId,
      reviewReason: null,
      error: null,
      processedAt: now,
      ackLatencyMs: created && event.provider === 'provider_a' ? Math.max(0, now.getTime() - event.receivedAt.getTime()) : null,
    });
    const { order: row, created } = await orders.insertMarketplace(
      tenant,
      {
        provider: event.provider,
        externalId: order.externalId,
        lines,
        customerName: order.customer.name || null,
        customerPhone: order.customer.phone,
        customerEmail: order.customer.email,
        details: detailsOf(order),
      },
      {
        onInsert: async (tx: TenantTx, inserted: OrderRow) => {
          const kept = order.payment.prepaid ? await payments.recordMarketplacePayment(tx, inserted, reference) : inserted;
          // Marked in the order's own transaction: a job cut off after its commit is not run again as a "duplicate" of itself.
          await mark(tx, event.id, 'created', done(kept.id, true));
          return kept;
        },
      },
    );
    if (!created) await mark(t, event.id, 'duplicate', done(row.id, false));
  }

  const receipts = deps.metrics.counter(
    'delivery_webhooks_received_total',
    'Delivery platform webhooks by provider and outcome: accepted, unsigned (sandbox), deduplicated, invalid_signature, no_integration, unreadable, unavailable, error',
    ['provider', 'outcome'],
  );
  /** Counts each webhook's answer (or refusal) by provider; the receipt itself is unchanged. */
  function counted<A extends { deduplicated?: true; sandbox?: boolean }, R extends unknown[]>(
    receive: (tenant: TenantRef, provider: DeliveryProvider, ...rest: R) => Promise<A>,
  ) {
    return async (tenant: TenantRef, provider: DeliveryProvider, ...rest: R): Promise<A> => {
      try {
        const answer = await receive(tenant, provider, ...rest);
        receipts.inc({ provider, outcome: answer.deduplicated ? 'deduplicated' : answer.sandbox ? 'unsigned' : 'accepted' });
        return answer;
      } catch (err) {
        receipts.inc({ provider, outcome: refusalOutcome(err) });
        throw err;
      }
    };
  }

  return {
    /**
     * A platform's webhook (spec 4.14): the tenant's active integration, the signature on the raw bytes,
     * the idempotency key claimed for 24 hours, then the event row and its order job in one transaction.
     * No call to the platform here: the job does the rest.
     */
    receive: counted(async (tenant: TenantRef, provider: DeliveryProvider, rawBody: Buffer, headers: IncomingHttpHeaders) => {
      const t = tenant.db;
      const integration = await integrations.findActive(t, provider);
      if (!integration) throw new NotFound(`No active ${provider} integration`);
      const adapter = adapters[provider];
      const verdict = await adapter.verify(rawBody, headers, integration);
      if (verdict === 'unavailable') throw new Unavailable(`${provider}: the keys to check the webhook with could not be read; send it again`, 'jwks_unavailable');
      if (typeof verdict === 'object') {
        log.warn({ tenantId: tenant.id, provider, reason: verdict.invalid }, 'delivery webhook refused: invalid signature');
        throw new Unauthenticated('Invalid webhook signature', 'invalid_signature');
      }
      const sandbox = verdict === 'sandbox';
      if (sandbox) log.warn({ tenantId: tenant.id, provider, integrationId: integration.id }, 'delivery webhook accepted without a signature check (sandbox: no secret configured)');

      let body: unknown;
      let event: DeliveryWebhookEvent;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
        event = adapter.parse(body);
      } catch (err) {
        throw new InvalidRequest(`Unreadable ${provider} event: ${message(err)}`);
      }
      const header = headers['idempotency-key'];
      const headerKey = typeof header === 'string' && header.trim() !== '' ? header.trim() : null;
      if (headerKey && headerKey.length > MAX_HEADER_KEY) throw new Invalid('headers.idempotency-key', `at most ${MAX_HEADER_KEY} characters`);
      const key = headerKey ?? event.eventId;
      const scope = `delivery:${tenant.id}:${provider}`;
      const id = newId();
      // The key is claimed in the event's own transaction: the key is kept exactly when the event is (a crash or a
      // killed connection in between leaves neither, and the platform's retry goes through). A twin request
      // waits on the uncommitted key, then finds it taken.
      const kept = await t.run(async (tx) => {
        if (key) {
          try {
            // A savepoint: a key store that fails leaves the event's transaction usable.
            if (!(await tx.db.transaction((inner) => claimOnce(inner, clock, scope, key, IDEMPOTENCY_TTL_MS)))) return false;
          } catch (err) {
            // Spec 4.14: a key store that cannot answer does not refuse the platform (duplicates over losses).
            log.error({ err, tenantId: tenant.id, provider, key }, 'delivery webhook: the idempotency store failed; accepted without deduplication');
          }
        }
        await q.insertEvent(tx.db, {
          tenantId: tx.tenantId,
          id,
          integrationId: integration.id,
          provider,
          idempotencyKey: key,
          type: event.type,
          externalOrderId: event.externalOrderId,
          status: event.kind === 'other' ? 'ignored' : 'queued',
          payload: body as object,
          receivedAt: clock.now(),
          processedAt: event.kind === 'other' ? clock.now() : null,
        });
        // The same platform event twice in the queue is dropped there too (spec 8).
        if (event.kind !== 'other') await sendOrderJob(tx, tenant.id, id, `${tenant.id}:${provider}:${event.eventId ?? key ?? id}`);
        return true;
      });
      if (!kept) return { deduplicated: true as const };
      return { received: true as const, eventId: id, ...(sandbox ? { sandbox: true } : {}) };
    }),

    /** The order job: the event's order created (or found, or kept for review); see the module's doc. */
    async runOrderJob(data: { tenantId: string; eventId: string }) {
      const t = deps.tenantDb(data.tenantId);
      const event = await t.run(async (tx) => {
        const row = await q.findEvent(tx.db, tx.tenantId, data.eventId, true);
        if (!row || row.status !== 'queued') return null;
        return q.updateEvent(tx.db, tx.tenantId, row.id, { attempts: row.attempts + 1 });
      });
      if (!event) return { skipped: true };
      try {
        await processEvent(t, event);
      } catch (err) {
        const retry = isRetryable(err) && event.attempts < MAX_ATTEMPTS;
        log[retry ? 'warn' : 'error']({ err, tenantId: data.tenantId, eventId: event.id, attempt: event.attempts }, 'delivery order job failed');
        if (retry) {
          await t.run((tx) => q.updateEvent(tx.db, tx.tenantId, event.id, { error: message(err) }));
          throw err;
        }
        await mark(t, event.id, 'failed', { error: message(err) });
        // The last attempt of a retryable failure stays failed in the queue too (kept among the last 50).
        if (isRetryable(err)) throw err;
      } finally {
        await pruneTenant(t);
      }
      return { eventId: event.id };
    },

    /** The review queue and the history: the tenant's platform events, newest first. */
    async listEvents(t: TenantDb, query: DeliveryEventsInput) {
      const page = query.page ?? 1;
      const limit = query.limit ?? 20;
      const { rows, total } = await t.run((tx) => q.listEvents(tx.db, tx.tenantId, { status: query.status, limit, offset: (page - 1) * limit }));
      return { items: rows.map(toDeliveryEventView), total, page, limit, pages: Math.ceil(total / limit) };
    },

    /** An event kept for review (or failed) goes back to the queue: e.g. after the admin set the missing code on an item. */
    async retry(t: TenantDb, id: string) {
      const row = await t.run(async (tx) => {
        const current = await q.findEvent(tx.db, tx.tenantId, id, true);
        if (!current) throw new NotFound('Delivery event not found');
        if (current.status !== 'needs_review' && current.status !== 'failed') {
          throw new Conflict(`Only an event in needs_review or failed is retried (this one is ${current.status})`, 'not_retryable');
        }
        const updated = await q.updateEvent(tx.db, tx.tenantId, id, { status: 'queued', attempts: 0, error: null, reviewReason: null, processedAt: null });
        // A new key: the first job of this event may still be in the queue's history.
        await sendOrderJob(tx, tx.tenantId, id, `${tx.tenantId}:${id}:retry:${newId()}`);
        return updated!;
      });
      return toDeliveryEventView(row);
    },

    /**
     * Every 10 minutes: the delivery queues keep their last 100 completed and 50 failed jobs (spec 8). Old
     * finished events are deleted per tenant by the order job (no crossing of tenants here).
     */
    async cleanup() {
      const deleted = await jobs.trim('delivery.', { completed: 100, failed: 50 });
      if (deleted) log.info({ deleted }, 'delivery: old jobs trimmed');
      return { deleted };
    },

    /** The finished events of one tenant older than 30 days (the order job calls it; tests too). */
    async pruneEvents(t: TenantDb) {
      pruned.delete(t.tenantId);
      await pruneTenant(t);
    },
  };
}

export type IngestService = ReturnType<typeof ingestService>;

import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

/** The three delivery platforms (spec 2, MarketplaceIntegration.provider). */
export const DELIVERY_PROVIDERS = ['provider_a', 'provider_b', 'provider_c'] as const;
export type DeliveryProvider = (typeof DELIVERY_PROVIDERS)[number];

/**
 * An inbound platform event's life: `queued` (verified, waiting for the order job), `created` (its order
 * exists), `duplicate` (an order with its external id existed), `needs_review` (kept: an item could not be
 * matched to the menu, or the order could not be read), `ignored` (an event with nothing to do), `failed`
 * (the job gave up after its attempts).
 */
export const DELIVERY_EVENT_STATUSES = ['queued', 'created', 'duplicate', 'needs_review', 'ignored', 'failed'] as const;
export type DeliveryEventStatus = (typeof DELIVERY_EVENT_STATUSES)[number];

export const STATUS_PUSH_RESULTS = ['pending', 'pushed', 'skipped', 'failed'] as const;
export type StatusPushResult = (typeof STATUS_PUSH_RESULTS)[number];

/** A tenant's account at a delivery platform (spec 2, MarketplaceIntegration). Secrets encrypted at rest, write-only. */
export const marketplaceIntegrations = pgTable(
  'marketplace_integrations',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').primaryKey(),
    provider: text('provider', { enum: DELIVERY_PROVIDERS }).notNull(),
    active: boolean('active').notNull().default(false),
    /** `{ clientId, clientSecret, merchantId }` as JSON, encrypted (`encryptSecret`). */
    credentials: text('credentials').notNull(),
    /** The platform's webhook secret (provider_a, provider_b), encrypted; null: webhooks accepted unsigned (sandbox). */
    webhookSecret: text('webhook_secret'),
    /** provider_c: where its webhook JWTs' public keys are (JWKS). */
    jwksUrl: text('jwks_url'),
    /** The cached OAuth token `{ accessToken, expiresAt }` as JSON, encrypted. */
    tokens: text('tokens'),
    lastSyncAt: ts('last_sync_at'),
    syncedItemCount: integer('synced_item_count').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('marketplace_integrations_provider_key').on(t.tenantId, t.provider)],
);

/** Every verified platform event, from its arrival to its order (or why there is none): the review queue too. */
export const deliveryEvents = pgTable(
  'delivery_events',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').primaryKey(),
    integrationId: id('integration_id').notNull().references(() => marketplaceIntegrations.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: DELIVERY_PROVIDERS }).notNull(),
    /** The idempotency key it came with (header, else the body's event id). */
    idempotencyKey: text('idempotency_key'),
    type: text('type').notNull(),
    externalOrderId: text('external_order_id'),
    status: text('status', { enum: DELIVERY_EVENT_STATUSES }).notNull().default('queued'),
    orderId: id('order_id'),
    /** Why it waits for a person (an item not on the menu...). */
    reviewReason: text('review_reason'),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    /** The verified body as received. */
    payload: jsonb('payload').notNull(),
    receivedAt: ts('received_at').notNull(),
    processedAt: ts('processed_at'),
    /** provider_a: receive time to order created, ms (spec 4.14). */
    ackLatencyMs: integer('ack_latency_ms'),
    createdAt: createdAt(),
  },
  (t) => [index('delivery_events_status_idx').on(t.tenantId, t.status, t.receivedAt)],
);

/** Each status change of a platform order told (or not) to its platform. */
export const deliveryStatusPushes = pgTable(
  'delivery_status_pushes',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').primaryKey(),
    integrationId: id('integration_id').notNull().references(() => marketplaceIntegrations.id, { onDelete: 'cascade' }),
    orderId: id('order_id').notNull(),
    externalOrderId: text('external_order_id').notNull(),
    status: text('status').notNull(),
    /** The platform's status (spec 4.14's table); null when unsupported. */
    providerStatus: text('provider_status'),
    result: text('result', { enum: STATUS_PUSH_RESULTS }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('delivery_status_pushes_order_idx').on(t.tenantId, t.orderId)],
);

/** A catalog sync run (a full sync of an integration, or one item's change): its count makes `syncedItemCount`. */
export const catalogSyncRuns = pgTable('catalog_sync_runs', {
  tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  id: id('id').primaryKey(),
  integrationId: id('integration_id').notNull().references(() => marketplaceIntegrations.id, { onDelete: 'cascade' }),
  full: boolean('full').notNull(),
  total: integer('total').notNull(),
  synced: integer('synced').notNull().default(0),
  failed: integer('failed').notNull().default(0),
  /** Item ids that failed, with the reason. */
  failures: jsonb('failures').$type<{ itemId: string; error: string }[]>().notNull().default([]),
  startedAt: ts('started_at').notNull(),
  finishedAt: ts('finished_at'),
});

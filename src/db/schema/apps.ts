import { sql } from 'drizzle-orm';
import { char, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { tenants } from './tenants.js';
import { users } from './users.js';

/** The scopes an App may request (spec section 2, App). */
export const APP_SCOPES = ['orders.read', 'menu.read', 'menu.write', 'reservations.read', 'reservations.write', 'webhooks.subscribe'] as const;
export type AppScope = (typeof APP_SCOPES)[number];

export const APP_STATUSES = ['draft', 'published', 'deprecated'] as const;
export type AppStatus = (typeof APP_STATUSES)[number];

export const INSTALLATION_STATUSES = ['active', 'revoked'] as const;
export type InstallationStatus = (typeof INSTALLATION_STATUSES)[number];

/** The events an App can receive (spec section 6, outbound webhooks). */
export const APP_EVENT_TYPES = ['order.created', 'order.statusChanged'] as const;
export type AppEventType = (typeof APP_EVENT_TYPES)[number];

/**
 * `pending`: waiting for its next attempt; `delivered`: a 2xx came back; `failed`: every attempt used;
 * `cancelled`: the installation was revoked or its webhooks disabled before it went out.
 */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A marketplace App, created by the platform operator; shared by every tenant (they read published ones). */
export const apps = pgTable(
  'apps',
  {
    id: id('id').primaryKey(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    /** Public; reserved for a later OAuth 2.0 flow (spec section 9). */
    clientId: uuid('client_id').notNull(),
    /** bcrypt of the client secret shown once at creation; never returned. */
    clientSecretHash: text('client_secret_hash').notNull(),
    scopes: text('scopes', { enum: APP_SCOPES }).array().notNull().default(sql`'{}'`),
    webhookUrl: text('webhook_url'),
    status: text('status', { enum: APP_STATUSES }).notNull().default('draft'),
    publishedAt: ts('published_at'),
    deprecatedAt: ts('deprecated_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('apps_slug_key').on(t.slug), uniqueIndex('apps_client_id_key').on(t.clientId)],
);

/** An App installed in one tenant by its admin (spec sections 2 and 3, Installation). */
export const appInstallations = pgTable(
  'app_installations',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').primaryKey(),
    appId: id('app_id').notNull().references(() => apps.id),
    installedBy: id('installed_by').notNull().references(() => users.id),
    scopes: text('scopes', { enum: APP_SCOPES }).array().notNull(),
    status: text('status', { enum: INSTALLATION_STATUSES }).notNull().default('active'),
    /** The first 16 hex characters of the access token: where the guard finds the installation (unique). */
    tokenLookup: char('token_lookup', { length: 16 }).notNull(),
    /** bcrypt (cost 12) of the whole access token; never returned. */
    accessTokenHash: text('access_token_hash').notNull(),
    /** The webhook signing secret (64 hex), encrypted at rest; never returned over HTTP. */
    signingSecret: text('signing_secret').notNull(),
    /** Set when the App's endpoint answered 410 Gone: no more deliveries until the admin enables them again. */
    webhooksDisabledAt: ts('webhooks_disabled_at'),
    createdAt: createdAt(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    uniqueIndex('app_installations_token_lookup_key').on(t.tokenLookup),
    // One active installation per tenant and App: two installs at once cannot both win.
    uniqueIndex('app_installations_active_key').on(t.tenantId, t.appId).where(sql`status = 'active'`),
    index('app_installations_tenant_idx').on(t.tenantId, t.status),
  ],
);

/**
 * Legacy public API keys (`x-api-key`, spec section 5): bound to a user, SHA-256 stored, 30 days.
 * Minted by the CLI only.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: id('id').primaryKey(),
    userId: id('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    keyHash: char('key_hash', { length: 64 }).notNull(),
    label: text('label').notNull().default(''),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('api_keys_hash_key').on(t.keyHash), index('api_keys_user_idx').on(t.userId)],
);

export interface DeliveryAttempt {
  at: string;
  /** The receiver's status code; null when no answer came (timeout, refused, address not allowed). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** One event for one installation, and every attempt to deliver it (the delivery log of the tenant admin). */
export const appWebhookDeliveries = pgTable(
  'app_webhook_deliveries',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').primaryKey(),
    installationId: id('installation_id').notNull().references(() => appInstallations.id, { onDelete: 'cascade' }),
    /** The `webhook-id` header and the body's `id`: the same on every attempt, so the App can dedupe. */
    eventId: text('event_id').notNull(),
    eventType: text('event_type', { enum: APP_EVENT_TYPES }).notNull(),
    payload: jsonb('payload').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    attempts: jsonb('attempts').$type<DeliveryAttempt[]>().notNull().default(sql`'[]'::jsonb`),
    nextAttemptAt: ts('next_attempt_at'),
    deliveredAt: ts('delivered_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('app_webhook_deliveries_event_key').on(t.installationId, t.eventId),
    index('app_webhook_deliveries_installation_idx').on(t.tenantId, t.installationId, t.createdAt),
  ],
);

import { newId } from '../../db/ids.js';
import { DELIVERY_PROVIDERS, type DeliveryProvider } from '../../db/schema/delivery.js';
import type { TenantDb } from '../../db/scopes.js';
import type { DeliveryClient, DeliveryCredentials, ProviderToken } from '../../integrations/delivery.js';
import { isIntegrationError } from '../../integrations/errors.js';
import { PROVIDER_C_SIM_CLIENT_ID, PROVIDER_C_SIM_CLIENT_SECRET } from '../../integrations/provider-c/simulator/index.js';
import { decryptSecret, encryptSecret } from '../../platform/crypto.js';
import { Conflict, isUniqueViolation, NotFound, Rejected, Unavailable } from '../../platform/domain-errors.js';
import type { ModuleDeps } from '../../platform/module.js';
import * as q from './integrations.queries.js';
import type { IntegrationRow } from './integrations.queries.js';
import type { IntegrationView } from './integrations.schemas.js';

/** A tenant's integration with its secrets decrypted: for the module's own use, never answered over HTTP. */
export interface IntegrationRecord {
  id: string;
  tenantId: string;
  provider: DeliveryProvider;
  active: boolean;
  credentials: DeliveryCredentials;
  webhookSecret: string | null;
  jwksUrl: string | null;
  lastSyncAt: Date | null;
  syncedItemCount: number;
}

export interface CreateIntegrationInput {
  provider: DeliveryProvider;
  credentials: DeliveryCredentials;
  webhookSecret?: string | null;
  jwksUrl?: string | null;
  active?: boolean;
}

export interface UpdateIntegrationInput {
  credentials?: Partial<DeliveryCredentials>;
  webhookSecret?: string | null;
  jwksUrl?: string | null;
}

/** What a demo integration with a provider's simulator is given (its OAuth client, store, webhook secret or JWKS URL). */
export interface SimulatorAccount {
  credentials: DeliveryCredentials;
  webhookSecret: string | null;
  jwksUrl: string | null;
}

/** The store id of the demo tenant at provider_c's simulator (it accepts any: its webhooks' `aud` is the one a control call names). */
export const DEMO_PROVIDER_C_STORE_ID = 'sim-provider-c-store';

/** A cached token is renewed this long before it expires. */
export const TOKEN_RENEW_MARGIN_MS = 60_000;

interface StoredToken {
  accessToken: string;
  expiresAt: string;
}

/**
 * A tenant's accounts at the delivery platforms (spec 2 MarketplaceIntegration, 4.14): CRUD for the admin
 * routes (secrets write-only, encrypted at rest), activation that proves the credentials by getting a token,
 * and the cached OAuth token the ingest and sync parts call the platforms with.
 */
export function integrationsService(deps: ModuleDeps) {
  const { config, clock, integrations } = deps;
  const key = config.encryptionKey;
  const enc = (plain: string) => encryptSecret(key, plain);
  const dec = (stored: string) => decryptSecret(key, stored);

  const handles = {
    provider_a: integrations.providerA,
    provider_b: integrations.providerB,
    provider_c: integrations.providerC,
  } as const;

  function client(provider: DeliveryProvider): DeliveryClient | null {
    return handles[provider]?.client ?? null;
  }

  function toRecord(row: IntegrationRow): IntegrationRecord {
    const c = JSON.parse(dec(row.credentials)) as DeliveryCredentials;
    return {
      id: row.id,
      tenantId: row.tenantId,
      provider: row.provider,
      active: row.active,
      credentials: { clientId: c.clientId, clientSecret: c.clientSecret, merchantId: c.merchantId },
      webhookSecret: row.webhookSecret === null ? null : dec(row.webhookSecret),
      jwksUrl: row.jwksUrl,
      lastSyncAt: row.lastSyncAt,
      syncedItemCount: row.syncedItemCount,
    };
  }

  function readToken(row: IntegrationRow): ProviderToken | null {
    if (!row.tokens) return null;
    try {
      const t = JSON.parse(dec(row.tokens)) as StoredToken;
      return { accessToken: t.accessToken, expiresAt: new Date(t.expiresAt) };
    } catch {
      return null;
    }
  }

  const encToken = (t: ProviderToken) => enc(JSON.stringify({ accessToken: t.accessToken, expiresAt: t.expiresAt.toISOString() } satisfies StoredToken));
  const fresh = (t: ProviderToken | null): t is ProviderToken => !!t && t.expiresAt.getTime() - TOKEN_RENEW_MARGIN_MS > clock.now().getTime();

  function toView(row: IntegrationRow): IntegrationView {
    const c = JSON.parse(dec(row.credentials)) as DeliveryCredentials;
    const token = readToken(row);
    return {
      _id: row.id,
      tenant: row.tenantId,
      provider: row.provider,
      active: row.active,
      credentials: { clientId: c.clientId, merchantId: c.merchantId, clientSecretSet: !!c.clientSecret },
      webhookSecretSet: row.webhookSecret !== null,
      jwksUrl: row.jwksUrl,
      lastSyncAt: row.lastSyncAt?.toISOString() ?? null,
      syncedItemCount: row.syncedItemCount,
      tokenExpiresAt: token?.expiresAt.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  /**
   * Asks the platform for a token with these credentials: a refusal is the tenant's to fix (422 with the
   * platform's reason), an unreachable platform is for later (503); a provider switched off cannot be used.
   */
  async function fetchToken(provider: DeliveryProvider, credentials: DeliveryCredentials): Promise<ProviderToken> {
    const c = client(provider);
    if (!c) throw new Rejected(`${provider} is switched off on this server: its integrations cannot be used`, 'provider_off');
    try {
      return await c.token(credentials);
    } catch (err) {
      if (isIntegrationError(err)) {
        if (err.kind === 'refused') {
          throw new Rejected(`${provider} refused the credentials: ${err.code ? `${err.code}: ` : ''}${err.message}`, 'credentials_refused');
        }
        throw new Unavailable(`${provider} cannot be reached now (${err.reason ?? 'unavailable'}): try again later`, 'provider_unavailable');
      }
      throw err;
    }
  }

  /** Renewals in flight in this process, by integration id: two callers at once share one. */
  const renewing = new Map<string, Promise<string>>();

  /**
   * The token this process renewed per integration, for a few seconds: a caller whose read raced the renewal's
   * write uses it instead of renewing again (kept briefly, so a change of credentials is not outlived).
   */
  const renewed = new Map<string, { token: ProviderToken; until: number }>();
  const RENEWED_KEEP_MS = 5_000;

  async function renew(t: TenantDb, integration: IntegrationRecord): Promise<ProviderToken> {
    const token = await fetchToken(integration.provider, integration.credentials);
    // Another process may have renewed meanwhile: the row lock orders the writers, the first fresh token wins.
    return t.run(async (tx) => {
      const row = await q.findIntegration(tx.db, tx.tenantId, integration.id, true);
      if (!row) throw new NotFound('Integration');
      const stored = readToken(row);
      if (fresh(stored) && stored.expiresAt.getTime() >= token.expiresAt.getTime()) return stored;
      await q.updateIntegration(tx.db, tx.tenantId, integration.id, { tokens: encToken(token) }, clock.now());
      return token;
    });
  }

  async function getRow(t: TenantDb, id: string): Promise<IntegrationRow> {
    const row = await t.run((tx) => q.findIntegration(tx.db, tx.tenantId, id));
    if (!row) throw new NotFound('Integration');
    return row;
  }

  return {
    providers: DELIVERY_PROVIDERS,

    client,

    toView,

    /** The account a simulated provider accepts (demo seed); null when the provider is live or off. */
    simulatorAccount(provider: DeliveryProvider): SimulatorAccount | null {
      if (provider === 'provider_a') {
        const a = integrations.providerA.simulatorAccount;
        return a ? { credentials: a.credentials, webhookSecret: a.webhookSecret ?? null, jwksUrl: null } : null;
      }
      if (provider === 'provider_b') {
        const b = integrations.providerB;
        return b.simCredentials ? { credentials: b.simCredentials, webhookSecret: b.simWebhookSecret ?? null, jwksUrl: null } : null;
      }
      const jwksUrl = integrations.providerC.simulatorJwksUrl;
      if (!jwksUrl) return null;
      return {
        credentials: { clientId: PROVIDER_C_SIM_CLIENT_ID, clientSecret: PROVIDER_C_SIM_CLIENT_SECRET, merchantId: DEMO_PROVIDER_C_STORE_ID },
        webhookSecret: null,
        jwksUrl,
      };
    },

    findActive: (t: TenantDb, provider: DeliveryProvider): Promise<IntegrationRecord | null> =>
      t.run(async (tx) => {
        const row = await q.findByProvider(tx.db, tx.tenantId, provider);
        return row && row.active ? toRecord(row) : null;
      }),

    listActive: (t: TenantDb): Promise<IntegrationRecord[]> => t.run(async (tx) => (await q.listIntegrations(tx.db, tx.tenantId, true)).map(toRecord)),

    get: (t: TenantDb, id: string): Promise<IntegrationRecord | null> =>
      t.run(async (tx) => {
        const row = await q.findIntegration(tx.db, tx.tenantId, id);
        return row ? toRecord(row) : null;
      }),

    /**
     * A valid access token for the integration: the cached one until 60 s before it expires, else a new one
     * from the platform (stored encrypted). Throws `Rejected` (credentials refused) or `Unavailable`.
     */
    async accessToken(t: TenantDb, integration: IntegrationRecord): Promise<string> {
      const started = renewing.get(integration.id);
      if (started) return started;
      const row = await t.run((tx) => q.findIntegration(tx.db, tx.tenantId, integration.id));
      if (!row) throw new NotFound('Integration');
      const cached = readToken(row);
      if (fresh(cached)) return cached.accessToken;
      // A renewal of this process that started, or even ended, while the row was read (its read saw the old token).
      const inFlight = renewing.get(integration.id);
      if (inFlight) return inFlight;
      const renewedHere = renewed.get(integration.id);
      if (renewedHere && renewedHere.until > Date.now() && fresh(renewedHere.token)) return renewedHere.token.accessToken;
      const p = renew(t, integration)
        .then((token) => {
          renewed.set(integration.id, { token, until: Date.now() + RENEWED_KEEP_MS });
          return token.accessToken;
        })
        .finally(() => renewing.delete(integration.id));
      renewing.set(integration.id, p);
      return p;
    },

    /** After a catalog sync: when, and how many items (null: keep the count). */
    markSynced: (t: TenantDb, integrationId: string, at: Date, syncedItemCount: number | null): Promise<void> =>
      t.run(async (tx) => {
        const patch: q.IntegrationPatch = syncedItemCount === null ? { lastSyncAt: at } : { lastSyncAt: at, syncedItemCount };
        await q.updateIntegration(tx.db, tx.tenantId, integrationId, patch, clock.now());
      }),

    // --- the admin routes' CRUD (answers without secrets) ---

    list: async (t: TenantDb): Promise<IntegrationView[]> => (await t.run((tx) => q.listIntegrations(tx.db, tx.tenantId))).map(toView),

    view: async (t: TenantDb, id: string): Promise<IntegrationView> => toView(await getRow(t, id)),

    /**
     * Creates the tenant's integration with a platform (one per provider: 409). Inactive unless `active`,
     * which first proves the credentials (`activate`). `skipCheck`: the demo seed activates without asking
     * the platform.
     */
    async create(t: TenantDb, input: CreateIntegrationInput, opts: { skipCheck?: boolean } = {}): Promise<IntegrationView> {
      const token = input.active && !opts.skipCheck ? await fetchToken(input.provider, input.credentials) : null;
      const now = clock.now();
      try {
        const row = await t.run((tx) =>
          q.insertIntegration(tx.db, {
            tenantId: tx.tenantId,
            id: newId(now.getTime()),
            provider: input.provider,
            active: !!input.active,
            credentials: enc(JSON.stringify(input.credentials)),
            webhookSecret: input.webhookSecret ? enc(input.webhookSecret) : null,
            jwksUrl: input.jwksUrl ?? null,
            tokens: token ? encToken(token) : null,
            createdAt: now,
            updatedAt: now,
          }),
        );
        return toView(row);
      } catch (err) {
        if (isUniqueViolation(err, 'marketplace_integrations_provider_key')) {
          throw new Conflict(`The tenant already has a ${input.provider} integration: update it instead`, 'integration_exists');
        }
        throw err;
      }
    },

    /**
     * Changes credentials fields, the webhook secret (null clears it) or the JWKS URL. New credentials drop the
     * cached token; on an active integration they are checked with the platform first (422 / 503, nothing changed),
     * so an active integration never holds credentials the platform refuses.
     */
    async update(t: TenantDb, id: string, input: UpdateIntegrationInput): Promise<IntegrationView> {
      const row = await getRow(t, id);
      let credentials: string | null = null;
      let token: ProviderToken | null = null;
      if (input.credentials && Object.keys(input.credentials).length) {
        const current = JSON.parse(dec(row.credentials)) as DeliveryCredentials;
        const next = { ...current, ...input.credentials };
        if (next.clientId !== current.clientId || next.clientSecret !== current.clientSecret || next.merchantId !== current.merchantId) {
          if (row.active) token = await fetchToken(row.provider, next);
          credentials = enc(JSON.stringify({ clientId: next.clientId, clientSecret: next.clientSecret, merchantId: next.merchantId }));
        }
      }
      return t.run(async (tx) => {
        const current = await q.findIntegration(tx.db, tx.tenantId, id, true);
        if (!current) throw new NotFound('Integration');
        const patch: q.IntegrationPatch = {};
        if (credentials) {
          if (current.credentials !== row.credentials || current.active !== row.active) {
            throw new Conflict('The integration changed while its credentials were being checked: send the change again', 'integration_changed');
          }
          patch.credentials = credentials;
          patch.tokens = token ? encToken(token) : null;
        }
        if (input.webhookSecret !== undefined) patch.webhookSecret = input.webhookSecret === null ? null : enc(input.webhookSecret);
        if (input.jwksUrl !== undefined) patch.jwksUrl = input.jwksUrl;
        if (!Object.keys(patch).length) return toView(current);
        return toView((await q.updateIntegration(tx.db, tx.tenantId, id, patch, clock.now()))!);
      });
    },

    /**
     * Active from now on, once the platform gave a token for its credentials (stored): 422 when it refuses
     * them, 503 when it cannot be reached; the integration stays inactive either way. Idempotent.
     */
    async activate(t: TenantDb, id: string): Promise<IntegrationView> {
      const row = await getRow(t, id);
      if (row.active) return toView(row);
      const token = await fetchToken(row.provider, toRecord(row).credentials);
      return t.run(async (tx) => {
        const current = await q.findIntegration(tx.db, tx.tenantId, id, true);
        if (!current) throw new NotFound('Integration');
        if (current.active) return toView(current);
        if (current.credentials !== row.credentials) {
          throw new Conflict('The integration changed while its credentials were being checked: activate again', 'integration_changed');
        }
        return toView((await q.updateIntegration(tx.db, tx.tenantId, id, { active: true, tokens: encToken(token) }, clock.now()))!);
      });
    },

    /** Inactive: its webhooks are refused, no status or catalog is pushed. Idempotent. */
    deactivate: (t: TenantDb, id: string): Promise<IntegrationView> =>
      t.run(async (tx) => {
        const row = await q.findIntegration(tx.db, tx.tenantId, id, true);
        if (!row) throw new NotFound('Integration');
        if (!row.active) return toView(row);
        return toView((await q.updateIntegration(tx.db, tx.tenantId, id, { active: false }, clock.now()))!);
      }),
  };
}

export type IntegrationsService = ReturnType<typeof integrationsService>;

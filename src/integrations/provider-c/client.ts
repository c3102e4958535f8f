/**
 * provider_c: the delivery platform whose API follows Uber Eats':
 * - OAuth 2.0 client credentials: `POST <auth>/oauth/v2/token` (form `client_id`, `client_secret`,
 *   `grant_type=client_credentials`, `scope=eats.order eats.store`) -> `{ access_token, expires_in }`;
 * - order details: `GET /v2/eats/order/{order_id}` (read by `normalizeProviderCOrder`);
 * - status: `POST /v1/eats/orders/{order_id}/accept_pos_order` and `.../cancel` (the only two of STATUS_MAP:
 *   preparing, ready and delivered are not told to Uber Eats);
 * - catalog: `PUT /v2/eats/stores/{store_id}/menus/items/{item_id}`, one item.
 * Tokens are not cached here: the caller keeps one per integration (encrypted) and renews it before `expiresAt`.
 */
import { systemClock, type Clock } from '../../platform/clock.js';
import type { CatalogItem, DeliveryClient, DeliveryCredentials, NormalizedOrder, ProviderToken } from '../delivery.js';
import { badResponse, callProvider, errorForStatus, isOk, joinUrl, silentLogger, type FetchLike, type ProviderLogger } from '../http.js';
import { PROVIDER_C_TIMEOUT_MS } from './config.js';
import { ProviderCError } from './errors.js';
import { normalizeProviderCOrder, storeIdOf } from './order.js';

export const PROVIDER_C_PRODUCTION_URL = 'https://api.uber.com';
export const PROVIDER_C_PRODUCTION_AUTH_URL = 'https://login.uber.com';
export const PROVIDER_C_SCOPES = 'eats.order eats.store';
/** The statuses provider_c takes (STATUS_MAP.provider_c): the path segment of the order action. */
export const PROVIDER_C_STATUS_ACTIONS = ['accept_pos_order', 'cancel'] as const;
/** An unavailable item is suspended until this Unix time (2100-01-01): "until further notice". */
export const PROVIDER_C_SUSPEND_FOREVER = 4_102_444_800;

export type ProviderCClient = DeliveryClient;

export interface HttpProviderCClientOptions {
  /** The API (default `https://api.uber.com`). */
  baseUrl?: string;
  /** Where the token endpoint lives: default `https://login.uber.com` for the real API, else `baseUrl`. */
  authUrl?: string;
  timeoutMs?: number;
  fetch?: FetchLike;
  clock?: Clock;
  log?: ProviderLogger;
}

export class HttpProviderCClient implements ProviderCClient {
  readonly baseUrl: string;
  readonly authUrl: string;
  private readonly fetch: FetchLike;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly log: ProviderLogger;

  constructor(opts: HttpProviderCClientOptions = {}) {
    this.baseUrl = opts.baseUrl ?? PROVIDER_C_PRODUCTION_URL;
    this.authUrl = opts.authUrl ?? (opts.baseUrl ? opts.baseUrl : PROVIDER_C_PRODUCTION_AUTH_URL);
    this.fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.clock = opts.clock ?? systemClock;
    this.timeoutMs = opts.timeoutMs ?? PROVIDER_C_TIMEOUT_MS;
    this.log = opts.log ?? silentLogger;
  }

  async token(credentials: DeliveryCredentials): Promise<ProviderToken> {
    const { clientId, clientSecret } = credentials;
    if (!clientId || !clientSecret) throw invalid('clientId and clientSecret are required');
    const startedAt = this.clock.now().getTime();
    const form = new URLSearchParams({ client_id: clientId, client_secret: clientSecret, grant_type: 'client_credentials', scope: PROVIDER_C_SCOPES });
    const res = await callProvider({
      errors: ProviderCError,
      fetch: this.fetch,
      method: 'POST',
      url: joinUrl(this.authUrl, '/oauth/v2/token'),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      timeoutMs: this.timeoutMs,
    });
    if (!isOk(res.status)) {
      const err = errorForStatus(ProviderCError, 'token request', res);
      if (err.kind === 'refused') this.log.error({ provider: 'provider_c', status: res.status, code: err.code }, 'OAuth client credentials refused');
      throw err;
    }
    const body = res.body as { access_token?: unknown; expires_in?: unknown } | null;
    const expiresIn = Number(body?.expires_in);
    if (typeof body?.access_token !== 'string' || !body.access_token || !Number.isFinite(expiresIn) || expiresIn <= 0) {
      throw badResponse(ProviderCError, 'token request', res, 'no access_token / expires_in');
    }
    return { accessToken: body.access_token, expiresAt: new Date(startedAt + expiresIn * 1000) };
  }

  /** The order by id; refused (`store_mismatch`) when it belongs to another store than `merchantId`. */
  async getOrder(accessToken: string, merchantId: string, externalOrderId: string): Promise<NormalizedOrder> {
    const res = await this.call(accessToken, 'GET', `/v2/eats/order/${enc(externalOrderId)}`);
    if (!isOk(res.status)) throw errorForStatus(ProviderCError, 'get order', res);
    const store = storeIdOf(res.body);
    if (store && merchantId && store !== merchantId) {
      throw new ProviderCError('refused', `provider_c order ${externalOrderId} belongs to store ${store}, not ${merchantId}`, { code: 'store_mismatch', status: res.status });
    }
    try {
      return normalizeProviderCOrder(res.body);
    } catch (err) {
      throw new ProviderCError('unavailable', `provider_c get order: ${(err as Error).message}`, { reason: 'bad_response', status: res.status, cause: err });
    }
  }

  /** `providerStatus` is `accept_pos_order` or `cancel` (STATUS_MAP.provider_c); anything else is refused without a call. */
  async pushStatus(accessToken: string, _merchantId: string, externalOrderId: string, providerStatus: string): Promise<void> {
    if (!(PROVIDER_C_STATUS_ACTIONS as readonly string[]).includes(providerStatus)) {
      throw invalid(`status ${JSON.stringify(providerStatus)} is not one provider_c takes (${PROVIDER_C_STATUS_ACTIONS.join(', ')})`);
    }
    const body = providerStatus === 'cancel' ? { reason: 'OTHER', details: 'cancelled at the restaurant' } : { reason: 'accepted at the restaurant' };
    const res = await this.call(accessToken, 'POST', `/v1/eats/orders/${enc(externalOrderId)}/${providerStatus}`, body);
    if (!isOk(res.status)) throw errorForStatus(ProviderCError, `push status ${providerStatus}`, res);
    this.log.info({ provider: 'provider_c', externalOrderId, providerStatus }, 'provider_c order status pushed');
  }

  async syncItem(accessToken: string, merchantId: string, item: CatalogItem): Promise<void> {
    if (!merchantId) throw invalid('merchantId (the store id) is required');
    if (!item.externalCode) throw invalid('the item has no externalCode');
    if (!Number.isSafeInteger(item.priceCents) || item.priceCents < 0) throw invalid('priceCents must be a non-negative integer');
    const res = await this.call(accessToken, 'PUT', `/v2/eats/stores/${enc(merchantId)}/menus/items/${enc(item.externalCode)}`, catalogItemBody(item));
    if (!isOk(res.status)) throw errorForStatus(ProviderCError, 'sync item', res);
  }

  private call(accessToken: string, method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { authorization: `Bearer ${accessToken}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return callProvider({
      errors: ProviderCError,
      fetch: this.fetch,
      method,
      url: joinUrl(this.baseUrl, path),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: this.timeoutMs,
    });
  }
}

/** The item as the catalog endpoint takes it (Uber Eats' menu item: translated title and description, price in minor units). */
export function catalogItemBody(item: CatalogItem) {
  return {
    id: item.externalCode,
    external_data: item.externalCode,
    title: { translations: { pt_br: item.name } },
    description: { translations: { pt_br: item.description ?? '' } },
    price_info: { price: item.priceCents, overrides: [] },
    suspension_info: { suspension: item.available ? null : { suspend_until: PROVIDER_C_SUSPEND_FOREVER, reason: 'unavailable at the restaurant' } },
    category: item.category === null ? null : { title: { translations: { pt_br: item.category } } },
  };
}

const enc = encodeURIComponent;
const invalid = (message: string) => new ProviderCError('refused', `provider_c: ${message}`, { code: 'invalid_request' });

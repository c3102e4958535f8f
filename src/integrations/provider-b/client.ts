/**
 * provider_b, the Rappi-like delivery platform, over HTTP (the real platform, a standalone simulator or
 * the in-process one):
 *
 * - token: `POST /oauth/token` JSON `{ client_id, client_secret, audience, grant_type: 'client_credentials' }`
 *   -> `{ access_token, expires_in }`. API calls carry it as `x-authorization: Bearer <token>` (Rappi's header).
 * - orders: `GET /api/v2/restaurants-integrations-public-api/orders?storeId=` (array) and `.../orders/{orderId}?storeId=` (one).
 * - status (STATUS_MAP.provider_b value -> call):
 *     TAKEN          PUT .../orders/{orderId}/take/{cookingTime}   (cooking time in minutes, `cookingTimeMinutes`)
 *     COOKING        PUT .../orders/{orderId}/cooking
 *     READY_TO_PICK  PUT .../orders/{orderId}/ready-for-pickup
 *     DELIVERED      PUT .../orders/{orderId}/delivered
 *     REJECTED       PUT .../orders/{orderId}/reject  `{ reason }`
 * - catalog: `POST .../menu` `{ storeId, items: [one item] }`, an upsert by `sku`.
 * The merchant id of the service's credentials is the platform's store id.
 */
import { systemClock, type Clock } from '../../platform/clock.js';
import type { CatalogItem, DeliveryClient, DeliveryCredentials, NormalizedOrder, ProviderToken } from '../delivery.js';
import { badResponse, callProvider, errorForStatus, isOk, joinUrl, silentLogger, type FetchLike, type ProviderLogger, type ProviderResponse } from '../http.js';
import { centsToAmount } from './amounts.js';
import { ProviderBError, ProviderBPayloadError } from './errors.js';
import { normalizeProviderBOrder } from './order.js';

export const PROVIDER_B_API = '/api/v2/restaurants-integrations-public-api';
/** The `audience` of Rappi's token request. */
export const PROVIDER_B_DEFAULT_AUDIENCE = 'https://int-public-api-v2/api';
export const PROVIDER_B_TIMEOUT_MS = 15_000;
export const PROVIDER_B_COOKING_TIME_MINUTES = 10;

/** STATUS_MAP.provider_b values -> the action path after `/orders/{orderId}` (REJECTED also sends a reason). */
export const PROVIDER_B_STATUS_ACTIONS: Readonly<Record<string, (cookingTime: number) => string>> = {
  TAKEN: (cookingTime) => `/take/${cookingTime}`,
  COOKING: () => '/cooking',
  READY_TO_PICK: () => '/ready-for-pickup',
  DELIVERED: () => '/delivered',
  REJECTED: () => '/reject',
};

export interface ProviderBClient extends DeliveryClient {
  /** The store's open orders (`GET .../orders?storeId=`), normalised. */
  listOrders(accessToken: string, storeId: string): Promise<NormalizedOrder[]>;
}

export interface HttpProviderBClientOptions {
  baseUrl: string;
  audience?: string;
  timeoutMs?: number;
  /** Cooking time sent with TAKEN (minutes). */
  cookingTimeMinutes?: number;
  /** Reason sent with REJECTED. */
  rejectReason?: string;
  fetch?: FetchLike;
  clock?: Clock;
  log?: ProviderLogger;
}

const invalid = (message: string) => new ProviderBError('refused', `provider_b: ${message}`, { code: 'invalid_request' });

export class HttpProviderBClient implements ProviderBClient {
  readonly baseUrl: string;
  private readonly audience: string;
  private readonly timeoutMs: number;
  private readonly cookingTime: number;
  private readonly rejectReason: string;
  private readonly fetch: FetchLike;
  private readonly clock: Clock;
  private readonly log: ProviderLogger;

  constructor(opts: HttpProviderBClientOptions) {
    this.baseUrl = opts.baseUrl;
    this.audience = opts.audience ?? PROVIDER_B_DEFAULT_AUDIENCE;
    this.timeoutMs = opts.timeoutMs ?? PROVIDER_B_TIMEOUT_MS;
    this.cookingTime = opts.cookingTimeMinutes ?? PROVIDER_B_COOKING_TIME_MINUTES;
    this.rejectReason = opts.rejectReason ?? 'The restaurant cannot prepare the order';
    this.fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log ?? silentLogger;
  }

  private call(method: string, path: string, accessToken: string | null, body?: unknown): Promise<ProviderResponse> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (accessToken !== null) headers['x-authorization'] = `Bearer ${accessToken}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = joinUrl(this.baseUrl, path);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return callProvider({ errors: ProviderBError, fetch: this.fetch, method, url, headers, body: payload, timeoutMs: this.timeoutMs });
  }

  async token(credentials: DeliveryCredentials): Promise<ProviderToken> {
    const startedAt = this.clock.now().getTime();
    const res = await this.call('POST', '/oauth/token', null, {
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      audience: this.audience,
      grant_type: 'client_credentials',
    });
    if (!isOk(res.status)) throw errorForStatus(ProviderBError, 'token request', res);
    const body = res.body as { access_token?: unknown; expires_in?: unknown } | null;
    const expiresIn = Number(body?.expires_in);
    if (typeof body?.access_token !== 'string' || !body.access_token || !Number.isFinite(expiresIn) || expiresIn <= 0) {
      throw badResponse(ProviderBError, 'token request', res, 'no access_token / expires_in');
    }
    return { accessToken: body.access_token, expiresAt: new Date(startedAt + expiresIn * 1000) };
  }

  private read(res: ProviderResponse, operation: string, body: unknown): NormalizedOrder {
    try {
      return normalizeProviderBOrder(body);
    } catch (err) {
      if (err instanceof ProviderBPayloadError) throw badResponse(ProviderBError, operation, res, err.message);
      throw err;
    }
  }

  async getOrder(accessToken: string, merchantId: string, externalOrderId: string): Promise<NormalizedOrder> {
    const path = `${PROVIDER_B_API}/orders/${encodeURIComponent(externalOrderId)}?storeId=${encodeURIComponent(merchantId)}`;
    const res = await this.call('GET', path, accessToken);
    if (!isOk(res.status)) throw errorForStatus(ProviderBError, 'get order', res);
    return this.read(res, 'get order', res.body);
  }

  async listOrders(accessToken: string, storeId: string): Promise<NormalizedOrder[]> {
    const res = await this.call('GET', `${PROVIDER_B_API}/orders?storeId=${encodeURIComponent(storeId)}`, accessToken);
    if (!isOk(res.status)) throw errorForStatus(ProviderBError, 'list orders', res);
    if (!Array.isArray(res.body)) throw badResponse(ProviderBError, 'list orders', res, 'not an array');
    return res.body.map((o) => this.read(res, 'list orders', o));
  }

  async pushStatus(accessToken: string, merchantId: string, externalOrderId: string, providerStatus: string): Promise<void> {
    const action = PROVIDER_B_STATUS_ACTIONS[providerStatus];
    if (!action) throw invalid(`no status action for ${JSON.stringify(providerStatus)}`);
    const path = `${PROVIDER_B_API}/orders/${encodeURIComponent(externalOrderId)}${action(this.cookingTime)}`;
    const res = await this.call('PUT', path, accessToken, providerStatus === 'REJECTED' ? { reason: this.rejectReason } : undefined);
    if (!isOk(res.status)) throw errorForStatus(ProviderBError, `status ${providerStatus}`, res);
    this.log.info({ provider: 'provider_b', storeId: merchantId, orderId: externalOrderId, status: providerStatus }, 'provider_b order status pushed');
  }

  async syncItem(accessToken: string, merchantId: string, item: CatalogItem): Promise<void> {
    if (!item.externalCode) throw invalid('catalog item without a code');
    if (!Number.isSafeInteger(item.priceCents) || item.priceCents < 0) throw invalid('priceCents must be a non-negative integer');
    const category = item.category ?? 'Menu';
    const res = await this.call('POST', `${PROVIDER_B_API}/menu`, accessToken, {
      storeId: merchantId,
      items: [
        {
          sku: item.externalCode,
          name: item.name,
          description: item.description ?? '',
          price: centsToAmount(item.priceCents),
          type: 'PRODUCT',
          category: { id: category, name: category },
          available: item.available,
        },
      ],
    });
    if (!isOk(res.status)) throw errorForStatus(ProviderBError, 'menu item sync', res);
  }
}

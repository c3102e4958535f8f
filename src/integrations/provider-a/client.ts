/**
 * provider_a, the delivery platform that resembles iFood (Merchant API): OAuth 2.0 client credentials with
 * iFood's field names, order details by id, one action endpoint per status, and catalog items per merchant.
 * Tokens are not cached here: the service caches each tenant's token (encrypted) and renews it before expiry.
 */
import { systemClock, type Clock } from '../../platform/clock.js';
import type { CatalogItem, DeliveryClient, DeliveryCredentials, NormalizedOrder, ProviderToken } from '../delivery.js';
import { badResponse, callProvider, errorForStatus, isOk, joinUrl, type FetchLike, type ProviderResponse } from '../http.js';
import { centsToDecimal } from '../money.js';
import { ProviderAError, ProviderAPayloadError } from './errors.js';
import { normalizeProviderAOrder } from './order.js';

/** The real platform's API host. */
export const PROVIDER_A_PRODUCTION_URL = 'https://merchant-api.ifood.com.br';
export const PROVIDER_A_TIMEOUT_MS = 10_000;
export const PROVIDER_A_TOKEN_PATH = '/authentication/v1.0/oauth/token';
export const providerAOrderPath = (orderId: string) => `/order/v1.0/orders/${encodeURIComponent(orderId)}`;
export const providerACatalogItemsPath = (merchantId: string) => `/catalog/v2.0/merchants/${encodeURIComponent(merchantId)}/items`;

export type ProviderAOrderAction = 'confirm' | 'startPreparation' | 'readyToPickup' | 'dispatch' | 'requestCancellation';

/**
 * The statuses of `STATUS_MAP.provider_a` and the order action each one is pushed with. The platform has no
 * "conclude" action for the restaurant (it concludes the order itself once delivered): CONCLUDED is pushed as
 * `dispatch`, the restaurant's last step. CANCELLED is a `requestCancellation` (the platform decides).
 */
export const PROVIDER_A_STATUS_ACTIONS: Record<string, ProviderAOrderAction> = {
  CONFIRMED: 'confirm',
  IN_PREPARATION: 'startPreparation',
  READY_TO_PICKUP: 'readyToPickup',
  CONCLUDED: 'dispatch',
  CANCELLED: 'requestCancellation',
};

/** The cancellation `requestCancellation` sends unless told otherwise (iFood's code 509: the restaurant's internal difficulties). */
export const PROVIDER_A_DEFAULT_CANCELLATION = { reason: 'Pedido cancelado pelo restaurante', cancellationCode: '509' } as const;

export interface Cancellation {
  reason: string;
  /** One of the platform's cancellation codes (501 to 513). */
  cancellationCode: string;
}

export interface ProviderAClient extends DeliveryClient {
  /** The order exactly as the platform answers it (what `getOrder` normalises). */
  getOrderDetails(accessToken: string, externalOrderId: string): Promise<unknown>;
  /** Asks the platform to cancel, with a reason and one of its cancellation codes. */
  requestCancellation(accessToken: string, externalOrderId: string, cancellation?: Cancellation): Promise<void>;
}

export interface HttpProviderAClientOptions {
  baseUrl?: string;
  timeoutMs?: number;
  fetch?: FetchLike;
  clock?: Clock;
}

interface CallOptions {
  token?: string;
  json?: unknown;
  form?: URLSearchParams;
}

/** iFood nests its errors (`{ error: { code, message } }`): lift them for the shared mapping. */
function flatten(res: ProviderResponse): ProviderResponse {
  const b = res.body as { error?: unknown } | null;
  if (b && typeof b === 'object' && b.error && typeof b.error === 'object') return { ...res, body: b.error };
  return res;
}

export class HttpProviderAClient implements ProviderAClient {
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetch: FetchLike;
  private readonly clock: Clock;

  constructor(opts: HttpProviderAClientOptions = {}) {
    this.baseUrl = opts.baseUrl ?? PROVIDER_A_PRODUCTION_URL;
    this.timeoutMs = opts.timeoutMs ?? PROVIDER_A_TIMEOUT_MS;
    this.fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.clock = opts.clock ?? systemClock;
  }

  private async call(operation: string, method: string, path: string, opts: CallOptions = {}) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = opts.form.toString();
    } else if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    const url = joinUrl(this.baseUrl, path);
    const res = await callProvider({ errors: ProviderAError, fetch: this.fetch, method, url, headers, body, timeoutMs: this.timeoutMs });
    if (!isOk(res.status)) throw errorForStatus(ProviderAError, operation, flatten(res));
    return res;
  }

  async token({ clientId, clientSecret }: DeliveryCredentials): Promise<ProviderToken> {
    const startedAt = this.clock.now().getTime();
    const form = new URLSearchParams({ grantType: 'client_credentials', clientId, clientSecret });
    const res = await this.call('token request', 'POST', PROVIDER_A_TOKEN_PATH, { form });
    const b = res.body as { accessToken?: unknown; expiresIn?: unknown } | null;
    const expiresIn = Number(b?.expiresIn);
    if (typeof b?.accessToken !== 'string' || !b.accessToken || !Number.isFinite(expiresIn) || expiresIn <= 0) {
      throw badResponse(ProviderAError, 'token request', res, 'no accessToken / expiresIn');
    }
    return { accessToken: b.accessToken, expiresAt: new Date(startedAt + expiresIn * 1000) };
  }

  async getOrderDetails(accessToken: string, externalOrderId: string): Promise<unknown> {
    const res = await this.call('order details', 'GET', providerAOrderPath(externalOrderId), { token: accessToken });
    if (!res.body || typeof res.body !== 'object') throw badResponse(ProviderAError, 'order details', res, 'not a JSON object');
    return res.body;
  }

  async getOrder(accessToken: string, merchantId: string, externalOrderId: string): Promise<NormalizedOrder> {
    const body = (await this.getOrderDetails(accessToken, externalOrderId)) as { merchant?: { id?: unknown } };
    const owner = body.merchant?.id;
    if (typeof owner === 'string' && owner !== merchantId) {
      throw new ProviderAError('refused', `provider_a order ${externalOrderId} belongs to another merchant`, { code: 'merchant_mismatch' });
    }
    try {
      return normalizeProviderAOrder(body);
    } catch (err) {
      if (!(err instanceof ProviderAPayloadError)) throw err;
      throw new ProviderAError('unavailable', `provider_a order details: unreadable order (${err.message})`, { reason: 'bad_response', cause: err });
    }
  }

  /** `providerStatus` is a value of `STATUS_MAP.provider_a`; anything else is refused without a call (`unsupported_status`). */
  async pushStatus(accessToken: string, _merchantId: string, externalOrderId: string, providerStatus: string): Promise<void> {
    const action = Object.hasOwn(PROVIDER_A_STATUS_ACTIONS, providerStatus) ? PROVIDER_A_STATUS_ACTIONS[providerStatus] : undefined;
    if (!action) throw new ProviderAError('refused', `provider_a has no action for status ${providerStatus}`, { code: 'unsupported_status' });
    if (action === 'requestCancellation') return this.requestCancellation(accessToken, externalOrderId);
    await this.call(`${action}`, 'POST', `${providerAOrderPath(externalOrderId)}/${action}`, { token: accessToken });
  }

  async requestCancellation(accessToken: string, externalOrderId: string, cancellation: Cancellation = PROVIDER_A_DEFAULT_CANCELLATION) {
    const path = `${providerAOrderPath(externalOrderId)}/requestCancellation`;
    await this.call('requestCancellation', 'POST', path, { token: accessToken, json: cancellation });
  }

  async syncItem(accessToken: string, merchantId: string, item: CatalogItem): Promise<void> {
    if (!item.externalCode) throw new ProviderAError('refused', 'provider_a catalog item without externalCode', { code: 'invalid_item' });
    if (!Number.isSafeInteger(item.priceCents) || item.priceCents < 0) {
      throw new ProviderAError('refused', 'provider_a catalog item price must be whole cents, 0 or more', { code: 'invalid_item' });
    }
    await this.call('catalog item sync', 'PUT', providerACatalogItemsPath(merchantId), {
      token: accessToken,
      json: {
        externalCode: item.externalCode,
        name: item.name,
        description: item.description ?? '',
        price: { value: centsToDecimal(item.priceCents) },
        status: item.available ? 'AVAILABLE' : 'UNAVAILABLE',
        ...(item.category ? { categoryName: item.category } : {}),
      },
    });
  }
}

import {
  badResponse,
  callProvider,
  errorForStatus,
  isOk,
  joinUrl,
  silentLogger,
  type FetchLike,
  type ProviderLogger,
  type ProviderResponse,
} from '../http.js';
import { centsToDecimal } from '../money.js';
import { readRefund, refundInputProblem, refundRequest, type Refund, type RefundInput } from '../refunds.js';
import { WalletError } from './errors.js';

export { centsToDecimal } from '../money.js';
export type { Refund } from '../refunds.js';

/**
 * The online wallet gateway (spec 4.7 "wallet gateway"): charges a card token produced by the
 * gateway's client SDK, with the tenant's own access token (Tenant.walletAccessToken), and lists
 * the tenant's point devices. The protocol follows the Mercado Pago Payments API
 * (`POST /v1/payments` with `X-Idempotency-Key`, `POST /v1/payments/{id}/refunds`, `GET /point/integration-api/devices`).
 */

export const WALLET_PRODUCTION_URL = 'https://api.mercadopago.com';
export const WALLET_TIMEOUT_MS = 60_000;

export interface WalletPayer {
  email: string;
  firstName?: string;
  lastName?: string;
  /** e.g. `{ type: 'CPF', number: '12345678909' }` */
  identification?: { type: string; number: string };
}

export interface WalletChargeInput {
  /** The tenant's access token at the gateway. */
  accessToken: string;
  /** Card token from the client SDK (single use). */
  cardToken: string;
  /** Integer cents, at least 1. */
  amountCents: number;
  description: string;
  payer: WalletPayer;
  /** Same key -> same payment, never a second charge. Use one key per checkout attempt. */
  idempotencyKey: string;
  externalReference?: string;
  installments?: number;
  /** Card brand id from the client SDK (e.g. `master`, `visa`), when it gave one. */
  paymentMethodId?: string;
}

export interface WalletCharge {
  id: string;
  status: 'approved' | 'rejected';
  /** Gateway reason, e.g. `accredited`, `cc_rejected_insufficient_amount`. */
  statusDetail: string;
}

export interface WalletDevice {
  id: string;
  operatingMode: string | null;
  posId: string | null;
  storeId: string | null;
  externalPosId: string | null;
}

export interface WalletRefundInput extends RefundInput {
  /** The access token of the account that was charged. */
  accessToken: string;
}

export interface WalletClient {
  charge(input: WalletChargeInput): Promise<WalletCharge>;
  /**
   * Gives back an approved charge, whole (no `amountCents`) or in part. The same `idempotencyKey` returns
   * the same refund, never a second one. Refused: unknown access token (401), unknown payment (404),
   * more than what is left or nothing left (400).
   */
  refund(input: WalletRefundInput): Promise<Refund>;
  /** Every device of the account the access token belongs to. Refused (401) for an unknown token. */
  listDevices(accessToken: string): Promise<WalletDevice[]>;
}

export interface HttpWalletClientOptions {
  baseUrl?: string;
  timeoutMs?: number;
  fetch?: FetchLike;
  log?: ProviderLogger;
}

const PAGE = 50;
const MAX_PAGES = 20;

export class HttpWalletClient implements WalletClient {
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetch: FetchLike;
  private readonly log: ProviderLogger;

  constructor(opts: HttpWalletClientOptions = {}) {
    this.baseUrl = opts.baseUrl ?? WALLET_PRODUCTION_URL;
    this.timeoutMs = opts.timeoutMs ?? WALLET_TIMEOUT_MS;
    this.fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.log = opts.log ?? silentLogger;
  }

  async charge(input: WalletChargeInput): Promise<WalletCharge> {
    const { amountCents, idempotencyKey, cardToken, accessToken, payer } = input;
    if (!Number.isSafeInteger(amountCents) || amountCents < 1) throw invalid('amountCents must be a positive integer');
    if (!idempotencyKey || idempotencyKey.length > 256) throw invalid('idempotencyKey must be 1 to 256 characters');
    if (!cardToken) throw invalid('cardToken is required');
    if (!accessToken) throw invalid('accessToken is required');
    if (!payer?.email) throw invalid('payer.email is required');
    const body = {
      transaction_amount: centsToDecimal(amountCents),
      token: cardToken,
      description: input.description.slice(0, 256),
      installments: input.installments ?? 1,
      // Only approved or rejected: no "in process" payment the checkout would have to wait for.
      binary_mode: true,
      ...(input.paymentMethodId ? { payment_method_id: input.paymentMethodId } : {}),
      ...(input.externalReference ? { external_reference: input.externalReference } : {}),
      payer: {
        email: payer.email,
        ...(payer.firstName ? { first_name: payer.firstName } : {}),
        ...(payer.lastName ? { last_name: payer.lastName } : {}),
        ...(payer.identification ? { identification: payer.identification } : {}),
      },
    };
    const res = await this.send('POST', '/v1/payments', accessToken, body, { 'x-idempotency-key': idempotencyKey });
    if (!isOk(res.status)) throw this.error('charge', res);
    const b = res.body as { id?: unknown; status?: unknown; status_detail?: unknown } | null;
    if (b?.id === undefined || b.id === null || typeof b.status !== 'string') throw badResponse(WalletError, 'charge', res, 'no id or status');
    const status = b.status === 'approved' ? 'approved' : b.status === 'rejected' || b.status === 'cancelled' ? 'rejected' : null;
    if (!status) throw badResponse(WalletError, 'charge', res, `status ${b.status}`);
    const charge = { id: String(b.id), status, statusDetail: typeof b.status_detail === 'string' ? b.status_detail : b.status } as WalletCharge;
    this.log.info({ paymentId: charge.id, status: charge.status, statusDetail: charge.statusDetail, amountCents }, 'wallet charge');
    return charge;
  }

  async refund(input: WalletRefundInput): Promise<Refund> {
    const problem = refundInputProblem(input) ?? (input.accessToken ? null : 'accessToken is required');
    if (problem) throw invalid(problem);
    const { path, body, headers } = refundRequest(input);
    const res = await this.send('POST', path, input.accessToken, body, headers);
    if (!isOk(res.status)) throw this.error('refund', res);
    const refund = readRefund(WalletError, res, input.paymentId);
    this.log.info({ ...refund, idempotencyKey: input.idempotencyKey }, 'wallet refund');
    return refund;
  }

  async listDevices(accessToken: string): Promise<WalletDevice[]> {
    if (!accessToken) throw invalid('accessToken is required');
    const devices: WalletDevice[] = [];
    for (let page = 0, offset = 0; page < MAX_PAGES; page++) {
      const res = await this.send('GET', `/point/integration-api/devices?offset=${offset}&limit=${PAGE}`, accessToken);
      if (!isOk(res.status)) throw this.error('list devices', res);
      const b = res.body as { devices?: unknown; paging?: { total?: unknown } } | null;
      if (!b || !Array.isArray(b.devices)) throw badResponse(WalletError, 'list devices', res, 'no devices array');
      for (const d of b.devices as Record<string, unknown>[]) {
        if (!d || (typeof d.id !== 'string' && typeof d.id !== 'number')) continue;
        devices.push({
          id: String(d.id),
          operatingMode: str(d.operating_mode),
          posId: str(d.pos_id),
          storeId: str(d.store_id),
          externalPosId: str(d.external_pos_id),
        });
      }
      offset += b.devices.length;
      const total = Number(b.paging?.total);
      if (b.devices.length === 0 || !Number.isFinite(total) || offset >= total) break;
    }
    return devices;
  }

  private error(operation: string, res: ProviderResponse): Error {
    if (res.status === 401) return new WalletError('refused', `wallet ${operation}: access token refused`, { status: 401, code: 'invalid_access_token' });
    return errorForStatus(WalletError, operation, res);
  }

  private send(method: string, path: string, accessToken: string, body?: unknown, extra: Record<string, string> = {}) {
    const headers: Record<string, string> = { authorization: `Bearer ${accessToken}`, accept: 'application/json', ...extra };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return callProvider({
      errors: WalletError,
      fetch: this.fetch,
      method,
      url: joinUrl(this.baseUrl, path),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: this.timeoutMs,
    });
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const invalid = (message: string) => new WalletError('refused', `wallet: ${message}`, { code: 'invalid_request' });

import { systemClock, type Clock } from '../../platform/clock.js';
import { badResponse, errorForStatus, isOk, silentLogger, type FetchLike, type ProviderLogger } from '../http.js';
import { bearerApi, type BearerCall } from '../oauth.js';
import { readRefund, refundInputProblem, refundRequest, type Refund, type RefundInput } from '../refunds.js';
import { GatewayAError } from './errors.js';

/**
 * gateway_a: the card-terminal gateway. Its protocol follows a point-of-sale "payment intent" API
 * (the Mercado Pago Point integration API): OAuth 2.0 client-credentials token, an intent created
 * on a device, cancelled on that device, read by id; results arrive by signed webhook. An approved
 * intent's payment is refunded through the payments API (`POST /v1/payments/{paymentId}/refunds`).
 */

export type { Refund, RefundInput } from '../refunds.js';

/** Where the real gateway lives. The sandbox uses the same host with the `x-test-scope: sandbox` header. */
export const GATEWAY_A_PRODUCTION_URL = 'https://api.mercadopago.com';
export const GATEWAY_A_SANDBOX_URL = 'https://api.mercadopago.com';
/** Spec section 8: gateway client timeout. */
export const GATEWAY_A_TIMEOUT_MS = 60_000;

/** Terminal serial format of spec section 2 (PDV.gatewayATerminalSerial). */
export const TERMINAL_SERIAL = /^T-[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export type PaymentIntentStatus =
  | 'open' // created, waiting for the terminal
  | 'on_terminal' // the terminal picked it up
  | 'processing' // card being read / authorised
  | 'approved'
  | 'declined'
  | 'canceled'
  | 'error';

export interface CreatePaymentIntentInput {
  terminalSerial: string;
  /** Integer cents, at least 1. */
  amountCents: number;
  /** The service's reference (e.g. the order id); comes back in the webhook. */
  externalId: string;
  description: string;
}

export interface PaymentIntent {
  intentId: string;
  terminalSerial: string;
  amountCents: number;
  externalId: string | null;
  description: string | null;
  status: PaymentIntentStatus;
  /** Gateway payment (transaction) id once the terminal processed a card. */
  paymentId: string | null;
}

export interface GatewayAClient {
  createPaymentIntent(input: CreatePaymentIntentInput): Promise<{ intentId: string; status: PaymentIntentStatus }>;
  /** Cancels an intent not yet processed. Refused (`not_cancelable`) once the terminal finished it. */
  cancelPaymentIntent(terminalSerial: string, intentId: string): Promise<{ intentId: string; status: 'canceled' }>;
  getPaymentIntent(intentId: string): Promise<PaymentIntent>;
  /**
   * Gives back an approved payment (`paymentId` of the intent), whole (no `amountCents`) or in part.
   * The same `idempotencyKey` returns the same refund, never a second one. Refused: unknown payment (404),
   * more than what is left or nothing left (400).
   */
  refundPayment(input: RefundInput): Promise<Refund>;
}

/** Intent `state` (+ payment state when finished) as the gateway reports it, mapped to ours. */
export function intentStatusOf(state: unknown, paymentState?: unknown): PaymentIntentStatus | null {
  switch (typeof state === 'string' ? state.toUpperCase() : '') {
    case 'OPEN':
      return 'open';
    case 'ON_TERMINAL':
      return 'on_terminal';
    case 'PROCESSING':
    case 'PROCESSED':
      return 'processing';
    case 'FINISHED': {
      const p = typeof paymentState === 'string' ? paymentState.toLowerCase() : 'approved';
      return p === 'approved' ? 'approved' : 'declined';
    }
    case 'CANCELED':
    case 'CANCELLED':
    case 'ABANDONED':
      return 'canceled';
    case 'ERROR':
      return 'error';
    default:
      return null;
  }
}

export interface HttpGatewayAClientOptions {
  /** Defaults to the sandbox or production URL according to `sandbox`. */
  baseUrl?: string;
  clientId: string;
  clientSecret: string;
  /** Default true (spec 5.7): sandbox requests carry `x-test-scope: sandbox`. */
  sandbox?: boolean;
  timeoutMs?: number;
  fetch?: FetchLike;
  clock?: Clock;
  log?: ProviderLogger;
}

/** The intent as `GET .../payment-intents/:id` answers it (fields read defensively). */
interface GatewayIntentBody {
  id?: unknown;
  device_id?: unknown;
  amount?: unknown;
  description?: unknown;
  state?: unknown;
  payment?: { id?: unknown; state?: unknown } | null;
  additional_info?: { external_reference?: unknown } | null;
}

export class HttpGatewayAClient implements GatewayAClient {
  readonly baseUrl: string;
  readonly sandbox: boolean;
  private readonly authed: BearerCall;
  private readonly log: ProviderLogger;

  constructor(opts: HttpGatewayAClientOptions) {
    this.sandbox = opts.sandbox ?? true;
    this.baseUrl = opts.baseUrl ?? (this.sandbox ? GATEWAY_A_SANDBOX_URL : GATEWAY_A_PRODUCTION_URL);
    this.log = opts.log ?? silentLogger;
    const headers: Record<string, string> = this.sandbox ? { 'x-test-scope': 'sandbox' } : {};
    this.authed = bearerApi({
      errors: GatewayAError,
      baseUrl: this.baseUrl,
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      fetch: opts.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      clock: opts.clock ?? systemClock,
      timeoutMs: opts.timeoutMs ?? GATEWAY_A_TIMEOUT_MS,
      log: this.log,
      headers,
    });
  }

  async createPaymentIntent(input: CreatePaymentIntentInput) {
    const { terminalSerial, amountCents, externalId, description } = input;
    if (!TERMINAL_SERIAL.test(terminalSerial)) throw invalid(`terminal serial ${JSON.stringify(terminalSerial)} is not of the form T-...`);
    if (!Number.isSafeInteger(amountCents) || amountCents < 1) throw invalid('amountCents must be a positive integer');
    if (!externalId) throw invalid('externalId is required');
    const res = await this.authed('POST', `/point/integration-api/devices/${encodeURIComponent(terminalSerial)}/payment-intents`, {
      amount: amountCents,
      description: description.slice(0, 150),
      additional_info: { external_reference: externalId, print_on_terminal: true },
    });
    if (!isOk(res.status)) throw errorForStatus(GatewayAError, 'create payment intent', res);
    const body = res.body as { id?: unknown; state?: unknown } | null;
    if (typeof body?.id !== 'string' || !body.id) throw badResponse(GatewayAError, 'create payment intent', res, 'no intent id');
    const status = intentStatusOf(body.state ?? 'OPEN') ?? 'open';
    this.log.info({ intentId: body.id, terminalSerial, amountCents, externalId }, 'gateway_a payment intent created');
    return { intentId: body.id, status };
  }

  async cancelPaymentIntent(terminalSerial: string, intentId: string) {
    const res = await this.authed(
      'DELETE',
      `/point/integration-api/devices/${encodeURIComponent(terminalSerial)}/payment-intents/${encodeURIComponent(intentId)}`,
    );
    if (!isOk(res.status)) throw errorForStatus(GatewayAError, 'cancel payment intent', res);
    this.log.info({ intentId, terminalSerial }, 'gateway_a payment intent cancelled');
    return { intentId, status: 'canceled' as const };
  }

  async getPaymentIntent(intentId: string): Promise<PaymentIntent> {
    const res = await this.authed('GET', `/point/integration-api/payment-intents/${encodeURIComponent(intentId)}`);
    if (!isOk(res.status)) throw errorForStatus(GatewayAError, 'get payment intent', res);
    const b = res.body as GatewayIntentBody | null;
    const status = intentStatusOf(b?.state, b?.payment?.state);
    if (!b || typeof b.id !== 'string' || !status) throw badResponse(GatewayAError, 'get payment intent', res, 'no id or unknown state');
    const paymentId = b.payment?.id;
    return {
      intentId: b.id,
      terminalSerial: typeof b.device_id === 'string' ? b.device_id : '',
      amountCents: Number(b.amount),
      externalId: typeof b.additional_info?.external_reference === 'string' ? b.additional_info.external_reference : null,
      description: typeof b.description === 'string' ? b.description : null,
      status,
      paymentId: paymentId === undefined || paymentId === null ? null : String(paymentId),
    };
  }

  async refundPayment(input: RefundInput): Promise<Refund> {
    const problem = refundInputProblem(input);
    if (problem) throw invalid(problem);
    const { path, body, headers } = refundRequest(input);
    const res = await this.authed('POST', path, body, headers);
    if (!isOk(res.status)) throw errorForStatus(GatewayAError, 'refund', res);
    const refund = readRefund(GatewayAError, res, input.paymentId);
    this.log.info({ ...refund, idempotencyKey: input.idempotencyKey }, 'gateway_a payment refunded');
    return refund;
  }
}

const invalid = (message: string) => new GatewayAError('refused', `gateway_a: ${message}`, { code: 'invalid_request' });

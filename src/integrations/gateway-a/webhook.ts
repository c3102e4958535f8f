/**
 * The two webhook body shapes of spec 4.7, built by the simulator and read by the service.
 *
 * - `event`:    `{ event, data: { id, status } }` where `data.id` is the payment intent id and
 *               `data.status` is `approved` or `declined`; the simulator adds `data.payment_id`
 *               (transaction id) and `data.external_reference`.
 * - `external`: `{ external_id, status: 'authorized' | 'declined', id }` where `external_id` is the
 *               reference the service gave when creating the intent and `id` the intent id; the
 *               simulator adds `payment_id`.
 */
export type GatewayAWebhookShape = 'event' | 'external';

/** Route of the service that receives gateway_a webhooks (spec 4.7). */
export const GATEWAY_A_WEBHOOK_PATH = '/api/gateway-a/webhook';

export type PaymentOutcome = 'approved' | 'declined';

export interface GatewayAWebhookFacts {
  intentId: string;
  externalId: string | null;
  outcome: PaymentOutcome;
  /** Gateway payment (transaction) id; null when the intent ended without a payment (cancelled). */
  paymentId: string | null;
  /** True when the intent was cancelled rather than refused by the card issuer. */
  canceled?: boolean;
}

export function buildGatewayAWebhookBody(shape: GatewayAWebhookShape, f: GatewayAWebhookFacts): Record<string, unknown> {
  if (shape === 'external') {
    return {
      external_id: f.externalId,
      status: f.outcome === 'approved' ? 'authorized' : 'declined',
      id: f.intentId,
      payment_id: f.paymentId,
    };
  }
  const event = f.canceled ? 'payment_intent.canceled' : f.outcome === 'approved' ? 'payment_intent.approved' : 'payment_intent.declined';
  return {
    event,
    data: { id: f.intentId, status: f.outcome, payment_id: f.paymentId, external_reference: f.externalId },
  };
}

export interface GatewayAWebhookEvent {
  shape: GatewayAWebhookShape;
  /** `event` of the first shape, null for the second. */
  event: string | null;
  /** Payment intent id (`data.id` or `id`). */
  intentId: string | null;
  /** The service's reference (`external_id`, or `data.external_reference`). */
  externalId: string | null;
  /** Final result, or null for an intermediate state (acknowledge and ignore). */
  outcome: PaymentOutcome | null;
  /** Status exactly as received. */
  status: string;
  /** The gateway's transaction id: `payment_id` when present, else the intent id. */
  transactionId: string | null;
}

const APPROVED = new Set(['approved', 'authorized', 'authorised', 'finished', 'processed', 'accredited', 'paid']);
const DECLINED = new Set(['declined', 'rejected', 'refused', 'canceled', 'cancelled', 'error', 'abandoned', 'failed']);

export function outcomeOf(status: string): PaymentOutcome | null {
  const s = status.toLowerCase();
  if (APPROVED.has(s)) return 'approved';
  if (DECLINED.has(s)) return 'declined';
  return null;
}

const idOf = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null;

/**
 * Normalises a webhook body of either shape; null when it is neither (answer 400).
 * Does not check the signature: do that on the raw body first.
 */
export function parseGatewayAWebhook(body: unknown): GatewayAWebhookEvent | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  if (b.data && typeof b.data === 'object' && !Array.isArray(b.data)) {
    const d = b.data as Record<string, unknown>;
    const intentId = idOf(d.id);
    if (!intentId || typeof d.status !== 'string') return null;
    return {
      shape: 'event',
      event: typeof b.event === 'string' ? b.event : null,
      intentId,
      externalId: idOf(d.external_reference) ?? idOf(d.external_id),
      outcome: outcomeOf(d.status),
      status: d.status,
      transactionId: idOf(d.payment_id) ?? intentId,
    };
  }
  if (typeof b.status === 'string' && (idOf(b.external_id) || idOf(b.id))) {
    const intentId = idOf(b.id);
    return {
      shape: 'external',
      event: null,
      intentId,
      externalId: idOf(b.external_id),
      outcome: outcomeOf(b.status),
      status: b.status,
      transactionId: idOf(b.payment_id) ?? intentId,
    };
  }
  return null;
}

/**
 * provider_a's webhook bodies (iFood's events), read by the service after the signature check on the raw body.
 *
 * - Reference (the real platform's shape, `ifood_webhook_PLACED_event.json`):
 *   `{ id, code, fullCode, orderId, merchantId, createdAt }`: the event names the order only; the job fetches
 *   it with `client.getOrder`.
 * - Full (a variant the simulator can also send): the same event plus `order`, the whole order in the
 *   order-details shape (`GET /order/v1.0/orders/{id}`), so the service can skip the fetch.
 *
 * Kind: `PLACED` / `PLC` -> `new_order`; `CANCELLED` / `CAN` -> `cancelled`; anything else (CONFIRMED, DISPATCHED,
 * CONCLUDED, KEEPALIVE, cancellation requests...) -> `other`. The event id (idempotency, spec 4.14) is the body's `id`.
 */
import type { DeliveryWebhookEvent } from '../delivery.js';
import { ProviderAPayloadError } from './errors.js';
import { normalizeProviderAOrder } from './order.js';

export { normalizeProviderAOrder } from './order.js';

/** The service's receiving route (spec 4.14), per tenant. */
export const PROVIDER_A_WEBHOOK_PATH = '/t/:slug/webhooks/provider_a';
export const providerAWebhookPath = (slug: string) => `/t/${encodeURIComponent(slug)}/webhooks/provider_a`;

/** Event codes: the short `code` and the `fullCode` iFood sends with it. */
export const PROVIDER_A_EVENT_CODES = {
  PLACED: 'PLC',
  CONFIRMED: 'CFM',
  READY_TO_PICKUP: 'RTP',
  DISPATCHED: 'DSP',
  CONCLUDED: 'CON',
  CANCELLED: 'CAN',
} as const;
export type ProviderAEventName = keyof typeof PROVIDER_A_EVENT_CODES;

/** The event body as the platform sends it (`order` only in the full variant). */
export interface ProviderAEventBody {
  id: string;
  code: string;
  fullCode: string;
  orderId: string;
  merchantId: string;
  createdAt: string;
  order?: unknown;
}

export interface ProviderAEventFacts {
  id: string;
  name: ProviderAEventName;
  orderId: string;
  merchantId: string;
  createdAt: Date;
  /** The whole order (order-details shape): the full variant. */
  order?: unknown;
}

export function buildProviderAEvent(e: ProviderAEventFacts): ProviderAEventBody {
  return {
    id: e.id,
    code: PROVIDER_A_EVENT_CODES[e.name],
    fullCode: e.name,
    orderId: e.orderId,
    merchantId: e.merchantId,
    createdAt: e.createdAt.toISOString(),
    ...(e.order === undefined ? {} : { order: e.order }),
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

function kindOf(fullCode: string | null, code: string | null): DeliveryWebhookEvent['kind'] {
  if (fullCode === 'PLACED' || code === 'PLC') return 'new_order';
  if (fullCode === 'CANCELLED' || code === 'CAN') return 'cancelled';
  return 'other';
}

/**
 * Reads a provider_a event body (either variant); throws `ProviderAPayloadError` for a body that is not one
 * (answer 400). Does not check the signature: do that on the raw body first.
 */
export function parseProviderAWebhook(body: unknown): DeliveryWebhookEvent {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ProviderAPayloadError('', 'the event is not a JSON object');
  const b = body as Record<string, unknown>;
  const fullCode = str(b.fullCode);
  const code = str(b.code);
  if (!fullCode && !code) throw new ProviderAPayloadError('code', 'an event without code or fullCode');
  const externalOrderId = str(b.orderId);
  let order = null;
  if (b.order !== undefined && b.order !== null) {
    order = normalizeProviderAOrder(b.order);
    if (externalOrderId && order.externalId !== externalOrderId) {
      throw new ProviderAPayloadError('order.id', `the embedded order ${order.externalId} is not the event's order ${externalOrderId}`);
    }
  }
  return {
    eventId: str(b.id),
    type: fullCode ?? code!,
    kind: kindOf(fullCode, code),
    externalOrderId: externalOrderId ?? order?.externalId ?? null,
    order,
  };
}

/**
 * provider_b's webhook bodies (JSON), read into the service's `DeliveryWebhookEvent`:
 *
 * - new order, carrying the whole order: `{ event: { id, type: 'NEW_ORDER', ... }, order: <getOrders element> }`;
 *   the event id may also come top-level (`{ eventId, event: 'NEW_ORDER', order }`).
 * - new order by reference only: `{ event: { id, type: 'NEW_ORDER' }, order_id, store_id }` (order null:
 *   the job fetches it with `getOrder`).
 * - other order events, as the platform's samples: `{ event: 'canceled_with_charge', order_id, store_id }`
 *   (`canceled_*` / `cancelled_*` / `ORDER_EVENT_CANCEL` -> kind `cancelled`), `{ event: 'taken_visible_order', ... }`
 *   (anything else -> `other`).
 *
 * The idempotency key of spec 4.14 is `event.id`, else top-level `eventId`; null when the body has neither
 * (the platform's own cancel samples carry none). Verify the signature on the raw body first (`signature.ts`).
 */
import type { DeliveryWebhookEvent } from '../delivery.js';
import { ProviderBPayloadError } from './errors.js';
import { idOf, isObject, normalizeProviderBOrder } from './order.js';

export { normalizeProviderBOrder } from './order.js';

/** The service route that receives provider_b webhooks (spec 4.14), for a tenant's slug. */
export const providerBWebhookPath = (slug: string) => `/t/${encodeURIComponent(slug)}/webhooks/provider_b`;

export const PROVIDER_B_NEW_ORDER = 'NEW_ORDER';

export function kindOfProviderBEvent(type: string): DeliveryWebhookEvent['kind'] {
  if (type.toUpperCase() === PROVIDER_B_NEW_ORDER) return 'new_order';
  if (/^cancel+ed(_|$)/i.test(type) || type.toUpperCase() === 'ORDER_EVENT_CANCEL') return 'cancelled';
  return 'other';
}

/** Reads a provider_b webhook body; throws `ProviderBPayloadError` (answer 400) for a body it cannot read. */
export function parseProviderBWebhook(body: unknown): DeliveryWebhookEvent {
  const fail = (what: string): never => {
    throw new ProviderBPayloadError(`webhook: ${what}`);
  };
  if (!isObject(body)) return fail('the body is not a JSON object');
  const event = isObject(body.event) ? body.event : null;
  const type = event ? idOf(event.type) : idOf(body.event);
  if (!type) return fail('no event type (`event` or `event.type`)');
  const eventId = (event && idOf(event.id)) ?? idOf(body.eventId);
  const kind = kindOfProviderBEvent(type);
  const carried = kind === 'new_order' && body.order !== undefined && body.order !== null;
  const order = carried ? normalizeProviderBOrder(body.order) : null;
  const orderDetail = isObject(body.order) && isObject(body.order.order_detail) ? body.order.order_detail : null;
  const externalOrderId = order?.externalId ?? idOf(body.order_id) ?? (event && idOf(event.order_id)) ?? (orderDetail && idOf(orderDetail.order_id));
  if (kind !== 'other' && !externalOrderId) return fail(`a ${type} event names no order (\`order\` or \`order_id\`)`);
  return { eventId, type, kind, externalOrderId, order };
}

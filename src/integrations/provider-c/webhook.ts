/**
 * provider_c's webhooks, shaped like Uber Eats' order notifications: the body names the order and
 * does not carry it, so the job fetches it with `getOrder`:
 *
 *   { "event_type": "orders.notification", "event_id": "<uuid>", "event_time": 1427343990,
 *     "meta": { "resource_id": "<order id>", "status": "pos", "user_id": "<store id>" },
 *     "resource_href": "https://api.uber.com/v2/eats/order/<order id>" }
 *
 * `orders.notification` is a new order, `orders.cancel` the platform (or the eater) cancelled it; any
 * other event type is `other`. It is authenticated by an RS256 JWT in `Authorization` (`signature.ts`),
 * checked on the raw body before this is called.
 */
import type { DeliveryWebhookEvent } from '../delivery.js';

export { normalizeProviderCOrder } from './order.js';

/** The service's receiving route (the module adds it): `/t/:slug/webhooks/provider_c`. */
export const PROVIDER_C_WEBHOOK_PATH = '/t/:slug/webhooks/provider_c';

export const PROVIDER_C_EVENT_TYPES = { newOrder: 'orders.notification', cancel: 'orders.cancel' } as const;

/** What the simulator puts in a notification (and what `parseProviderCWebhook` reads back). */
export interface ProviderCNotification {
  event_type: string;
  event_id: string;
  event_time: number;
  meta: { resource_id: string; status: string; user_id: string };
  resource_href: string;
}

/** Reads a verified webhook body; throws a clear Error on a body it cannot read (answer 400). */
export function parseProviderCWebhook(body: unknown): DeliveryWebhookEvent {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('provider_c webhook: the body is not a JSON object');
  const b = body as Record<string, unknown>;
  const type = text(b.event_type);
  if (!type) throw new Error('provider_c webhook: event_type is missing');
  const meta = b.meta && typeof b.meta === 'object' && !Array.isArray(b.meta) ? (b.meta as Record<string, unknown>) : {};
  const kind = type === PROVIDER_C_EVENT_TYPES.newOrder ? 'new_order' : type === PROVIDER_C_EVENT_TYPES.cancel ? 'cancelled' : 'other';
  const externalOrderId = text(meta.resource_id);
  if (kind !== 'other' && !externalOrderId) throw new Error(`provider_c webhook: ${type} without meta.resource_id`);
  return { eventId: text(b.event_id), type, kind, externalOrderId, order: null };
}

/** The store a notification is about (`meta.user_id`), when it names one. */
export function providerCWebhookStoreId(body: unknown): string | null {
  const meta = body && typeof body === 'object' ? (body as { meta?: { user_id?: unknown } }).meta : undefined;
  return text(meta?.user_id);
}

function text(v: unknown): string | null {
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : null;
}

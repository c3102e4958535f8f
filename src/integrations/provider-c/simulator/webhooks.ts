/**
 * The provider_c simulator's webhooks: an order notification (`orders.notification`, `orders.cancel`)
 * posted to the URL the control call names (each tenant has its own route, `/t/<slug>/webhooks/provider_c`),
 * authenticated by an RS256 JWT in `Authorization: Bearer` (see `../signature.ts`), retried when the
 * receiver does not answer 2xx. A duplicate is the same body (same `event_id`) signed again; a "bad"
 * webhook is signed wrongly on purpose (`BadSignature`). Every attempt is recorded.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import { joinUrl, type ProviderLogger } from '../../http.js';
import type { WebhookDeliverer } from '../../simulator/webhook-delivery.js';
import { perUrlWebhookSender, type DeliveryAttempt } from '../../simulator/webhook-sender.js';
import type { UberOrder } from '../order.js';
import { PROVIDER_C_SIGNATURE_HEADER, signProviderCJwt } from '../signature.js';
import type { ProviderCNotification } from '../webhook.js';
import type { KeyRing } from './keys.js';
import { SimulatorError } from './state.js';

/** How a webhook is spoiled: another key under the current kid, a kid not published, another body, expired, another store. */
export const BAD_SIGNATURES = ['signature', 'unknown_kid', 'body', 'expired', 'audience'] as const;
export type BadSignature = (typeof BAD_SIGNATURES)[number];

export type ProviderCWebhookDelivery = DeliveryAttempt & {
  orderId: string;
  eventId: string;
  eventType: string;
  kid: string;
  bad: BadSignature | null;
};
type Meta = Omit<ProviderCWebhookDelivery, keyof DeliveryAttempt>;

export interface ProviderCWebhookSettings {
  /** Where a webhook goes when the control call names none. */
  url: string | null;
  /** A control call may name a path (`/t/demo/webhooks/provider_c`): it is resolved on this base (the service's URL). */
  baseUrl: string | null;
  deliver: WebhookDeliverer;
  issuer: string;
  tokenTtlSeconds: number;
}

export function providerCWebhooks(opts: { clock: Clock; log: ProviderLogger; keys: KeyRing; settings: ProviderCWebhookSettings; retryDelaysMs: number[] }) {
  const { clock, log, keys, settings, retryDelaysMs } = opts;
  const sender = perUrlWebhookSender<Meta>({
    clock,
    log,
    provider: 'provider_c',
    userAgent: 'provider-c-simulator/1',
    signatureHeader: PROVIDER_C_SIGNATURE_HEADER,
    deliver: () => settings.deliver,
    retryDelaysMs,
  });
  /** The last notification of each order (what a duplicate sends again). */
  const sent = new Map<string, { body: string; url: string | null; type: string; eventId: string }>();

  /** An absolute http(s) URL as is; a path on `settings.baseUrl`; none: the default URL. */
  function resolveUrl(url: unknown): string | null {
    if (url === undefined || url === null || url === '') return settings.url;
    if (typeof url === 'string' && /^https?:\/\/[^/]/i.test(url)) return url;
    if (typeof url === 'string' && url.startsWith('/') && settings.baseUrl) return joinUrl(settings.baseUrl, url);
    throw new SimulatorError(400, 'bad_request', 'webhookUrl must be an http(s) URL or, in-process, a path of the service');
  }

  async function post(order: UberOrder, body: string, url: string | null, type: string, eventId: string, bad: BadSignature | null) {
    const key = bad === 'signature' || bad === 'unknown_kid' ? keys.stranger() : keys.current;
    const kid = bad === 'unknown_kid' ? keys.stranger().kid : keys.current.kid;
    const now = bad === 'expired' ? new Date(clock.now().getTime() - 2 * settings.tokenTtlSeconds * 1000) : clock.now();
    const jwt = await signProviderCJwt({
      rawBody: bad === 'body' ? `${body} ` : body,
      privateKey: key.privateKey,
      kid,
      issuer: settings.issuer,
      audience: bad === 'audience' ? `${order.store.id}-other` : order.store.id,
      now,
      ttlSec: settings.tokenTtlSeconds,
    });
    return sender.send(url, { orderId: order.id, eventId, eventType: type, kid, bad }, body, `Bearer ${jwt}`);
  }

  return {
    deliveries: sender.deliveries,
    resolveUrl,

    /** A new notification about `order` (a fresh `event_id`); resolves with the first attempt. */
    notify(order: UberOrder, type: string, url: string | null, bad: BadSignature | null = null) {
      const eventId = randomUUID();
      const event: ProviderCNotification = {
        event_type: type,
        event_id: eventId,
        event_time: Math.floor(clock.now().getTime() / 1000),
        meta: { resource_id: order.id, status: 'pos', user_id: order.store.id },
        resource_href: `https://api.uber.com/v2/eats/order/${order.id}`,
      };
      const body = JSON.stringify(event);
      sent.set(order.id, { body, url, type, eventId });
      return post(order, body, url, type, eventId, bad);
    },

    /** The last notification of `order` again: the same bytes, a new JWT (`url` overrides where). */
    resend(order: UberOrder, url?: string | null, bad: BadSignature | null = null) {
      const last = sent.get(order.id);
      if (!last) throw new SimulatorError(409, 'not_sent', `no webhook was sent for order ${order.id}`);
      return post(order, last.body, url === undefined ? last.url : url, last.type, last.eventId, bad);
    },

    onDelivery: sender.onDelivery,
    nextDelivery: sender.nextDelivery,
    idle: sender.idle,
    close: sender.close,
  };
}
export type ProviderCWebhooks = ReturnType<typeof providerCWebhooks>;

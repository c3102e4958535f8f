/**
 * The provider_a simulator's webhooks: an event about an order, posted to the URL the control call names
 * (each tenant has its own route, `/t/:slug/webhooks/provider_a`), signed in `x-provider-a-hmac-sha256`
 * (or with a wrong secret, or unsigned, when asked), retried when the receiver does not answer 2xx.
 */
import type { Clock } from '../../../platform/clock.js';
import type { ProviderLogger } from '../../http.js';
import type { WebhookDeliverer } from '../../simulator/webhook-delivery.js';
import { perUrlWebhookSender, type DeliveryAttempt } from '../../simulator/webhook-sender.js';
import { PROVIDER_A_SIGNATURE_HEADER, signProviderAPayload } from '../signature.js';
import type { ProviderAWebhookShape, SignatureMode } from './state.js';

export interface WebhookMeta {
  orderId: string;
  eventId: string;
  event: string;
  shape: ProviderAWebhookShape;
  signed: SignatureMode;
}
export type WebhookDelivery = DeliveryAttempt & WebhookMeta;

/** The defaults; changeable while the simulator runs (`setWebhook`). */
export interface WebhookSettings {
  /** Where webhooks go when the call names no URL. */
  url: string | null;
  /** The secret webhooks are signed with unless the call gives one; none: unsigned. */
  secret: string | null;
  shape: ProviderAWebhookShape;
  deliver: WebhookDeliverer;
}

export interface WebhookSenderOptions {
  clock: Clock;
  log: ProviderLogger;
  settings: WebhookSettings;
  retryDelaysMs: number[];
}

export function webhookSender({ clock, log, settings, retryDelaysMs }: WebhookSenderOptions) {
  const sender = perUrlWebhookSender<WebhookMeta>({
    clock,
    log,
    provider: 'provider_a',
    userAgent: 'provider-a-simulator/1',
    signatureHeader: PROVIDER_A_SIGNATURE_HEADER,
    deliver: () => settings.deliver,
    retryDelaysMs,
  });

  /** The header value for `mode`: the HMAC with the secret, one with a wrong secret, or none. */
  function signatureOf(body: string, mode: SignatureMode, secret: string | null): string | null {
    if (mode === 'none' || !secret) return mode === 'bad' ? signProviderAPayload(body, 'not-the-secret') : null;
    return signProviderAPayload(body, mode === 'bad' ? `${secret}-wrong` : secret);
  }

  return {
    deliveries: sender.deliveries,

    /** Sends `body` to `url`; resolves with the first attempt, retries go on in the background. */
    send(url: string, meta: Omit<WebhookMeta, 'signed'>, body: string, opts: { signature?: SignatureMode; secret?: string | null } = {}): Promise<WebhookDelivery> {
      const secret = opts.secret === undefined ? settings.secret : opts.secret;
      const signed: SignatureMode = opts.signature ?? (secret ? 'valid' : 'none');
      return sender.send(url, { ...meta, signed }, body, signatureOf(body, signed, secret));
    },

    onDelivery: sender.onDelivery,
    nextDelivery: sender.nextDelivery,
    idle: sender.idle,
    close: sender.close,
  };
}
export type WebhookSender = ReturnType<typeof webhookSender>;

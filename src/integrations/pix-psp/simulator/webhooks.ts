/**
 * The pix_psp simulator's webhooks: each Pix received, `POST <registered URL>/pix` with `{ pix: [...] }`,
 * signed in `x-pix-psp-signature` when it has a secret (our deviation from the mTLS of the API Pix, see
 * `../signature.ts`), retried when the receiver does not answer 2xx; every attempt is recorded.
 */
import type { Clock } from '../../../platform/clock.js';
import type { ProviderLogger } from '../../http.js';
import type { WebhookSettings } from '../../simulator/provider-simulator.js';
import { retryingWebhookSender, type DeliveryAttempt } from '../../simulator/webhook-sender.js';
import { PIX_PSP_SIGNATURE_HEADER, signPixPspPayload } from '../signature.js';
import { viewPix, type SimPix } from './state.js';

export type PixWebhookDelivery = DeliveryAttempt & { txid: string; endToEndId: string };

/** The registered URL with `/pix` appended to its path (a query string stays last). */
export function pixWebhookUrl(registered: string): string {
  const u = new URL(registered);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/pix`;
  return u.toString();
}

export interface PixWebhookSenderOptions {
  clock: Clock;
  log: ProviderLogger;
  /** `url`: the registered URL (the PSP appends `/pix`); `secret` none: webhooks are sent unsigned. */
  settings: WebhookSettings;
  retryDelaysMs: number[];
}

export function pixWebhookSender({ clock, log, settings, retryDelaysMs }: PixWebhookSenderOptions) {
  const sender = retryingWebhookSender<{ txid: string; endToEndId: string }>({
    clock,
    log,
    provider: 'pix_psp',
    userAgent: 'pix-psp-simulator/1',
    signatureHeader: PIX_PSP_SIGNATURE_HEADER,
    target: () => ({ url: settings.url ? pixWebhookUrl(settings.url) : null, deliver: settings.deliver }),
    retryDelaysMs,
  });
  return {
    ...sender,
    /** Reports a received Pix; resolves with the first attempt, retries go on in the background. */
    notify(pix: SimPix): Promise<PixWebhookDelivery> {
      const body = JSON.stringify({ pix: [viewPix(pix)] });
      const signature = settings.secret ? signPixPspPayload(body, settings.secret) : null;
      return sender.send({ txid: pix.txid, endToEndId: pix.endToEndId }, body, signature);
    },
  };
}
export type PixWebhookSender = ReturnType<typeof pixWebhookSender>;

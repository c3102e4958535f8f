/**
 * How the provider_b simulator sends its webhooks: to the URL each control call gives, signed
 * (`x-provider-b-signature: t=...,sign=...`) when it has a secret, through its `WebhookDeliverer`, and
 * retried (2 s, 5 s by default) while the receiver does not answer 2xx. A webhook sent with a bad
 * signature on purpose is sent once (a 401 is the expected answer). Every attempt is recorded.
 */
import type { Clock } from '../../../platform/clock.js';
import { describeError, type ProviderLogger } from '../../http.js';
import type { WebhookDeliverer } from '../../simulator/webhook-delivery.js';
import { PROVIDER_B_SIGNATURE_HEADER, signProviderBPayload } from '../signature.js';

export interface WebhookDelivery {
  orderId: string;
  type: string;
  attempt: number;
  url: string;
  body: string;
  signature: string | null;
  badSignature: boolean;
  status: number | null;
  error: string | null;
  at: string;
}

export interface OutgoingWebhook {
  orderId: string;
  type: string;
  url: string;
  body: string;
  secret: string | null;
  badSignature?: boolean;
}

export function webhookSender(opts: { clock: Clock; log: ProviderLogger; deliver: () => WebhookDeliverer; retryDelaysMs: number[] }) {
  const { clock, log, deliver, retryDelaysMs } = opts;
  const deliveries: WebhookDelivery[] = [];
  const timers = new Map<NodeJS.Timeout, () => void>();
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };

  function signatureOf(w: OutgoingWebhook): string | null {
    if (w.badSignature) return signProviderBPayload(w.body, `not-the-secret-${w.secret ?? ''}`, clock.now());
    return w.secret ? signProviderBPayload(w.body, w.secret, clock.now()) : null;
  }

  async function attempt(w: OutgoingWebhook, n: number): Promise<WebhookDelivery> {
    const signature = signatureOf(w); // signed at each attempt: the timestamp stays fresh
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'provider-b-simulator/1' };
    if (signature) headers[PROVIDER_B_SIGNATURE_HEADER] = signature;
    const at = clock.now().toISOString();
    const base = { orderId: w.orderId, type: w.type, attempt: n, url: w.url, body: w.body, signature, badSignature: Boolean(w.badSignature), at };
    let d: WebhookDelivery;
    try {
      const res = await deliver()({ url: w.url, headers, body: w.body });
      d = { ...base, status: res.status, error: res.status >= 200 && res.status < 300 ? null : `receiver answered ${res.status}` };
    } catch (err) {
      d = { ...base, status: null, error: describeError(err) };
    }
    deliveries.push(d);
    if (deliveries.length > 1000) deliveries.splice(0, deliveries.length - 1000);
    if (d.error && !w.badSignature && n <= retryDelaysMs.length && !closed) {
      log.warn({ orderId: w.orderId, attempt: n, error: d.error }, 'provider_b simulator: webhook not accepted; will retry');
      void track(
        new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            timers.delete(t);
            if (closed) return resolve();
            attempt(w, n + 1).then(() => resolve(), () => resolve());
          }, retryDelaysMs[n - 1]);
          timers.set(t, resolve);
        }),
      );
    }
    return d;
  }

  return {
    deliveries: deliveries as readonly WebhookDelivery[],
    /** Sends one webhook; resolves with the first attempt, retries go on in the background. */
    send: (w: OutgoingWebhook) => track(attempt(w, 1)),
    async idle() {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
    async close() {
      closed = true;
      for (const [t, settle] of timers) {
        clearTimeout(t);
        settle();
      }
      timers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}
export type WebhookSender = ReturnType<typeof webhookSender>;

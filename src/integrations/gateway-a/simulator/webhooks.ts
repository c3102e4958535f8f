/**
 * The gateway_a simulator's webhook sender: the signed result of a decided intent, posted to the
 * service and retried when the receiver does not answer 2xx; every attempt is recorded.
 */
import type { Clock } from '../../../platform/clock.js';
import { describeError, type ProviderLogger } from '../../http.js';
import type { WebhookDeliverer } from '../../simulator/webhook-delivery.js';
import { GATEWAY_A_SIGNATURE_HEADER, signGatewayAPayload } from '../signature.js';
import { buildGatewayAWebhookBody, type GatewayAWebhookShape, type PaymentOutcome } from '../webhook.js';
import type { SimIntent } from './state.js';

export interface WebhookDelivery {
  intentId: string;
  attempt: number;
  url: string | null;
  shape: GatewayAWebhookShape;
  outcome: PaymentOutcome;
  body: string;
  signature: string | null;
  /** HTTP status of the receiver; null when it could not be reached or no URL is configured. */
  status: number | null;
  error: string | null;
  at: string;
}

/** Where and how webhooks go; changeable while the simulator runs (`setWebhook`). */
export interface WebhookSettings {
  /** None: results are only readable by GET. */
  url: string | null;
  /** None: webhooks are sent unsigned (a gateway without a secret configured). */
  secret: string | null;
  shape: GatewayAWebhookShape;
  deliver: WebhookDeliverer;
}

export interface WebhookSenderOptions {
  clock: Clock;
  log: ProviderLogger;
  settings: WebhookSettings;
  /** Waits before each retry of a webhook the receiver did not accept (non-2xx or unreachable). */
  retryDelaysMs: number[];
}

export function webhookSender({ clock, log, settings, retryDelaysMs }: WebhookSenderOptions) {
  const deliveries: WebhookDelivery[] = [];
  const listeners = new Set<(d: WebhookDelivery) => void>();
  const retryTimers = new Map<NodeJS.Timeout, () => void>(); // timer -> settles its tracked promise
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  function emit(d: WebhookDelivery) {
    deliveries.push(d);
    if (deliveries.length > 1000) deliveries.splice(0, deliveries.length - 1000);
    for (const l of listeners) {
      try {
        l(d);
      } catch {
        /* a listener's failure is not the simulator's */
      }
    }
  }

  function track<T>(p: Promise<T>): Promise<T> {
    inFlight.add(p);
    p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  }

  async function attempt(intent: SimIntent, shape: GatewayAWebhookShape, body: string, signature: string | null, n: number): Promise<WebhookDelivery> {
    const base = {
      intentId: intent.id,
      attempt: n,
      url: settings.url,
      shape,
      outcome: (intent.payment?.state === 'approved' ? 'approved' : 'declined') as PaymentOutcome,
      body,
      signature,
      at: clock.now().toISOString(),
    };
    if (!settings.url) {
      const d = { ...base, status: null, error: 'no webhook URL configured' };
      emit(d);
      return d;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'gateway-a-simulator/1' };
    if (signature) headers[GATEWAY_A_SIGNATURE_HEADER] = signature;
    let d: WebhookDelivery;
    try {
      const res = await settings.deliver({ url: settings.url, headers, body });
      d = { ...base, status: res.status, error: res.status >= 200 && res.status < 300 ? null : `receiver answered ${res.status}` };
    } catch (err) {
      d = { ...base, status: null, error: describeError(err) };
    }
    emit(d);
    if (d.error && n <= retryDelaysMs.length && !closed) {
      log.warn({ intentId: intent.id, attempt: n, error: d.error }, 'gateway_a simulator: webhook not accepted; will retry');
      const wait = retryDelaysMs[n - 1];
      void track(
        new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            retryTimers.delete(t);
            if (closed) return resolve();
            attempt(intent, shape, body, signature, n + 1).then(() => resolve(), () => resolve());
          }, wait);
          retryTimers.set(t, resolve);
        }),
      );
    }
    return d;
  }

  return {
    deliveries: deliveries as readonly WebhookDelivery[],

    /** Sends the webhook of a decided intent; resolves with the first attempt, retries go on in the background. */
    notify(intent: SimIntent, shape?: GatewayAWebhookShape): Promise<WebhookDelivery> {
      const s = shape ?? settings.shape;
      intent.lastShape = s;
      const body = JSON.stringify(
        buildGatewayAWebhookBody(s, {
          intentId: intent.id,
          externalId: intent.externalReference,
          outcome: intent.payment?.state === 'approved' ? 'approved' : 'declined',
          paymentId: intent.payment ? String(intent.payment.id) : null,
          canceled: intent.state === 'CANCELED',
        }),
      );
      const signature = settings.secret ? signGatewayAPayload(body, settings.secret) : null;
      return track(attempt(intent, s, body, signature, 1));
    },

    /** Calls `listener` after each webhook attempt; returns an unsubscribe function. */
    onDelivery(listener: (d: WebhookDelivery) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** Resolves with the next delivery attempt matching `filter` (rejects after `timeoutMs`). */
    nextDelivery(filter: (d: WebhookDelivery) => boolean = () => true, timeoutMs = 5_000): Promise<WebhookDelivery> {
      return new Promise<WebhookDelivery>((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(l);
          reject(new Error(`no webhook delivery within ${timeoutMs} ms`));
        }, timeoutMs);
        const l = (d: WebhookDelivery) => {
          if (!filter(d)) return;
          clearTimeout(timer);
          listeners.delete(l);
          resolve(d);
        };
        listeners.add(l);
      });
    },

    /** Resolves when no webhook delivery (retries included) is under way. */
    async idle(): Promise<void> {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },

    /** Cancels pending retries and waits for the attempts under way. */
    async close(): Promise<void> {
      closed = true;
      for (const [t, settle] of retryTimers) {
        clearTimeout(t);
        settle();
      }
      retryTimers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}
export type WebhookSender = ReturnType<typeof webhookSender>;

/**
 * How a simulated provider sends its webhooks: the exact body, signed when it has a secret, posted through
 * its `WebhookDeliverer` and retried when the receiver does not answer 2xx; every attempt is recorded.
 * Shared by the simulators that send webhooks (gateway_a, pix_psp; provider_a, provider_c one per URL: `perUrlWebhookSender`);
 * each adds what its attempts are about.
 */
import type { Clock } from '../../platform/clock.js';
import { describeError, type ProviderLogger } from '../http.js';
import type { WebhookDeliverer } from './webhook-delivery.js';

/** One attempt to deliver a webhook. */
export interface DeliveryAttempt {
  attempt: number;
  url: string | null;
  body: string;
  signature: string | null;
  /** HTTP status of the receiver; null when it could not be reached or no URL is configured. */
  status: number | null;
  error: string | null;
  at: string;
}

export interface WebhookTarget {
  /** None: the webhook goes nowhere (results are only readable by GET). */
  url: string | null;
  deliver: WebhookDeliverer;
}

export interface WebhookSenderOptions {
  clock: Clock;
  log: ProviderLogger;
  /** Provider in logs (`gateway_a`). */
  provider: string;
  userAgent: string;
  /** Header the signature goes in. */
  signatureHeader: string;
  /** Read at each attempt, so a change of URL or deliverer applies to the retries. */
  target: () => WebhookTarget;
  /** Waits before each retry of a webhook the receiver did not accept (non-2xx or unreachable). */
  retryDelaysMs: number[];
}

/** The last 1000 deliveries `D`, and who is told of each. */
function deliveryRecord<D>() {
  const deliveries: D[] = [];
  const listeners = new Set<(d: D) => void>();

  function emit(d: D) {
    deliveries.push(d);
    if (deliveries.length > 1000) deliveries.splice(0, deliveries.length - 1000);
    for (const l of [...listeners]) {
      try {
        l(d);
      } catch {
        /* a listener's failure is not the simulator's */
      }
    }
  }

  /** Calls `listener` after each webhook attempt; returns an unsubscribe function. */
  function onDelivery(listener: (d: D) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** Resolves with the next delivery attempt matching `filter` (rejects after `timeoutMs`). */
  function nextDelivery(filter: (d: D) => boolean = () => true, timeoutMs = 5_000): Promise<D> {
    return new Promise<D>((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(l);
        reject(new Error(`no webhook delivery within ${timeoutMs} ms`));
      }, timeoutMs);
      const l = (d: D) => {
        if (!filter(d)) return;
        clearTimeout(timer);
        listeners.delete(l);
        resolve(d);
      };
      listeners.add(l);
    });
  }

  return { deliveries: deliveries as readonly D[], emit, onDelivery, nextDelivery };
}

/** Sends webhooks whose attempts are recorded as `M` (what they are about) plus the attempt. */
export function retryingWebhookSender<M extends object>({ clock, log, provider, userAgent, signatureHeader, target, retryDelaysMs }: WebhookSenderOptions) {
  type Delivery = M & DeliveryAttempt;
  const { deliveries, emit, onDelivery, nextDelivery } = deliveryRecord<Delivery>();
  const retryTimers = new Map<NodeJS.Timeout, () => void>(); // timer -> settles its tracked promise
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  function track<T>(p: Promise<T>): Promise<T> {
    inFlight.add(p);
    p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  }

  async function attempt(meta: M, body: string, signature: string | null, n: number): Promise<Delivery> {
    const { url, deliver } = target();
    const base = { ...meta, attempt: n, url, body, signature, at: clock.now().toISOString() };
    if (!url) {
      const d = { ...base, status: null, error: 'no webhook URL configured' };
      emit(d);
      return d;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': userAgent };
    if (signature) headers[signatureHeader] = signature;
    let d: Delivery;
    try {
      const res = await deliver({ url, headers, body });
      d = { ...base, status: res.status, error: res.status >= 200 && res.status < 300 ? null : `receiver answered ${res.status}` };
    } catch (err) {
      d = { ...base, status: null, error: describeError(err) };
    }
    emit(d);
    if (d.error && n <= retryDelaysMs.length && !closed) {
      const fields: Record<string, unknown> = { ...meta, attempt: n, error: d.error };
      log.warn(fields, `${provider} simulator: webhook not accepted; will retry`);
      void track(
        new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            retryTimers.delete(t);
            if (closed) return resolve();
            attempt(meta, body, signature, n + 1).then(() => resolve(), () => resolve());
          }, retryDelaysMs[n - 1]);
          retryTimers.set(t, resolve);
        }),
      );
    }
    return d;
  }

  return {
    deliveries,

    /** Sends `body` (signed with `signature`, when given); resolves with the first attempt, retries go on in the background. */
    send: (meta: M, body: string, signature: string | null): Promise<Delivery> => track(attempt(meta, body, signature, 1)),

    onDelivery,
    nextDelivery,

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

export type PerUrlWebhookSenderOptions = Omit<WebhookSenderOptions, 'target'> & {
  /** Read at each attempt, so a change of deliverer applies to the retries. */
  deliver: () => WebhookDeliverer;
};

/**
 * Sends webhooks to the URL each call names (none: nowhere) through one `retryingWebhookSender` per URL, so each
 * retry goes where its first attempt went; the attempts to all URLs are recorded and reported together.
 */
export function perUrlWebhookSender<M extends object>({ deliver, ...options }: PerUrlWebhookSenderOptions) {
  type Sender = ReturnType<typeof retryingWebhookSender<M>>;
  const senders = new Map<string, Sender>(); // no URL: ''
  const { deliveries, emit, onDelivery, nextDelivery } = deliveryRecord<M & DeliveryAttempt>();

  function senderFor(url: string | null): Sender {
    let s = senders.get(url ?? '');
    if (!s) {
      s = retryingWebhookSender<M>({ ...options, target: () => ({ url, deliver: deliver() }) });
      s.onDelivery(emit);
      senders.set(url ?? '', s);
    }
    return s;
  }

  return {
    deliveries,

    /** Sends `body` to `url` (signed with `signature`, when given); resolves with the first attempt, retries go on in the background. */
    send: (url: string | null, meta: M, body: string, signature: string | null) => senderFor(url).send(meta, body, signature),

    onDelivery,
    nextDelivery,

    /** Resolves when no webhook delivery (retries included) is under way. */
    async idle(): Promise<void> {
      await Promise.all([...senders.values()].map((s) => s.idle()));
    },

    /** Cancels pending retries and waits for the attempts under way. */
    async close(): Promise<void> {
      await Promise.all([...senders.values()].map((s) => s.close()));
    },
  };
}

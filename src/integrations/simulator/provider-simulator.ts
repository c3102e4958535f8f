/**
 * What the simulators of OAuth providers with signed webhooks (gateway_a, pix_psp) share besides their
 * protocol: the options they take, their settings resolved with defaults, and the helpers tests drive them
 * with (tokens, webhook deliveries).
 */
import { systemClock, type Clock } from '../../platform/clock.js';
import { silentLogger, type FetchLike, type ProviderLogger } from '../http.js';
import type { TokenStore } from './oauth.js';
import { fetchDeliverer, type WebhookDeliverer } from './webhook-delivery.js';

export interface ProviderSimulatorOptions {
  /** The OAuth client it accepts (default: the simulator's own). */
  clientId?: string;
  clientSecret?: string;
  tokenTtlSeconds?: number;
  /** Where webhooks go (the service's route). None: results are only readable by GET. */
  webhookUrl?: string;
  /** Key of the webhooks' signature; none: they are sent unsigned (a provider without a secret configured). */
  webhookSecret?: string;
  deliver?: WebhookDeliverer;
  /** Waits before each retry of a webhook the receiver did not accept (non-2xx or unreachable). Default 2 s, 5 s. */
  webhookRetryDelaysMs?: number[];
  clock?: Clock;
  /** Used by the default deliverer. */
  fetch?: FetchLike;
  log?: ProviderLogger;
}

/** Where and how webhooks go; changeable while the simulator runs (`setWebhook`). */
export interface WebhookSettings {
  url: string | null;
  secret: string | null;
  deliver: WebhookDeliverer;
}

/** The options with their defaults. */
export function resolveProviderSimulator(options: ProviderSimulatorOptions, defaults: { clientId: string; clientSecret: string }) {
  const webhook: WebhookSettings = {
    url: options.webhookUrl ?? null,
    secret: options.webhookSecret ?? null,
    deliver: options.deliver ?? fetchDeliverer(options.fetch),
  };
  return {
    clock: options.clock ?? systemClock,
    log: options.log ?? silentLogger,
    clientId: options.clientId ?? defaults.clientId,
    clientSecret: options.clientSecret ?? defaults.clientSecret,
    webhook,
    retryDelaysMs: options.webhookRetryDelaysMs ?? [2_000, 5_000],
  };
}

/** Changes where and how the next webhooks (and the pending retries) go. */
export function updateWebhook(settings: WebhookSettings, opts: { url?: string | null; secret?: string | null; deliver?: WebhookDeliverer }) {
  if (opts.url !== undefined) settings.url = opts.url;
  if (opts.secret !== undefined) settings.secret = opts.secret;
  if (opts.deliver) settings.deliver = opts.deliver;
}

/** What tests drive such a simulator with, besides its own helpers (`D`: one webhook delivery attempt). */
export interface ProviderSimulatorHelpers<D> {
  /** Revokes every issued token (the next API call gets 401). */
  revokeTokens(): void;
  readonly tokenRequests: number;
  /** Every webhook attempt, oldest first (the last 1000). */
  readonly deliveries: readonly D[];
  /** Calls `listener` after each webhook attempt; returns an unsubscribe function. */
  onDelivery(listener: (d: D) => void): () => void;
  /** Resolves with the next delivery attempt matching `filter` (rejects after `timeoutMs`). */
  nextDelivery(filter?: (d: D) => boolean, timeoutMs?: number): Promise<D>;
  /** Resolves when no webhook delivery (retries included) is under way. */
  idle(): Promise<void>;
}

type Sender<D> = Pick<ProviderSimulatorHelpers<D>, 'deliveries' | 'onDelivery' | 'nextDelivery' | 'idle'>;

/** The helpers over a simulator's tokens and webhook sender; the simulator's own members are assigned onto it. */
export function providerSimulatorHelpers<D>(tokens: TokenStore, webhooks: Sender<D>): ProviderSimulatorHelpers<D> {
  return {
    revokeTokens: tokens.revoke,
    get tokenRequests() {
      return tokens.requests;
    },
    deliveries: webhooks.deliveries, // the sender's own list, kept up to date
    onDelivery: webhooks.onDelivery,
    nextDelivery: webhooks.nextDelivery,
    idle: webhooks.idle,
  };
}

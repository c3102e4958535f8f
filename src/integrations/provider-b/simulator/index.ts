/**
 * provider_b simulator: plays the Rappi-like platform with its protocol (JSON client-credentials token
 * with audience, orders by store, status actions, menu upsert, signed webhooks), so the service can be
 * tested and demonstrated without the real platform. It decides nothing by itself: orders appear when a
 * test or a person creates them through the control API, which also sends their webhooks.
 *
 * Parts: `state.ts` (what it remembers), `orders.ts` (orders in the getOrders shape), `actions.ts`
 * (create, resend, cancel), `webhooks.ts` (signed webhooks and retries), `protocol-routes.ts`,
 * `control-routes.ts` (`/__sim...`), `standalone.ts` (its own server).
 */
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../../../platform/clock.js';
import { silentLogger, type FetchLike, type ProviderLogger } from '../../http.js';
import { controlApi, simulatorServers, type SimulatorRoutesOptions, type SimulatorServer } from '../../simulator/server.js';
import { fetchDeliverer, type WebhookDeliverer } from '../../simulator/webhook-delivery.js';
import { PROVIDER_B_DEFAULT_AUDIENCE } from '../client.js';
import { orderActions, type CreateOptions, type SendOptions } from './actions.js';
import { controlRoutes } from './control-routes.js';
import type { SimOrderInput } from './orders.js';
import { apiRoutes, tokenRoute } from './protocol-routes.js';
import {
  PROVIDER_B_SIM_CLIENT_ID,
  PROVIDER_B_SIM_CLIENT_SECRET,
  PROVIDER_B_SIM_TOKEN_TTL_SECONDS,
  simState,
  type SimCatalogItem,
  type SimOrder,
  type SimStatusPush,
} from './state.js';
import { webhookSender, type WebhookDelivery } from './webhooks.js';

export { PROVIDER_B_SIM_CLIENT_ID, PROVIDER_B_SIM_CLIENT_SECRET, PROVIDER_B_SIM_STORE_ID, PROVIDER_B_SIM_TOKEN_TTL_SECONDS, SimulatorError } from './state.js';
export type { SimCatalogItem, SimOrder, SimOrderState, SimStatusPush } from './state.js';
export type { SimItem, SimOrderInput, SimTopping } from './orders.js';
export type { CreateOptions, SendOptions } from './actions.js';
export type { WebhookDelivery } from './webhooks.js';

export interface ProviderBSimulatorOptions {
  clientId?: string;
  clientSecret?: string;
  audience?: string;
  tokenTtlSeconds?: number;
  /** Default destination of webhooks when a control call gives none. */
  webhookUrl?: string;
  /** Default key of the signature when a control call gives none; none: unsigned. */
  webhookSecret?: string;
  deliver?: WebhookDeliverer;
  /** Waits before each retry of a webhook the receiver did not accept. Default 2 s, 5 s. */
  webhookRetryDelaysMs?: number[];
  clock?: Clock;
  fetch?: FetchLike;
  log?: ProviderLogger;
}

export interface ProviderBSimulator extends SimulatorServer {
  createOrder(input?: SimOrderInput, opts?: CreateOptions): Promise<{ order: SimOrder; webhook: WebhookDelivery }>;
  resend(orderId: string, opts?: SendOptions): Promise<WebhookDelivery>;
  cancel(orderId: string, opts?: SendOptions & { event?: string }): Promise<WebhookDelivery>;
  getOrder(orderId: string): SimOrder | undefined;
  readonly statuses: readonly SimStatusPush[];
  catalog(): SimCatalogItem[];
  readonly deliveries: readonly WebhookDelivery[];
  readonly tokenRequests: number;
  revokeTokens(): void;
  setWebhook(opts: { url?: string | null; secret?: string | null; deliver?: WebhookDeliverer }): void;
  /** Resolves when no webhook delivery (retries included) is under way. */
  idle(): Promise<void>;
}

export function createProviderBSimulator(options: ProviderBSimulatorOptions = {}): ProviderBSimulator {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silentLogger;
  const state = simState(clock, options.tokenTtlSeconds ?? PROVIDER_B_SIM_TOKEN_TTL_SECONDS);
  const defaults = { webhookUrl: options.webhookUrl ?? null, webhookSecret: options.webhookSecret ?? null };
  let deliver = options.deliver ?? fetchDeliverer(options.fetch);
  const webhooks = webhookSender({ clock, log, deliver: () => deliver, retryDelaysMs: options.webhookRetryDelaysMs ?? [2_000, 5_000] });
  const actions = orderActions({ state, clock, webhooks, defaults });
  const protocol = {
    state,
    clock,
    clientId: options.clientId ?? PROVIDER_B_SIM_CLIENT_ID,
    clientSecret: options.clientSecret ?? PROVIDER_B_SIM_CLIENT_SECRET,
    audience: options.audience ?? PROVIDER_B_DEFAULT_AUDIENCE,
  };

  async function routes(app: FastifyInstance, opts: SimulatorRoutesOptions = {}) {
    tokenRoute(app, protocol);
    await apiRoutes(app, protocol);
    await controlApi(app, opts, (ctl) => controlRoutes(ctl, { state, actions, webhooks }));
  }

  const { buildServer, listen, closeServers } = simulatorServers(routes);

  return {
    routes,
    buildServer,
    listen,
    async close() {
      await webhooks.close();
      await closeServers();
    },
    createOrder: actions.create,
    resend: actions.resend,
    cancel: actions.cancel,
    getOrder: (id) => state.orders.get(id),
    statuses: state.statuses,
    catalog: () => [...state.catalog.values()],
    deliveries: webhooks.deliveries,
    get tokenRequests() {
      return state.tokens.requests;
    },
    revokeTokens: state.tokens.revoke,
    setWebhook(opts) {
      if (opts.url !== undefined) defaults.webhookUrl = opts.url;
      if (opts.secret !== undefined) defaults.webhookSecret = opts.secret;
      if (opts.deliver) deliver = opts.deliver;
    },
    idle: webhooks.idle,
  };
}

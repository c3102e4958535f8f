/**
 * provider_c simulator: plays the Uber Eats-like platform with its real protocol (OAuth client credentials
 * at `/oauth/v2/token`, order details, order actions, catalog items, webhooks authenticated by RS256 JWTs
 * whose keys it publishes at `/.well-known/jwks.json` and can rotate). It decides nothing by itself: an
 * order exists when a test or a person creates one through the control API, which sends its webhook.
 *
 * Parts: `state.ts` (clients, tokens, statuses and catalog items received), `orders.ts`, `keys.ts`,
 * `webhooks.ts`, `protocol-routes.ts`, `control-routes.ts` (`/__sim...`), `standalone.ts`.
 *
 * In-process:   const sim = createProviderCSimulator({...}); sim.buildServer().inject(...) or
 *               app.register(sim.routes, { prefix: '/__sim/provider-c' }) or await sim.listen().
 * Standalone:   npx tsx src/integrations/provider-c/simulator/standalone.ts
 */
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../../../platform/clock.js';
import { silentLogger, type FetchLike, type ProviderLogger } from '../../http.js';
import { controlApi, simulatorServers, type SimulatorRoutesOptions, type SimulatorServer } from '../../simulator/server.js';
import { fetchDeliverer, type WebhookDeliverer } from '../../simulator/webhook-delivery.js';
import type { UberOrder } from '../order.js';
import { PROVIDER_C_EVENT_TYPES } from '../webhook.js';
import { controlRoutes } from './control-routes.js';
import { keyRing } from './keys.js';
import { orderBook } from './orders.js';
import { protocolRoutes } from './protocol-routes.js';
import {
  clientRegistry,
  PROVIDER_C_SIM_CLIENT_ID,
  PROVIDER_C_SIM_CLIENT_SECRET,
  PROVIDER_C_SIM_ISSUER,
  PROVIDER_C_SIM_TOKEN_TTL_SECONDS,
  providerCTokens,
  receivedLog,
  type CatalogPut,
  type StatusPush,
} from './state.js';
import { providerCWebhooks, type BadSignature, type ProviderCWebhookDelivery, type ProviderCWebhookSettings } from './webhooks.js';

export { PROVIDER_C_SIM_CLIENT_ID, PROVIDER_C_SIM_CLIENT_SECRET, PROVIDER_C_SIM_ISSUER, PROVIDER_C_SIM_TOKEN_TTL_SECONDS } from './state.js';
export type { CatalogPut, StatusPush } from './state.js';
export { BAD_SIGNATURES, type BadSignature, type ProviderCWebhookDelivery } from './webhooks.js';

export interface ProviderCSimulatorOptions {
  /** OAuth clients it accepts (client id -> secret); default its own `sim-provider-c-client`. */
  clients?: Record<string, string>;
  tokenTtlSeconds?: number;
  /** `iss` of the webhooks' JWTs. */
  issuer?: string;
  /** Lifetime of a webhook JWT (default 300 s). */
  webhookTokenTtlSeconds?: number;
  /** Where a webhook goes when the control call names none. */
  webhookUrl?: string;
  /** A control call's path-only `webhookUrl` is resolved on this base (in-process: the service's public URL). */
  webhookBaseUrl?: string;
  deliver?: WebhookDeliverer;
  /** Waits before each retry of a webhook the receiver did not accept. Default 2 s, 5 s. */
  webhookRetryDelaysMs?: number[];
  clock?: Clock;
  /** Used by the default deliverer. */
  fetch?: FetchLike;
  log?: ProviderLogger;
}

type Sent = Promise<{ order: UberOrder; webhook: ProviderCWebhookDelivery }>;

export interface ProviderCSimulator extends SimulatorServer {
  /** Creates an order (the body of `POST /__sim/orders`) and sends its `orders.notification`. */
  createOrder(input: Record<string, unknown> & { storeId: string }, opts?: { webhookUrl?: string; bad?: BadSignature }): Sent;
  /** The last webhook of an order again: same body and event id, a new JWT (a duplicate). */
  resend(orderId: string, opts?: { webhookUrl?: string; bad?: BadSignature }): Promise<ProviderCWebhookDelivery>;
  /** The platform cancels an order (`orders.cancel`). */
  cancelOrder(orderId: string, opts?: { webhookUrl?: string }): Sent;
  getOrder(orderId: string): UberOrder | undefined;
  listOrders(): UberOrder[];
  readonly statuses: readonly StatusPush[];
  catalogItems(): CatalogPut[];
  /** A new signing key (new kid); the previous ones stay published unless `keepOld` is false. */
  rotateKeys(keepOld?: boolean): { kid: string; kids: string[]; dropped: string[] };
  currentKid(): string;
  addClient(clientId: string, clientSecret: string): void;
  revokeTokens(): void;
  readonly tokenRequests: number;
  readonly deliveries: readonly ProviderCWebhookDelivery[];
  nextDelivery(filter?: (d: ProviderCWebhookDelivery) => boolean, timeoutMs?: number): Promise<ProviderCWebhookDelivery>;
  idle(): Promise<void>;
  setWebhook(opts: { url?: string | null; baseUrl?: string | null; deliver?: WebhookDeliverer }): void;
}

export function createProviderCSimulator(options: ProviderCSimulatorOptions = {}): ProviderCSimulator {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silentLogger;
  const now = () => clock.now();
  const clients = clientRegistry(options.clients ?? { [PROVIDER_C_SIM_CLIENT_ID]: PROVIDER_C_SIM_CLIENT_SECRET });
  const tokens = providerCTokens(clock, options.tokenTtlSeconds ?? PROVIDER_C_SIM_TOKEN_TTL_SECONDS);
  const keys = keyRing(now);
  const orders = orderBook(clock);
  const received = receivedLog();
  const settings: ProviderCWebhookSettings = {
    url: options.webhookUrl ?? null,
    baseUrl: options.webhookBaseUrl ?? null,
    deliver: options.deliver ?? fetchDeliverer(options.fetch),
    issuer: options.issuer ?? PROVIDER_C_SIM_ISSUER,
    tokenTtlSeconds: options.webhookTokenTtlSeconds ?? 300,
  };
  const webhooks = providerCWebhooks({ clock, log, keys, settings, retryDelaysMs: options.webhookRetryDelaysMs ?? [2_000, 5_000] });

  async function routes(app: FastifyInstance, opts: SimulatorRoutesOptions = {}) {
    await protocolRoutes(app, { clients, tokens, orders, received, keys, now });
    await controlApi(app, opts, (ctl) => controlRoutes(ctl, { orders, webhooks, settings, keys, clients, tokens, received }));
  }

  const { buildServer, listen, closeServers } = simulatorServers(routes);
  const urlOf = (u: string | undefined) => (u === undefined ? settings.url : webhooks.resolveUrl(u));

  return {
    routes,
    buildServer,
    listen,
    async close() {
      await webhooks.close();
      await closeServers();
    },
    async createOrder(input, opts = {}) {
      const url = urlOf(opts.webhookUrl);
      const order = orders.create(input);
      return { order, webhook: await webhooks.notify(order, PROVIDER_C_EVENT_TYPES.newOrder, url, opts.bad ?? null) };
    },
    resend: (orderId, opts = {}) => webhooks.resend(orders.find(orderId), opts.webhookUrl === undefined ? undefined : urlOf(opts.webhookUrl), opts.bad ?? null),
    async cancelOrder(orderId, opts = {}) {
      const url = urlOf(opts.webhookUrl);
      const order = orders.act(orderId, 'platform_cancel');
      return { order, webhook: await webhooks.notify(order, PROVIDER_C_EVENT_TYPES.cancel, url) };
    },
    getOrder: orders.get,
    listOrders: orders.list,
    statuses: received.statuses,
    catalogItems: received.items,
    rotateKeys: (keepOld = true) => keys.rotate(keepOld),
    currentKid: () => keys.current.kid,
    addClient: clients.add,
    revokeTokens: tokens.revoke,
    get tokenRequests() {
      return tokens.requests;
    },
    deliveries: webhooks.deliveries,
    nextDelivery: webhooks.nextDelivery,
    idle: webhooks.idle,
    setWebhook(opts) {
      if (opts.url !== undefined) settings.url = opts.url;
      if (opts.baseUrl !== undefined) settings.baseUrl = opts.baseUrl;
      if (opts.deliver) settings.deliver = opts.deliver;
    },
  };
}

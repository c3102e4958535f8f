/**
 * provider_a simulator: plays the iFood-like platform with its protocol (OAuth client credentials with iFood's
 * field names, order details, order actions, catalog items) and sends signed order events to the service. It
 * decides nothing by itself: a test or a person places orders, sends duplicates and badly signed events, and
 * cancels orders through the control API; it records the status actions and catalog items it receives.
 *
 * Parts: `state.ts` (clients, tokens, orders, pushes, catalog), `orders.ts` (the order-details body),
 * `book.ts` (place / resend / cancel and their events), `webhooks.ts` (signed webhooks per URL and their
 * retries), `protocol-routes.ts`, `control-routes.ts` (`/__sim...`), `standalone.ts`.
 *
 * In-process:   const sim = createProviderASimulator({...}); sim.buildServer().inject(...) or
 *               app.register(sim.routes, { prefix: '/__sim/provider-a' }) or await sim.listen().
 * Standalone:   npx tsx src/integrations/provider-a/simulator/standalone.ts
 */
import type { FastifyInstance } from 'fastify';
import * as provider from '../../simulator/provider-simulator.js';
import { controlApi, simulatorServers, type SimulatorRoutesOptions, type SimulatorServer } from '../../simulator/server.js';
import type { WebhookDeliverer } from '../../simulator/webhook-delivery.js';
import { orderBook, type SendOptions, type SentEvent } from './book.js';
import { controlRoutes } from './control-routes.js';
import type { SimOrderInput } from './orders.js';
import { apiRoutes, tokenRoute } from './protocol-routes.js';
import {
  PROVIDER_A_SIM_CLIENT_ID,
  PROVIDER_A_SIM_CLIENT_SECRET,
  PROVIDER_A_SIM_TOKEN_TTL_SECONDS,
  simState,
  type ProviderAWebhookShape,
  type SimCatalogItem,
  type SimOrderStatus,
  type StatusPush,
} from './state.js';
import { webhookSender, type WebhookDelivery, type WebhookSettings } from './webhooks.js';

export { PROVIDER_A_SIM_CLIENT_ID, PROVIDER_A_SIM_CLIENT_SECRET, PROVIDER_A_SIM_MERCHANT_ID, PROVIDER_A_SIM_TOKEN_TTL_SECONDS, SimulatorError } from './state.js';
export type { ProviderAWebhookShape, SignatureMode, SimCatalogItem, SimOrderStatus, StatusPush } from './state.js';
export type { SendOptions, SentEvent } from './book.js';
export type { SimOrderInput } from './orders.js';
export type { WebhookDelivery } from './webhooks.js';

export interface ProviderASimulatorOptions extends provider.ProviderSimulatorOptions {
  /** Default body shape of the events (`reference`, as the real platform). */
  webhookShape?: ProviderAWebhookShape;
}

export interface ProviderASimulator extends SimulatorServer, provider.ProviderSimulatorHelpers<WebhookDelivery> {
  /** Places an order (amounts in cents; no items: a sample order) and sends its PLACED event. */
  placeOrder(input?: SimOrderInput, opts?: SendOptions): Promise<SentEvent>;
  /** Sends the order's last event again (same body and event id); `signature: 'bad'` for a badly signed copy. */
  resend(orderId: string, opts?: SendOptions): Promise<{ webhook: WebhookDelivery }>;
  /** The platform cancels the order and sends CANCELLED. */
  cancelOrder(orderId: string, opts?: SendOptions): Promise<SentEvent>;
  /** The order-details body and the order's state at the platform. */
  getOrder(orderId: string): { status: SimOrderStatus; order: Record<string, unknown> } | undefined;
  /** Status actions received, oldest first. */
  statusPushes(): StatusPush[];
  /** Catalog items received (latest version of each (merchant, externalCode)). */
  catalogItems(merchantId?: string): SimCatalogItem[];
  /** Accepts another OAuth client (a tenant's credentials). */
  addClient(clientId: string, clientSecret: string): void;
  /** The next `count` API calls (not the token endpoint) answer `status` (default 500). */
  failNext(count: number, status?: number): void;
  setWebhook(opts: { url?: string | null; secret?: string | null; shape?: ProviderAWebhookShape; deliver?: WebhookDeliverer }): void;
}

export function createProviderASimulator(options: ProviderASimulatorOptions = {}): ProviderASimulator {
  const { clock, log, clientId, clientSecret, webhook: settings, retryDelaysMs } = provider.resolveProviderSimulator(options, {
    clientId: PROVIDER_A_SIM_CLIENT_ID,
    clientSecret: PROVIDER_A_SIM_CLIENT_SECRET,
  });
  const state = simState(clock, { clientId, clientSecret, tokenTtlSeconds: options.tokenTtlSeconds ?? PROVIDER_A_SIM_TOKEN_TTL_SECONDS });
  const webhook: WebhookSettings = { ...settings, shape: options.webhookShape ?? 'reference' };
  const webhooks = webhookSender({ clock, log, settings: webhook, retryDelaysMs });
  const book = orderBook({ state, clock, log, webhooks, settings: webhook });

  async function routes(app: FastifyInstance, opts: SimulatorRoutesOptions = {}) {
    tokenRoute(app, state);
    await apiRoutes(app, { state, clock });
    await controlApi(app, opts, (ctl) => controlRoutes(ctl, { state, book, webhooks, webhook }));
  }

  const { buildServer, listen, closeServers } = simulatorServers(routes);

  return Object.assign(provider.providerSimulatorHelpers(state.tokens, webhooks), {
    routes,
    buildServer,
    listen,
    async close() {
      await webhooks.close();
      await closeServers();
    },
    placeOrder: (input: SimOrderInput = {}, opts?: SendOptions) => book.place(input, opts),
    resend: book.resend,
    cancelOrder: book.cancel,
    getOrder(orderId: string) {
      const o = state.orders.get(orderId);
      return o && { status: o.status, order: o.details };
    },
    statusPushes: () => [...state.pushes],
    catalogItems: (merchantId?: string) => [...state.catalog.values()].filter((i) => merchantId === undefined || i.merchantId === merchantId),
    addClient(id: string, secret: string) {
      state.clients.set(id, secret);
    },
    failNext(count: number, status = 500) {
      Object.assign(state.failures, { count, status });
    },
    setWebhook(opts: Parameters<ProviderASimulator['setWebhook']>[0]) {
      provider.updateWebhook(webhook, opts);
      if (opts.shape) webhook.shape = opts.shape;
    },
  });
}

/**
 * gateway_a simulator: plays the card-terminal gateway with the same protocol as the real one
 * (OAuth client credentials, payment intents on devices, signed webhooks), so the service can be
 * tested and demonstrated without the real gateway. It never decides on its own unless told to:
 * in `manual` mode an intent waits until a test or a person approves or declines it (or forever,
 * which is how "the terminal never answers" is played); `approve` / `decline` modes decide after
 * a delay, for the demo.
 *
 * Parts: `state.ts` (tokens, terminals, intents as the API shows them), `intents.ts` (the terminal:
 * create, cancel, decide), `webhooks.ts` (signed webhooks and their retries), `protocol-routes.ts`
 * (the gateway's API), `control-routes.ts` (`/__sim...`), `standalone.ts` (its own server).
 *
 * In-process:   const sim = createGatewayASimulator({...}); sim.buildServer().inject(...) or
 *               app.register(sim.routes, { prefix: '/__sim/gateway-a' }) or await sim.listen().
 * Standalone:   npx tsx src/integrations/gateway-a/simulator/standalone.ts
 */
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../../../platform/clock.js';
import { silentLogger, type FetchLike, type ProviderLogger } from '../../http.js';
import { controlApi, simulatorServers, type SimulatorRoutesOptions, type SimulatorServer } from '../../simulator/server.js';
import { fetchDeliverer, type WebhookDeliverer } from '../../simulator/webhook-delivery.js';
import { TERMINAL_SERIAL } from '../client.js';
import type { GatewayAWebhookShape } from '../webhook.js';
import { controlRoutes } from './control-routes.js';
import { intentBook, type DecideOptions } from './intents.js';
import { intentRoutes, oauthRoutes } from './protocol-routes.js';
import {
  GATEWAY_A_SIM_CLIENT_ID,
  GATEWAY_A_SIM_CLIENT_SECRET,
  GATEWAY_A_SIM_TOKEN_TTL_SECONDS,
  terminalRegistry,
  tokenStore,
  type SimIntentView,
  type SimOutcomeMode,
} from './state.js';
import { webhookSender, type WebhookDelivery, type WebhookSettings } from './webhooks.js';

export { GATEWAY_A_SIM_CLIENT_ID, GATEWAY_A_SIM_CLIENT_SECRET, GATEWAY_A_SIM_TOKEN_TTL_SECONDS, SimulatorError } from './state.js';
export type { SimIntentView, SimOutcomeMode } from './state.js';
export type { DecideOptions } from './intents.js';
export type { WebhookDelivery } from './webhooks.js';

export interface GatewayASimulatorOptions {
  clientId?: string;
  clientSecret?: string;
  tokenTtlSeconds?: number;
  /** Known terminal serials. When omitted, any serial of the form `T-...` is accepted (and then listed). */
  terminals?: string[];
  /** Where webhooks go (e.g. `http://localhost:3000/api/gateway-a/webhook`). None: results are only readable by GET. */
  webhookUrl?: string;
  /** Secret for `X-GatewayA-Signature`; none: webhooks are sent unsigned (a gateway without a secret configured). */
  webhookSecret?: string;
  webhookShape?: GatewayAWebhookShape;
  deliver?: WebhookDeliverer;
  /** Waits before each retry of a webhook the receiver did not accept (non-2xx or unreachable). */
  webhookRetryDelaysMs?: number[];
  outcome?: SimOutcomeMode;
  /** Delay of the automatic decision in `approve` / `decline` mode. */
  outcomeDelayMs?: number;
  clock?: Clock;
  /** Used by the default deliverer. */
  fetch?: FetchLike;
  log?: ProviderLogger;
}

type Decision = Promise<{ intent: SimIntentView; webhook: WebhookDelivery | null }>;

export interface GatewayASimulator extends SimulatorServer {
  approve(intentId: string, opts?: DecideOptions): Decision;
  decline(intentId: string, opts?: DecideOptions): Decision;
  /** Sends the webhook of a decided intent again (a duplicate, as real gateways do). */
  resend(intentId: string, opts?: { shape?: GatewayAWebhookShape }): Promise<WebhookDelivery | null>;
  getIntent(intentId: string): SimIntentView | undefined;
  listIntents(): SimIntentView[];
  setOutcome(mode: SimOutcomeMode, delayMs?: number): void;
  setWebhook(opts: { url?: string | null; secret?: string | null; shape?: GatewayAWebhookShape; deliver?: WebhookDeliverer }): void;
  addTerminal(serial: string): void;
  /** Revokes every issued token (the next API call gets 401). */
  revokeTokens(): void;
  readonly deliveries: readonly WebhookDelivery[];
  readonly tokenRequests: number;
  /** Calls `listener` after each webhook attempt; returns an unsubscribe function. */
  onDelivery(listener: (d: WebhookDelivery) => void): () => void;
  /** Resolves with the next delivery attempt matching `filter` (rejects after `timeoutMs`). */
  nextDelivery(filter?: (d: WebhookDelivery) => boolean, timeoutMs?: number): Promise<WebhookDelivery>;
  /** Resolves when no webhook delivery (retries included) is under way. */
  idle(): Promise<void>;
}

export function createGatewayASimulator(options: GatewayASimulatorOptions = {}): GatewayASimulator {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silentLogger;
  const clientId = options.clientId ?? GATEWAY_A_SIM_CLIENT_ID;
  const clientSecret = options.clientSecret ?? GATEWAY_A_SIM_CLIENT_SECRET;
  const tokens = tokenStore(clock, options.tokenTtlSeconds ?? GATEWAY_A_SIM_TOKEN_TTL_SECONDS);
  const terminals = terminalRegistry(options.terminals);
  const webhook: WebhookSettings = {
    url: options.webhookUrl ?? null,
    secret: options.webhookSecret ?? null,
    shape: options.webhookShape ?? 'event',
    deliver: options.deliver ?? fetchDeliverer(options.fetch),
  };
  const webhooks = webhookSender({ clock, log, settings: webhook, retryDelaysMs: options.webhookRetryDelaysMs ?? [2_000, 5_000] });
  const intents = intentBook({ clock, log, terminals, webhooks, outcome: options.outcome ?? 'manual', outcomeDelayMs: options.outcomeDelayMs ?? 3_000 });

  async function routes(app: FastifyInstance, opts: SimulatorRoutesOptions = {}) {
    oauthRoutes(app, { clientId, clientSecret, tokens });
    await intentRoutes(app, { tokens, terminals, intents });
    await controlApi(app, opts, (ctl) => controlRoutes(ctl, { intents, terminals, tokens, webhooks, webhook }));
  }

  const { buildServer, listen, closeServers } = simulatorServers(routes);

  return {
    routes,
    buildServer,
    listen,
    async close() {
      intents.close();
      await webhooks.close();
      await closeServers();
    },
    approve: intents.approve,
    decline: intents.decline,
    resend: intents.resend,
    getIntent: intents.get,
    listIntents: intents.list,
    setOutcome: intents.setOutcome,
    setWebhook(opts) {
      if (opts.url !== undefined) webhook.url = opts.url;
      if (opts.secret !== undefined) webhook.secret = opts.secret;
      if (opts.shape) webhook.shape = opts.shape;
      if (opts.deliver) webhook.deliver = opts.deliver;
    },
    addTerminal(serial) {
      if (!TERMINAL_SERIAL.test(serial)) throw new Error(`terminal serial ${serial} is not of the form T-...`);
      terminals.add(serial);
    },
    revokeTokens: tokens.revoke,
    get deliveries() {
      return webhooks.deliveries;
    },
    get tokenRequests() {
      return tokens.requests;
    },
    onDelivery: webhooks.onDelivery,
    nextDelivery: webhooks.nextDelivery,
    idle: webhooks.idle,
  };
}

/**
 * gateway_a simulator: plays the card-terminal gateway with the same protocol as the real one
 * (OAuth client credentials, payment intents on devices, signed webhooks), so the service can be
 * tested and demonstrated without the real gateway. It never decides on its own unless told to:
 * in `manual` mode an intent waits until a test or a person approves or declines it (or forever,
 * which is how "the terminal never answers" is played); `approve` / `decline` modes decide after
 * a delay, for the demo.
 *
 * Parts: `state.ts` (tokens, terminals, intents as the API shows them), `intents.ts` (the terminal:
 * create, cancel, decide), `../../simulator/refunds.ts` (refunds of approved payments, shared with the
 * wallet), `webhooks.ts` (signed webhooks and their retries), `protocol-routes.ts` (the gateway's API),
 * `control-routes.ts` (`/__sim...`), `standalone.ts` (its own server).
 *
 * In-process:   const sim = createGatewayASimulator({...}); sim.buildServer().inject(...) or
 *               app.register(sim.routes, { prefix: '/__sim/gateway-a' }) or await sim.listen().
 * Standalone:   npx tsx src/integrations/gateway-a/simulator/standalone.ts
 */
import type { FastifyInstance } from 'fastify';
import { refundLedger, type SimRefund } from '../../simulator/refunds.js';
import { controlApi, simulatorServers, type SimulatorRoutesOptions, type SimulatorServer } from '../../simulator/server.js';
import * as provider from '../../simulator/provider-simulator.js';
import type { WebhookDeliverer } from '../../simulator/webhook-delivery.js';
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
  gatewayATokens,
  type SimIntentView,
  type SimOutcomeMode,
} from './state.js';
import { webhookSender, type WebhookDelivery, type WebhookSettings } from './webhooks.js';

export { GATEWAY_A_SIM_CLIENT_ID, GATEWAY_A_SIM_CLIENT_SECRET, GATEWAY_A_SIM_TOKEN_TTL_SECONDS, SimulatorError } from './state.js';
export type { SimIntentView, SimOutcomeMode } from './state.js';
export type { DecideOptions } from './intents.js';
export type { SimRefund } from '../../simulator/refunds.js';
export type { WebhookDelivery } from './webhooks.js';

export interface GatewayASimulatorOptions extends provider.ProviderSimulatorOptions {
  /** Known terminal serials. When omitted, any serial of the form `T-...` is accepted (and then listed). */
  terminals?: string[];
  /** Where webhooks go (e.g. `http://localhost:3000/api/gateway-a/webhook`). None: results are only readable by GET. */
  webhookUrl?: string;
  /** Secret for `X-GatewayA-Signature`; none: webhooks are sent unsigned (a gateway without a secret configured). */
  webhookSecret?: string;
  webhookShape?: GatewayAWebhookShape;
  outcome?: SimOutcomeMode;
  /** Delay of the automatic decision in `approve` / `decline` mode. */
  outcomeDelayMs?: number;
}

type Decision = Promise<{ intent: SimIntentView; webhook: WebhookDelivery | null }>;

export interface GatewayASimulator extends SimulatorServer, provider.ProviderSimulatorHelpers<WebhookDelivery> {
  approve(intentId: string, opts?: DecideOptions): Decision;
  decline(intentId: string, opts?: DecideOptions): Decision;
  /** Sends the webhook of a decided intent again (a duplicate, as real gateways do). */
  resend(intentId: string, opts?: { shape?: GatewayAWebhookShape }): Promise<WebhookDelivery | null>;
  getIntent(intentId: string): SimIntentView | undefined;
  listIntents(): SimIntentView[];
  /** Refunds of one payment (the `paymentId` of an approved intent), oldest first. */
  refundsOf(paymentId: string): SimRefund[];
  /** Every refund, oldest first. */
  listRefunds(): SimRefund[];
  /** Cents the gateway holds: approved payments minus their refunds. */
  captured(): number;
  setOutcome(mode: SimOutcomeMode, delayMs?: number): void;
  setWebhook(opts: { url?: string | null; secret?: string | null; shape?: GatewayAWebhookShape; deliver?: WebhookDeliverer }): void;
  addTerminal(serial: string): void;
}

export function createGatewayASimulator(options: GatewayASimulatorOptions = {}): GatewayASimulator {
  const { clock, log, clientId, clientSecret, webhook: settings, retryDelaysMs } = provider.resolveProviderSimulator(options, {
    clientId: GATEWAY_A_SIM_CLIENT_ID,
    clientSecret: GATEWAY_A_SIM_CLIENT_SECRET,
  });
  const tokens = gatewayATokens(clock, options.tokenTtlSeconds ?? GATEWAY_A_SIM_TOKEN_TTL_SECONDS);
  const terminals = terminalRegistry(options.terminals);
  const webhook: WebhookSettings = { ...settings, shape: options.webhookShape ?? 'event' };
  const webhooks = webhookSender({ clock, log, settings: webhook, retryDelaysMs });
  const intents = intentBook({ clock, log, terminals, webhooks, outcome: options.outcome ?? 'manual', outcomeDelayMs: options.outcomeDelayMs ?? 3_000 });
  const refunds = refundLedger(clock);

  async function routes(app: FastifyInstance, opts: SimulatorRoutesOptions = {}) {
    oauthRoutes(app, { clientId, clientSecret, tokens });
    await intentRoutes(app, { tokens, terminals, intents, refunds });
    await controlApi(app, opts, (ctl) => controlRoutes(ctl, { intents, refunds, terminals, tokens, webhooks, webhook }));
  }

  const { buildServer, listen, closeServers } = simulatorServers(routes);

  return Object.assign(provider.providerSimulatorHelpers(tokens, webhooks), {
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
    refundsOf: refunds.refundsOf,
    listRefunds: refunds.list,
    captured: () => refunds.captured(intents.payments()),
    setOutcome: intents.setOutcome,
    setWebhook(opts: Parameters<GatewayASimulator['setWebhook']>[0]) {
      provider.updateWebhook(webhook, opts);
      if (opts.shape) webhook.shape = opts.shape;
    },
    addTerminal(serial: string) {
      if (!TERMINAL_SERIAL.test(serial)) throw new Error(`terminal serial ${serial} is not of the form T-...`);
      terminals.add(serial);
    },
  });
}

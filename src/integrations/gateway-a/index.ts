/**
 * gateway_a, the card-terminal gateway: the integration's one public entry. Its client speaks to the
 * real gateway (`live`), to a standalone simulator (`simulator` + base URL) or to a simulator inside
 * this process (`simulator`, the default), always over HTTP: in-process through Fastify `inject`,
 * with OAuth, payment intents and signed webhooks exactly as against the real gateway.
 */
import { injectFetch, joinUrl } from '../http.js';
import { defineIntegration, simulatorLifecycle, type BuiltIntegration, type IntegrationDeps } from '../integration.js';
import { HttpGatewayAClient, type GatewayAClient } from './client.js';
import { defaultGatewayAConfig, parseGatewayAConfig, type GatewayAConfig } from './config.js';
import { createGatewayASimulator, GATEWAY_A_SIM_CLIENT_ID, GATEWAY_A_SIM_CLIENT_SECRET, type GatewayASimulator } from './simulator/index.js';
import { GATEWAY_A_WEBHOOK_PATH } from './webhook.js';

export { TERMINAL_SERIAL, type GatewayAClient, type PaymentIntent, type PaymentIntentStatus, type Refund, type RefundInput } from './client.js';
export type { GatewayAConfig } from './config.js';
export { GatewayAError } from './errors.js';
export { checkGatewayASignature, GATEWAY_A_SIGNATURE_HEADER, signGatewayAPayload } from './signature.js';
export { GATEWAY_A_WEBHOOK_PATH, parseGatewayAWebhook, type GatewayAWebhookEvent } from './webhook.js';
export type { GatewayASimulator } from './simulator/index.js';

/** Where the in-process simulator is served on the service (`mount`). */
export const GATEWAY_A_SIM_PREFIX = '/__sim/gateway-a';

export interface GatewayAIntegration extends BuiltIntegration<GatewayAClient | null> {
  /** null when GATEWAY_A_MODE=off: gateway_a is "not configured" and payments fall back to manual confirmation. */
  client: GatewayAClient | null;
  /** Secret the webhook route checks `X-GatewayA-Signature` with; undefined: skip the check and warn (spec 5.6). */
  webhookSecret: string | undefined;
  simulator?: GatewayASimulator;
}

function createGatewayA(g: GatewayAConfig, deps: IntegrationDeps): GatewayAIntegration {
  const { clock, log, fetch, simulatorControl } = deps;
  const http = (baseUrl: string | undefined, clientId: string, clientSecret: string, viaFetch = fetch) =>
    new HttpGatewayAClient({ baseUrl, clientId, clientSecret, sandbox: g.sandbox, timeoutMs: g.timeoutMs, fetch: viaFetch, clock, log });
  let client: GatewayAClient | null = null;
  let simulator: GatewayASimulator | undefined;
  if (g.mode === 'live') {
    client = http(g.baseUrl, g.clientId!, g.clientSecret!);
    if (!g.webhookSecret) log.warn('GATEWAY_A_WEBHOOK_SECRET is not set: gateway_a webhooks will be accepted without a signature check');
  } else if (g.mode === 'simulator') {
    const clientId = g.clientId ?? GATEWAY_A_SIM_CLIENT_ID;
    const clientSecret = g.clientSecret ?? GATEWAY_A_SIM_CLIENT_SECRET;
    if (g.baseUrl) {
      // A standalone simulator (npx tsx src/integrations/gateway-a/simulator/standalone.ts) reached over HTTP.
      client = http(g.baseUrl, clientId, clientSecret);
    } else {
      simulator = createGatewayASimulator({
        clientId,
        clientSecret,
        webhookUrl: g.simWebhookUrl ?? joinUrl(deps.publicUrl, GATEWAY_A_WEBHOOK_PATH),
        webhookSecret: g.webhookSecret,
        webhookShape: g.simWebhookShape,
        deliver: deps.deliverWebhook,
        outcome: g.simOutcome,
        outcomeDelayMs: g.simDelayMs,
        clock,
        fetch,
        log,
      });
      // The server is closed by simulator.close().
      client = http('http://gateway-a.simulator.internal', clientId, clientSecret, injectFetch(simulator.buildServer()));
    }
  }

  return {
    client,
    webhookSecret: g.mode === 'off' ? undefined : g.webhookSecret,
    simulator,
    ...simulatorLifecycle(simulator, GATEWAY_A_SIM_PREFIX, simulatorControl),
    describe(baseUrl) {
      if (g.mode === 'off') return ['off (card payments are confirmed by hand)'];
      if (g.mode === 'live') return [`live${g.sandbox ? ' (sandbox)' : ''}`];
      if (!simulator) return [`simulator at ${g.baseUrl}`];
      const gw = `${baseUrl}${GATEWAY_A_SIM_PREFIX}`;
      const auto = `answers by itself: ${g.simOutcome} after ${g.simDelayMs} ms`;
      if (!simulatorControl) return [`in-process simulator at ${gw}  (control API off in production)`, ...(g.simOutcome !== 'manual' ? [auto] : [])];
      return [
        `in-process simulator at ${gw}  (intents: ${gw}/__sim/intents, from this machine only)`,
        g.simOutcome === 'manual' ? `approve on the "terminal": curl -X POST ${gw}/__sim/intents/<intentId>/approve   (or /decline)` : auto,
      ];
    },
  };
}

export const gatewayA = defineIntegration({
  name: 'gatewayA',
  provider: 'gateway_a',
  kind: 'payment',
  parseConfig: parseGatewayAConfig,
  defaultConfig: defaultGatewayAConfig,
  create: createGatewayA,
});

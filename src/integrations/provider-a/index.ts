/**
 * provider_a, the delivery platform that resembles iFood: the integration's one public entry. Its client
 * speaks to the real platform (`live`), to a standalone simulator (`simulator` + base URL) or to a simulator
 * inside this process (`simulator`, the default), always over HTTP (in-process through Fastify `inject`).
 *
 * The delivery module: checks `checkProviderASignature(rawBody, req.headers[PROVIDER_A_SIGNATURE_HEADER],
 * integration.webhookSecret)` on the route `/t/:slug/webhooks/provider_a`, reads the body with
 * `parseProviderAWebhook` (eventId = body `id`; `order` null when only a reference came: fetch it with
 * `client.getOrder`), gets tokens with `client.token(credentials)` (cached and renewed by the module), pushes
 * `STATUS_MAP.provider_a` statuses with `client.pushStatus` and catalog items with `client.syncItem`.
 */
import type { DeliveryCredentials } from '../delivery.js';
import { injectFetch } from '../http.js';
import { defineIntegration, simulatorLifecycle, type BuiltIntegration, type IntegrationDeps } from '../integration.js';
import { HttpProviderAClient, type ProviderAClient } from './client.js';
import { defaultProviderAConfig, parseProviderAConfig, type ProviderAConfig } from './config.js';
import { createProviderASimulator, PROVIDER_A_SIM_CLIENT_ID, PROVIDER_A_SIM_CLIENT_SECRET, PROVIDER_A_SIM_MERCHANT_ID, type ProviderASimulator } from './simulator/index.js';

export {
  PROVIDER_A_DEFAULT_CANCELLATION,
  PROVIDER_A_PRODUCTION_URL,
  PROVIDER_A_STATUS_ACTIONS,
  PROVIDER_A_TIMEOUT_MS,
  type ProviderAClient,
  type ProviderAOrderAction,
} from './client.js';
export type { ProviderAConfig } from './config.js';
export { ProviderAError, ProviderAPayloadError } from './errors.js';
export { checkProviderASignature, PROVIDER_A_SIGNATURE_HEADER, signProviderAPayload, verifyProviderASignature, type SignatureCheck } from './signature.js';
export { normalizeProviderAOrder, parseProviderAWebhook, PROVIDER_A_WEBHOOK_PATH, providerAWebhookPath, type ProviderAEventBody } from './webhook.js';
export { decimalAmountToCents } from './amounts.js';
export type { ProviderASimulator, SimOrderInput, StatusPush, SimCatalogItem, WebhookDelivery as ProviderAWebhookDelivery } from './simulator/index.js';
export { PROVIDER_A_SIM_CLIENT_ID, PROVIDER_A_SIM_CLIENT_SECRET, PROVIDER_A_SIM_MERCHANT_ID } from './simulator/index.js';

/** Where the in-process simulator is served on the service (`mount`). */
export const PROVIDER_A_SIM_PREFIX = '/__sim/provider-a';

export interface ProviderAIntegration extends BuiltIntegration<ProviderAClient | null> {
  /** null when PROVIDER_A_MODE=off: no provider_a orders are fetched, no status or catalog is pushed. */
  client: ProviderAClient | null;
  simulator?: ProviderASimulator;
  /**
   * In simulator mode: credentials the simulator accepts and the secret it signs its webhooks with, for the
   * demo tenant's integration (`npm start`). Undefined live or off (each tenant's integration holds its own).
   */
  simulatorAccount?: { credentials: DeliveryCredentials; webhookSecret: string | undefined };
}

function createProviderA(cfg: ProviderAConfig, deps: IntegrationDeps): ProviderAIntegration {
  const { clock, fetch, simulatorControl } = deps;
  const http = (baseUrl: string | undefined, viaFetch = fetch) => new HttpProviderAClient({ baseUrl, timeoutMs: cfg.timeoutMs, fetch: viaFetch, clock });
  const simCredentials = { clientId: PROVIDER_A_SIM_CLIENT_ID, clientSecret: PROVIDER_A_SIM_CLIENT_SECRET, merchantId: PROVIDER_A_SIM_MERCHANT_ID };
  let client: ProviderAClient | null = null;
  let simulator: ProviderASimulator | undefined;
  if (cfg.mode === 'live') {
    client = http(cfg.baseUrl);
  } else if (cfg.mode === 'simulator') {
    if (cfg.baseUrl) {
      // A standalone simulator (npx tsx src/integrations/provider-a/simulator/standalone.ts) reached over HTTP.
      client = http(cfg.baseUrl);
    } else {
      simulator = createProviderASimulator({
        webhookUrl: cfg.simWebhookUrl,
        webhookSecret: cfg.simWebhookSecret,
        webhookShape: cfg.simWebhookShape,
        deliver: deps.deliverWebhook,
        clock,
        fetch,
        log: deps.log,
      });
      // The server is closed by simulator.close().
      client = http('http://provider-a.simulator.internal', injectFetch(simulator.buildServer()));
    }
  }

  return {
    client,
    simulator,
    simulatorAccount: cfg.mode === 'simulator' ? { credentials: simCredentials, webhookSecret: simulator ? cfg.simWebhookSecret : undefined } : undefined,
    ...simulatorLifecycle(simulator, PROVIDER_A_SIM_PREFIX, simulatorControl),
    describe(baseUrl) {
      if (cfg.mode === 'off') return ['off (no provider_a orders, catalog sync or status push)'];
      if (cfg.mode === 'live') return [`live at ${cfg.baseUrl ?? 'the platform'}`];
      if (!simulator) return [`simulator at ${cfg.baseUrl}`];
      const sim = `${baseUrl}${PROVIDER_A_SIM_PREFIX}`;
      if (!simulatorControl) return [`in-process simulator at ${sim}  (control API off in production)`];
      return [
        `in-process simulator at ${sim}  (orders: ${sim}/__sim/orders, from this machine only)`,
        `place an order: curl -X POST ${sim}/__sim/orders -H 'content-type: application/json' -d '{"webhookUrl":"${baseUrl}/t/<slug>/webhooks/provider_a"}'`,
      ];
    },
  };
}

export const providerA = defineIntegration({
  name: 'providerA',
  provider: 'provider_a',
  kind: 'delivery',
  parseConfig: parseProviderAConfig,
  defaultConfig: defaultProviderAConfig,
  create: createProviderA,
});

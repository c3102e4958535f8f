/**
 * provider_b, the Rappi-like delivery platform: the integration's one public entry. Its client speaks
 * to the real platform (`live`), to a standalone simulator (`simulator` + base URL) or to a simulator
 * inside this process (`simulator`, the default), always over HTTP. Tenant credentials (client id and
 * secret, store id = merchant id) and the webhook secret are per integration, passed to each call.
 */
import { injectFetch } from '../http.js';
import { defineIntegration, simulatorLifecycle, type BuiltIntegration, type IntegrationDeps } from '../integration.js';
import { HttpProviderBClient, type ProviderBClient } from './client.js';
import { defaultProviderBConfig, parseProviderBConfig, type ProviderBConfig } from './config.js';
import { checkProviderBSignature, PROVIDER_B_SIGNATURE_HEADER, signProviderBPayload, type ProviderBSignatureCheck } from './signature.js';
import { createProviderBSimulator, PROVIDER_B_SIM_CLIENT_ID, PROVIDER_B_SIM_CLIENT_SECRET, PROVIDER_B_SIM_STORE_ID, type ProviderBSimulator } from './simulator/index.js';
import { normalizeProviderBOrder, parseProviderBWebhook, providerBWebhookPath } from './webhook.js';

export { HttpProviderBClient, PROVIDER_B_STATUS_ACTIONS, type ProviderBClient } from './client.js';
export type { ProviderBConfig } from './config.js';
export { ProviderBError, ProviderBPayloadError } from './errors.js';
export { amountToCents } from './amounts.js';
export {
  checkProviderBSignature,
  PROVIDER_B_SIGNATURE_HEADER,
  PROVIDER_B_SIGNATURE_TOLERANCE_SECONDS,
  signProviderBPayload,
  verifyProviderBSignature,
  type ProviderBSignatureCheck,
} from './signature.js';
export { normalizeProviderBOrder, parseProviderBWebhook, providerBWebhookPath } from './webhook.js';
export { PROVIDER_B_SIM_CLIENT_ID, PROVIDER_B_SIM_CLIENT_SECRET, PROVIDER_B_SIM_STORE_ID, type ProviderBSimulator } from './simulator/index.js';

/** Where the in-process simulator is served on the service (`mount`). */
export const PROVIDER_B_SIM_PREFIX = '/__sim/provider-b';

export interface ProviderBIntegration extends BuiltIntegration<ProviderBClient | null> {
  /** null when PROVIDER_B_MODE=off. */
  client: ProviderBClient | null;
  simulator?: ProviderBSimulator;
  /** The secret the in-process simulator signs with by default (a demo integration's webhook secret); undefined otherwise. */
  simWebhookSecret: string | undefined;
  /** The simulator's OAuth client and store (what a demo integration's credentials are), when simulating. */
  simCredentials: { clientId: string; clientSecret: string; merchantId: string } | undefined;
  signatureHeader: typeof PROVIDER_B_SIGNATURE_HEADER;
  /** Checks `x-provider-b-signature` on the raw body with the integration's secret (undefined: `missing_secret`, sandbox). */
  checkSignature(rawBody: string | Buffer, header: string | string[] | undefined, secret: string | undefined): ProviderBSignatureCheck;
  sign: typeof signProviderBPayload;
  parseWebhook: typeof parseProviderBWebhook;
  normalizeOrder: typeof normalizeProviderBOrder;
  webhookPath: typeof providerBWebhookPath;
}

function createProviderB(c: ProviderBConfig, deps: IntegrationDeps): ProviderBIntegration {
  const { clock, log, fetch, simulatorControl } = deps;
  const http = (baseUrl: string, viaFetch = fetch) =>
    new HttpProviderBClient({ baseUrl, audience: c.audience, timeoutMs: c.timeoutMs, cookingTimeMinutes: c.cookingTimeMinutes, fetch: viaFetch, clock, log });
  let client: ProviderBClient | null = null;
  let simulator: ProviderBSimulator | undefined;
  if (c.mode === 'live') {
    client = http(c.baseUrl!);
  } else if (c.mode === 'simulator') {
    if (c.baseUrl) {
      client = http(c.baseUrl);
    } else {
      simulator = createProviderBSimulator({ audience: c.audience, webhookSecret: c.simWebhookSecret, deliver: deps.deliverWebhook, clock, fetch, log });
      client = http('http://provider-b.simulator.internal', injectFetch(simulator.buildServer()));
    }
  }
  const simulating = c.mode === 'simulator';
  return {
    client,
    simulator,
    simWebhookSecret: simulator ? c.simWebhookSecret : undefined,
    simCredentials: simulating
      ? { clientId: PROVIDER_B_SIM_CLIENT_ID, clientSecret: PROVIDER_B_SIM_CLIENT_SECRET, merchantId: PROVIDER_B_SIM_STORE_ID }
      : undefined,
    signatureHeader: PROVIDER_B_SIGNATURE_HEADER,
    checkSignature: (rawBody, header, secret) => checkProviderBSignature(rawBody, header, secret, { now: clock.now() }),
    sign: signProviderBPayload,
    parseWebhook: parseProviderBWebhook,
    normalizeOrder: normalizeProviderBOrder,
    webhookPath: providerBWebhookPath,
    ...simulatorLifecycle(simulator, PROVIDER_B_SIM_PREFIX, simulatorControl),
    describe(baseUrl) {
      if (c.mode === 'off') return ['off (provider_b integrations are unavailable)'];
      if (c.mode === 'live') return [`live at ${c.baseUrl}`];
      if (!simulator) return [`simulator at ${c.baseUrl}`];
      const sim = `${baseUrl}${PROVIDER_B_SIM_PREFIX}`;
      if (!simulatorControl) return [`in-process simulator at ${sim}  (control API off in production)`];
      return [
        `in-process simulator at ${sim}  (client ${PROVIDER_B_SIM_CLIENT_ID}, store ${PROVIDER_B_SIM_STORE_ID})`,
        `new order: curl -X POST ${sim}/__sim/orders -H 'content-type: application/json' -d '{"webhookUrl":"${baseUrl}/t/<slug>/webhooks/provider_b"}'`,
      ];
    },
  };
}

export const providerB = defineIntegration({
  name: 'providerB',
  provider: 'provider_b',
  kind: 'delivery',
  parseConfig: parseProviderBConfig,
  defaultConfig: defaultProviderBConfig,
  create: createProviderB,
});

/**
 * provider_c, the delivery platform like Uber Eats: the integration's one public entry. Its client speaks
 * to the real platform (`live`), to a standalone simulator (`simulator` + base URL) or to a simulator inside
 * this process (`simulator`, the default), always over HTTP (in-process through Fastify `inject`).
 *
 * The delivery module: on `POST /t/:slug/webhooks/provider_c` call `verifyWebhook(rawBody, authorization,
 * integration.jwksUrl, { audience: merchantId })` (401 unless valid; `missing_jwks_url` -> accept as sandbox
 * with a warning; `jwks_unavailable` -> 503), read the body with `parseProviderCWebhook` (it carries only the
 * order id: the job calls `client.getOrder`), push statuses mapped by STATUS_MAP.provider_c, sync items.
 * In simulator mode a tenant's `jwksUrl` is `simulatorJwksUrl`.
 */
import { injectFetch, joinUrl, type FetchLike } from '../http.js';
import { defineIntegration, simulatorLifecycle, type BuiltIntegration, type IntegrationDeps } from '../integration.js';
import { HttpProviderCClient, type ProviderCClient } from './client.js';
import { defaultProviderCConfig, parseProviderCConfig, type ProviderCConfig } from './config.js';
import { ProviderCJwksCache } from './jwks.js';
import { verifyProviderCJwt, type ProviderCJwtCheck } from './signature.js';
import { createProviderCSimulator, type ProviderCSimulator } from './simulator/index.js';

export { HttpProviderCClient, PROVIDER_C_SCOPES, PROVIDER_C_STATUS_ACTIONS, type ProviderCClient } from './client.js';
export type { ProviderCConfig } from './config.js';
export { ProviderCError } from './errors.js';
export {
  providerCBodyHash,
  ProviderCJwksCache,
  PROVIDER_C_BODY_CLAIM,
  PROVIDER_C_SIGNATURE_HEADER,
  signProviderCJwt,
  verifyProviderCJwt,
  type ProviderCJwtCheck,
  type ProviderCJwtFailure,
  type VerifyProviderCJwtOptions,
} from './signature.js';
export { normalizeProviderCOrder, parseProviderCWebhook, providerCWebhookStoreId, PROVIDER_C_EVENT_TYPES, PROVIDER_C_WEBHOOK_PATH } from './webhook.js';
export type { ProviderCSimulator } from './simulator/index.js';

/** Where the in-process simulator is served on the service (`mount`). */
export const PROVIDER_C_SIM_PREFIX = '/__sim/provider-c';
/** The origin the in-process client and JWKS fetches use (handed to the simulator through `inject`). */
const INTERNAL_ORIGIN = 'http://provider-c.simulator.internal';
const JWKS_PATH = '/.well-known/jwks.json';

export interface ProviderCIntegration extends BuiltIntegration<ProviderCClient | null> {
  /** null when PROVIDER_C_MODE=off: no order is fetched, no status or item is pushed. */
  client: ProviderCClient | null;
  simulator?: ProviderCSimulator;
  /** The JWKS URL of the simulator in use (a tenant's `jwksUrl` in simulator mode); null live or off. */
  simulatorJwksUrl: string | null;
  /** The public keys, cached per JWKS URL across webhooks (refreshed on an unknown kid). */
  jwks: ProviderCJwksCache;
  /** Checks a webhook's `Authorization: Bearer <jwt>` on the raw body against the keys at `jwksUrl`. */
  verifyWebhook(
    rawBody: string | Buffer,
    authorization: string | string[] | undefined,
    jwksUrl: string | null | undefined,
    opts?: { audience?: string; issuer?: string },
  ): Promise<ProviderCJwtCheck>;
}

function createProviderC(c: ProviderCConfig, deps: IntegrationDeps): ProviderCIntegration {
  const { clock, log, simulatorControl } = deps;
  const outside: FetchLike = deps.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const http = (baseUrl: string | undefined, authUrl: string | undefined, viaFetch = outside) =>
    new HttpProviderCClient({ baseUrl, authUrl, timeoutMs: c.timeoutMs, fetch: viaFetch, clock, log });
  let client: ProviderCClient | null = null;
  let simulator: ProviderCSimulator | undefined;
  let simulatorJwksUrl: string | null = null;
  let jwksFetch = outside;
  if (c.mode === 'live') {
    client = http(c.baseUrl, c.authUrl);
  } else if (c.mode === 'simulator') {
    if (c.baseUrl) {
      // A standalone simulator (npx tsx src/integrations/provider-c/simulator/standalone.ts) reached over HTTP.
      client = http(c.baseUrl, c.authUrl ?? c.baseUrl);
      simulatorJwksUrl = joinUrl(c.baseUrl, JWKS_PATH);
    } else {
      simulator = createProviderCSimulator({ webhookBaseUrl: deps.publicUrl, deliver: deps.deliverWebhook, clock, fetch: deps.fetch, log });
      // The server is closed by simulator.close().
      const inner = injectFetch(simulator.buildServer({ control: false }));
      client = http(INTERNAL_ORIGIN, INTERNAL_ORIGIN, inner);
      // Mounted at <publicUrl>/__sim/provider-c: its JWKS URL works over HTTP too, but is answered in-process.
      const mounted = joinUrl(deps.publicUrl, PROVIDER_C_SIM_PREFIX);
      simulatorJwksUrl = mounted + JWKS_PATH;
      jwksFetch = (input, init) => {
        if (input.startsWith(`${mounted}/`)) return inner(INTERNAL_ORIGIN + input.slice(mounted.length), init);
        if (input.startsWith(`${INTERNAL_ORIGIN}/`)) return inner(input, init);
        return outside(input, init);
      };
    }
  }
  const jwks = new ProviderCJwksCache({ fetch: jwksFetch, clock });

  return {
    client,
    simulator,
    simulatorJwksUrl,
    jwks,
    verifyWebhook: (rawBody, authorization, jwksUrl, opts = {}) => verifyProviderCJwt(rawBody, authorization, jwksUrl, { ...opts, cache: jwks, clock }),
    ...simulatorLifecycle(simulator, PROVIDER_C_SIM_PREFIX, simulatorControl),
    describe(baseUrl) {
      if (c.mode === 'off') return ['off (no orders fetched, no statuses or catalog items pushed)'];
      if (c.mode === 'live') return [`live at ${c.baseUrl ?? 'https://api.uber.com'}`];
      if (!simulator) return [`simulator at ${c.baseUrl}  (tenants' jwksUrl: ${simulatorJwksUrl})`];
      const sim = `${baseUrl}${PROVIDER_C_SIM_PREFIX}`;
      const lines = [`in-process simulator at ${sim}  (tenants' jwksUrl: ${sim}${JWKS_PATH})`];
      if (!simulatorControl) return [...lines.map((l) => `${l}  (control API off in production)`)];
      return [
        ...lines,
        `new order: curl -X POST ${sim}/__sim/orders -H 'content-type: application/json' -d '{"storeId":"<merchantId>","webhookUrl":"/t/<slug>/webhooks/provider_c"}'`,
      ];
    },
  };
}

export const providerC = defineIntegration({
  name: 'providerC',
  provider: 'provider_c',
  kind: 'delivery',
  parseConfig: parseProviderCConfig,
  defaultConfig: defaultProviderCConfig,
  create: createProviderC,
});

/**
 * The provider_c simulator as its own server:
 *   npx tsx src/integrations/provider-c/simulator/standalone.ts
 */
import { consoleLogger, runWhenMain } from '../../simulator/standalone.js';
import { createProviderCSimulator, PROVIDER_C_SIM_CLIENT_ID, PROVIDER_C_SIM_CLIENT_SECRET, type ProviderCSimulator } from './index.js';

/**
 * Standalone server. Environment:
 *   PROVIDER_C_SIM_PORT (4013), PROVIDER_C_SIM_HOST (127.0.0.1),
 *   PROVIDER_C_SIM_CLIENT_ID / PROVIDER_C_SIM_CLIENT_SECRET (the OAuth client it accepts; the simulator's own when unset),
 *   PROVIDER_C_SIM_WEBHOOK_BASE_URL (http://localhost:3000: a control call's path-only webhookUrl is resolved on it),
 *   PROVIDER_C_SIM_WEBHOOK_URL (where webhooks go when the control call names none; unset: nowhere).
 * The control API (`/__sim/...`) answers loopback callers only, and is not served when NODE_ENV=production.
 */
export async function runStandalone(env: NodeJS.ProcessEnv = process.env): Promise<ProviderCSimulator> {
  const clientId = env.PROVIDER_C_SIM_CLIENT_ID || PROVIDER_C_SIM_CLIENT_ID;
  const clientSecret = env.PROVIDER_C_SIM_CLIENT_SECRET || PROVIDER_C_SIM_CLIENT_SECRET;
  const baseUrl = env.PROVIDER_C_SIM_WEBHOOK_BASE_URL || 'http://localhost:3000';
  const sim = createProviderCSimulator({
    clients: { [clientId]: clientSecret },
    webhookUrl: env.PROVIDER_C_SIM_WEBHOOK_URL || undefined,
    webhookBaseUrl: baseUrl,
    log: consoleLogger('provider_c simulator'),
  });
  const control = env.NODE_ENV !== 'production';
  const url = await sim.listen({ port: Number(env.PROVIDER_C_SIM_PORT || 4013), host: env.PROVIDER_C_SIM_HOST || '127.0.0.1', control });
  process.stdout.write(
    [
      `provider_c simulator listening on ${url}`,
      `  point the service at it: PROVIDER_C_MODE=simulator PROVIDER_C_BASE_URL=${url}`,
      `  OAuth client:  ${clientId} / ${env.PROVIDER_C_SIM_CLIENT_SECRET ? '(PROVIDER_C_SIM_CLIENT_SECRET)' : clientSecret}`,
      `  JWKS (the integration's jwksUrl): ${url}/.well-known/jwks.json   current kid ${sim.currentKid()}`,
      ...(control
        ? [
            '  control API (from this machine only):',
            `  new order:     curl -s -X POST ${url}/__sim/orders -H 'content-type: application/json' \\`,
            `                   -d '{"storeId":"<merchantId>","webhookUrl":"/t/<slug>/webhooks/provider_c"}'   (path resolved on ${baseUrl})`,
            `  duplicate:     curl -s -X POST ${url}/__sim/orders/<orderId>/resend`,
            `  rotate keys:   curl -s -X POST ${url}/__sim/keys/rotate`,
          ]
        : ['  control API:   off (NODE_ENV=production)']),
      '',
    ].join('\n'),
  );
  return sim;
}

runWhenMain(import.meta.url, 'provider_c simulator', runStandalone);

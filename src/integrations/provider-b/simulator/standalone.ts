/**
 * The provider_b simulator as its own server:
 *   npx tsx src/integrations/provider-b/simulator/standalone.ts
 */
import { consoleLogger, runWhenMain } from '../../simulator/standalone.js';
import { createProviderBSimulator, PROVIDER_B_SIM_CLIENT_ID, PROVIDER_B_SIM_CLIENT_SECRET, PROVIDER_B_SIM_STORE_ID, type ProviderBSimulator } from './index.js';

/**
 * Standalone server. Environment:
 *   PROVIDER_B_SIM_PORT (4012), PROVIDER_B_SIM_HOST (127.0.0.1),
 *   PROVIDER_B_SIM_CLIENT_ID / PROVIDER_B_SIM_CLIENT_SECRET (the simulator's defaults when unset),
 *   PROVIDER_B_SIM_WEBHOOK_URL (default destination, e.g. http://localhost:3000/t/demo/webhooks/provider_b),
 *   PROVIDER_B_SIM_WEBHOOK_SECRET (unset: webhooks are unsigned unless a control call gives a secret).
 * The control API (`/__sim/...`) answers loopback callers only, and is not served when NODE_ENV=production.
 */
export async function runStandalone(env: NodeJS.ProcessEnv = process.env): Promise<ProviderBSimulator> {
  const webhookUrl = env.PROVIDER_B_SIM_WEBHOOK_URL || undefined;
  const sim = createProviderBSimulator({
    clientId: env.PROVIDER_B_SIM_CLIENT_ID || undefined,
    clientSecret: env.PROVIDER_B_SIM_CLIENT_SECRET || undefined,
    webhookUrl,
    webhookSecret: env.PROVIDER_B_SIM_WEBHOOK_SECRET || undefined,
    log: consoleLogger('provider_b simulator'),
  });
  const control = env.NODE_ENV !== 'production';
  const url = await sim.listen({ port: Number(env.PROVIDER_B_SIM_PORT || 4012), host: env.PROVIDER_B_SIM_HOST || '127.0.0.1', control });
  process.stdout.write(
    [
      `provider_b simulator listening on ${url}`,
      `  point the service at it: PROVIDER_B_MODE=simulator PROVIDER_B_BASE_URL=${url}`,
      `  OAuth client:  ${env.PROVIDER_B_SIM_CLIENT_ID || PROVIDER_B_SIM_CLIENT_ID} / ${env.PROVIDER_B_SIM_CLIENT_SECRET ? '(PROVIDER_B_SIM_CLIENT_SECRET)' : PROVIDER_B_SIM_CLIENT_SECRET}; store id ${PROVIDER_B_SIM_STORE_ID}`,
      `  webhooks to:   ${webhookUrl ?? '(given by each control call: webhookUrl)'} (${env.PROVIDER_B_SIM_WEBHOOK_SECRET ? 'signed' : 'unsigned unless webhookSecret is given'})`,
      ...(control
        ? [
            '  control API (from this machine only):',
            `  new order:     curl -s -X POST ${url}/__sim/orders -H 'content-type: application/json' -d '{"webhookUrl":"http://localhost:3000/t/<slug>/webhooks/provider_b","webhookSecret":"<secret>"}'`,
            `  statuses:      curl -s ${url}/__sim/statuses`,
          ]
        : ['  control API:   off (NODE_ENV=production)']),
      '',
    ].join('\n'),
  );
  return sim;
}

runWhenMain(import.meta.url, 'provider_b simulator', runStandalone);

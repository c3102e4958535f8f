/**
 * The provider_a simulator as its own server:
 *   npx tsx src/integrations/provider-a/simulator/standalone.ts
 */
import { consoleLogger, runWhenMain } from '../../simulator/standalone.js';
import { createProviderASimulator, PROVIDER_A_SIM_CLIENT_ID, PROVIDER_A_SIM_CLIENT_SECRET, type ProviderASimulator } from './index.js';

/**
 * Standalone server. Environment:
 *   PROVIDER_A_SIM_PORT (4020), PROVIDER_A_SIM_HOST (127.0.0.1),
 *   PROVIDER_A_SIM_CLIENT_ID / PROVIDER_A_SIM_CLIENT_SECRET (the OAuth client it accepts; more by `POST /__sim/clients`),
 *   PROVIDER_A_SIM_WEBHOOK_URL (default URL of its events; a control call may name another),
 *   PROVIDER_A_WEBHOOK_SECRET (unset: events are unsigned), PROVIDER_A_SIM_WEBHOOK_SHAPE (reference | full).
 * The control API (`/__sim/...`) answers loopback callers only, and is not served when NODE_ENV=production.
 */
export async function runStandalone(env: NodeJS.ProcessEnv = process.env): Promise<ProviderASimulator> {
  const shape = env.PROVIDER_A_SIM_WEBHOOK_SHAPE || 'reference';
  if (shape !== 'reference' && shape !== 'full') throw new Error('PROVIDER_A_SIM_WEBHOOK_SHAPE must be reference or full');
  const clientId = env.PROVIDER_A_SIM_CLIENT_ID || PROVIDER_A_SIM_CLIENT_ID;
  const sim = createProviderASimulator({
    clientId,
    clientSecret: env.PROVIDER_A_SIM_CLIENT_SECRET || PROVIDER_A_SIM_CLIENT_SECRET,
    webhookUrl: env.PROVIDER_A_SIM_WEBHOOK_URL || undefined,
    webhookSecret: env.PROVIDER_A_WEBHOOK_SECRET || undefined,
    webhookShape: shape,
    log: consoleLogger('provider_a simulator'),
  });
  const control = env.NODE_ENV !== 'production';
  const url = await sim.listen({ port: Number(env.PROVIDER_A_SIM_PORT || 4020), host: env.PROVIDER_A_SIM_HOST || '127.0.0.1', control });
  process.stdout.write(
    [
      `provider_a simulator listening on ${url}`,
      `  point the service at it: PROVIDER_A_MODE=simulator PROVIDER_A_BASE_URL=${url}`,
      `  OAuth client:  ${clientId} / ${env.PROVIDER_A_SIM_CLIENT_SECRET ? '(PROVIDER_A_SIM_CLIENT_SECRET)' : PROVIDER_A_SIM_CLIENT_SECRET}`,
      `  events:        ${env.PROVIDER_A_WEBHOOK_SECRET ? 'signed' : 'UNSIGNED: set PROVIDER_A_WEBHOOK_SECRET'}, shape ${shape}`,
      ...(control
        ? [
            '  control API (from this machine only):',
            `  place an order: curl -s -X POST ${url}/__sim/orders -H 'content-type: application/json' -d '{"webhookUrl":"http://localhost:3000/t/<slug>/webhooks/provider_a"}'`,
            `  statuses:       curl -s ${url}/__sim/statuses`,
          ]
        : ['  control API:   off (NODE_ENV=production)']),
      '',
    ].join('\n'),
  );
  return sim;
}

runWhenMain(import.meta.url, 'provider_a simulator', runStandalone);

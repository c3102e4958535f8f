/**
 * The gateway_a simulator as its own server:
 *   npx tsx src/integrations/gateway-a/simulator/standalone.ts
 */
import { consoleLogger, runWhenMain } from '../../simulator/standalone.js';
import type { GatewayAWebhookShape } from '../webhook.js';
import { createGatewayASimulator, GATEWAY_A_SIM_CLIENT_ID, GATEWAY_A_SIM_CLIENT_SECRET, type GatewayASimulator, type SimOutcomeMode } from './index.js';

/**
 * Standalone server. Environment:
 *   GATEWAY_A_SIM_PORT (4010), GATEWAY_A_SIM_HOST (127.0.0.1),
 *   GATEWAY_A_CLIENT_ID / GATEWAY_A_CLIENT_SECRET (the simulator's defaults when unset),
 *   GATEWAY_A_WEBHOOK_URL (http://localhost:3000/api/gateway-a/webhook),
 *   GATEWAY_A_WEBHOOK_SECRET (unset: webhooks are unsigned),
 *   GATEWAY_A_SIM_OUTCOME (manual | approve | decline; default manual), GATEWAY_A_SIM_DELAY_MS (3000),
 *   GATEWAY_A_SIM_WEBHOOK_SHAPE (event | external), GATEWAY_A_SIM_TERMINALS (comma-separated; unset: any T-...).
 * The control API (`/__sim/...`) answers loopback callers only, and is not served when NODE_ENV=production.
 */
export async function runStandalone(env: NodeJS.ProcessEnv = process.env): Promise<GatewayASimulator> {
  const outcome = (env.GATEWAY_A_SIM_OUTCOME || 'manual') as SimOutcomeMode;
  if (!['manual', 'approve', 'decline'].includes(outcome)) throw new Error('GATEWAY_A_SIM_OUTCOME must be manual, approve or decline');
  const shape = (env.GATEWAY_A_SIM_WEBHOOK_SHAPE || 'event') as GatewayAWebhookShape;
  if (shape !== 'event' && shape !== 'external') throw new Error('GATEWAY_A_SIM_WEBHOOK_SHAPE must be event or external');
  const webhookUrl = env.GATEWAY_A_WEBHOOK_URL || 'http://localhost:3000/api/gateway-a/webhook';
  const sim = createGatewayASimulator({
    clientId: env.GATEWAY_A_CLIENT_ID || undefined,
    clientSecret: env.GATEWAY_A_CLIENT_SECRET || undefined,
    webhookUrl,
    webhookSecret: env.GATEWAY_A_WEBHOOK_SECRET || undefined,
    webhookShape: shape,
    outcome,
    outcomeDelayMs: env.GATEWAY_A_SIM_DELAY_MS ? Number(env.GATEWAY_A_SIM_DELAY_MS) : undefined,
    terminals: env.GATEWAY_A_SIM_TERMINALS ? env.GATEWAY_A_SIM_TERMINALS.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    log: consoleLogger('gateway_a simulator'),
  });
  // The control API approves payments: served to loopback callers only, and not at all in production.
  const control = env.NODE_ENV !== 'production';
  const url = await sim.listen({ port: Number(env.GATEWAY_A_SIM_PORT || 4010), host: env.GATEWAY_A_SIM_HOST || '127.0.0.1', control });
  process.stdout.write(
    [
      `gateway_a simulator listening on ${url}`,
      `  point the service at it: GATEWAY_A_MODE=simulator GATEWAY_A_BASE_URL=${url}` +
        (env.GATEWAY_A_WEBHOOK_SECRET ? ' GATEWAY_A_WEBHOOK_SECRET=<the same secret>' : ''),
      `  OAuth client:  ${env.GATEWAY_A_CLIENT_ID || GATEWAY_A_SIM_CLIENT_ID} / ${env.GATEWAY_A_CLIENT_SECRET ? '(GATEWAY_A_CLIENT_SECRET)' : GATEWAY_A_SIM_CLIENT_SECRET}`,
      `  webhooks to:   ${webhookUrl} (${env.GATEWAY_A_WEBHOOK_SECRET ? 'signed' : 'UNSIGNED: set GATEWAY_A_WEBHOOK_SECRET'}, shape ${shape})`,
      `  outcome:       ${outcome}${outcome === 'manual' ? '' : ` after ${env.GATEWAY_A_SIM_DELAY_MS || 3000} ms`}`,
      ...(control
        ? [
            '  control API (from this machine only):',
            `  list intents:  curl -s ${url}/__sim/intents`,
            `  approve:       curl -s -X POST ${url}/__sim/intents/<intentId>/approve`,
            `  decline:       curl -s -X POST ${url}/__sim/intents/<intentId>/decline`,
          ]
        : ['  control API:   off (NODE_ENV=production)']),
      '',
    ].join('\n'),
  );
  return sim;
}

runWhenMain(import.meta.url, 'gateway_a simulator', runStandalone);

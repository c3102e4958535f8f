/**
 * The pix_psp simulator as its own server:
 *   npx tsx src/integrations/pix-psp/simulator/standalone.ts
 */
import { consoleLogger, runWhenMain } from '../../simulator/standalone.js';
import { PIX_PSP_WEBHOOK_REGISTERED_PATH } from '../webhook.js';
import { createPixPspSimulator, PIX_PSP_SIM_CLIENT_ID, PIX_PSP_SIM_CLIENT_SECRET, type PixPspSimulator } from './index.js';

/**
 * Standalone server. Environment:
 *   PIX_PSP_SIM_PORT (4030), PIX_PSP_SIM_HOST (127.0.0.1),
 *   PIX_PSP_CLIENT_ID / PIX_PSP_CLIENT_SECRET (the simulator's defaults when unset),
 *   PIX_PSP_WEBHOOK_URL (the registered URL, default http://localhost:3000/api/pix-psp/webhook; it POSTs to it + /pix),
 *   PIX_PSP_WEBHOOK_SECRET (unset: webhooks are unsigned).
 * The control API (`/__sim/...`) answers loopback callers only, and is not served when NODE_ENV=production.
 */
export async function runStandalone(env: NodeJS.ProcessEnv = process.env): Promise<PixPspSimulator> {
  const webhookUrl = env.PIX_PSP_WEBHOOK_URL || `http://localhost:3000${PIX_PSP_WEBHOOK_REGISTERED_PATH}`;
  const secret = env.PIX_PSP_WEBHOOK_SECRET || undefined;
  const sim = createPixPspSimulator({
    clientId: env.PIX_PSP_CLIENT_ID || undefined,
    clientSecret: env.PIX_PSP_CLIENT_SECRET || undefined,
    webhookUrl,
    webhookSecret: secret,
    log: consoleLogger('pix_psp simulator'),
  });
  // The control API pays charges: served to loopback callers only, and not at all in production.
  const control = env.NODE_ENV !== 'production';
  const url = await sim.listen({ port: Number(env.PIX_PSP_SIM_PORT || 4030), host: env.PIX_PSP_SIM_HOST || '127.0.0.1', control });
  process.stdout.write(
    [
      `pix_psp simulator listening on ${url}`,
      `  point the service at it: PIX_PSP_MODE=simulator PIX_PSP_BASE_URL=${url}` + (secret ? ' PIX_PSP_WEBHOOK_SECRET=<the same secret>' : ''),
      `  OAuth client (HTTP Basic):  ${env.PIX_PSP_CLIENT_ID || PIX_PSP_SIM_CLIENT_ID} / ${env.PIX_PSP_CLIENT_SECRET ? '(PIX_PSP_CLIENT_SECRET)' : PIX_PSP_SIM_CLIENT_SECRET}`,
      `  webhooks to:   ${webhookUrl}/pix (${secret ? 'signed' : 'UNSIGNED: set PIX_PSP_WEBHOOK_SECRET'})`,
      ...(control
        ? ['  control API (from this machine only):', `  list charges:  curl -s ${url}/__sim/cob`, `  pay:           curl -s -X POST ${url}/__sim/cob/<txid>/pay`]
        : ['  control API:   off (NODE_ENV=production)']),
      '',
    ].join('\n'),
  );
  return sim;
}

runWhenMain(import.meta.url, 'pix_psp simulator', runStandalone);

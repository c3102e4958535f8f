/**
 * pix_psp, a PSP of the Bacen API Pix for dynamic PIX charges: the integration's one public entry. Its
 * client speaks to the real PSP (`live`), to a standalone simulator (`simulator` + base URL) or to a
 * simulator inside this process (`simulator`, the default), always over HTTP: in-process through Fastify
 * `inject`, with OAuth, charges and signed webhooks exactly as against a real PSP (mTLS aside).
 *
 * The payments module creates a charge (`client.createCharge`), shows its `brCode`, and confirms it when
 * the webhook arrives at `PIX_PSP_WEBHOOK_PATH`: check `checkPixPspSignature` on the raw body with
 * `webhookSecret`, read it with `parsePixPspWebhook`, match each payment by `txid`, once per `endToEndId`.
 */
import { injectFetch, joinUrl } from '../http.js';
import { defineIntegration, simulatorLifecycle, type BuiltIntegration, type IntegrationDeps } from '../integration.js';
import { HttpPixPspClient, type PixPspClient } from './client.js';
import { defaultPixPspConfig, parsePixPspConfig, type PixPspConfig } from './config.js';
import { createPixPspSimulator, PIX_PSP_SIM_CLIENT_ID, PIX_PSP_SIM_CLIENT_SECRET, type PixPspSimulator } from './simulator/index.js';
import { PIX_PSP_WEBHOOK_REGISTERED_PATH } from './webhook.js';

export {
  PIX_DESCRIPTION_MAX,
  PIX_PSP_TIMEOUT_MS,
  type CreatePixChargeInput,
  type PixCharge,
  type PixChargeStatus,
  type PixPayment,
  type PixPspClient,
  type PixRefund,
  type PixRefundInput,
} from './client.js';
export type { PixPspConfig } from './config.js';
export { PixPspError } from './errors.js';
export { checkPixPspSignature, PIX_PSP_SIGNATURE_HEADER, signPixPspPayload, verifyPixPspSignature } from './signature.js';
export { parsePixPspWebhook, PIX_PSP_WEBHOOK_PATH, PIX_PSP_WEBHOOK_REGISTERED_PATH, type PixPspWebhookEvent } from './webhook.js';
export { PIX_END_TO_END_ID, PIX_REFUND_ID, PIX_TXID } from './wire.js';
export type { PixPspSimulator } from './simulator/index.js';

/** Where the in-process simulator is served on the service (`mount`). */
export const PIX_PSP_SIM_PREFIX = '/__sim/pix-psp';

export interface PixPspIntegration extends BuiltIntegration<PixPspClient | null> {
  /** null when PIX_PSP_MODE=off: no dynamic PIX charges. */
  client: PixPspClient | null;
  /** Secret the webhook route checks `x-pix-psp-signature` with; undefined: accept without the check and warn. */
  webhookSecret: string | undefined;
  simulator?: PixPspSimulator;
}

function createPixPsp(c: PixPspConfig, deps: IntegrationDeps): PixPspIntegration {
  const { clock, log, fetch, simulatorControl } = deps;
  const http = (baseUrl: string, clientId: string, clientSecret: string, viaFetch = fetch) =>
    new HttpPixPspClient({ baseUrl, clientId, clientSecret, timeoutMs: c.timeoutMs, fetch: viaFetch, clock, log });
  let client: PixPspClient | null = null;
  let simulator: PixPspSimulator | undefined;
  if (c.mode === 'live') {
    client = http(c.baseUrl!, c.clientId!, c.clientSecret!);
    if (!c.webhookSecret) log.warn('PIX_PSP_WEBHOOK_SECRET is not set: pix_psp webhooks will be accepted without a signature check');
  } else if (c.mode === 'simulator') {
    const clientId = c.clientId ?? PIX_PSP_SIM_CLIENT_ID;
    const clientSecret = c.clientSecret ?? PIX_PSP_SIM_CLIENT_SECRET;
    if (c.baseUrl) {
      // A standalone simulator (npx tsx src/integrations/pix-psp/simulator/standalone.ts) reached over HTTP.
      client = http(c.baseUrl, clientId, clientSecret);
    } else {
      simulator = createPixPspSimulator({
        clientId,
        clientSecret,
        webhookUrl: c.simWebhookUrl ?? joinUrl(deps.publicUrl, PIX_PSP_WEBHOOK_REGISTERED_PATH),
        webhookSecret: c.webhookSecret,
        deliver: deps.deliverWebhook,
        clock,
        fetch,
        log,
      });
      // The server is closed by simulator.close().
      client = http('http://pix-psp.simulator.internal', clientId, clientSecret, injectFetch(simulator.buildServer()));
    }
  }

  return {
    client,
    webhookSecret: c.mode === 'off' ? undefined : c.webhookSecret,
    simulator,
    ...simulatorLifecycle(simulator, PIX_PSP_SIM_PREFIX, simulatorControl),
    describe(baseUrl) {
      if (c.mode === 'off') return ['off (no dynamic PIX charges)'];
      if (c.mode === 'live') return [`live at ${c.baseUrl}`];
      if (!simulator) return [`simulator at ${c.baseUrl}`];
      const ps = `${baseUrl}${PIX_PSP_SIM_PREFIX}`;
      if (!simulatorControl) return [`in-process simulator at ${ps}  (control API off in production)`];
      return [
        `in-process simulator at ${ps}  (charges: ${ps}/__sim/cob, from this machine only)`,
        `pay a charge as the customer: curl -X POST ${ps}/__sim/cob/<txid>/pay`,
      ];
    },
  };
}

export const pixPsp = defineIntegration({
  name: 'pixPsp',
  provider: 'pix_psp',
  kind: 'pix',
  parseConfig: parsePixPspConfig,
  defaultConfig: defaultPixPspConfig,
  create: createPixPsp,
});

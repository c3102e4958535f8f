/**
 * pix_psp simulator: plays a PSP of the Bacen API Pix with the same protocol (OAuth client credentials by
 * HTTP Basic with scopes, `cob` charges, received Pix, devoluções, signed webhooks), so the service can be
 * tested and demonstrated without a bank. It decides nothing by itself: a charge stays ATIVA until a test
 * or a person pays it (`pay`, `POST __sim/cob/:txid/pay`), which sends the webhook.
 *
 * Parts: `state.ts` (shapes, ids, problems), `charges.ts` (create, remove, pay), `devolucoes.ts` (refunds on
 * the shared ledger), `webhooks.ts`, `protocol-routes.ts` (the API Pix), `control-routes.ts` (`/__sim...`),
 * `standalone.ts` (its own server). mTLS is not simulated (see `../client.ts`).
 *
 * In-process:   const sim = createPixPspSimulator({...}); sim.buildServer().inject(...) or
 *               app.register(sim.routes, { prefix: '/__sim/pix-psp' }) or await sim.listen().
 * Standalone:   npx tsx src/integrations/pix-psp/simulator/standalone.ts
 */
import type { FastifyInstance } from 'fastify';
import { oauthRoutes } from '../../simulator/oauth.js';
import type { SimRefund } from '../../simulator/refunds.js';
import { controlApi, simulatorServers, type SimulatorRoutesOptions, type SimulatorServer } from '../../simulator/server.js';
import * as provider from '../../simulator/provider-simulator.js';
import type { WebhookDeliverer } from '../../simulator/webhook-delivery.js';
import { chargeBook, type PayOptions } from './charges.js';
import { controlRoutes } from './control-routes.js';
import { devolucaoBook } from './devolucoes.js';
import { apiPixRoutes } from './protocol-routes.js';
import {
  PIX_PSP_SIM_CLIENT_ID,
  PIX_PSP_SIM_CLIENT_SECRET,
  PIX_PSP_SIM_SCOPES,
  PIX_PSP_SIM_TOKEN_TTL_SECONDS,
  pixPspTokens,
  viewCharge,
  type SimChargeView,
  type SimPixView,
} from './state.js';
import { pixWebhookSender, type PixWebhookDelivery } from './webhooks.js';

export { PIX_PSP_SIM_CLIENT_ID, PIX_PSP_SIM_CLIENT_SECRET, PIX_PSP_SIM_ISPB, PIX_PSP_SIM_SCOPES, PIX_PSP_SIM_TOKEN_TTL_SECONDS } from './state.js';
export type { SimChargeView, SimPixView } from './state.js';
export type { PayOptions } from './charges.js';
export type { SimRefund } from '../../simulator/refunds.js';
export type { PixWebhookDelivery } from './webhooks.js';

export interface PixPspSimulatorOptions extends provider.ProviderSimulatorOptions {
  /** The webhook URL registered with the PSP (`http://localhost:3000/api/pix-psp/webhook`); it POSTs to it + `/pix`. None: no webhooks. */
  webhookUrl?: string;
  /** Secret for `x-pix-psp-signature`; none: webhooks are sent unsigned. */
  webhookSecret?: string;
  /** In the BR Codes (default `RESTAURANTE SIMULADO`, `SAO PAULO`). */
  merchantName?: string;
  merchantCity?: string;
}

export interface PixPspSimulator extends SimulatorServer, provider.ProviderSimulatorHelpers<PixWebhookDelivery> {
  /** A payer pays the charge (in full unless `amountCents`): it becomes CONCLUIDA and the webhook is sent. */
  pay(txid: string, opts?: PayOptions): Promise<{ charge: SimChargeView; pix: SimPixView; webhook: PixWebhookDelivery }>;
  /** The PSP removes an active charge (`REMOVIDA_PELO_PSP`). */
  remove(txid: string): SimChargeView;
  /** Notifies a received Pix again (a duplicate, as PSPs do). */
  resend(endToEndId: string): Promise<PixWebhookDelivery>;
  getCharge(txid: string): SimChargeView | undefined;
  /** Oldest first. */
  listCharges(): SimChargeView[];
  /** Every Pix received, oldest first. */
  listPix(): SimPixView[];
  /** Devoluções of one Pix (by endToEndId; `paymentId` is the endToEndId, `idempotencyKey` the devolução id), oldest first. */
  refundsOf(endToEndId: string): SimRefund[];
  listRefunds(): SimRefund[];
  /** Cents the PSP received and did not give back: every Pix minus its devoluções. */
  captured(): number;
  setWebhook(opts: { url?: string | null; secret?: string | null; deliver?: WebhookDeliverer }): void;
}

export function createPixPspSimulator(options: PixPspSimulatorOptions = {}): PixPspSimulator {
  const { clock, log, clientId, clientSecret, webhook, retryDelaysMs } = provider.resolveProviderSimulator(options, {
    clientId: PIX_PSP_SIM_CLIENT_ID,
    clientSecret: PIX_PSP_SIM_CLIENT_SECRET,
  });
  const tokens = pixPspTokens(clock, options.tokenTtlSeconds ?? PIX_PSP_SIM_TOKEN_TTL_SECONDS);
  const webhooks = pixWebhookSender({ clock, log, settings: webhook, retryDelaysMs });
  const charges = chargeBook({
    clock,
    log,
    webhooks,
    merchantName: options.merchantName ?? 'RESTAURANTE SIMULADO',
    merchantCity: options.merchantCity ?? 'SAO PAULO',
    locationHost: 'pix-psp.simulator.internal',
  });
  const devolucoes = devolucaoBook(clock);

  async function routes(app: FastifyInstance, opts: SimulatorRoutesOptions = {}) {
    oauthRoutes(app, { clientId, clientSecret, tokens, basicOnly: true, scopes: PIX_PSP_SIM_SCOPES });
    await apiPixRoutes(app, { tokens, charges, devolucoes });
    await controlApi(app, opts, (ctl) => controlRoutes(ctl, { charges, devolucoes, tokens, webhooks, webhook }));
  }

  const { buildServer, listen, closeServers } = simulatorServers(routes);

  return Object.assign(provider.providerSimulatorHelpers(tokens, webhooks), {
    routes,
    buildServer,
    listen,
    async close() {
      await webhooks.close();
      await closeServers();
    },
    pay: charges.pay,
    remove: (txid: string) => viewCharge(charges.remove(txid)),
    resend: charges.resend,
    getCharge: charges.get,
    listCharges: charges.list,
    listPix: charges.listPix,
    refundsOf: devolucoes.refundsOf,
    listRefunds: devolucoes.list,
    captured: () => devolucoes.captured(charges.payments()),
    setWebhook: (opts: Parameters<PixPspSimulator['setWebhook']>[0]) => provider.updateWebhook(webhook, opts),
  });
}

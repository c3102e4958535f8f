/**
 * The control API (`/__sim...`): a test or a person plays the payer and the PSP. Registered through
 * `controlApi`, so it answers callers on this machine only and is absent in production.
 */
import type { FastifyInstance } from 'fastify';
import type { TokenStore } from '../../simulator/oauth.js';
import { hide, objectBody, send } from '../../simulator/server.js';
import type { ChargeBook } from './charges.js';
import type { DevolucaoBook } from './devolucoes.js';
import { answer, PixSimError, viewCharge } from './state.js';
import type { WebhookSettings } from '../../simulator/provider-simulator.js';
import type { PixWebhookSender } from './webhooks.js';

export interface ControlRoutesDeps {
  charges: ChargeBook;
  devolucoes: DevolucaoBook;
  tokens: TokenStore;
  webhooks: PixWebhookSender;
  webhook: WebhookSettings;
}

export function controlRoutes(ctl: FastifyInstance, { charges, devolucoes, tokens, webhooks, webhook }: ControlRoutesDeps) {
  ctl.get('/__sim', hide, async (_req, reply) =>
    send(reply, 200, {
      simulator: 'pix_psp',
      webhookUrl: webhook.url,
      webhookSigned: Boolean(webhook.secret),
      charges: charges.list().length,
      pix: charges.listPix().length,
      refunds: devolucoes.list().length,
      capturedCents: devolucoes.captured(charges.payments()),
      control: [
        'GET  __sim/cob',
        'GET  __sim/cob/:txid',
        'POST __sim/cob/:txid/pay     { amountCents?, infoPagador? }  (default: the charge\'s amount)',
        'POST __sim/cob/:txid/remove  (the PSP removes it: REMOVIDA_PELO_PSP)',
        'GET  __sim/pix',
        'POST __sim/pix/:e2eid/resend',
        'GET  __sim/refunds',
        'GET  __sim/deliveries',
        'POST __sim/tokens/revoke',
      ],
    }),
  );

  ctl.get('/__sim/cob', hide, async (_req, reply) => send(reply, 200, charges.list().reverse()));

  ctl.get<{ Params: { txid: string } }>('/__sim/cob/:txid', hide, async (req, reply) => answer(reply, () => viewCharge(charges.find(req.params.txid))));

  ctl.post<{ Params: { txid: string } }>('/__sim/cob/:txid/pay', hide, async (req, reply) =>
    answer(reply, () => {
      const b = objectBody(req);
      if (b.amountCents !== undefined && typeof b.amountCents !== 'number') throw new PixSimError(400, 'bad_request', 'Requisição inválida.', 'amountCents must be a number');
      if (b.infoPagador !== undefined && typeof b.infoPagador !== 'string') throw new PixSimError(400, 'bad_request', 'Requisição inválida.', 'infoPagador must be a string');
      return charges.pay(req.params.txid, { amountCents: b.amountCents as number | undefined, payerMessage: b.infoPagador as string | undefined });
    }),
  );

  ctl.post<{ Params: { txid: string } }>('/__sim/cob/:txid/remove', hide, async (req, reply) => answer(reply, () => viewCharge(charges.remove(req.params.txid))));

  ctl.get('/__sim/pix', hide, async (_req, reply) => send(reply, 200, charges.listPix().reverse()));

  ctl.post<{ Params: { e2eid: string } }>('/__sim/pix/:e2eid/resend', hide, async (req, reply) =>
    answer(reply, async () => ({ webhook: await charges.resend(req.params.e2eid) })),
  );

  ctl.get('/__sim/refunds', hide, async (_req, reply) =>
    send(reply, 200, devolucoes.list().reverse().map((r) => ({ endToEndId: r.paymentId, ...devolucoes.view(r) }))),
  );

  ctl.get('/__sim/deliveries', hide, async (_req, reply) => send(reply, 200, [...webhooks.deliveries].reverse()));

  ctl.post('/__sim/tokens/revoke', hide, async (_req, reply) => {
    tokens.revoke();
    return send(reply, 200, { revoked: true });
  });
}

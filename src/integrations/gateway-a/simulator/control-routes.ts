/**
 * The control API (`/__sim...`): a test or a person plays the terminal and the customer. Registered
 * through `controlApi`, so it answers callers on this machine only and is absent in production.
 */
import type { FastifyInstance } from 'fastify';
import type { RefundLedger } from '../../simulator/refunds.js';
import { hide, objectBody, send } from '../../simulator/server.js';
import { TERMINAL_SERIAL } from '../client.js';
import type { GatewayAWebhookShape } from '../webhook.js';
import type { DecideOptions, IntentBook } from './intents.js';
import { replyError, viewIntent, type TerminalRegistry, type TokenStore } from './state.js';
import type { WebhookSender, WebhookSettings } from './webhooks.js';

export interface ControlRoutesDeps {
  intents: IntentBook;
  refunds: RefundLedger;
  terminals: TerminalRegistry;
  tokens: TokenStore;
  webhooks: WebhookSender;
  webhook: WebhookSettings;
}

const shapeOf = (v: unknown): GatewayAWebhookShape | undefined => (v === 'event' || v === 'external' ? v : undefined);

export function controlRoutes(ctl: FastifyInstance, { intents, refunds, terminals, tokens, webhooks, webhook }: ControlRoutesDeps) {
  ctl.get('/__sim', hide, async (_req, reply) =>
    send(reply, 200, {
      simulator: 'gateway_a',
      ...intents.outcome,
      webhookUrl: webhook.url,
      webhookSigned: Boolean(webhook.secret),
      webhookShape: webhook.shape,
      terminals: terminals.strict ? [...terminals.serials] : 'any T-... serial',
      intents: intents.size,
      refunds: refunds.list().length,
      capturedCents: refunds.captured(intents.payments()),
      control: [
        'GET  __sim/intents',
        'POST __sim/intents/:id/approve  { shape?: "event" | "external" }',
        'POST __sim/intents/:id/decline  { shape?, reason? }',
        'POST __sim/intents/:id/resend   { shape? }',
        'POST __sim/outcome              { mode: "manual" | "approve" | "decline", delayMs? }',
        'POST __sim/terminals            { serial }',
        'GET  __sim/refunds',
        'GET  __sim/deliveries',
        'POST __sim/tokens/revoke',
      ],
    }),
  );

  ctl.get('/__sim/intents', hide, async (_req, reply) => send(reply, 200, intents.list().reverse()));

  ctl.get<{ Params: { id: string } }>('/__sim/intents/:id', hide, async (req, reply) => {
    try {
      return send(reply, 200, viewIntent(intents.find(req.params.id)));
    } catch (err) {
      return replyError(reply, err);
    }
  });

  for (const action of ['approve', 'decline'] as const) {
    ctl.post<{ Params: { id: string } }>(`/__sim/intents/:id/${action}`, hide, async (req, reply) => {
      const b = objectBody(req);
      const decision: DecideOptions = {
        shape: shapeOf(b.shape),
        paymentType: typeof b.paymentType === 'string' ? b.paymentType : undefined,
        reason: typeof b.reason === 'string' ? b.reason : undefined,
      };
      try {
        return send(reply, 200, await intents[action](req.params.id, decision));
      } catch (err) {
        return replyError(reply, err);
      }
    });
  }

  ctl.post<{ Params: { id: string } }>('/__sim/intents/:id/resend', hide, async (req, reply) => {
    try {
      return send(reply, 200, { webhook: await intents.resend(req.params.id, { shape: shapeOf(objectBody(req).shape) }) });
    } catch (err) {
      return replyError(reply, err);
    }
  });

  ctl.post('/__sim/outcome', hide, async (req, reply) => {
    const b = objectBody(req);
    if (b.mode !== 'manual' && b.mode !== 'approve' && b.mode !== 'decline') {
      return send(reply, 400, { error: 'bad_request', message: 'mode must be manual, approve or decline', status: 400 });
    }
    const delay = b.delayMs === undefined ? undefined : Number(b.delayMs);
    if (delay !== undefined && (!Number.isInteger(delay) || delay < 0 || delay > 600_000)) {
      return send(reply, 400, { error: 'bad_request', message: 'delayMs must be an integer from 0 to 600000', status: 400 });
    }
    intents.setOutcome(b.mode, delay);
    return send(reply, 200, intents.outcome);
  });

  ctl.post('/__sim/terminals', hide, async (req, reply) => {
    const serial = objectBody(req).serial;
    if (typeof serial !== 'string' || !TERMINAL_SERIAL.test(serial)) {
      return send(reply, 400, { error: 'bad_request', message: 'serial must look like T-XXXX', status: 400 });
    }
    terminals.add(serial);
    return send(reply, 201, { serial });
  });

  ctl.get('/__sim/refunds', hide, async (_req, reply) => send(reply, 200, refunds.list().reverse()));

  ctl.get('/__sim/deliveries', hide, async (_req, reply) => send(reply, 200, [...webhooks.deliveries].reverse()));

  ctl.post('/__sim/tokens/revoke', hide, async (_req, reply) => {
    tokens.revoke();
    return send(reply, 200, { revoked: true });
  });
}

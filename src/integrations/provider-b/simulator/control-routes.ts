/**
 * The control API (`/__sim...`): a test or a person plays the platform and its customers. Registered
 * through `controlApi`, so it answers callers on this machine only and is absent in production.
 */
import type { FastifyInstance } from 'fastify';
import { hide, objectBody, send } from '../../simulator/server.js';
import type { CreateOptions, OrderActions, SendOptions } from './actions.js';
import type { SimOrderInput } from './orders.js';
import { replyError, SimulatorError, type SimState } from './state.js';
import type { WebhookSender } from './webhooks.js';

function sendOptions(b: Record<string, unknown>): SendOptions {
  const { webhookUrl, webhookSecret, badSignature } = b;
  if (webhookUrl !== undefined && typeof webhookUrl !== 'string') throw new SimulatorError(400, 'bad_request', 'webhookUrl must be a string');
  if (webhookSecret !== undefined && webhookSecret !== null && typeof webhookSecret !== 'string') {
    throw new SimulatorError(400, 'bad_request', 'webhookSecret must be a string or null');
  }
  return { webhookUrl, webhookSecret: webhookSecret as string | null | undefined, badSignature: badSignature === true };
}

export function controlRoutes(ctl: FastifyInstance, { state, actions, webhooks }: { state: SimState; actions: OrderActions; webhooks: WebhookSender }) {
  ctl.get('/__sim', hide, async (_req, reply) =>
    send(reply, 200, {
      simulator: 'provider_b',
      orders: state.orders.size,
      statuses: state.statuses.length,
      catalogItems: state.catalog.size,
      control: [
        'POST __sim/orders             { webhookUrl?, webhookSecret?, badSignature?, reference?, storeId?, items?, customer?, address?, notes?, ... }',
        'POST __sim/orders/:id/resend  { webhookUrl?, webhookSecret?, badSignature? }   (a duplicate)',
        'POST __sim/orders/:id/cancel  { event?: "canceled_with_charge" | "canceled_without_charge" | ... }',
        'GET  __sim/orders',
        'GET  __sim/statuses',
        'GET  __sim/catalog',
        'GET  __sim/deliveries',
        'POST __sim/tokens/revoke',
      ],
    }),
  );

  ctl.post('/__sim/orders', hide, async (req, reply) => {
    const b = objectBody(req);
    try {
      const opts: CreateOptions = { ...sendOptions(b), reference: b.reference === true };
      const { order, webhook } = await actions.create(b as SimOrderInput, opts);
      return send(reply, 201, { order: order.payload, state: order.state, webhook });
    } catch (err) {
      return replyError(reply, err);
    }
  });

  ctl.post<{ Params: { id: string } }>('/__sim/orders/:id/resend', hide, async (req, reply) => {
    try {
      return send(reply, 200, { webhook: await actions.resend(req.params.id, sendOptions(objectBody(req))) });
    } catch (err) {
      return replyError(reply, err);
    }
  });

  ctl.post<{ Params: { id: string } }>('/__sim/orders/:id/cancel', hide, async (req, reply) => {
    const b = objectBody(req);
    try {
      if (b.event !== undefined && typeof b.event !== 'string') throw new SimulatorError(400, 'bad_request', 'event must be a string');
      return send(reply, 200, { webhook: await actions.cancel(req.params.id, { ...sendOptions(b), event: b.event }) });
    } catch (err) {
      return replyError(reply, err);
    }
  });

  ctl.get('/__sim/orders', hide, async (_req, reply) =>
    send(
      reply,
      200,
      [...state.orders.values()].reverse().map((o) => ({ id: o.id, storeId: o.storeId, state: o.state, cookingTime: o.cookingTime, order: o.payload })),
    ),
  );
  ctl.get('/__sim/statuses', hide, async (_req, reply) => send(reply, 200, [...state.statuses]));
  ctl.get('/__sim/catalog', hide, async (_req, reply) => send(reply, 200, [...state.catalog.values()]));
  ctl.get('/__sim/deliveries', hide, async (_req, reply) => send(reply, 200, [...webhooks.deliveries].reverse()));
  ctl.post('/__sim/tokens/revoke', hide, async (_req, reply) => {
    state.tokens.revoke();
    return send(reply, 200, { revoked: true });
  });
}

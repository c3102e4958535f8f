/**
 * The control API (`/__sim...`): a test or a person plays the customer and the platform. Registered through
 * `controlApi`, so it answers callers on this machine only and is absent in production.
 */
import type { FastifyInstance } from 'fastify';
import { hide, objectBody, send } from '../../simulator/server.js';
import type { SimOrderInput } from './orders.js';
import { replyError, SimulatorError, type ProviderAWebhookShape, type SignatureMode, type SimState } from './state.js';
import type { OrderBook } from './book.js';
import type { WebhookSender, WebhookSettings } from './webhooks.js';

const shapeOf = (v: unknown): ProviderAWebhookShape | undefined => {
  if (v === undefined) return undefined;
  if (v === 'reference' || v === 'full') return v;
  throw new SimulatorError(400, 'BadRequest', 'shape must be reference or full');
};
const signatureOf = (v: unknown): SignatureMode | undefined => {
  if (v === undefined) return undefined;
  if (v === 'valid' || v === 'bad' || v === 'none') return v;
  throw new SimulatorError(400, 'BadRequest', 'signature must be valid, bad or none');
};
const stringOr = (v: unknown, what: string): string | undefined => {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !v) throw new SimulatorError(400, 'BadRequest', `${what} must be a non-empty string`);
  return v;
};

/** What every sending route reads from its body: where, how signed, which shape. */
function sendOptions(b: Record<string, unknown>) {
  return { url: stringOr(b.webhookUrl, 'webhookUrl'), secret: stringOr(b.webhookSecret, 'webhookSecret'), signature: signatureOf(b.signature), shape: shapeOf(b.shape) };
}

export interface ControlRoutesDeps {
  state: SimState;
  book: OrderBook;
  webhooks: WebhookSender;
  webhook: WebhookSettings;
}

export function controlRoutes(ctl: FastifyInstance, { state, book, webhooks, webhook }: ControlRoutesDeps) {
  const handle =
    <P>(fn: (params: P, body: Record<string, unknown>) => Promise<unknown> | unknown, status = 200) =>
      async (req: { params: unknown; body: unknown }, reply: Parameters<typeof send>[0]) => {
        try {
          return send(reply, status, await fn(req.params as P, objectBody(req as never)));
        } catch (err) {
          return replyError(reply, err);
        }
      };

  ctl.get('/__sim', hide, async (_req, reply) =>
    send(reply, 200, {
      simulator: 'provider_a',
      webhookUrl: webhook.url,
      webhookSigned: Boolean(webhook.secret),
      webhookShape: webhook.shape,
      orders: state.orders.size,
      statusPushes: state.pushes.length,
      catalogItems: state.catalog.size,
      control: [
        'POST __sim/orders                       { webhookUrl?, webhookSecret?, signature?: "valid" | "bad" | "none", shape?: "reference" | "full", order?: {...} }',
        'GET  __sim/orders',
        'POST __sim/orders/:id/resend             { webhookUrl?, signature?, ... }  (the same event again: a duplicate)',
        'POST __sim/orders/:id/cancel             { webhookUrl?, ... }  (the platform cancels: CANCELLED event)',
        'GET  __sim/statuses',
        'GET  __sim/catalog',
        'GET  __sim/deliveries',
        'POST __sim/clients                      { clientId, clientSecret }',
        'POST __sim/failures                     { count, status? }  (the next API calls answer status, default 500)',
        'POST __sim/tokens/revoke',
      ],
    }),
  );

  ctl.post('/__sim/orders', hide, handle<unknown>((_p, b) => book.place((b.order ?? {}) as SimOrderInput, sendOptions(b)), 201));
  ctl.get('/__sim/orders', hide, handle<unknown>(() => [...state.orders.values()].reverse().map(({ details, status }) => ({ status, order: details }))));
  ctl.get('/__sim/orders/:id', hide, handle<{ id: string }>(({ id }) => ({ status: state.order(id).status, order: state.order(id).details })));
  ctl.post('/__sim/orders/:id/resend', hide, handle<{ id: string }>(({ id }, b) => book.resend(id, sendOptions(b))));
  ctl.post('/__sim/orders/:id/cancel', hide, handle<{ id: string }>(({ id }, b) => book.cancel(id, sendOptions(b))));
  ctl.get('/__sim/statuses', hide, handle<unknown>(() => [...state.pushes]));
  ctl.get('/__sim/catalog', hide, handle<unknown>(() => [...state.catalog.values()]));
  ctl.get('/__sim/deliveries', hide, handle<unknown>(() => [...webhooks.deliveries].reverse()));

  ctl.post(
    '/__sim/clients',
    hide,
    handle<unknown>((_p, b) => {
      const clientId = stringOr(b.clientId, 'clientId');
      const clientSecret = stringOr(b.clientSecret, 'clientSecret');
      if (!clientId || !clientSecret) throw new SimulatorError(400, 'BadRequest', 'clientId and clientSecret are required');
      state.clients.set(clientId, clientSecret);
      return { clientId };
    }, 201),
  );

  ctl.post(
    '/__sim/failures',
    hide,
    handle<unknown>((_p, b) => {
      const count = Number(b.count);
      const status = b.status === undefined ? 500 : Number(b.status);
      if (!Number.isInteger(count) || count < 0 || count > 1000) throw new SimulatorError(400, 'BadRequest', 'count must be an integer from 0 to 1000');
      if (!Number.isInteger(status) || status < 400 || status > 599) throw new SimulatorError(400, 'BadRequest', 'status must be from 400 to 599');
      Object.assign(state.failures, { count, status });
      return state.failures;
    }),
  );

  ctl.post(
    '/__sim/tokens/revoke',
    hide,
    handle<unknown>(() => {
      state.tokens.revoke();
      return { revoked: true };
    }),
  );
}

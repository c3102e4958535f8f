/**
 * The control API (`/__sim...`): a test or a person plays the eaters and the platform. Registered through
 * `controlApi`, so it answers callers on this machine only and is absent in production.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { hide, objectBody, send } from '../../simulator/server.js';
import { PROVIDER_C_EVENT_TYPES } from '../webhook.js';
import type { KeyRing } from './keys.js';
import type { OrderBook } from './orders.js';
import { replyError, SimulatorError, type ClientRegistry, type ReceivedLog, type TokenStore } from './state.js';
import { BAD_SIGNATURES, type BadSignature, type ProviderCWebhooks, type ProviderCWebhookSettings } from './webhooks.js';

export interface ControlDeps {
  orders: OrderBook;
  webhooks: ProviderCWebhooks;
  settings: ProviderCWebhookSettings;
  keys: KeyRing;
  clients: ClientRegistry;
  tokens: TokenStore;
  received: ReceivedLog;
}

function badKind(v: unknown, fallback: BadSignature | null): BadSignature | null {
  if (v === undefined) return fallback;
  if (typeof v === 'string' && (BAD_SIGNATURES as readonly string[]).includes(v)) return v as BadSignature;
  throw new SimulatorError(400, 'bad_request', `bad must be one of ${BAD_SIGNATURES.join(', ')}`);
}

async function attempt(reply: FastifyReply, status: number, run: () => Promise<unknown> | unknown) {
  try {
    return send(reply, status, await run());
  } catch (err) {
    return replyError(reply, err);
  }
}

export function controlRoutes(ctl: FastifyInstance, { orders, webhooks, settings, keys, clients, tokens, received }: ControlDeps) {
  ctl.get('/__sim', hide, async (_req, reply) =>
    send(reply, 200, {
      simulator: 'provider_c',
      issuer: settings.issuer,
      webhookUrl: settings.url,
      webhookBaseUrl: settings.baseUrl,
      kids: keys.kids(),
      clients: clients.ids(),
      orders: orders.size,
      statusPushes: received.statuses.length,
      catalogItems: received.items().length,
      control: [
        'POST __sim/orders                 { storeId, webhookUrl?, type?, items?: [{ code, name, quantity?, unitPriceCents, notes?, options?: [{ code, name, quantity?, unitPriceCents? }] }],',
        '                                    notes?, customer?: { firstName, lastName?, phone?, email?, document? }, address?: { street, number?, complement?,',
        '                                    neighborhood?, city?, state?, postalCode?, reference? }, deliveryFeeCents?, discountCents?, serviceFeeCents?, tipCents?,',
        '                                    cash?, bad?: "signature" | "unknown_kid" | "body" | "expired" | "audience" }',
        'GET  __sim/orders, __sim/orders/:id',
        'POST __sim/orders/:id/resend      { webhookUrl? }   (the same event again: a duplicate)',
        'POST __sim/orders/:id/bad-webhook { webhookUrl?, bad? }   (the same event, signed wrongly; default bad: signature)',
        'POST __sim/orders/:id/cancel      { webhookUrl? }   (the platform cancels: orders.cancel)',
        'GET  __sim/statuses, __sim/catalog, __sim/deliveries',
        'POST __sim/keys/rotate            { keepOld?: true }',
        'POST __sim/clients                { clientId, clientSecret }',
        'POST __sim/tokens/revoke',
      ],
    }),
  );

  ctl.post('/__sim/orders', hide, async (req, reply) => {
    const b = objectBody(req);
    return attempt(reply, 201, async () => {
      const url = webhooks.resolveUrl(b.webhookUrl);
      const bad = badKind(b.bad, null);
      const order = orders.create(b);
      const webhook = await webhooks.notify(order, PROVIDER_C_EVENT_TYPES.newOrder, url, bad);
      return { order, webhook };
    });
  });

  ctl.get('/__sim/orders', hide, async (_req, reply) => send(reply, 200, orders.list().reverse()));

  ctl.get<{ Params: { id: string } }>('/__sim/orders/:id', hide, async (req, reply) => attempt(reply, 200, () => orders.find(req.params.id)));

  ctl.post<{ Params: { id: string } }>('/__sim/orders/:id/resend', hide, async (req, reply) => {
    const b = objectBody(req);
    return attempt(reply, 200, async () => {
      const order = orders.find(req.params.id);
      return { webhook: await webhooks.resend(order, b.webhookUrl === undefined ? undefined : webhooks.resolveUrl(b.webhookUrl)) };
    });
  });

  ctl.post<{ Params: { id: string } }>('/__sim/orders/:id/bad-webhook', hide, async (req, reply) => {
    const b = objectBody(req);
    return attempt(reply, 200, async () => {
      const order = orders.find(req.params.id);
      const url = b.webhookUrl === undefined ? undefined : webhooks.resolveUrl(b.webhookUrl);
      return { webhook: await webhooks.resend(order, url, badKind(b.bad, 'signature')) };
    });
  });

  ctl.post<{ Params: { id: string } }>('/__sim/orders/:id/cancel', hide, async (req, reply) => {
    const b = objectBody(req);
    return attempt(reply, 200, async () => {
      const url = webhooks.resolveUrl(b.webhookUrl);
      const order = orders.act(req.params.id, 'platform_cancel');
      return { order, webhook: await webhooks.notify(order, PROVIDER_C_EVENT_TYPES.cancel, url) };
    });
  });

  ctl.get('/__sim/statuses', hide, async (_req, reply) => send(reply, 200, [...received.statuses].reverse()));
  ctl.get('/__sim/catalog', hide, async (_req, reply) => send(reply, 200, { items: received.items(), received: [...received.catalog].reverse() }));
  ctl.get('/__sim/deliveries', hide, async (_req, reply) => send(reply, 200, [...webhooks.deliveries].reverse()));

  ctl.post('/__sim/keys/rotate', hide, async (req, reply) => {
    const keepOld = objectBody(req).keepOld;
    if (keepOld !== undefined && typeof keepOld !== 'boolean') return send(reply, 400, { code: 'bad_request', message: 'keepOld must be a boolean' });
    return send(reply, 200, keys.rotate(keepOld ?? true));
  });

  ctl.post('/__sim/clients', hide, async (req, reply) => {
    const { clientId, clientSecret } = objectBody(req);
    if (typeof clientId !== 'string' || !clientId || typeof clientSecret !== 'string' || !clientSecret) {
      return send(reply, 400, { code: 'bad_request', message: 'clientId and clientSecret are required' });
    }
    clients.add(clientId, clientSecret);
    return send(reply, 201, { clientId });
  });

  ctl.post('/__sim/tokens/revoke', hide, async (_req, reply) => {
    tokens.revoke();
    return send(reply, 200, { revoked: true });
  });
}

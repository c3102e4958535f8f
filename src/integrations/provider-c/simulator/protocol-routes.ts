/**
 * provider_c's own protocol, as Uber Eats serves it: `POST /oauth/v2/token` (client credentials, scopes
 * `eats.order` / `eats.store`), the order details, the two order actions, one catalog item, and the public
 * keys of the webhooks' JWTs (`GET /.well-known/jwks.json`, no token needed).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../../../platform/crypto.js';
import { hide, objectBody, send } from '../../simulator/server.js';
import type { KeyRing } from './keys.js';
import type { OrderBook } from './orders.js';
import { PROVIDER_C_SIM_SCOPES, replyError, type ClientRegistry, type ReceivedLog, type TokenStore } from './state.js';

export interface ProtocolDeps {
  clients: ClientRegistry;
  tokens: TokenStore;
  orders: OrderBook;
  received: ReceivedLog;
  keys: KeyRing;
  now: () => Date;
}

export async function protocolRoutes(app: FastifyInstance, { clients, tokens, orders, received, keys, now }: ProtocolDeps) {
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
  }

  app.get('/.well-known/jwks.json', hide, async (_req, reply) => reply.code(200).header('cache-control', 'public, max-age=300').send(keys.jwks()));

  app.post('/oauth/v2/token', hide, async (req, reply) => {
    tokens.countRequest();
    const b = objectBody(req);
    const refuse = (status: number, error: string, error_description: string) => send(reply, status, { error, error_description });
    const id = typeof b.client_id === 'string' ? b.client_id : '';
    const secret = clients.secretOf(id);
    if (b.grant_type !== 'client_credentials') return refuse(400, 'unsupported_grant_type', 'only client_credentials is supported');
    if (!secret || typeof b.client_secret !== 'string' || !safeEqual(b.client_secret, secret)) return refuse(401, 'invalid_client', 'invalid client_id or client_secret');
    const asked = typeof b.scope === 'string' ? b.scope.trim() : '';
    const unknown = asked.split(/\s+/).filter((s) => s && !(PROVIDER_C_SIM_SCOPES as readonly string[]).includes(s));
    if (unknown.length) return refuse(400, 'invalid_scope', `unknown scope ${unknown.join(' ')}`);
    const t = tokens.issue(asked || undefined);
    return send(reply, 200, { access_token: t.access_token, token_type: t.token_type, expires_in: t.expires_in, scope: t.scope });
  });

  /** 401 without a live token, 403 when it lacks `scope`; true when the call may go on. */
  const authorize = (req: FastifyRequest, reply: FastifyReply, scope: string): boolean => {
    const check = tokens.check(req.headers.authorization, scope);
    if (check === 'ok') return true;
    if (check === 'unauthorized') void send(reply, 401, { code: 'unauthorized', message: 'invalid or expired access token' });
    else void send(reply, 403, { code: 'forbidden', message: `the token lacks the ${scope} scope` });
    return false;
  };

  app.get<{ Params: { id: string } }>('/v2/eats/order/:id', hide, async (req, reply) => {
    if (!authorize(req, reply, 'eats.order')) return reply;
    try {
      return send(reply, 200, orders.find(req.params.id));
    } catch (err) {
      return replyError(reply, err);
    }
  });

  for (const action of ['accept_pos_order', 'cancel'] as const) {
    app.post<{ Params: { id: string } }>(`/v1/eats/orders/:id/${action}`, hide, async (req, reply) => {
      if (!authorize(req, reply, 'eats.order')) return reply;
      const record = (status: number) => received.pushStatus({ orderId: req.params.id, action, body: req.body ?? null, status, at: now().toISOString() });
      try {
        orders.act(req.params.id, action);
        record(204);
        return reply.code(204).send();
      } catch (err) {
        record((err as { status?: number }).status ?? 500);
        return replyError(reply, err);
      }
    });
  }

  app.put<{ Params: { storeId: string; itemId: string } }>('/v2/eats/stores/:storeId/menus/items/:itemId', hide, async (req, reply) => {
    if (!authorize(req, reply, 'eats.store')) return reply;
    const b = objectBody(req);
    const price = (b.price_info as { price?: unknown } | undefined)?.price;
    const title = (b.title as { translations?: Record<string, unknown> } | undefined)?.translations;
    if (!Number.isSafeInteger(price) || (price as number) < 0 || !title || !Object.values(title).some((t) => typeof t === 'string' && t)) {
      return send(reply, 400, { code: 'invalid_request', message: 'title.translations and price_info.price (minor units) are required' });
    }
    received.putItem({ storeId: req.params.storeId, itemId: req.params.itemId, body: b, at: now().toISOString() });
    return reply.code(204).send();
  });
}

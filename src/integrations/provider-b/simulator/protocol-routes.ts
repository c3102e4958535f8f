/**
 * The platform's own protocol, as the simulator serves it: the token endpoint (JSON client credentials
 * with `audience`), orders (list and one, by store), the status actions and the menu upsert. API calls
 * need `x-authorization: Bearer <token>`.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../../platform/clock.js';
import { safeEqual } from '../../../platform/crypto.js';
import { hide, objectBody, send } from '../../simulator/server.js';
import { amountToCents } from '../amounts.js';
import { PROVIDER_B_API } from '../client.js';
import { CLOSED, replyError, SimulatorError, type SimOrder, type SimState, type SimStatusPush } from './state.js';

export interface ProtocolDeps {
  state: SimState;
  clock: Clock;
  clientId: string;
  clientSecret: string;
  audience: string;
}

export function tokenRoute(app: FastifyInstance, { state, clientId, clientSecret, audience }: ProtocolDeps) {
  app.post('/oauth/token', hide, async (req, reply) => {
    state.tokens.countRequest();
    const b = objectBody(req);
    if (b.grant_type !== 'client_credentials') return send(reply, 400, { error: 'unsupported_grant_type', error_description: 'only client_credentials' });
    const id = typeof b.client_id === 'string' ? b.client_id : '';
    const secret = typeof b.client_secret === 'string' ? b.client_secret : '';
    if (!safeEqual(id, clientId) || !safeEqual(secret, clientSecret)) return send(reply, 401, { error: 'access_denied', error_description: 'Unauthorized' });
    if (b.audience !== audience) return send(reply, 403, { error: 'access_denied', error_description: `Service not found: ${String(b.audience)}` });
    const { access_token, expires_in, token_type, scope } = state.tokens.issue();
    return send(reply, 200, { access_token, expires_in, token_type, scope });
  });
}

type Action = SimStatusPush['status'];

export async function apiRoutes(app: FastifyInstance, { state, clock }: ProtocolDeps) {
  const find = (orderId: string, storeId?: unknown): SimOrder => {
    const order = state.orders.get(orderId);
    if (!order || (typeof storeId === 'string' && storeId !== order.storeId)) throw new SimulatorError(404, 'order_not_found', `order ${orderId} not found`);
    return order;
  };

  const act = (orderId: string, status: Action, extra: { cookingTime?: number; reason?: string } = {}) => {
    const order = find(orderId);
    if (CLOSED.has(order.state)) throw new SimulatorError(409, 'invalid_order_state', `order ${orderId} is ${order.state}`);
    order.state = status;
    if (extra.cookingTime !== undefined) order.cookingTime = extra.cookingTime;
    const at = clock.now().toISOString();
    const push: SimStatusPush = { orderId, storeId: order.storeId, status, cookingTime: extra.cookingTime ?? null, reason: extra.reason ?? null, at };
    state.statuses.push(push);
    return push;
  };

  await app.register(async (api) => {
    api.addHook('onRequest', async (req, reply) => {
      const header = req.headers['x-authorization'];
      if (!state.tokens.valid(typeof header === 'string' ? header : undefined)) return send(reply, 401, { code: 'unauthorized', message: 'invalid or expired token' });
    });

    api.get(`${PROVIDER_B_API}/orders`, hide, async (req, reply) => {
      const storeId = (req.query as Record<string, unknown>).storeId;
      if (typeof storeId !== 'string' || !storeId) return send(reply, 400, { code: 'bad_request', message: 'storeId is required' });
      const open = [...state.orders.values()].filter((o) => o.storeId === storeId && o.state === 'SENT');
      return send(reply, 200, open.map((o) => o.payload));
    });

    api.get<{ Params: { orderId: string } }>(`${PROVIDER_B_API}/orders/:orderId`, hide, async (req, reply) => {
      try {
        return send(reply, 200, find(req.params.orderId, (req.query as Record<string, unknown>).storeId).payload);
      } catch (err) {
        return replyError(reply, err);
      }
    });

    api.put<{ Params: { orderId: string; cookingTime: string } }>(`${PROVIDER_B_API}/orders/:orderId/take/:cookingTime`, hide, async (req, reply) => {
      const cookingTime = Number(req.params.cookingTime);
      if (!Number.isInteger(cookingTime) || cookingTime < 1 || cookingTime > 240) return send(reply, 400, { code: 'bad_request', message: 'cookingTime must be 1 to 240 minutes' });
      try {
        return send(reply, 200, act(req.params.orderId, 'TAKEN', { cookingTime }));
      } catch (err) {
        return replyError(reply, err);
      }
    });

    for (const [path, status] of [['cooking', 'COOKING'], ['ready-for-pickup', 'READY_TO_PICK'], ['delivered', 'DELIVERED']] as const) {
      api.put<{ Params: { orderId: string } }>(`${PROVIDER_B_API}/orders/:orderId/${path}`, hide, async (req, reply) => {
        try {
          return send(reply, 200, act(req.params.orderId, status));
        } catch (err) {
          return replyError(reply, err);
        }
      });
    }

    api.put<{ Params: { orderId: string } }>(`${PROVIDER_B_API}/orders/:orderId/reject`, hide, async (req, reply) => {
      const reason = objectBody(req).reason;
      if (typeof reason !== 'string' || !reason.trim()) return send(reply, 400, { code: 'bad_request', message: 'reason is required' });
      try {
        return send(reply, 200, act(req.params.orderId, 'REJECTED', { reason }));
      } catch (err) {
        return replyError(reply, err);
      }
    });

    api.post(`${PROVIDER_B_API}/menu`, hide, async (req, reply) => {
      const b = objectBody(req);
      const problem = (m: string) => send(reply, 400, { code: 'bad_request', message: m });
      if (typeof b.storeId !== 'string' || !b.storeId) return problem('storeId is required');
      if (!Array.isArray(b.items) || b.items.length === 0) return problem('items must be a non-empty array');
      const rows = b.items.map((raw: unknown, i: number) => {
        const it = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
        if (typeof it.sku !== 'string' || !it.sku) return `items[${i}].sku is required`;
        if (typeof it.name !== 'string' || !it.name) return `items[${i}].name is required`;
        if (typeof it.price !== 'number' || amountToCents(it.price, true) === null) return `items[${i}].price must be a non-negative amount`;
        const category = it.category && typeof it.category === 'object' ? (it.category as Record<string, unknown>).name : undefined;
        return { sku: it.sku, name: it.name, description: typeof it.description === 'string' ? it.description : '', price: it.price, category: typeof category === 'string' ? category : null, available: it.available !== false };
      });
      const wrong = rows.find((r) => typeof r === 'string');
      if (wrong) return problem(wrong);
      const at = clock.now().toISOString();
      for (const row of rows as Exclude<(typeof rows)[number], string>[]) {
        const key = `${b.storeId}:${row.sku}`;
        const before = state.catalog.get(key);
        state.catalog.set(key, { storeId: b.storeId, ...row, updates: (before?.updates ?? 0) + 1, receivedAt: at });
      }
      return send(reply, 200, { message: 'Menu received', storeId: b.storeId, items: rows.length });
    });
  });
}

/**
 * The platform's own protocol, as the real one serves it: the OAuth token endpoint (iFood's field names,
 * form-encoded), order details, the order actions (202 Accepted) and catalog items per merchant, all but the
 * token behind a bearer token.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../../platform/clock.js';
import { safeEqual } from '../../../platform/crypto.js';
import { decimalAmountToCents } from '../amounts.js';
import { PROVIDER_A_STATUS_ACTIONS, PROVIDER_A_TOKEN_PATH, type ProviderAOrderAction } from '../client.js';
import { hide, objectBody, send } from '../../simulator/server.js';
import { replyError, SimulatorError, type SimOrderStatus, type SimState } from './state.js';

const ACTION_STATUS: Record<ProviderAOrderAction, SimOrderStatus> = {
  confirm: 'CONFIRMED',
  startPreparation: 'IN_PREPARATION',
  readyToPickup: 'READY_TO_PICKUP',
  dispatch: 'DISPATCHED',
  requestCancellation: 'CANCELLED',
};
/** The status of `STATUS_MAP.provider_a` each action carries (the inverse of the client's mapping). */
const PUSHED_STATUS = Object.fromEntries(Object.entries(PROVIDER_A_STATUS_ACTIONS).map(([status, action]) => [action, status])) as Record<
  ProviderAOrderAction,
  string
>;

const fail = (status: number, code: string, message: string) => new SimulatorError(status, code, message);

export function tokenRoute(app: FastifyInstance, state: SimState) {
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
  }
  app.post(PROVIDER_A_TOKEN_PATH, hide, async (req, reply) => {
    state.tokens.countRequest();
    const b = objectBody(req);
    if (b.grantType !== 'client_credentials') return replyError(reply, fail(400, 'BadRequest', 'grantType must be client_credentials'));
    const id = typeof b.clientId === 'string' ? b.clientId : '';
    const secret = typeof b.clientSecret === 'string' ? b.clientSecret : '';
    const known = state.clients.get(id);
    if (known === undefined || !safeEqual(secret, known)) return replyError(reply, fail(401, 'Unauthorized', 'invalid clientId or clientSecret'));
    const t = state.tokens.issue();
    return send(reply, 200, { accessToken: t.access_token, type: 'bearer', expiresIn: t.expires_in });
  });
}

function catalogItem(b: Record<string, unknown>) {
  const str = (k: string) => (typeof b[k] === 'string' && (b[k] as string).trim() ? (b[k] as string).trim() : null);
  const externalCode = str('externalCode');
  const name = str('name');
  const price = b.price && typeof b.price === 'object' ? (b.price as Record<string, unknown>).value : undefined;
  const cents = typeof price === 'number' ? decimalAmountToCents(price) : null;
  if (!externalCode) throw fail(400, 'BadRequest', 'externalCode is required');
  if (!name) throw fail(400, 'BadRequest', 'name is required');
  if (cents === null || cents < 0 || Math.abs(cents - (price as number) * 100) > 1e-6) throw fail(400, 'BadRequest', 'price.value must be a decimal amount, 0 or more');
  if (b.status !== 'AVAILABLE' && b.status !== 'UNAVAILABLE') throw fail(400, 'BadRequest', 'status must be AVAILABLE or UNAVAILABLE');
  return { externalCode, name, description: str('description') ?? '', price: { value: price as number }, status: b.status, categoryName: str('categoryName') } as const;
}

export async function apiRoutes(app: FastifyInstance, { state, clock }: { state: SimState; clock: Clock }) {
  await app.register(async (api) => {
    api.addHook('onRequest', async (req, reply) => {
      if (!state.tokens.valid(req.headers.authorization)) return replyError(reply, fail(401, 'Unauthorized', 'invalid or expired access token'));
      const failure = state.takeFailure();
      if (failure !== null) return replyError(reply, fail(failure, failure === 429 ? 'TooManyRequests' : 'InternalServerError', 'failure injected by the control API'));
    });

    api.get<{ Params: { id: string } }>('/order/v1.0/orders/:id', hide, async (req, reply) => {
      try {
        return send(reply, 200, state.order(req.params.id).details);
      } catch (err) {
        return replyError(reply, err);
      }
    });

    for (const action of Object.keys(ACTION_STATUS) as ProviderAOrderAction[]) {
      api.post<{ Params: { id: string } }>(`/order/v1.0/orders/:id/${action}`, hide, async (req, reply) => {
        try {
          const order = state.order(req.params.id);
          const body = objectBody(req);
          if (action === 'requestCancellation' && (typeof body.reason !== 'string' || typeof body.cancellationCode !== 'string')) {
            throw fail(400, 'BadRequest', 'reason and cancellationCode are required');
          }
          if (order.status === 'CANCELLED') throw fail(409, 'OrderCancelled', `order ${order.id} was cancelled`);
          if (action !== 'requestCancellation' && order.status === 'PLACED' && action !== 'confirm') {
            throw fail(409, 'OrderNotConfirmed', `order ${order.id} must be confirmed first`);
          }
          order.status = ACTION_STATUS[action];
          const at = clock.now().toISOString();
          const push = { orderId: order.id, merchantId: order.merchantId, action, status: PUSHED_STATUS[action], orderStatus: order.status };
          state.pushes.push({ ...push, body: req.body ?? null, at });
          return reply.code(202).send();
        } catch (err) {
          return replyError(reply, err);
        }
      });
    }

    api.put<{ Params: { merchantId: string } }>('/catalog/v2.0/merchants/:merchantId/items', hide, async (req, reply) => {
      try {
        const item = catalogItem(objectBody(req));
        const { merchantId } = req.params;
        const key = state.catalogKey(merchantId, item.externalCode);
        const version = (state.catalog.get(key)?.version ?? 0) + 1;
        const saved = { merchantId, ...item, version, updatedAt: clock.now().toISOString() };
        state.catalog.set(key, saved);
        return send(reply, 200, saved);
      } catch (err) {
        return replyError(reply, err);
      }
    });
  });
}

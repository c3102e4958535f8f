/**
 * The gateway's own protocol, as the real one serves it: the OAuth token endpoint, the Point
 * integration API (devices, payment intents) and refunds of the terminals' payments (`/v1/payments/:id/refunds`),
 * which need a bearer token.
 */
import type { FastifyInstance } from 'fastify';
import { replyRefund, type RefundLedger } from '../../simulator/refunds.js';
import { hide, objectBody, send } from '../../simulator/server.js';

export { oauthRoutes } from '../../simulator/oauth.js';
import type { IntentBook } from './intents.js';
import { replyError, SimulatorError, viewIntent, type TerminalRegistry, type TokenStore } from './state.js';

/** The Point integration API and refunds (bearer token required). */
export async function intentRoutes(
  app: FastifyInstance,
  { tokens, terminals, intents, refunds }: { tokens: TokenStore; terminals: TerminalRegistry; intents: IntentBook; refunds: RefundLedger },
) {
  await app.register(async (api) => {
    api.addHook('onRequest', async (req, reply) => {
      if (!tokens.valid(req.headers.authorization)) {
        return send(reply, 401, { error: 'unauthorized', message: 'invalid or expired access token', status: 401 });
      }
    });

    api.get('/point/integration-api/devices', hide, async (req, reply) => {
      const q = req.query as Record<string, string | undefined>;
      const offset = Math.max(0, Number(q.offset) || 0);
      const limit = Math.min(50, Math.max(1, Number(q.limit) || 50));
      const all = [...terminals.serials].sort();
      const devices = all.slice(offset, offset + limit).map((id, i) => ({
        id,
        pos_id: 1000 + offset + i,
        store_id: '1',
        external_pos_id: id,
        operating_mode: 'PDV',
      }));
      return send(reply, 200, { devices, paging: { total: all.length, offset, limit } });
    });

    api.post<{ Params: { deviceId: string } }>('/point/integration-api/devices/:deviceId/payment-intents', hide, async (req, reply) => {
      try {
        const v = viewIntent(intents.create(req.params.deviceId, objectBody(req), req.headers['x-test-scope'] === 'sandbox'));
        const { id, device_id, amount, description, state, additional_info } = v;
        return send(reply, 201, { id, device_id, amount, description, state, additional_info });
      } catch (err) {
        return replyError(reply, err);
      }
    });

    api.delete<{ Params: { deviceId: string; id: string } }>('/point/integration-api/devices/:deviceId/payment-intents/:id', hide, async (req, reply) => {
      try {
        const intent = await intents.cancel(req.params.deviceId, req.params.id);
        return send(reply, 200, { id: intent.id });
      } catch (err) {
        return replyError(reply, err);
      }
    });

    api.get<{ Params: { id: string } }>('/point/integration-api/payment-intents/:id', hide, async (req, reply) => {
      try {
        return send(reply, 200, viewIntent(intents.find(req.params.id)));
      } catch (err) {
        return replyError(reply, err);
      }
    });

    // Refund of an approved payment, whole or in part; the id is the `payment.id` of a finished intent.
    api.post<{ Params: { id: string } }>('/v1/payments/:id/refunds', hide, async (req, reply) => {
      const { id } = req.params;
      const out = refunds.refund({ paymentId: id, payment: intents.payment(id), key: req.headers['x-idempotency-key'], body: objectBody(req) });
      return replyRefund(reply, out, (status, code, message) => replyError(reply, new SimulatorError(status, code, message)));
    });
  });
}

/**
 * The gateway's own protocol, as the real one serves it: the OAuth token endpoint and the Point
 * integration API (devices, payment intents), which needs a bearer token.
 */
import type { FastifyInstance } from 'fastify';
import { safeEqual } from '../../../platform/crypto.js';
import { hide, objectBody, send } from '../../simulator/server.js';
import type { IntentBook } from './intents.js';
import { replyError, viewIntent, type TerminalRegistry, type TokenStore } from './state.js';

/** OAuth 2.0 client credentials (RFC 6749 4.4): body parameters or HTTP Basic. */
export function oauthRoutes(app: FastifyInstance, { clientId, clientSecret, tokens }: { clientId: string; clientSecret: string; tokens: TokenStore }) {
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
  }

  app.post('/oauth/token', hide, async (req, reply) => {
    tokens.countRequest();
    const b = objectBody(req);
    let id = typeof b.client_id === 'string' ? b.client_id : '';
    let secret = typeof b.client_secret === 'string' ? b.client_secret : '';
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const i = decoded.indexOf(':');
      if (i > 0) {
        id = decodeURIComponent(decoded.slice(0, i));
        secret = decodeURIComponent(decoded.slice(i + 1));
      }
    }
    if (b.grant_type !== 'client_credentials') {
      return send(reply, 400, { error: 'unsupported_grant_type', error_description: 'only client_credentials is supported', status: 400 });
    }
    if (!safeEqual(id, clientId) || !safeEqual(secret, clientSecret)) {
      return send(reply, 401, { error: 'invalid_client', error_description: 'invalid client_id or client_secret', status: 401 });
    }
    return send(reply, 200, tokens.issue());
  });
}

/** The Point integration API (bearer token required). */
export async function intentRoutes(
  app: FastifyInstance,
  { tokens, terminals, intents }: { tokens: TokenStore; terminals: TerminalRegistry; intents: IntentBook },
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
  });
}

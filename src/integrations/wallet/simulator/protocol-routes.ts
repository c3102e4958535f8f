/**
 * The wallet gateway's own protocol, as the real one serves it: card tokens made by the client SDK
 * (public key), payments and their refunds with `X-Idempotency-Key`, and point devices (access token).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../../platform/clock.js';
import type { ProviderLogger } from '../../http.js';
import { replyRefund } from '../../simulator/refunds.js';
import { hide, objectBody, send } from '../../simulator/server.js';
import { decimalToCents } from '../../money.js';
import { CARD_TOKEN_TTL_MS, luhn, publicPayment, refundable, replyError, type CardToken, type SimPayment, type WalletState } from './state.js';

export function protocolRoutes(app: FastifyInstance, { state, clock, log }: { state: WalletState; clock: Clock; log: ProviderLogger }) {
  app.post('/v1/card_tokens', hide, async (req, reply) => {
    const publicKey = (req.query as Record<string, string | undefined>).public_key;
    const account = publicKey ? state.byPublicKey.get(publicKey) : undefined;
    if (!account) return replyError(reply, 401, 'unauthorized', 'invalid public_key');
    const b = objectBody(req);
    const number = typeof b.card_number === 'string' ? b.card_number.replace(/\s+/g, '') : '';
    if (!/^\d{13,19}$/.test(number) || !luhn(number)) return replyError(reply, 400, 'bad_request', 'invalid card_number');
    if (typeof b.security_code !== 'string' || !/^\d{3,4}$/.test(b.security_code)) return replyError(reply, 400, 'bad_request', 'invalid security_code');
    const month = Number(b.expiration_month);
    const year = Number(b.expiration_year);
    const now = clock.now();
    if (!Number.isInteger(month) || month < 1 || month > 12 || !Number.isInteger(year)) {
      return replyError(reply, 400, 'bad_request', 'invalid expiration_month / expiration_year');
    }
    if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)) {
      return replyError(reply, 400, 'bad_request', 'card expired');
    }
    const holder = (b.cardholder as { name?: unknown } | undefined)?.name;
    if (typeof holder !== 'string' || !holder.trim()) return replyError(reply, 400, 'bad_request', 'cardholder.name is required');
    const card: CardToken = {
      id: `ctok_${randomBytes(16).toString('hex')}`,
      userId: account.userId,
      holder,
      lastFour: number.slice(-4),
      firstSix: number.slice(0, 6),
      expiresAt: now.getTime() + CARD_TOKEN_TTL_MS,
      used: false,
    };
    state.cardTokens.set(card.id, card);
    return send(reply, 201, {
      id: card.id,
      status: 'active',
      first_six_digits: card.firstSix,
      last_four_digits: card.lastFour,
      cardholder: { name: holder },
      date_created: now.toISOString(),
      date_due: new Date(card.expiresAt).toISOString(),
      live_mode: false,
    });
  });

  app.post('/v1/payments', hide, async (req, reply) => {
    const account = state.accountOf(req);
    if (!account) return replyError(reply, 401, 'unauthorized', 'invalid access token');
    const key = req.headers['x-idempotency-key'];
    if (typeof key !== 'string' || !key.trim() || key.length > 256) {
      return replyError(reply, 400, 'bad_request', 'header X-Idempotency-Key is required');
    }
    const b = objectBody(req);
    const fingerprint = createHash('sha256').update(JSON.stringify(b)).digest('hex');
    const slot = `${account.userId}:${key}`;
    const seen = state.idempotency.get(slot);
    if (seen) {
      if (seen.fingerprint !== fingerprint) {
        return replyError(reply, 409, 'idempotency_key_reused', 'this X-Idempotency-Key was used with another request body');
      }
      return reply.header('x-idempotency-replayed', 'true').code(seen.status).send(seen.body);
    }
    const cents = decimalToCents(b.transaction_amount);
    if (cents === null) return replyError(reply, 400, 'bad_request', 'transaction_amount must be a positive amount with at most two decimals');
    if (typeof b.token !== 'string' || !b.token) return replyError(reply, 400, 'bad_request', 'token is required');
    const payer = b.payer as { email?: unknown } | undefined;
    if (typeof payer?.email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(payer.email)) return replyError(reply, 400, 'bad_request', 'payer.email is required');
    const installments = b.installments === undefined ? 1 : b.installments;
    if (typeof installments !== 'number' || !Number.isInteger(installments) || installments < 1 || installments > 12) {
      return replyError(reply, 400, 'bad_request', 'installments must be an integer from 1 to 12');
    }
    const result = state.resolveCard(b.token, account);
    if (typeof result === 'string') return replyError(reply, 400, 'bad_request', `invalid card token: ${result}`);
    const now = clock.now().toISOString();
    const payment: SimPayment & { userId: number } = {
      id: state.nextPaymentId(),
      status: result.status,
      status_detail: result.statusDetail,
      transaction_amount: cents / 100,
      currency_id: 'BRL',
      description: typeof b.description === 'string' ? b.description : null,
      installments,
      external_reference: typeof b.external_reference === 'string' ? b.external_reference : null,
      payment_method_id: typeof b.payment_method_id === 'string' ? b.payment_method_id : 'master',
      payment_type_id: 'credit_card',
      binary_mode: b.binary_mode === true,
      live_mode: false,
      payer: { email: payer.email },
      date_created: now,
      date_approved: result.status === 'approved' ? now : null,
      collector_id: account.userId,
      userId: account.userId,
    };
    state.payments.set(payment.id, payment);
    const body = publicPayment(payment);
    state.idempotency.set(slot, { fingerprint, status: 201, body });
    log.info({ paymentId: payment.id, status: payment.status, statusDetail: payment.status_detail, cents }, 'wallet simulator: payment');
    return send(reply, 201, body);
  });

  app.get<{ Params: { id: string } }>('/v1/payments/:id', hide, async (req, reply) => {
    const account = state.accountOf(req);
    if (!account) return replyError(reply, 401, 'unauthorized', 'invalid access token');
    const p = state.payments.get(Number(req.params.id));
    if (!p || p.userId !== account.userId) return replyError(reply, 404, 'not_found', `payment ${req.params.id} not found`);
    return send(reply, 200, publicPayment(p));
  });

  // Refund of an approved charge of the token's account, whole or in part (another account's payment is a 404).
  app.post<{ Params: { id: string } }>('/v1/payments/:id/refunds', hide, async (req, reply) => {
    const account = state.accountOf(req);
    if (!account) return replyError(reply, 401, 'unauthorized', 'invalid access token');
    const { id } = req.params;
    const p = /^\d{1,15}$/.test(id) ? state.payments.get(Number(id)) : undefined;
    const payment = p && p.userId === account.userId ? refundable(p) : undefined;
    const out = state.refunds.refund({ paymentId: id, payment, key: req.headers['x-idempotency-key'], body: objectBody(req), scope: String(account.userId) });
    if (!('refusal' in out) && !out.replayed) log.info({ paymentId: id, refundId: out.refund.id, cents: out.refund.amountCents }, 'wallet simulator: refund');
    return replyRefund(reply, out, (status, code, message) => replyError(reply, status, code, message));
  });

  app.get('/point/integration-api/devices', hide, async (req, reply) => {
    const account = state.accountOf(req);
    if (!account) return replyError(reply, 401, 'unauthorized', 'invalid access token');
    const q = req.query as Record<string, string | undefined>;
    const offset = Math.max(0, Number(q.offset) || 0);
    const limit = Math.min(50, Math.max(1, Number(q.limit) || 50));
    const devices = account.devices.slice(offset, offset + limit).map((id, i) => ({
      id,
      pos_id: 2000 + offset + i,
      store_id: String(account.userId),
      external_pos_id: `CAIXA${String(offset + i + 1).padStart(2, '0')}`,
      operating_mode: 'PDV',
    }));
    return send(reply, 200, { devices, paging: { total: account.devices.length, offset, limit } });
  });
}

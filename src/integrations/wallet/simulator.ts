/**
 * Wallet gateway simulator: the online card gateway of `POST /t/:slug/checkout/wallet-payment` and
 * `POST /t/:slug/walletgateway/test-credentials`, with the same protocol as the real one.
 *
 * - Accounts: an access token (server side), a public key (client SDK) and point devices.
 *   `WALLET_SIM_ACCOUNT` always exists; `POST /__sim/accounts` (or `createAccount`) makes more.
 * - Card tokens: the fixed `WALLET_TEST_CARDS` (reusable, deterministic outcome) or tokens made
 *   by `POST /v1/card_tokens?public_key=...` as the client SDK does (single use, 7 days), whose
 *   outcome follows the cardholder name: APRO approved, FUND insufficient funds, SECU bad
 *   security code, CALL call for authorisation, OTHE other refusal; any other name approves.
 * - `POST /v1/payments` honours `X-Idempotency-Key` (required): the same key and body replay
 *   the first answer without charging again; the same key with another body is a 409.
 *
 * Standalone: npx tsx src/integrations/wallet/simulator.ts   (WALLET_SIM_PORT, default 4020)
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { systemClock, type Clock } from '../../platform/clock.js';
import { silentLogger, type ProviderLogger } from '../http.js';
import { controlApi, simulatorServers, type SimulatorRoutesOptions, type SimulatorServer } from '../simulator-server.js';
import { consoleLogger, isMain, stopOnSignals } from '../standalone.js';

export const WALLET_SIM_ACCOUNT = {
  accessToken: 'TEST-sim-wallet-access-token-0001',
  publicKey: 'TEST-sim-wallet-public-key-0001',
  devices: ['SIMULATOR_POINT__SIM0001'],
} as const;

/** Fixed card tokens with a known result, reusable, valid for every account. */
export const WALLET_TEST_CARDS = {
  approved: 'sim_card_approved',
  insufficientFunds: 'sim_card_insufficient_funds',
  badSecurityCode: 'sim_card_bad_security_code',
  callForAuthorize: 'sim_card_call_for_authorize',
  declined: 'sim_card_declined',
} as const;

type Result = { status: 'approved' | 'rejected'; statusDetail: string };
const APPROVED: Result = { status: 'approved', statusDetail: 'accredited' };
const RESULTS: Record<string, Result> = {
  APRO: APPROVED,
  FUND: { status: 'rejected', statusDetail: 'cc_rejected_insufficient_amount' },
  SECU: { status: 'rejected', statusDetail: 'cc_rejected_bad_filled_security_code' },
  CALL: { status: 'rejected', statusDetail: 'cc_rejected_call_for_authorize' },
  OTHE: { status: 'rejected', statusDetail: 'cc_rejected_other_reason' },
};
const TEST_CARD_RESULTS: Record<string, Result> = {
  [WALLET_TEST_CARDS.approved]: RESULTS.APRO,
  [WALLET_TEST_CARDS.insufficientFunds]: RESULTS.FUND,
  [WALLET_TEST_CARDS.badSecurityCode]: RESULTS.SECU,
  [WALLET_TEST_CARDS.callForAuthorize]: RESULTS.CALL,
  [WALLET_TEST_CARDS.declined]: RESULTS.OTHE,
};

const CARD_TOKEN_TTL_MS = 7 * 24 * 3600 * 1000;

export interface WalletSimAccount {
  accessToken: string;
  publicKey: string;
  devices: string[];
}

interface Account extends WalletSimAccount {
  userId: number;
}

interface CardToken {
  id: string;
  userId: number;
  holder: string;
  lastFour: string;
  firstSix: string;
  expiresAt: number;
  used: boolean;
}

export interface SimPayment {
  id: number;
  status: 'approved' | 'rejected';
  status_detail: string;
  transaction_amount: number;
  currency_id: 'BRL';
  description: string | null;
  installments: number;
  external_reference: string | null;
  payment_method_id: string;
  payment_type_id: 'credit_card';
  binary_mode: boolean;
  live_mode: false;
  payer: { email: string };
  date_created: string;
  date_approved: string | null;
  collector_id: number;
}

export interface WalletSimulatorOptions {
  /** Extra accounts; `WALLET_SIM_ACCOUNT` is always there. */
  accounts?: WalletSimAccount[];
  clock?: Clock;
  log?: ProviderLogger;
}

export interface WalletSimulator extends SimulatorServer {
  createAccount(opts?: { devices?: string[] }): WalletSimAccount;
  listPayments(): SimPayment[];
}

export function createWalletSimulator(options: WalletSimulatorOptions = {}): WalletSimulator {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silentLogger;
  const byToken = new Map<string, Account>();
  const byPublicKey = new Map<string, Account>();
  const cardTokens = new Map<string, CardToken>();
  const payments = new Map<number, SimPayment & { userId: number }>();
  const idempotency = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  const servers: FastifyInstance[] = [];
  let nextUserId = 100_000_001;
  let nextPaymentId = 90_000_000_000 + Math.floor(Math.random() * 1_000_000);

  function addAccount(a: WalletSimAccount): WalletSimAccount {
    const account: Account = { ...a, devices: [...a.devices], userId: nextUserId++ };
    byToken.set(account.accessToken, account);
    byPublicKey.set(account.publicKey, account);
    return { accessToken: account.accessToken, publicKey: account.publicKey, devices: [...account.devices] };
  }
  addAccount({ ...WALLET_SIM_ACCOUNT, devices: [...WALLET_SIM_ACCOUNT.devices] });
  for (const a of options.accounts ?? []) addAccount(a);

  function createAccount(opts: { devices?: string[] } = {}): WalletSimAccount {
    const suffix = randomBytes(12).toString('hex');
    return addAccount({
      accessToken: `TEST-sim-wallet-${suffix}`,
      publicKey: `TEST-sim-pk-${suffix}`,
      devices: opts.devices ?? [`SIMULATOR_POINT__${suffix.slice(0, 8).toUpperCase()}`],
    });
  }

  const send = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).header('cache-control', 'no-store').send(body);
  const error = (reply: FastifyReply, status: number, code: string, message: string) => send(reply, status, { message, error: code, status, cause: [] });
  const hide = { schema: { hide: true } };
  const objectBody = (req: FastifyRequest): Record<string, unknown> =>
    req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
  const accountOf = (req: FastifyRequest): Account | undefined => {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    return m ? byToken.get(m[1]) : undefined;
  };

  /** Decimal amount with at most two decimals -> integer cents, or null. */
  function amountCents(v: unknown): number | null {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return null;
    const cents = Math.round(v * 100);
    return Math.abs(cents - v * 100) < 1e-6 && Number.isSafeInteger(cents) ? cents : null;
  }

  function luhn(digits: string): boolean {
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    return sum % 10 === 0;
  }

  function resolveCard(token: string, account: Account): Result | string {
    const fixed = TEST_CARD_RESULTS[token];
    if (fixed) return fixed;
    const card = cardTokens.get(token);
    if (!card || card.userId !== account.userId) return 'Card Token not found';
    if (card.used) return 'Card Token already used';
    if (clock.now().getTime() >= card.expiresAt) return 'Card Token expired';
    card.used = true;
    return RESULTS[card.holder.trim().toUpperCase()] ?? APPROVED;
  }

  async function routes(app: FastifyInstance, opts: SimulatorRoutesOptions = {}) {
    app.post('/v1/card_tokens', hide, async (req, reply) => {
      const publicKey = (req.query as Record<string, string | undefined>).public_key;
      const account = publicKey ? byPublicKey.get(publicKey) : undefined;
      if (!account) return error(reply, 401, 'unauthorized', 'invalid public_key');
      const b = objectBody(req);
      const number = typeof b.card_number === 'string' ? b.card_number.replace(/\s+/g, '') : '';
      if (!/^\d{13,19}$/.test(number) || !luhn(number)) return error(reply, 400, 'bad_request', 'invalid card_number');
      if (typeof b.security_code !== 'string' || !/^\d{3,4}$/.test(b.security_code)) return error(reply, 400, 'bad_request', 'invalid security_code');
      const month = Number(b.expiration_month);
      const year = Number(b.expiration_year);
      const now = clock.now();
      if (!Number.isInteger(month) || month < 1 || month > 12 || !Number.isInteger(year)) {
        return error(reply, 400, 'bad_request', 'invalid expiration_month / expiration_year');
      }
      if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)) {
        return error(reply, 400, 'bad_request', 'card expired');
      }
      const holder = (b.cardholder as { name?: unknown } | undefined)?.name;
      if (typeof holder !== 'string' || !holder.trim()) return error(reply, 400, 'bad_request', 'cardholder.name is required');
      const card: CardToken = {
        id: `ctok_${randomBytes(16).toString('hex')}`,
        userId: account.userId,
        holder,
        lastFour: number.slice(-4),
        firstSix: number.slice(0, 6),
        expiresAt: now.getTime() + CARD_TOKEN_TTL_MS,
        used: false,
      };
      cardTokens.set(card.id, card);
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
      const account = accountOf(req);
      if (!account) return error(reply, 401, 'unauthorized', 'invalid access token');
      const key = req.headers['x-idempotency-key'];
      if (typeof key !== 'string' || !key.trim() || key.length > 256) {
        return error(reply, 400, 'bad_request', 'header X-Idempotency-Key is required');
      }
      const b = objectBody(req);
      const fingerprint = createHash('sha256').update(JSON.stringify(b)).digest('hex');
      const slot = `${account.userId}:${key}`;
      const seen = idempotency.get(slot);
      if (seen) {
        if (seen.fingerprint !== fingerprint) {
          return error(reply, 409, 'idempotency_key_reused', 'this X-Idempotency-Key was used with another request body');
        }
        return reply.header('x-idempotency-replayed', 'true').code(seen.status).send(seen.body);
      }
      const cents = amountCents(b.transaction_amount);
      if (cents === null) return error(reply, 400, 'bad_request', 'transaction_amount must be a positive amount with at most two decimals');
      if (typeof b.token !== 'string' || !b.token) return error(reply, 400, 'bad_request', 'token is required');
      const payer = b.payer as { email?: unknown } | undefined;
      if (typeof payer?.email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(payer.email)) return error(reply, 400, 'bad_request', 'payer.email is required');
      const installments = b.installments === undefined ? 1 : b.installments;
      if (typeof installments !== 'number' || !Number.isInteger(installments) || installments < 1 || installments > 12) {
        return error(reply, 400, 'bad_request', 'installments must be an integer from 1 to 12');
      }
      const result = resolveCard(b.token, account);
      if (typeof result === 'string') return error(reply, 400, 'bad_request', `invalid card token: ${result}`);
      const now = clock.now().toISOString();
      const payment: SimPayment & { userId: number } = {
        id: nextPaymentId++,
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
      payments.set(payment.id, payment);
      const body = publicPayment(payment);
      idempotency.set(slot, { fingerprint, status: 201, body });
      log.info({ paymentId: payment.id, status: payment.status, statusDetail: payment.status_detail, cents }, 'wallet simulator: payment');
      return send(reply, 201, body);
    });

    app.get<{ Params: { id: string } }>('/v1/payments/:id', hide, async (req, reply) => {
      const account = accountOf(req);
      if (!account) return error(reply, 401, 'unauthorized', 'invalid access token');
      const p = payments.get(Number(req.params.id));
      if (!p || p.userId !== account.userId) return error(reply, 404, 'not_found', `payment ${req.params.id} not found`);
      return send(reply, 200, publicPayment(p));
    });

    app.get('/point/integration-api/devices', hide, async (req, reply) => {
      const account = accountOf(req);
      if (!account) return error(reply, 401, 'unauthorized', 'invalid access token');
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

    // ---- Control API (loopback callers only): the default account, test cards, every account's payments.
    await controlApi(app, opts, (ctl) => {
      ctl.get('/__sim', hide, async (_req, reply) =>
        send(reply, 200, {
          simulator: 'wallet',
          account: WALLET_SIM_ACCOUNT,
          testCards: WALLET_TEST_CARDS,
          cardholderNames: { APRO: 'approved', FUND: 'insufficient funds', SECU: 'bad security code', CALL: 'call for authorize', OTHE: 'declined' },
          payments: payments.size,
          control: ['POST __sim/accounts { devices?: string[] }', 'GET  __sim/payments'],
        }),
      );
      ctl.post('/__sim/accounts', hide, async (req, reply) => {
        const devices = objectBody(req).devices;
        if (devices !== undefined && (!Array.isArray(devices) || !devices.every((d) => typeof d === 'string' && d.length > 0 && d.length <= 100))) {
          return error(reply, 400, 'bad_request', 'devices must be a list of device ids');
        }
        return send(reply, 201, createAccount({ devices: devices as string[] | undefined }));
      });
      ctl.get('/__sim/payments', hide, async (_req, reply) => send(reply, 200, [...payments.values()].reverse().map(publicPayment)));
    });
  }

  const { buildServer, listen } = simulatorServers(routes, servers);

  return {
    routes,
    buildServer,
    listen,
    async close() {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    },
    createAccount,
    listPayments: () => [...payments.values()].map(publicPayment),
  };
}

function publicPayment(p: SimPayment & { userId?: number }): SimPayment {
  const { userId: _userId, ...rest } = p;
  return rest;
}

/** Standalone server. Environment: WALLET_SIM_PORT (4020), WALLET_SIM_HOST (127.0.0.1). */
export async function runStandalone(env: NodeJS.ProcessEnv = process.env): Promise<WalletSimulator> {
  const sim = createWalletSimulator({ log: consoleLogger('wallet simulator') });
  // The control API answers loopback callers only, and is not served when NODE_ENV=production.
  const control = env.NODE_ENV !== 'production';
  const url = await sim.listen({ port: Number(env.WALLET_SIM_PORT || 4020), host: env.WALLET_SIM_HOST || '127.0.0.1', control });
  process.stdout.write(
    [
      `wallet simulator listening on ${url}`,
      `  point the service at it: WALLET_MODE=simulator WALLET_BASE_URL=${url}`,
      `  access token:  ${WALLET_SIM_ACCOUNT.accessToken}   public key: ${WALLET_SIM_ACCOUNT.publicKey}`,
      `  device:        ${WALLET_SIM_ACCOUNT.devices[0]}`,
      `  test cards:    ${Object.entries(WALLET_TEST_CARDS).map(([k, v]) => `${v} (${k})`).join(', ')}`,
      control ? `  new account:   curl -s -X POST ${url}/__sim/accounts   (control API: from this machine only)` : '  control API:   off (NODE_ENV=production)',
      '',
    ].join('\n'),
  );
  return sim;
}

if (isMain(import.meta.url)) {
  runStandalone()
    .then((sim) => stopOnSignals(() => sim.close()))
    .catch((err) => {
      process.stderr.write(`wallet simulator failed to start: ${(err as Error).message}\n`);
      process.exit(1);
    });
}

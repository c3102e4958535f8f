/**
 * gateway_a simulator: plays the card-terminal gateway with the same protocol as the real one
 * (OAuth client credentials, payment intents on devices, signed webhooks), so the service can be
 * tested and demonstrated without the real gateway. It never decides on its own unless told to:
 * in `manual` mode an intent waits until a test or a person approves or declines it (or forever,
 * which is how "the terminal never answers" is played); `approve` / `decline` modes decide after
 * a delay, for the demo.
 *
 * In-process:   const sim = createGatewayASimulator({...}); sim.buildServer().inject(...) or
 *               app.register(sim.routes, { prefix: '/__sim/gateway-a' }) or await sim.listen().
 * Standalone:   npx tsx src/integrations/gateway-a/simulator.ts   (env: see runStandalone below)
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { systemClock, type Clock } from '../../platform/clock.js';
import { safeEqual } from '../../platform/crypto.js';
import { describeError, silentLogger, type FetchLike, type ProviderLogger } from '../http.js';
import { controlApi, simulatorServers, type SimulatorRoutesOptions, type SimulatorServer } from '../simulator-server.js';
import { consoleLogger, isMain, stopOnSignals } from '../standalone.js';
import { TERMINAL_SERIAL } from './client.js';
import { GATEWAY_A_SIGNATURE_HEADER, signGatewayAPayload } from './signature.js';
import { buildGatewayAWebhookBody, type GatewayAWebhookShape, type PaymentOutcome } from './webhook.js';

export const GATEWAY_A_SIM_CLIENT_ID = 'sim-gateway-a-client';
export const GATEWAY_A_SIM_CLIENT_SECRET = 'sim-gateway-a-secret';
/** Token lifetime of the simulator unless told otherwise (6 hours, like the real gateway). */
export const GATEWAY_A_SIM_TOKEN_TTL_SECONDS = 21_600;

export type SimOutcomeMode = 'manual' | 'approve' | 'decline';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}
/** How the simulator sends a webhook; default an HTTP POST with fetch. Tests may inject into an app. */
export type WebhookDeliverer = (req: WebhookRequest) => Promise<{ status: number }>;

export interface WebhookDelivery {
  intentId: string;
  attempt: number;
  url: string | null;
  shape: GatewayAWebhookShape;
  outcome: PaymentOutcome;
  body: string;
  signature: string | null;
  /** HTTP status of the receiver; null when it could not be reached or no URL is configured. */
  status: number | null;
  error: string | null;
  at: string;
}

export interface GatewayASimulatorOptions {
  clientId?: string;
  clientSecret?: string;
  tokenTtlSeconds?: number;
  /** Known terminal serials. When omitted, any serial of the form `T-...` is accepted (and then listed). */
  terminals?: string[];
  /** Where webhooks go (e.g. `http://localhost:3000/api/gateway-a/webhook`). None: results are only readable by GET. */
  webhookUrl?: string;
  /** Secret for `X-GatewayA-Signature`; none: webhooks are sent unsigned (a gateway without a secret configured). */
  webhookSecret?: string;
  webhookShape?: GatewayAWebhookShape;
  deliver?: WebhookDeliverer;
  /** Waits before each retry of a webhook the receiver did not accept (non-2xx or unreachable). */
  webhookRetryDelaysMs?: number[];
  outcome?: SimOutcomeMode;
  /** Delay of the automatic decision in `approve` / `decline` mode. */
  outcomeDelayMs?: number;
  clock?: Clock;
  /** Used by the default deliverer. */
  fetch?: FetchLike;
  log?: ProviderLogger;
}

type IntentState = 'OPEN' | 'ON_TERMINAL' | 'PROCESSING' | 'FINISHED' | 'CANCELED' | 'ERROR';
const PENDING: ReadonlySet<IntentState> = new Set(['OPEN', 'ON_TERMINAL', 'PROCESSING']);

interface SimIntent {
  id: string;
  deviceId: string;
  amount: number;
  description: string | null;
  externalReference: string | null;
  printOnTerminal: boolean;
  state: IntentState;
  payment: { id: number; state: 'approved' | 'rejected'; type: string } | null;
  declineReason: string | null;
  sandbox: boolean;
  createdAt: Date;
  updatedAt: Date;
  lastShape: GatewayAWebhookShape | null;
}

/** The intent as the gateway's API shows it. */
export interface SimIntentView {
  id: string;
  device_id: string;
  amount: number;
  description?: string;
  state: IntentState;
  payment?: { id: number; state: 'approved' | 'rejected'; type: string };
  additional_info: { external_reference?: string; print_on_terminal: boolean };
  created_at: string;
}

export class SimulatorError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface DecideOptions {
  shape?: GatewayAWebhookShape;
  /** Approve: card type shown on the payment. */
  paymentType?: string;
  /** Decline: reason recorded on the intent. */
  reason?: string;
}

export interface GatewayASimulator extends SimulatorServer {
  approve(intentId: string, opts?: DecideOptions): Promise<{ intent: SimIntentView; webhook: WebhookDelivery | null }>;
  decline(intentId: string, opts?: DecideOptions): Promise<{ intent: SimIntentView; webhook: WebhookDelivery | null }>;
  /** Sends the webhook of a decided intent again (a duplicate, as real gateways do). */
  resend(intentId: string, opts?: { shape?: GatewayAWebhookShape }): Promise<WebhookDelivery | null>;
  getIntent(intentId: string): SimIntentView | undefined;
  listIntents(): SimIntentView[];
  setOutcome(mode: SimOutcomeMode, delayMs?: number): void;
  setWebhook(opts: { url?: string | null; secret?: string | null; shape?: GatewayAWebhookShape; deliver?: WebhookDeliverer }): void;
  addTerminal(serial: string): void;
  /** Revokes every issued token (the next API call gets 401). */
  revokeTokens(): void;
  readonly deliveries: readonly WebhookDelivery[];
  readonly tokenRequests: number;
  /** Calls `listener` after each webhook attempt; returns an unsubscribe function. */
  onDelivery(listener: (d: WebhookDelivery) => void): () => void;
  /** Resolves with the next delivery attempt matching `filter` (rejects after `timeoutMs`). */
  nextDelivery(filter?: (d: WebhookDelivery) => boolean, timeoutMs?: number): Promise<WebhookDelivery>;
  /** Resolves when no webhook delivery (retries included) is under way. */
  idle(): Promise<void>;
}

export function createGatewayASimulator(options: GatewayASimulatorOptions = {}): GatewayASimulator {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silentLogger;
  const clientId = options.clientId ?? GATEWAY_A_SIM_CLIENT_ID;
  const clientSecret = options.clientSecret ?? GATEWAY_A_SIM_CLIENT_SECRET;
  const tokenTtl = options.tokenTtlSeconds ?? GATEWAY_A_SIM_TOKEN_TTL_SECONDS;
  const strictTerminals = options.terminals !== undefined;
  const terminals = new Set(options.terminals ?? []);
  const retryDelays = options.webhookRetryDelaysMs ?? [2_000, 5_000];
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const webhook = {
    url: options.webhookUrl ?? null,
    secret: options.webhookSecret ?? null,
    shape: options.webhookShape ?? ('event' as GatewayAWebhookShape),
    deliver:
      options.deliver ??
      (async (req: WebhookRequest) => {
        const res = await fetchFn(req.url, { method: 'POST', headers: req.headers, body: req.body, signal: AbortSignal.timeout(10_000) });
        await res.arrayBuffer();
        return { status: res.status };
      }),
  };
  let outcome: SimOutcomeMode = options.outcome ?? 'manual';
  let outcomeDelayMs = options.outcomeDelayMs ?? 3_000;

  const tokens = new Map<string, number>(); // token -> expiresAt (ms)
  let tokenRequests = 0;
  const intents = new Map<string, SimIntent>();
  const decisionTimers = new Map<string, NodeJS.Timeout>();
  const retryTimers = new Map<NodeJS.Timeout, () => void>(); // timer -> settles its tracked promise
  const inFlight = new Set<Promise<unknown>>();
  const deliveries: WebhookDelivery[] = [];
  const listeners = new Set<(d: WebhookDelivery) => void>();
  const servers: FastifyInstance[] = [];
  let nextPaymentId = 70_000_000_000 + Math.floor(Math.random() * 1_000_000);
  let closed = false;

  const view = (i: SimIntent): SimIntentView => ({
    id: i.id,
    device_id: i.deviceId,
    amount: i.amount,
    ...(i.description !== null ? { description: i.description } : {}),
    state: i.state,
    ...(i.payment ? { payment: { ...i.payment } } : {}),
    additional_info: {
      ...(i.externalReference !== null ? { external_reference: i.externalReference } : {}),
      print_on_terminal: i.printOnTerminal,
    },
    created_at: i.createdAt.toISOString(),
  });

  function terminalKnown(serial: string): boolean {
    if (!TERMINAL_SERIAL.test(serial)) return false;
    if (strictTerminals) return terminals.has(serial);
    terminals.add(serial);
    return true;
  }

  function issueToken(): { access_token: string; token_type: string; expires_in: number; scope: string; live_mode: boolean } {
    const now = clock.now().getTime();
    for (const [t, exp] of tokens) if (exp <= now) tokens.delete(t);
    const value = `APP_USR-sim-${randomBytes(24).toString('hex')}`;
    tokens.set(value, now + tokenTtl * 1000);
    return { access_token: value, token_type: 'bearer', expires_in: tokenTtl, scope: 'offline_access read write', live_mode: false };
  }

  function tokenValid(header: string | undefined): boolean {
    const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (!m) return false;
    const exp = tokens.get(m[1]);
    return exp !== undefined && clock.now().getTime() < exp;
  }

  function emit(d: WebhookDelivery) {
    deliveries.push(d);
    if (deliveries.length > 1000) deliveries.splice(0, deliveries.length - 1000);
    for (const l of listeners) {
      try {
        l(d);
      } catch {
        /* a listener's failure is not the simulator's */
      }
    }
  }

  function track<T>(p: Promise<T>): Promise<T> {
    inFlight.add(p);
    p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  }

  async function attempt(intent: SimIntent, shape: GatewayAWebhookShape, body: string, signature: string | null, n: number): Promise<WebhookDelivery> {
    const base = {
      intentId: intent.id,
      attempt: n,
      url: webhook.url,
      shape,
      outcome: (intent.payment?.state === 'approved' ? 'approved' : 'declined') as PaymentOutcome,
      body,
      signature,
      at: clock.now().toISOString(),
    };
    if (!webhook.url) {
      const d = { ...base, status: null, error: 'no webhook URL configured' };
      emit(d);
      return d;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'gateway-a-simulator/1' };
    if (signature) headers[GATEWAY_A_SIGNATURE_HEADER] = signature;
    let d: WebhookDelivery;
    try {
      const res = await webhook.deliver({ url: webhook.url, headers, body });
      d = { ...base, status: res.status, error: res.status >= 200 && res.status < 300 ? null : `receiver answered ${res.status}` };
    } catch (err) {
      d = { ...base, status: null, error: describeError(err) };
    }
    emit(d);
    if (d.error && n <= retryDelays.length && !closed) {
      log.warn({ intentId: intent.id, attempt: n, error: d.error }, 'gateway_a simulator: webhook not accepted; will retry');
      const wait = retryDelays[n - 1];
      track(
        new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            retryTimers.delete(t);
            if (closed) return resolve();
            attempt(intent, shape, body, signature, n + 1).then(() => resolve(), () => resolve());
          }, wait);
          retryTimers.set(t, resolve);
        }),
      );
    }
    return d;
  }

  /** Sends the webhook for a decided intent; resolves with the first attempt, retries go on in the background. */
  function notify(intent: SimIntent, shape?: GatewayAWebhookShape): Promise<WebhookDelivery> {
    const s = shape ?? webhook.shape;
    intent.lastShape = s;
    const body = JSON.stringify(
      buildGatewayAWebhookBody(s, {
        intentId: intent.id,
        externalId: intent.externalReference,
        outcome: intent.payment?.state === 'approved' ? 'approved' : 'declined',
        paymentId: intent.payment ? String(intent.payment.id) : null,
        canceled: intent.state === 'CANCELED',
      }),
    );
    const signature = webhook.secret ? signGatewayAPayload(body, webhook.secret) : null;
    return track(attempt(intent, s, body, signature, 1));
  }

  function find(id: string): SimIntent {
    const intent = intents.get(id);
    if (!intent) throw new SimulatorError(404, 'not_found', `payment intent ${id} not found`);
    return intent;
  }

  function clearDecision(id: string) {
    const t = decisionTimers.get(id);
    if (t) clearTimeout(t);
    decisionTimers.delete(id);
  }

  async function decide(id: string, result: 'approved' | 'rejected', opts: DecideOptions = {}) {
    const intent = find(id);
    if (!PENDING.has(intent.state)) {
      throw new SimulatorError(409, 'not_pending', `payment intent ${id} is ${intent.state}; only an open intent can be decided`);
    }
    clearDecision(id);
    intent.state = 'FINISHED';
    intent.payment = { id: nextPaymentId++, state: result, type: opts.paymentType ?? 'credit_card' };
    intent.declineReason = result === 'rejected' ? opts.reason ?? 'cc_rejected_other_reason' : null;
    intent.updatedAt = clock.now();
    log.info({ intentId: id, result }, 'gateway_a simulator: intent decided');
    const d = await notify(intent, opts.shape);
    return { intent: view(intent), webhook: d };
  }

  function scheduleDecision(intent: SimIntent) {
    if (outcome === 'manual') return;
    const result = outcome === 'approve' ? 'approved' : 'rejected';
    const t = setTimeout(() => {
      decisionTimers.delete(intent.id);
      if (closed || !PENDING.has(intent.state)) return;
      decide(intent.id, result).catch((err) => log.warn({ err: (err as Error).message }, 'gateway_a simulator: automatic decision failed'));
    }, outcomeDelayMs);
    t.unref?.();
    decisionTimers.set(intent.id, t);
  }

  function createIntent(deviceId: string, body: Record<string, unknown>, sandbox: boolean): SimIntent {
    if (!terminalKnown(deviceId)) throw new SimulatorError(404, 'device_not_found', `device ${deviceId} not found`);
    const amount = body.amount;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1) {
      throw new SimulatorError(400, 'bad_request', 'amount must be a positive integer (cents)');
    }
    const info = (body.additional_info && typeof body.additional_info === 'object' ? body.additional_info : {}) as Record<string, unknown>;
    const ref = info.external_reference;
    if (ref !== undefined && (typeof ref !== 'string' || ref.length > 256)) {
      throw new SimulatorError(400, 'bad_request', 'additional_info.external_reference must be a string of at most 256 characters');
    }
    if (body.description !== undefined && typeof body.description !== 'string') {
      throw new SimulatorError(400, 'bad_request', 'description must be a string');
    }
    for (const other of intents.values()) {
      if (other.deviceId === deviceId && PENDING.has(other.state)) {
        throw new SimulatorError(409, 'terminal_busy', `device ${deviceId} has a queued payment intent (${other.id})`);
      }
    }
    const now = clock.now();
    const intent: SimIntent = {
      id: randomUUID(),
      deviceId,
      amount,
      description: typeof body.description === 'string' ? body.description : null,
      externalReference: typeof ref === 'string' ? ref : null,
      printOnTerminal: info.print_on_terminal !== false,
      state: 'OPEN',
      payment: null,
      declineReason: null,
      sandbox,
      createdAt: now,
      updatedAt: now,
      lastShape: null,
    };
    intents.set(intent.id, intent);
    log.info({ intentId: intent.id, deviceId, amount, sandbox }, 'gateway_a simulator: intent created');
    scheduleDecision(intent);
    return intent;
  }

  async function cancelIntent(deviceId: string, id: string): Promise<SimIntent> {
    const intent = intents.get(id);
    if (!intent || intent.deviceId !== deviceId) throw new SimulatorError(404, 'not_found', `payment intent ${id} not found on device ${deviceId}`);
    if (intent.state === 'CANCELED') return intent; // cancelling twice is harmless
    if (!PENDING.has(intent.state)) {
      throw new SimulatorError(409, 'not_cancelable', `payment intent ${id} is ${intent.state} and can no longer be cancelled`);
    }
    clearDecision(id);
    intent.state = 'CANCELED';
    intent.updatedAt = clock.now();
    // Real gateways notify every state change; a cancelled intent is reported as declined.
    await notify(intent);
    return intent;
  }

  const send = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).header('cache-control', 'no-store').send(body);
  const fail = (reply: FastifyReply, err: unknown) => {
    if (err instanceof SimulatorError) return send(reply, err.status, { error: err.code, message: err.message, status: err.status });
    throw err;
  };
  const hide = { schema: { hide: true } };
  const objectBody = (req: FastifyRequest): Record<string, unknown> =>
    req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
  const shapeOf = (v: unknown): GatewayAWebhookShape | undefined => (v === 'event' || v === 'external' ? v : undefined);

  async function routes(app: FastifyInstance, opts: SimulatorRoutesOptions = {}) {
    if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
      app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      });
    }

    // ---- OAuth 2.0 client credentials (RFC 6749 4.4): body parameters or HTTP Basic.
    app.post('/oauth/token', hide, async (req, reply) => {
      tokenRequests++;
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
      return send(reply, 200, issueToken());
    });

    // ---- Point integration API (bearer token required).
    await app.register(async (api) => {
      api.addHook('onRequest', async (req, reply) => {
        if (!tokenValid(req.headers.authorization)) {
          return send(reply, 401, { error: 'unauthorized', message: 'invalid or expired access token', status: 401 });
        }
      });

      api.get('/point/integration-api/devices', hide, async (req, reply) => {
        const q = req.query as Record<string, string | undefined>;
        const offset = Math.max(0, Number(q.offset) || 0);
        const limit = Math.min(50, Math.max(1, Number(q.limit) || 50));
        const all = [...terminals].sort();
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
          const intent = createIntent(req.params.deviceId, objectBody(req), req.headers['x-test-scope'] === 'sandbox');
          const v = view(intent);
          return send(reply, 201, { id: v.id, device_id: v.device_id, amount: v.amount, description: v.description, state: v.state, additional_info: v.additional_info });
        } catch (err) {
          return fail(reply, err);
        }
      });

      api.delete<{ Params: { deviceId: string; id: string } }>(
        '/point/integration-api/devices/:deviceId/payment-intents/:id',
        hide,
        async (req, reply) => {
          try {
            const intent = await cancelIntent(req.params.deviceId, req.params.id);
            return send(reply, 200, { id: intent.id });
          } catch (err) {
            return fail(reply, err);
          }
        },
      );

      api.get<{ Params: { id: string } }>('/point/integration-api/payment-intents/:id', hide, async (req, reply) => {
        try {
          return send(reply, 200, view(find(req.params.id)));
        } catch (err) {
          return fail(reply, err);
        }
      });
    });

    // ---- Control API: a test or a person plays the terminal and the customer (loopback callers only).
    await controlApi(app, opts, (ctl) => {
      ctl.get('/__sim', hide, async (_req, reply) =>
        send(reply, 200, {
          simulator: 'gateway_a',
          outcome,
          outcomeDelayMs,
          webhookUrl: webhook.url,
          webhookSigned: Boolean(webhook.secret),
          webhookShape: webhook.shape,
          terminals: strictTerminals ? [...terminals] : 'any T-... serial',
          intents: intents.size,
          control: [
            'GET  __sim/intents',
            'POST __sim/intents/:id/approve  { shape?: "event" | "external" }',
            'POST __sim/intents/:id/decline  { shape?, reason? }',
            'POST __sim/intents/:id/resend   { shape? }',
            'POST __sim/outcome              { mode: "manual" | "approve" | "decline", delayMs? }',
            'POST __sim/terminals            { serial }',
            'GET  __sim/deliveries',
            'POST __sim/tokens/revoke',
          ],
        }),
      );
      ctl.get('/__sim/intents', hide, async (_req, reply) => send(reply, 200, [...intents.values()].reverse().map(view)));
      ctl.get<{ Params: { id: string } }>('/__sim/intents/:id', hide, async (req, reply) => {
        try {
          return send(reply, 200, view(find(req.params.id)));
        } catch (err) {
          return fail(reply, err);
        }
      });
      for (const action of ['approve', 'decline'] as const) {
        ctl.post<{ Params: { id: string } }>(`/__sim/intents/:id/${action}`, hide, async (req, reply) => {
          const b = objectBody(req);
          const decision: DecideOptions = {
            shape: shapeOf(b.shape),
            paymentType: typeof b.paymentType === 'string' ? b.paymentType : undefined,
            reason: typeof b.reason === 'string' ? b.reason : undefined,
          };
          try {
            return send(reply, 200, await decide(req.params.id, action === 'approve' ? 'approved' : 'rejected', decision));
          } catch (err) {
            return fail(reply, err);
          }
        });
      }
      ctl.post<{ Params: { id: string } }>('/__sim/intents/:id/resend', hide, async (req, reply) => {
        try {
          return send(reply, 200, { webhook: await resend(req.params.id, { shape: shapeOf(objectBody(req).shape) }) });
        } catch (err) {
          return fail(reply, err);
        }
      });
      ctl.post('/__sim/outcome', hide, async (req, reply) => {
        const b = objectBody(req);
        if (b.mode !== 'manual' && b.mode !== 'approve' && b.mode !== 'decline') {
          return send(reply, 400, { error: 'bad_request', message: 'mode must be manual, approve or decline', status: 400 });
        }
        const delay = b.delayMs === undefined ? undefined : Number(b.delayMs);
        if (delay !== undefined && (!Number.isInteger(delay) || delay < 0 || delay > 600_000)) {
          return send(reply, 400, { error: 'bad_request', message: 'delayMs must be an integer from 0 to 600000', status: 400 });
        }
        setOutcome(b.mode, delay);
        return send(reply, 200, { outcome, outcomeDelayMs });
      });
      ctl.post('/__sim/terminals', hide, async (req, reply) => {
        const serial = objectBody(req).serial;
        if (typeof serial !== 'string' || !TERMINAL_SERIAL.test(serial)) {
          return send(reply, 400, { error: 'bad_request', message: 'serial must look like T-XXXX', status: 400 });
        }
        terminals.add(serial);
        return send(reply, 201, { serial });
      });
      ctl.get('/__sim/deliveries', hide, async (_req, reply) => send(reply, 200, [...deliveries].reverse()));
      ctl.post('/__sim/tokens/revoke', hide, async (_req, reply) => {
        tokens.clear();
        return send(reply, 200, { revoked: true });
      });
    });
  }

  function setOutcome(mode: SimOutcomeMode, delayMs?: number) {
    outcome = mode;
    if (delayMs !== undefined) outcomeDelayMs = delayMs;
  }

  async function resend(intentId: string, opts: { shape?: GatewayAWebhookShape } = {}) {
    const intent = find(intentId);
    if (PENDING.has(intent.state)) throw new SimulatorError(409, 'not_decided', `payment intent ${intentId} has no result yet`);
    return notify(intent, opts.shape ?? intent.lastShape ?? undefined);
  }

  const { buildServer, listen } = simulatorServers(routes, servers);

  return {
    routes,
    buildServer,
    listen,
    async close() {
      closed = true;
      for (const t of decisionTimers.values()) clearTimeout(t);
      decisionTimers.clear();
      for (const [t, settle] of retryTimers) {
        clearTimeout(t);
        settle();
      }
      retryTimers.clear();
      await Promise.allSettled([...inFlight]);
      await Promise.all(servers.splice(0).map((s) => s.close()));
    },
    approve: (id, opts) => decide(id, 'approved', opts),
    decline: (id, opts) => decide(id, 'rejected', opts),
    resend,
    getIntent: (id) => {
      const i = intents.get(id);
      return i && view(i);
    },
    listIntents: () => [...intents.values()].map(view),
    setOutcome,
    setWebhook(opts) {
      if (opts.url !== undefined) webhook.url = opts.url;
      if (opts.secret !== undefined) webhook.secret = opts.secret;
      if (opts.shape) webhook.shape = opts.shape;
      if (opts.deliver) webhook.deliver = opts.deliver;
    },
    addTerminal(serial) {
      if (!TERMINAL_SERIAL.test(serial)) throw new Error(`terminal serial ${serial} is not of the form T-...`);
      terminals.add(serial);
    },
    revokeTokens: () => tokens.clear(),
    get deliveries() {
      return deliveries;
    },
    get tokenRequests() {
      return tokenRequests;
    },
    onDelivery(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    nextDelivery(filter = () => true, timeoutMs = 5_000) {
      return new Promise<WebhookDelivery>((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(l);
          reject(new Error(`no webhook delivery within ${timeoutMs} ms`));
        }, timeoutMs);
        const l = (d: WebhookDelivery) => {
          if (!filter(d)) return;
          clearTimeout(timer);
          listeners.delete(l);
          resolve(d);
        };
        listeners.add(l);
      });
    },
    async idle() {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
  };
}

/**
 * Standalone server. Environment:
 *   GATEWAY_A_SIM_PORT (4010), GATEWAY_A_SIM_HOST (127.0.0.1),
 *   GATEWAY_A_CLIENT_ID / GATEWAY_A_CLIENT_SECRET (the simulator's defaults when unset),
 *   GATEWAY_A_WEBHOOK_URL (http://localhost:3000/api/gateway-a/webhook),
 *   GATEWAY_A_WEBHOOK_SECRET (unset: webhooks are unsigned),
 *   GATEWAY_A_SIM_OUTCOME (manual | approve | decline; default manual), GATEWAY_A_SIM_DELAY_MS (3000),
 *   GATEWAY_A_SIM_WEBHOOK_SHAPE (event | external), GATEWAY_A_SIM_TERMINALS (comma-separated; unset: any T-...).
 * The control API (`/__sim/...`) answers loopback callers only, and is not served when NODE_ENV=production.
 */
export async function runStandalone(env: NodeJS.ProcessEnv = process.env): Promise<GatewayASimulator> {
  const outcome = (env.GATEWAY_A_SIM_OUTCOME || 'manual') as SimOutcomeMode;
  if (!['manual', 'approve', 'decline'].includes(outcome)) throw new Error('GATEWAY_A_SIM_OUTCOME must be manual, approve or decline');
  const shape = (env.GATEWAY_A_SIM_WEBHOOK_SHAPE || 'event') as GatewayAWebhookShape;
  if (shape !== 'event' && shape !== 'external') throw new Error('GATEWAY_A_SIM_WEBHOOK_SHAPE must be event or external');
  const webhookUrl = env.GATEWAY_A_WEBHOOK_URL || 'http://localhost:3000/api/gateway-a/webhook';
  const sim = createGatewayASimulator({
    clientId: env.GATEWAY_A_CLIENT_ID || undefined,
    clientSecret: env.GATEWAY_A_CLIENT_SECRET || undefined,
    webhookUrl,
    webhookSecret: env.GATEWAY_A_WEBHOOK_SECRET || undefined,
    webhookShape: shape,
    outcome,
    outcomeDelayMs: env.GATEWAY_A_SIM_DELAY_MS ? Number(env.GATEWAY_A_SIM_DELAY_MS) : undefined,
    terminals: env.GATEWAY_A_SIM_TERMINALS ? env.GATEWAY_A_SIM_TERMINALS.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    log: consoleLogger('gateway_a simulator'),
  });
  // The control API approves payments: served to loopback callers only, and not at all in production.
  const control = env.NODE_ENV !== 'production';
  const url = await sim.listen({ port: Number(env.GATEWAY_A_SIM_PORT || 4010), host: env.GATEWAY_A_SIM_HOST || '127.0.0.1', control });
  process.stdout.write(
    [
      `gateway_a simulator listening on ${url}`,
      `  point the service at it: GATEWAY_A_MODE=simulator GATEWAY_A_BASE_URL=${url}` +
        (env.GATEWAY_A_WEBHOOK_SECRET ? ' GATEWAY_A_WEBHOOK_SECRET=<the same secret>' : ''),
      `  OAuth client:  ${env.GATEWAY_A_CLIENT_ID || GATEWAY_A_SIM_CLIENT_ID} / ${env.GATEWAY_A_CLIENT_SECRET ? '(GATEWAY_A_CLIENT_SECRET)' : GATEWAY_A_SIM_CLIENT_SECRET}`,
      `  webhooks to:   ${webhookUrl} (${env.GATEWAY_A_WEBHOOK_SECRET ? 'signed' : 'UNSIGNED: set GATEWAY_A_WEBHOOK_SECRET'}, shape ${shape})`,
      `  outcome:       ${outcome}${outcome === 'manual' ? '' : ` after ${env.GATEWAY_A_SIM_DELAY_MS || 3000} ms`}`,
      ...(control
        ? [
            '  control API (from this machine only):',
            `  list intents:  curl -s ${url}/__sim/intents`,
            `  approve:       curl -s -X POST ${url}/__sim/intents/<intentId>/approve`,
            `  decline:       curl -s -X POST ${url}/__sim/intents/<intentId>/decline`,
          ]
        : ['  control API:   off (NODE_ENV=production)']),
      '',
    ].join('\n'),
  );
  return sim;
}

if (isMain(import.meta.url)) {
  runStandalone()
    .then((sim) => stopOnSignals(() => sim.close()))
    .catch((err) => {
      process.stderr.write(`gateway_a simulator failed to start: ${(err as Error).message}\n`);
      process.exit(1);
    });
}

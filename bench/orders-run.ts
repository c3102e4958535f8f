/**
 * `npx tsx bench/orders-run.ts`: order creation on PostgreSQL, in one run, with autocannon:
 *
 *   A  app       POST /t/demo/orders of the real app, a staff order with the demo admin's token
 *   B  baseline  a bare Fastify route doing the same inserts directly with `pg` in one transaction
 *
 * each in two modes: `max` (closed loop, BENCH_CONNECTIONS connections: throughput) and `fixed`
 * (BENCH_RATE requests/s: latency at a given load). The payment path (issue 10), at max throughput:
 *
 *   A  app-pay       each connection creates a staff order as A, then pays it: POST /t/demo/orders/:id/process-payment
 *                    `{ method: 'cash', gateway: 'mock' }`; the unit is the paid order (two requests)
 *   B  baseline-pay  the same two requests to the bare server: the order as B, then the payment's SQL with
 *                    `pg` in a second transaction (lock the order, read its payments, insert, update, commit)
 *
 * BENCH_BREAKDOWN=1 adds what-ifs at max throughput: A with the kitchen emit only, A without socket.io
 * emits (also on the payment path), B as one statement. It creates a dedicated database
 * (ro_bench_orders), serves all targets from one child process (bench/orders-server.ts) on
 * 127.0.0.1, drives the load from this process, checks that the orders (and payments) really land in the database,
 * prints a markdown table and drops the database. See bench/README.md for the options and results.
 */
import { readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import type { Context } from 'autocannon';
import {
  DEMO_ENV, ask, cannon, checkLocal, cleaner, connect, createDb, dbUrl, envInt, fail, fmt, inRounds, logger, machine,
  metaLines, pct, percentile, pickTargets, printReport, readSettings, runMain, serverCpu, startServer, table, watchdog,
} from './lib-run.js';
import type { OrdersReadyMessage, PayAnswer, PayBody } from './orders-server.js';

/** The aim: the app creates orders at no less than half the baseline's throughput. */
const TARGET_RATIO = 0.5;

const opts = {
  // Seconds measured per target, mode and round.
  ...readSettings({ duration: 5, warmup: 1, rounds: 3 }),
  /** Requests per second of the fixed-rate mode. */
  rate: envInt('BENCH_RATE', 100, 1, 100_000),
  /** The fixed rate is spread over this many single-connection autocannon streams, started evenly within a second. */
  streams: envInt('BENCH_RATE_STREAMS', 10, 1, 50),
  dbName: 'ro_bench_orders',
};
const profDir = opts.cpuProf ? join(tmpdir(), 'ro-bench-orders-prof') : null;

type Mode = 'max' | 'fixed';
interface Target {
  id: string;
  mode: Mode;
  label: string;
  server: 'app' | 'bare' | 'bare-single' | 'app-pay' | 'bare-pay';
  breakdown?: boolean;
  /** The payment path: the unit is a paid order (order, then its payment), not a request. */
  pay?: true;
  /** The app's socket.io emits during this target: all, the kitchen room's only, none. */
  emits: 'all' | 'kitchen' | 'none';
}

const TARGETS: Target[] = [
  { id: 'app-max', mode: 'max', label: 'A app `POST /t/demo/orders`, max throughput', server: 'app', emits: 'all' },
  { id: 'baseline-max', mode: 'max', label: 'B baseline `pg`, one transaction, max throughput', server: 'bare', emits: 'all' },
  { id: 'app-fixed', mode: 'fixed', label: 'A app, fixed rate', server: 'app', emits: 'all' },
  { id: 'baseline-fixed', mode: 'fixed', label: 'B baseline, fixed rate', server: 'bare', emits: 'all' },
  { id: 'app-kitchen-max', mode: 'max', label: 'what-if: A emitting to the kitchen room only, max throughput', server: 'app', emits: 'kitchen', breakdown: true },
  { id: 'app-quiet-max', mode: 'max', label: 'what-if: A without socket.io emits, max throughput', server: 'app', emits: 'none', breakdown: true },
  { id: 'baseline-single-max', mode: 'max', label: 'what-if: B with number and row in one autocommit statement, max throughput', server: 'bare-single', emits: 'all', breakdown: true },
  { id: 'app-pay-max', mode: 'max', label: 'A app: `POST /t/demo/orders`, then `POST …/process-payment` (mock)', server: 'app-pay', emits: 'all', pay: true },
  { id: 'baseline-pay-max', mode: 'max', label: 'B baseline `pg`: the order, then the payment in a second transaction', server: 'bare-pay', emits: 'all', pay: true },
  { id: 'app-pay-quiet-max', mode: 'max', label: 'what-if: A paying without socket.io emits', server: 'app-pay', emits: 'none', pay: true, breakdown: true },
];

/** The payment both sides make: all that is due, in cash, by the mock gateway. */
const PAY_BODY: PayBody = { method: 'cash', gateway: 'mock' };

interface Sample {
  seconds: number;
  /** 2xx answers; on the payment path, paid orders. */
  ok: number;
  bad: number;
  /** Latencies of the unit: the request, or on the payment path the order and its payment together. */
  latencies: number[];
  /** The payment path: latencies of the payment request alone. */
  payLatencies: number[];
  load: number;
  /** CPU of the server process during the slice, µs. */
  cpu: number;
  /** CPU of the bench database's PostgreSQL backends during the slice, µs (null when /proc cannot tell). */
  pgCpu: number | null;
  /** pg_stat_activity samples of the bench database: backends waiting for a lock, transactions idle (waiting for the client). */
  activity: { samples: number; lockWait: number; idleInTx: number };
}

interface Row {
  target: Target;
  reqPerSec: number;
  perRound: number[];
  p50: number;
  p99: number;
  payP50: number;
  payP99: number;
  ok: number;
  bad: number;
  load: number;
  cpuPerReq: number;
  pgCpuPerReq: number | null;
  /** Average number of backends waiting for a lock / of open transactions idle, over the measured slices. */
  lockWait: number;
  idleInTx: number;
}

function aggregate(target: Target, samples: Sample[]): Row {
  const sum = (f: (s: Sample) => number) => samples.reduce((acc, s) => acc + f(s), 0);
  const ok = sum((s) => s.ok);
  const all = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const pays = samples.flatMap((s) => s.payLatencies).sort((a, b) => a - b);
  const pg = samples.every((s) => s.pgCpu !== null) ? sum((s) => s.pgCpu!) : null;
  return {
    target,
    reqPerSec: ok / sum((s) => s.seconds),
    perRound: samples.map((s) => s.ok / s.seconds),
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    payP50: percentile(pays, 50),
    payP99: percentile(pays, 99),
    ok,
    bad: sum((s) => s.bad),
    load: sum((s) => s.load) / samples.length,
    cpuPerReq: ok ? sum((s) => s.cpu) / ok : 0,
    pgCpuPerReq: ok && pg !== null ? pg / ok : null,
    lockWait: sum((s) => s.activity.lockWait) / Math.max(1, sum((s) => s.activity.samples)),
    idleInTx: sum((s) => s.activity.idleInTx) / Math.max(1, sum((s) => s.activity.samples)),
  };
}

const log = logger('orders-bench');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- database -------------------------------------------------------------------------------

/** The bench database, for counting what landed. */
let benchDb: pg.Client | null = null;

async function orderCount(tenantId: string): Promise<number> {
  const db = benchDb ?? fail('no bench database connection');
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from orders where tenant_id = $1', [tenantId]);
  return rows[0].n;
}

/**
 * CPU time of the PostgreSQL backends serving the bench database (the app's and the baseline's
 * pools, the realtime adapter's connections), per pid, in µs. Other databases on the same server
 * (other work on the machine) are left out; so are the shared background processes (WAL writer,
 * checkpointer). Null where /proc cannot tell.
 */
async function backendCpu(): Promise<Map<number, number> | null> {
  const db = benchDb ?? fail('no bench database connection');
  const { rows } = await db.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  const out = new Map<number, number>();
  try {
    for (const { pid } of rows) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // gone meanwhile
      }
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) * 10_000); // utime + stime, USER_HZ 100
    }
  } catch {
    return null;
  }
  return rows.length && !out.size ? null : out;
}

/** CPU the backends spent between two readings (a backend opened in between counts from its start). */
function backendDelta(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (!before || !after) return null;
  let total = 0;
  for (const [pid, cpu] of after) total += cpu - (before.get(pid) ?? 0);
  return total;
}

/**
 * Samples pg_stat_activity of the bench database every 100 ms until stopped: how many backends wait
 * for a lock (here: the day's counter row, held from the upsert to the commit) and how many open
 * transactions sit idle waiting for the Node process to send their next statement.
 */
function sampleActivity() {
  const db = benchDb ?? fail('no bench database connection');
  const acc = { samples: 0, lockWait: 0, idleInTx: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      // The connection goes away when the run is interrupted: stop sampling, let cleanup drop the database.
      const result = await db
        .query<{ lock: number; idle: number }>(
          `select count(*) filter (where wait_event_type = 'Lock')::int as lock,
                  count(*) filter (where state like 'idle in transaction%')::int as idle
             from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
        )
        .catch(() => null);
      if (!result) break;
      const r = result.rows[0];
      acc.samples++;
      acc.lockWait += r.lock;
      acc.idleInTx += r.idle;
      await sleep(100);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return acc;
  };
}

// ---- server child ---------------------------------------------------------------------------

/** Which of the app's socket.io emits the server lets through (what-if targets). */
const setEmits = (emits: Target['emits']) => ask({ type: 'emits', emits }, 'emits');

// ---- load -----------------------------------------------------------------------------------

interface Load {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The payment path: each order answered 201 is then paid, `body` posted to `path(order id)` on the same server. */
  pay?: { path: (orderId: string) => string; body: string; side: PaySide };
}

/** What one load produced: units (requests, or paid orders), orders answered 201, failures. */
interface Driven {
  ok: number;
  orders: number;
  bad: number;
  seconds: number;
  connections: number;
}

/** Latencies collected during a measured slice, ms at full (sub-ms) resolution. */
interface Latencies {
  unit: number[];
  pay: number[];
}

const is2xx = (status: number) => status >= 200 && status < 300;

/** The id in an order answer: the app's `_id`, the baseline's row `id`. */
function orderIdOf(body: string): string | null {
  const o = JSON.parse(body) as { _id?: string; id?: string };
  return o._id ?? o.id ?? null;
}

/** A connection's state on the payment path: when its order was sent and answered, and the order's id. */
interface PayContext extends Context {
  start?: number;
  ordered?: number;
  orderId?: string | null;
}

/**
 * One autocannon run; the latencies of 2xx answers are collected here at full (sub-ms) resolution.
 * On the payment path each connection sends the order, then (once it is answered 201) its payment,
 * over and over: a unit is a paid order and its latency runs from sending the order to the payment's answer.
 */
async function cannonPost(load: Load, extra: { connections: number; duration: number; overallRate?: number }, latencies: Latencies | null): Promise<Omit<Driven, 'connections'>> {
  const options = {
    url: load.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...load.headers },
    body: load.body,
    ...extra,
    ...(extra.overallRate ? { ignoreCoordinatedOmission: true } : {}),
  };
  const failed = (r: { non2xx: number; errors: number; timeouts: number }) => r.non2xx + r.errors + r.timeouts;
  const pay = load.pay;
  if (!pay) {
    const r = await cannon(options, latencies ? (status, ms) => void (is2xx(status) && latencies.unit.push(ms)) : undefined);
    return { ok: r['2xx'], orders: r['2xx'], bad: failed(r), seconds: r.duration };
  }
  const n = { orders: 0, paid: 0 };
  const r = await cannon({
    ...options,
    requests: [
      {
        path: new URL(load.url).pathname,
        setupRequest: (req, ctx: PayContext) => {
          ctx.start = performance.now();
          return req;
        },
        onResponse: (status, body, ctx: PayContext) => {
          if (status !== 201) return;
          n.orders++;
          ctx.ordered = performance.now();
          ctx.orderId = orderIdOf(body);
        },
      },
      {
        body: pay.body,
        setupRequest: (req, ctx: PayContext) => (ctx.orderId ? { ...req, path: pay.path(ctx.orderId) } : null),
        onResponse: (status, _body, ctx: PayContext) => {
          if (!is2xx(status)) return;
          n.paid++;
          const now = performance.now();
          latencies?.unit.push(now - ctx.start!);
          latencies?.pay.push(now - ctx.ordered!);
        },
      },
    ],
  });
  if (n.orders + n.paid !== r['2xx']) throw new Error(`${pay.side}: autocannon counted ${r['2xx']} answers 2xx, the steps ${n.orders} + ${n.paid}`);
  return { ok: n.paid, orders: n.orders, bad: failed(r), seconds: r.duration };
}

/**
 * `max`: one autocannon, BENCH_CONNECTIONS connections, closed loop. `fixed`: BENCH_RATE_STREAMS
 * autocannon instances of one connection each, `overallRate` rate/streams, started 1/streams s apart
 * (autocannon's rate is a per-second quota each connection sends back to back, so one instance
 * with 10 connections would fire the whole second's quota in one burst).
 */
async function drive(load: Load, mode: Mode, duration: number, latencies: Latencies | null): Promise<Driven> {
  if (mode === 'max') {
    return { ...(await cannonPost(load, { connections: opts.connections, duration }, latencies)), connections: opts.connections };
  }
  const per = Math.floor(opts.rate / opts.streams);
  const rates = Array.from({ length: opts.streams }, (_, i) => per + (i < opts.rate - per * opts.streams ? 1 : 0)).filter((r) => r > 0);
  const results = await Promise.all(
    rates.map(async (overallRate, i) => {
      await sleep((i * 1000) / rates.length);
      return cannonPost(load, { connections: 1, duration, overallRate }, latencies);
    }),
  );
  const sum = (f: (r: Omit<Driven, 'connections'>) => number) => results.reduce((s, r) => s + f(r), 0);
  return { ok: sum((r) => r.ok), orders: sum((r) => r.orders), bad: sum((r) => r.bad), seconds: duration, connections: rates.length };
}

/**
 * The orders that must be in the database: every 201 autocannon counted, warm-ups included, plus
 * at most one request per connection still in flight when autocannon stopped (sent, never counted).
 */
const created = { min: 0, max: 0 };

/** The payment path's sides; each names its orders with its own customer name, so their rows can be told apart. */
type PaySide = 'app' | 'baseline';
const PAY_CUSTOMER: Record<PaySide, string> = { app: 'Bench pagamento A', baseline: 'Bench pagamento B' };
/**
 * What each side of the payment path must have in the database: orders and payments as for `created`,
 * and at most one order per connection and load left unpaid when autocannon stopped (its payment
 * not sent yet, or its order's answer never counted).
 */
const payTally = (): { orders: { min: number; max: number }; paid: { min: number; max: number }; unpaidMax: number } => ({
  orders: { min: 0, max: 0 },
  paid: { min: 0, max: 0 },
  unpaidMax: 0,
});
const paid: Record<PaySide, ReturnType<typeof payTally>> = { app: payTally(), baseline: payTally() };

function count(r: Driven, load: Load) {
  created.min += r.orders;
  created.max += r.orders + r.connections;
  if (!load.pay) return;
  const t = paid[load.pay.side];
  t.orders.min += r.orders;
  t.orders.max += r.orders + r.connections;
  t.paid.min += r.ok;
  t.paid.max += r.ok + r.connections;
  t.unpaidMax += r.connections;
}

async function measure(t: Target, load: Load): Promise<Sample> {
  await setEmits(t.emits);
  if (opts.warmup > 0) {
    count(await drive(load, t.mode, opts.warmup, null), load);
  }
  const latencies: Latencies = { unit: [], pay: [] };
  const loadAvg = loadavg()[0];
  const cpuBefore = await serverCpu();
  const pgBefore = await backendCpu();
  const stopSampling = sampleActivity();
  const r = await drive(load, t.mode, opts.duration, latencies);
  const activity = await stopSampling();
  const pgAfter = await backendCpu();
  const cpu = (await serverCpu()) - cpuBefore;
  count(r, load);
  const pgCpu = backendDelta(pgBefore, pgAfter);
  return { seconds: r.seconds, ok: r.ok, bad: r.bad, latencies: latencies.unit, payLatencies: latencies.pay, load: loadAvg, cpu, pgCpu, activity };
}

// ---- checks ---------------------------------------------------------------------------------

interface OrderAnswer {
  orderNumber: string;
  items: { menuItem: string; name: string; price: number; quantity: number; allergens?: string[] }[];
  total: number;
  customerName: string;
  type: string;
}

async function post<T = OrderAnswer>(url: string, body: unknown, token?: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/**
 * Before measuring: both answer 201 with the same lines and total, the daily numbers cross
 * 9999 -> 10000 without breaking the app (tracking and listing still answer), and the orders a
 * short load reports as created are all in the database.
 */
async function check(ready: OrdersReadyMessage, app: Load, bare: Load) {
  const compact = ready.day.replaceAll('-', '');
  const answers: OrderAnswer[] = [];
  for (let i = 0; i < 2; i++) {
    for (const [name, url, token] of [['app', app.url, ready.token], ['baseline', bare.url, undefined]] as const) {
      const r = await post(url, ready.body, token);
      if (r.status !== 201) throw new Error(`${name}: POST answered ${r.status} ${JSON.stringify(r.body)}`);
      answers.push(r.body);
    }
  }
  const expected = answers.map((_, i) => `${compact}-${String(ready.counterStart + 1 + i).padStart(4, '0')}`);
  if (!isDeepStrictEqual(answers.map((a) => a.orderNumber), expected)) {
    throw new Error(`order numbers ${answers.map((a) => a.orderNumber).join(', ')}, expected ${expected.join(', ')}`);
  }
  const shape = (a: OrderAnswer) => ({ items: a.items, total: Number(a.total), customerName: a.customerName, type: a.type });
  if (!isDeepStrictEqual(shape(answers[0]), shape(answers[1]))) {
    throw new Error(`the app and the baseline priced the order differently:\n${JSON.stringify(shape(answers[0]))}\n${JSON.stringify(shape(answers[1]))}`);
  }
  if (answers[0].items.length < 2 || !(answers[0].total > 0)) throw new Error(`unexpected order ${JSON.stringify(answers[0])}`);
  // Past 9999 orders a day: the app still tracks and lists them (the baseline's rows too).
  for (const a of answers) {
    const res = await fetch(`${ready.appUrl}/t/demo/orders/${a.orderNumber}/track`);
    if (res.status !== 200) throw new Error(`tracking ${a.orderNumber} answered ${res.status} ${await res.text()}`);
  }
  const list = await fetch(`${ready.appUrl}/t/demo/orders?limit=500`, { headers: { authorization: `Bearer ${ready.token}` } });
  const listed = (await list.json()) as OrderAnswer[];
  if (list.status !== 200 || !answers.every((a) => listed.some((l) => l.orderNumber === a.orderNumber))) {
    throw new Error(`the listing answered ${list.status} without the checked orders`);
  }
  created.min += answers.length;
  created.max += answers.length;

  // A short load on each: every 201 is a row.
  for (const [name, load] of [['app', app], ['baseline', bare]] as const) {
    const before = await orderCount(ready.tenantId);
    const r = await drive(load, 'max', 1, null);
    await sleep(500); // requests in flight when autocannon stopped
    const after = await orderCount(ready.tenantId);
    if (r.bad || r.ok === 0) throw new Error(`${name}: ${r.bad} non-2xx or errors during the warm-up`);
    if (after - before < r.ok || after - before > r.ok + r.connections) {
      throw new Error(`${name}: ${r.ok} answers 201 (+ up to ${r.connections} in flight) but ${after - before} new rows`);
    }
    log(`check ${name}: ${r.ok} answers 201 in 1 s, ${after - before} new rows`);
    count(r, load);
  }
}

/** The one-statement what-if numbers its orders like the others (5+ digits kept whole). */
async function checkSingle(ready: OrdersReadyMessage, load: Load) {
  const r = await post(load.url, ready.body);
  if (r.status !== 201 || !/^\d{8}-\d{5,}$/.test(r.body.orderNumber)) throw new Error(`baseline-single: ${r.status} ${JSON.stringify(r.body)}`);
  created.min++;
  created.max++;
}

/** The columns of `paidRow` that must be true. */
const PAID_ROW_CHECKS = [
  'orderHasTransaction', 'paidAtIsSettledAt', 'startedAtIsCreatedAt', 'orderUpdatedInSameTx', 'receiptToken', 'mockTransaction', 'createdByOrderCreator',
];

/**
 * The payment path's rows of one order (the order and its one payment), for comparing the sides:
 * values that must be equal, and booleans that must hold, ids and times left out.
 */
async function paidRow(tenantId: string, orderId: string): Promise<Record<string, unknown>> {
  const db = benchDb ?? fail('no bench database connection');
  const { rows } = await db.query(
    `select o.total::int as total, o.amount_paid::int as "amountPaid", o.payment_status as "paymentStatus",
            o.payment_method as "paymentMethod", o.payment_gateway as "paymentGateway", o.payment_attempts as "paymentAttempts",
            o.payment_intent_id as "paymentIntentId", o.payment_terminal_serial as "paymentTerminalSerial",
            o.payment_transaction_id = p.transaction_id as "orderHasTransaction", o.paid_at = p.settled_at as "paidAtIsSettledAt",
            date_trunc('milliseconds', o.payment_started_at) = date_trunc('milliseconds', p.created_at) as "startedAtIsCreatedAt", o.updated_at = p.created_at as "orderUpdatedInSameTx",
            o.receipt_token ~ '^[0-9a-f]{32}$' as "receiptToken", round(extract(epoch from o.receipt_expires_at - o.paid_at))::int as "receiptSeconds",
            (select count(*)::int from payments x where x.tenant_id = o.tenant_id and x.order_id = o.id) as payments,
            p.attempt, p.method, p.gateway, p.amount::int as amount, p.tip::int as tip, p.tendered, p.status,
            p.transaction_id ~ '^mock-[0-9a-f]{16}$' as "mockTransaction", p.created_by = o.created_by as "createdByOrderCreator",
            p.intent_id as "intentId", p.terminal_serial as "terminalSerial",
            coalesce(p.refund_requested_at, p.refunded_at)::text || coalesce(p.refund_reason, p.refund_id, '') as refund
       from orders o join payments p on p.tenant_id = o.tenant_id and p.order_id = o.id
      where o.tenant_id = $1 and o.id = $2`,
    [tenantId, orderId],
  );
  if (rows.length !== 1) throw new Error(`order ${orderId}: ${rows.length} payment rows`);
  return rows[0] as Record<string, unknown>;
}

/**
 * The payment path, before measuring: on each side an order then its payment answer 201 and 200 with
 * the same amounts (all that was due, no change, nothing left due), a second payment is refused
 * with 409, the rows are the same (order paid with its receipt, one approved mock payment of the
 * order's total), and a short load adds as many payments as paid orders were answered.
 */
async function checkPay(ready: OrdersReadyMessage, loads: Record<PaySide, Load>) {
  const origin = (load: Load) => new URL(load.url).origin;
  const rows: Record<string, unknown>[] = [];
  const answers: PayAnswer[] = [];
  for (const side of ['app', 'baseline'] as const) {
    const load = loads[side];
    const pay = load.pay ?? fail(`${side}: not a payment load`);
    const token = side === 'app' ? ready.token : undefined;
    const order = await post<OrderAnswer & { _id?: string; id?: string }>(load.url, load.body, token);
    const orderId = order.status === 201 ? (order.body._id ?? order.body.id) : undefined;
    if (!orderId) throw new Error(`${side}: the order answered ${order.status} ${JSON.stringify(order.body)}`);
    const answer = await post<PayAnswer>(`${origin(load)}${pay.path(orderId)}`, pay.body, token);
    if (answer.status !== 200) throw new Error(`${side}: the payment answered ${answer.status} ${JSON.stringify(answer.body)}`);
    const again = await post<unknown>(`${origin(load)}${pay.path(orderId)}`, pay.body, token);
    if (again.status !== 409) throw new Error(`${side}: a second payment of a paid order answered ${again.status}, not 409`);
    const total = Number(order.body.total); // the baseline's row has the bigint as text
    const a = answer.body;
    if (a.status !== 'approved' || a.amount !== total || a.tip !== 0 || a.change !== 0 || a.amountDue !== 0 || !/^mock-[0-9a-f]{16}$/.test(a.transactionId)) {
      throw new Error(`${side}: unexpected payment answer ${JSON.stringify(a)} for an order of ${total}`);
    }
    const row = await paidRow(ready.tenantId, orderId);
    const expected = { amountPaid: total, paymentStatus: 'approved', payments: 1, amount: total, status: 'approved', refund: null };
    const wrong = Object.entries(expected).filter(([k, v]) => row[k] !== v);
    const untrue = PAID_ROW_CHECKS.filter((k) => row[k] !== true);
    if (wrong.length || untrue.length) throw new Error(`${side}: the paid order's rows are wrong: ${JSON.stringify(row)}`);
    rows.push(row);
    answers.push(a);
    for (const t of [created, paid[side].orders, paid[side].paid]) {
      t.min++;
      t.max++;
    }
  }
  const keys = (a: object) => Object.keys(a).sort().join(',');
  if (keys(answers[0]) !== keys(answers[1])) throw new Error(`the payment answers differ in shape: ${keys(answers[0])} vs ${keys(answers[1])}`);
  if (!isDeepStrictEqual(rows[0], rows[1])) {
    throw new Error(`the app and the baseline wrote different rows:\n${JSON.stringify(rows[0])}\n${JSON.stringify(rows[1])}`);
  }
  log(`check payment path: both paid ${answers[0].amount} in one approved mock payment, same rows; a second payment is refused (409)`);

  // A short load on each: every paid order is one payment, every 201 an order.
  for (const side of ['app', 'baseline'] as const) {
    const before = await paidCounts(ready.tenantId, side);
    const r = await drive(loads[side], 'max', 1, null);
    await sleep(500); // requests in flight when autocannon stopped
    const after = await paidCounts(ready.tenantId, side);
    if (r.bad || r.ok === 0) throw new Error(`${side}: ${r.bad} non-2xx or errors during the payment path's check`);
    const orders = after.orders - before.orders;
    const payments = after.payments - before.payments;
    if (orders < r.orders || orders > r.orders + r.connections || payments < r.ok || payments > r.ok + r.connections || orders - payments > r.connections) {
      throw new Error(`${side}: ${r.orders} orders and ${r.ok} payments answered 2xx (+ up to ${r.connections} in flight) but ${orders} new orders and ${payments} new payments`);
    }
    log(`check ${side}-pay: ${r.ok} paid orders in 1 s (${r.orders} orders answered 201), ${orders} new orders, ${payments} new payments`);
    count(r, loads[side]);
  }
}

/**
 * A side's orders on the payment path (by its customer name): how many, how many have their one
 * approved payment of the whole total and are marked paid, how many have no payment and are untouched,
 * and how many are anything else (more than one payment, a wrong amount or a wrong order field).
 */
async function paidCounts(tenantId: string, side: PaySide) {
  const db = benchDb ?? fail('no bench database connection');
  const { rows: [c] } = await db.query<{ orders: number; payments: number; paid: number; unpaid: number; wrong: number }>(
    `select count(*)::int as orders, coalesce(sum(p.n), 0)::int as payments,
            count(*) filter (where p.n = 1 and p.ok and o.amount_paid = o.total and o.payment_status = 'approved'
                             and o.payment_attempts = 1 and o.paid_at is not null and o.receipt_token is not null)::int as paid,
            count(*) filter (where p.n = 0 and o.amount_paid = 0 and o.payment_status is null and o.payment_attempts = 0)::int as unpaid
       from orders o
       cross join lateral (select count(*)::int as n, coalesce(bool_and(x.amount = o.total and x.status = 'approved' and x.gateway = 'mock'), false) as ok
                             from payments x where x.tenant_id = o.tenant_id and x.order_id = o.id) p
      where o.tenant_id = $1 and o.customer_name = $2`,
    [tenantId, PAY_CUSTOMER[side]],
  );
  return { ...c, wrong: c.orders - c.paid - c.unpaid };
}

/** After the run, the payment path: per side, every order is paid exactly once or untouched, and the counts match the answers. */
async function checkPaidAfter(ready: OrdersReadyMessage, sides: PaySide[]): Promise<string> {
  const out: string[] = [];
  for (const side of sides) {
    const c = await paidCounts(ready.tenantId, side);
    const t = paid[side];
    const problems = [
      c.wrong && `${c.wrong} orders neither paid once in full nor untouched`,
      (c.orders < t.orders.min || c.orders > t.orders.max) && `${c.orders} orders for ${t.orders.min} answers 201 (+ up to ${t.orders.max - t.orders.min} in flight)`,
      (c.payments < t.paid.min || c.payments > t.paid.max) && `${c.payments} payments for ${t.paid.min} answers 2xx (+ up to ${t.paid.max - t.paid.min} in flight)`,
      c.unpaid > t.unpaidMax && `${c.unpaid} orders left unpaid, more than one per connection and load (${t.unpaidMax})`,
    ].filter(Boolean);
    if (problems.length) throw new Error(`payment path, ${side}: ${problems.join('; ')}`);
    out.push(`${side}: ${fmt(c.paid)} orders paid once in full for ${fmt(t.paid.min)} payments answered 2xx, ${c.unpaid} left unpaid as autocannon stopped`);
  }
  return out.join('; ');
}

/** After the run: rows, answers and the counter agree (no lost, duplicate or skipped number). */
async function checkAfter(ready: OrdersReadyMessage): Promise<string> {
  const db = benchDb ?? fail('no bench database connection');
  const rows = await orderCount(ready.tenantId);
  // Summed over the days, so a run across midnight (tenant time) still adds up: a new day's counter starts at 0.
  const { rows: [c] } = await db.query<{ last: number; moved: number }>(
    'select max(last) filter (where day = $2)::int as last, sum(last)::int - $3 as moved from order_counters where tenant_id = $1',
    [ready.tenantId, ready.day, ready.counterStart],
  );
  const { rows: [w] } = await db.query<{ w: number }>(
    "select max(length(order_number) - 9)::int as w from orders where tenant_id = $1 and source = 'staff'",
    [ready.tenantId],
  );
  if (rows < created.min || rows > created.max) throw new Error(`${created.min} answers 201 (+ up to ${created.max - created.min} in flight) but ${rows} orders in the database`);
  if (c.moved !== rows) throw new Error(`the daily counter moved by ${c.moved} for ${rows} orders`);
  return `${fmt(rows)} orders in the database for ${fmt(created.min)} answers 201 (+ ${rows - created.min} sent as autocannon stopped); the counter moved by exactly that (numbers ${compactNumber(ready.day, ready.counterStart + 1)} to ${compactNumber(ready.day, c.last)}, up to ${w.w} digits)`;
}

const compactNumber = (day: string, n: number) => `${day.replaceAll('-', '')}-${String(n).padStart(4, '0')}`;

// ---- report ---------------------------------------------------------------------------------

const msf = (n: number) => (Number.isNaN(n) ? '-' : n < 10 ? n.toFixed(2) : n.toFixed(1));

function report(rows: Row[], meta: Record<string, string>): { text: string; met: boolean | null } {
  const by = (id: string) => rows.find((r) => r.target.id === id);
  const orderRows = rows.filter((r) => !r.target.pay);
  const payRows = rows.filter((r) => r.target.pay);
  const lines = metaLines(meta);
  if (orderRows.length) {
    lines.push(
      ...table(
        ['target', 'req/s', 'p50 ms', 'p99 ms', 'orders', 'server CPU µs/req', 'PG backends CPU µs/req', 'lock waits', 'idle in tx', 'non-2xx/errors', 'load 1m', 'req/s vs B'],
        orderRows.map((r) => {
          const base = by(r.target.mode === 'fixed' ? 'baseline-fixed' : 'baseline-max');
          return [
            r.target.label, fmt(r.reqPerSec), msf(r.p50), msf(r.p99), fmt(r.ok), fmt(r.cpuPerReq), r.pgCpuPerReq === null ? '-' : fmt(r.pgCpuPerReq),
            r.lockWait.toFixed(1), r.idleInTx.toFixed(1), r.bad, r.load.toFixed(1), base ? pct(r.reqPerSec / base.reqPerSec) : '-',
          ];
        }),
      ),
      '',
    );
  }
  if (payRows.length) {
    const base = by('baseline-pay-max');
    lines.push(
      ...table(
        ['payment path (unit: a paid order = 2 requests)', 'paid orders/s', 'p50 ms', 'p99 ms', 'payment request p50 / p99 ms', 'paid orders', 'server CPU µs/paid order', 'PG backends CPU µs/paid order', 'lock waits', 'idle in tx', 'non-2xx/errors', 'load 1m', 'vs B'],
        payRows.map((r) => [
          r.target.label, fmt(r.reqPerSec), msf(r.p50), msf(r.p99), `${msf(r.payP50)} / ${msf(r.payP99)}`, fmt(r.ok), fmt(r.cpuPerReq),
          r.pgCpuPerReq === null ? '-' : fmt(r.pgCpuPerReq), r.lockWait.toFixed(1), r.idleInTx.toFixed(1), r.bad, r.load.toFixed(1), base ? pct(r.reqPerSec / base.reqPerSec) : '-',
        ]),
      ),
      '',
    );
  }
  let met: boolean | null = null;
  const a = by('app-max');
  const b = by('baseline-max');
  if (a && b) {
    const ratio = a.reqPerSec / b.reqPerSec;
    met = ratio >= TARGET_RATIO;
    lines.push(
      `- **Throughput: A reaches ${pct(ratio)} of B (${fmt(a.reqPerSec)} vs ${fmt(b.reqPerSec)} req/s; aim >= ${pct(TARGET_RATIO)}): ${met ? 'MET' : 'NOT MET'}**`,
    );
    if (a.perRound.length > 1) lines.push(`- A/B per round: ${a.perRound.map((x, i) => pct(x / b.perRound[i])).join(', ')}`);
    lines.push(`- at max throughput: p50 ${msf(b.p50)} -> ${msf(a.p50)} ms, p99 ${msf(b.p99)} -> ${msf(a.p99)} ms (B -> A)`);
    lines.push(`- server CPU per order: ${fmt(b.cpuPerReq)} µs for B, ${fmt(a.cpuPerReq)} µs for A (${(a.cpuPerReq / b.cpuPerReq).toFixed(2)}x)`);
    if (a.pgCpuPerReq !== null && b.pgCpuPerReq !== null) {
      lines.push(`- PostgreSQL backends' CPU per order: ${fmt(b.pgCpuPerReq)} µs for B, ${fmt(a.pgCpuPerReq)} µs for A (${(a.pgCpuPerReq / b.pgCpuPerReq).toFixed(2)}x)`);
    }
    lines.push(
      `- at max throughput, on average ${b.lockWait.toFixed(1)} (B) and ${a.lockWait.toFixed(1)} (A) backends wait for a lock, ` +
        `${b.idleInTx.toFixed(1)} (B) and ${a.idleInTx.toFixed(1)} (A) open transactions wait for the Node process`,
    );
  }
  const af = by('app-fixed');
  const bf = by('baseline-fixed');
  if (af && bf) {
    const short = [af, bf].filter((r) => r.reqPerSec < opts.rate * 0.95);
    lines.push(
      `- at ${fmt(opts.rate)} req/s: p50 ${msf(bf.p50)} -> ${msf(af.p50)} ms, p99 ${msf(bf.p99)} -> ${msf(af.p99)} ms (B -> A)` +
        (short.length ? `; **${short.map((r) => r.target.id).join(', ')} did not keep up with the rate** (latencies then understate the wait)` : '; both kept up with the rate'),
    );
  }
  for (const [id, what] of [
    ['app-kitchen-max', 'A with the kitchen emit only'],
    ['app-quiet-max', 'A without socket.io emits'],
    ['baseline-single-max', 'B as one statement'],
  ] as const) {
    const q = by(id);
    if (q && a && b) {
      lines.push(`- what-if ${what}: ${fmt(q.reqPerSec)} req/s, ${pct(q.reqPerSec / b.reqPerSec)} of B (A: ${pct(a.reqPerSec / b.reqPerSec)}), ${fmt(q.cpuPerReq)} µs server CPU per order (A: ${fmt(a.cpuPerReq)})`);
    }
  }
  const ap = by('app-pay-max');
  const bp = by('baseline-pay-max');
  if (ap && bp) {
    const ratio = ap.reqPerSec / bp.reqPerSec;
    const orders = a && b ? `; order creation alone in this run: ${pct(a.reqPerSec / b.reqPerSec)}` : '';
    lines.push(`- **Payment path: A reaches ${pct(ratio)} of B (${fmt(ap.reqPerSec)} vs ${fmt(bp.reqPerSec)} paid orders/s)**${orders}`);
    if (ap.perRound.length > 1) lines.push(`- payment path A/B per round: ${ap.perRound.map((x, i) => pct(x / bp.perRound[i])).join(', ')}`);
    lines.push(`- paid order (order + payment): p50 ${msf(bp.p50)} -> ${msf(ap.p50)} ms, p99 ${msf(bp.p99)} -> ${msf(ap.p99)} ms; the payment request alone p50 ${msf(bp.payP50)} -> ${msf(ap.payP50)} ms, p99 ${msf(bp.payP99)} -> ${msf(ap.payP99)} ms (B -> A)`);
    lines.push(`- server CPU per paid order: ${fmt(bp.cpuPerReq)} µs for B, ${fmt(ap.cpuPerReq)} µs for A (${(ap.cpuPerReq / bp.cpuPerReq).toFixed(2)}x)`);
    if (ap.pgCpuPerReq !== null && bp.pgCpuPerReq !== null) {
      lines.push(`- PostgreSQL backends' CPU per paid order: ${fmt(bp.pgCpuPerReq)} µs for B, ${fmt(ap.pgCpuPerReq)} µs for A (${(ap.pgCpuPerReq / bp.pgCpuPerReq).toFixed(2)}x)`);
    }
    const q = by('app-pay-quiet-max');
    if (q) {
      lines.push(`- what-if A paying without socket.io emits: ${fmt(q.reqPerSec)} paid orders/s, ${pct(q.reqPerSec / bp.reqPerSec)} of B, ${fmt(q.cpuPerReq)} µs server CPU per paid order (A: ${fmt(ap.cpuPerReq)})`);
    }
    if (a && b) {
      // What the payment adds to an order, from the same run: CPU per paid order minus CPU per order.
      lines.push(`- the payment's share, against order creation at max throughput: +${fmt(bp.cpuPerReq - b.cpuPerReq)} µs server CPU for B, +${fmt(ap.cpuPerReq - a.cpuPerReq)} µs for A`);
    }
  }
  return { text: lines.join('\n'), met };
}

// ---- main -----------------------------------------------------------------------------------

const cleanup = cleaner(opts.adminUrl, opts.dbName, log, async () => {
  await benchDb?.end().catch(() => {});
  benchDb = null;
});

async function main() {
  checkLocal(opts.adminUrl, 'BENCH_PG_URL');
  const targets = pickTargets(TARGETS, opts.breakdown, opts.only);
  const watch = watchdog(targets.length * opts.rounds * (opts.warmup + opts.duration + 3) + 120, cleanup, log);

  const loadBefore = loadavg();
  const pgVersion = await createDb(opts.adminUrl, opts.dbName);
  log(`database ${opts.dbName} created; starting the server (migrations, demo seed)`);
  const env = { ...DEMO_ENV, BENCH_DATABASE_URL: dbUrl(opts.adminUrl, opts.dbName) };
  const ready = await startServer<OrdersReadyMessage>('orders-server.ts', env, { name: 'orders bench server', seconds: 60, profDir });
  checkLocal(ready.appUrl, 'app');
  checkLocal(ready.bareUrl, 'baseline server');
  benchDb = await connect(dbUrl(opts.adminUrl, opts.dbName));
  const body = JSON.stringify(ready.body);
  const payBody = JSON.stringify(PAY_BODY);
  const named = (side: PaySide) => JSON.stringify({ ...ready.body, customerName: PAY_CUSTOMER[side] });
  const loads: Record<Target['server'], Load> = {
    app: { url: `${ready.appUrl}/t/demo/orders`, headers: { authorization: `Bearer ${ready.token}` }, body },
    bare: { url: `${ready.bareUrl}/bare/orders`, headers: {}, body },
    'bare-single': { url: `${ready.bareUrl}/bare/orders-single`, headers: {}, body },
    'app-pay': {
      url: `${ready.appUrl}/t/demo/orders`,
      headers: { authorization: `Bearer ${ready.token}` },
      body: named('app'),
      pay: { path: (id) => `/t/demo/orders/${id}/process-payment`, body: payBody, side: 'app' },
    },
    'bare-pay': { url: `${ready.bareUrl}/bare/orders`, headers: {}, body: named('baseline'), pay: { path: (id) => `/bare/orders/${id}/pay`, body: payBody, side: 'baseline' } },
  };
  await check(ready, loads.app, loads.bare);
  if (targets.some((t) => t.server === 'bare-single')) await checkSingle(ready, loads['bare-single']);
  const paying = targets.some((t) => t.pay);
  if (paying) await checkPay(ready, { app: loads['app-pay'], baseline: loads['bare-pay'] });

  const runs = await inRounds(targets, opts.rounds, (t, round) => {
    const how = t.mode === 'max' ? `${opts.connections} connections` : `${opts.rate} req/s over ${opts.streams} streams`;
    log(`round ${round + 1}/${opts.rounds}: ${t.id} (${opts.warmup} s warm-up + ${opts.duration} s, ${how})`);
    return measure(t, loads[t.server]);
  });
  await setEmits('all');
  const loadAfter = loadavg();
  const rows = runs.map((samples, i) => aggregate(targets[i], samples));
  await sleep(500);
  const landed = await checkAfter(ready);
  const paidLanded = paying ? await checkPaidAfter(ready, ['app', 'baseline']) : null;
  // The app still answers with 5-digit numbers after the load.
  const last = await post(loads.app.url, ready.body, ready.token);
  if (last.status !== 201) throw new Error(`after the run the app answered ${last.status}`);

  await cleanup();
  clearTimeout(watch);

  const meta = {
    ...machine(pgVersion, loadBefore, loadAfter),
    load:
      `max: ${opts.connections} connections closed loop; fixed: ${opts.rate} req/s as ${opts.streams} one-connection autocannon streams (overallRate ${(opts.rate / opts.streams).toFixed(0)} each, started ${Math.round(1000 / opts.streams)} ms apart); ` +
      `${opts.rounds} round(s) in alternating order, each slice ${opts.warmup} s warm-up + ${opts.duration} s measured`,
    orders: landed,
    ...(paidLanded ? { 'payment path': paidLanded } : {}),
  };
  const { text, met } = report(rows, meta);
  printReport(text, rows, log, { out: opts.out, profDir });
  if (met === false) log('the app is under the aim (reported, not a failure)');
}

runMain(main, cleanup, log);

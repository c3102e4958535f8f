/**
 * `npx tsx bench/orders-run.ts`: order creation on PostgreSQL, in one run, with autocannon:
 *
 *   A  app       POST /t/demo/orders of the real app, a staff order with the demo admin's token
 *   B  baseline  a bare Fastify route doing the same inserts directly with `pg` in one transaction
 *
 * each in two modes: `max` (closed loop, BENCH_CONNECTIONS connections: throughput) and `fixed`
 * (BENCH_RATE requests/s: latency at a given load). BENCH_BREAKDOWN=1 adds what-ifs at max
 * throughput: A with the kitchen emit only, A without socket.io emits, B as one statement. It creates a dedicated database
 * (ro_bench_orders), serves both targets from one child process (bench/orders-server.ts) on
 * 127.0.0.1, drives the load from this process, checks that the orders really land in the database,
 * prints a markdown table and drops the database. See bench/README.md for the options and results.
 */
import { readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import {
  DEMO_ENV, ask, cannon, checkLocal, cleaner, connect, createDb, dbUrl, envInt, fail, fmt, inRounds, logger, machine,
  metaLines, pct, pickTargets, printReport, readSettings, runMain, serverCpu, startServer, table, watchdog,
} from './lib-run.js';
import type { OrdersReadyMessage } from './orders-server.js';

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
  server: 'app' | 'bare' | 'bare-single';
  breakdown?: boolean;
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
];

interface Sample {
  seconds: number;
  ok: number;
  bad: number;
  latencies: number[];
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
  ok: number;
  bad: number;
  load: number;
  cpuPerReq: number;
  pgCpuPerReq: number | null;
  /** Average number of backends waiting for a lock / of open transactions idle, over the measured slices. */
  lockWait: number;
  idleInTx: number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function aggregate(target: Target, samples: Sample[]): Row {
  const sum = (f: (s: Sample) => number) => samples.reduce((acc, s) => acc + f(s), 0);
  const ok = sum((s) => s.ok);
  const all = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const pg = samples.every((s) => s.pgCpu !== null) ? sum((s) => s.pgCpu!) : null;
  return {
    target,
    reqPerSec: ok / sum((s) => s.seconds),
    perRound: samples.map((s) => s.ok / s.seconds),
    p50: percentile(all, 50),
    p99: percentile(all, 99),
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
}

/** One autocannon run; the latencies of 2xx answers are collected here at full (sub-ms) resolution. */
function cannonPost(load: Load, extra: { connections: number; duration: number; overallRate?: number }, latencies: number[] | null) {
  return cannon(
    {
      url: load.url,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...load.headers },
      body: load.body,
      ...extra,
      ...(extra.overallRate ? { ignoreCoordinatedOmission: true } : {}),
    },
    latencies ? (status, ms) => void (status >= 200 && status < 300 && latencies.push(ms)) : undefined,
  );
}

/**
 * `max`: one autocannon, BENCH_CONNECTIONS connections, closed loop. `fixed`: BENCH_RATE_STREAMS
 * autocannon instances of one connection each, `overallRate` rate/streams, started 1/streams s apart
 * (autocannon's rate is a per-second quota each connection sends back to back, so one instance
 * with 10 connections would fire the whole second's quota in one burst).
 */
async function drive(load: Load, mode: Mode, duration: number, latencies: number[] | null) {
  if (mode === 'max') {
    const r = await cannonPost(load, { connections: opts.connections, duration }, latencies);
    return { ok: r['2xx'], bad: r.non2xx + r.errors + r.timeouts, seconds: r.duration, connections: opts.connections };
  }
  const per = Math.floor(opts.rate / opts.streams);
  const rates = Array.from({ length: opts.streams }, (_, i) => per + (i < opts.rate - per * opts.streams ? 1 : 0)).filter((r) => r > 0);
  const results = await Promise.all(
    rates.map(async (overallRate, i) => {
      await sleep((i * 1000) / rates.length);
      return cannonPost(load, { connections: 1, duration, overallRate }, latencies);
    }),
  );
  return {
    ok: results.reduce((s, r) => s + r['2xx'], 0),
    bad: results.reduce((s, r) => s + r.non2xx + r.errors + r.timeouts, 0),
    seconds: duration,
    connections: rates.length,
  };
}

/**
 * The orders that must be in the database: every 2xx autocannon counted, warm-ups included, plus
 * at most one request per connection still in flight when autocannon stopped (sent, never counted).
 */
const created = { min: 0, max: 0 };
function count(r: { ok: number; connections: number }) {
  created.min += r.ok;
  created.max += r.ok + r.connections;
}

async function measure(t: Target, load: Load): Promise<Sample> {
  await setEmits(t.emits);
  if (opts.warmup > 0) {
    count(await drive(load, t.mode, opts.warmup, null));
  }
  const latencies: number[] = [];
  const loadAvg = loadavg()[0];
  const cpuBefore = await serverCpu();
  const pgBefore = await backendCpu();
  const stopSampling = sampleActivity();
  const r = await drive(load, t.mode, opts.duration, latencies);
  const activity = await stopSampling();
  const pgAfter = await backendCpu();
  const cpu = (await serverCpu()) - cpuBefore;
  count(r);
  return { seconds: r.seconds, ok: r.ok, bad: r.bad, latencies, load: loadAvg, cpu, pgCpu: backendDelta(pgBefore, pgAfter), activity };
}

// ---- checks ---------------------------------------------------------------------------------

interface OrderAnswer {
  orderNumber: string;
  items: { menuItem: string; name: string; price: number; quantity: number; allergens?: string[] }[];
  total: number;
  customerName: string;
  type: string;
}

async function post(url: string, body: unknown, token?: string): Promise<{ status: number; body: OrderAnswer }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as OrderAnswer };
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
  const list = await fetch(`${ready.appUrl}/t/demo/orders?limit=1000`, { headers: { authorization: `Bearer ${ready.token}` } });
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
    count(r);
  }
}

/** The one-statement what-if numbers its orders like the others (5+ digits kept whole). */
async function checkSingle(ready: OrdersReadyMessage, load: Load) {
  const r = await post(load.url, ready.body);
  if (r.status !== 201 || !/^\d{8}-\d{5,}$/.test(r.body.orderNumber)) throw new Error(`baseline-single: ${r.status} ${JSON.stringify(r.body)}`);
  created.min++;
  created.max++;
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
  const lines = [
    ...metaLines(meta),
    ...table(
      ['target', 'req/s', 'p50 ms', 'p99 ms', 'orders', 'server CPU µs/req', 'PG backends CPU µs/req', 'lock waits', 'idle in tx', 'non-2xx/errors', 'load 1m', 'req/s vs B'],
      rows.map((r) => {
        const base = by(r.target.mode === 'fixed' ? 'baseline-fixed' : 'baseline-max');
        return [
          r.target.label, fmt(r.reqPerSec), msf(r.p50), msf(r.p99), fmt(r.ok), fmt(r.cpuPerReq), r.pgCpuPerReq === null ? '-' : fmt(r.pgCpuPerReq),
          r.lockWait.toFixed(1), r.idleInTx.toFixed(1), r.bad, r.load.toFixed(1), base ? pct(r.reqPerSec / base.reqPerSec) : '-',
        ];
      }),
    ),
    '',
  ];
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
  const loads: Record<Target['server'], Load> = {
    app: { url: `${ready.appUrl}/t/demo/orders`, headers: { authorization: `Bearer ${ready.token}` }, body },
    bare: { url: `${ready.bareUrl}/bare/orders`, headers: {}, body },
    'bare-single': { url: `${ready.bareUrl}/bare/orders-single`, headers: {}, body },
  };
  await check(ready, loads.app, loads.bare);
  if (targets.some((t) => t.server === 'bare-single')) await checkSingle(ready, loads['bare-single']);

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
  };
  const { text, met } = report(rows, meta);
  printReport(text, rows, log, { out: opts.out, profDir });
  if (met === false) log('the app is under the aim (reported, not a failure)');
}

runMain(main, cleanup, log);

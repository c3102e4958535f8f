/**
 * `npm run bench:delivery`: delivery-platform order ingestion on PostgreSQL, with autocannon, in one run:
 *   (1) signed provider_a webhooks (PLACED with the whole order, a fresh event and order id each) at a fixed
 *       rate (BENCH_RATE/s), through to the order being created by the order job (workers in the server);
 *   (2) the plain staff order-creation route `POST /t/demo/orders` (same items) at the same rate;
 *   (3) the duplicate path: one already received event sent again, closed loop (BENCH_CONNECTIONS).
 * BENCH_PREPAID=1 makes the webhook orders prepaid (payment, accounting posting and stock deduction each).
 *
 * For (1) the answer's latency is the route's (verify, claim the key, store and enqueue); the end-to-end
 * latency is `ackLatencyMs` of each event (received -> order created), read from the database after the
 * queue is empty. It creates a dedicated database (ro_bench_delivery), serves everything from one child
 * process (bench/delivery-server.ts) on 127.0.0.1, prints a markdown table and drops the database.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request } from 'autocannon';
import type pg from 'pg';
import {
  DEMO_ENV, cannon, checkLocal, cleaner, connect, createDb, dbUrl, envInt, fmt, inRounds, logger, machine, median, metaLines,
  percentile, pickTargets, printReport, readSettings, runMain, serverCpu, startServer, table, watchdog,
} from './lib-run.js';
import type { DeliveryReadyMessage } from './delivery-server.js';

const opts = {
  ...readSettings({ duration: 5, warmup: 1, rounds: 2 }),
  dbName: process.env.BENCH_DB || 'ro_bench_delivery',
  /** Requests per second of the fixed-rate targets. */
  rate: envInt('BENCH_RATE', 20, 1, 10_000),
  /** Seconds to wait for the order queue to empty after a webhook slice. */
  settle: envInt('BENCH_SETTLE', 120, 5, 600),
};

interface Target {
  id: 'webhook' | 'staff' | 'duplicate';
  label: string;
  mode: 'fixed' | 'max';
}

const TARGETS: Target[] = [
  { id: 'webhook', label: '(1) signed provider_a webhook, fixed rate, through to the order', mode: 'fixed' },
  { id: 'staff', label: '(2) `POST /t/demo/orders` staff order, fixed rate', mode: 'fixed' },
  { id: 'duplicate', label: '(3) the same event again (duplicate), closed loop', mode: 'max' },
];

interface Sample {
  seconds: number;
  requests: number;
  p50: number;
  p99: number;
  bad: number;
  load: number;
  cpu: number;
  /** (1): the events' receive -> order created, ms; orders created per second of the slice. */
  ack: number[];
  ordersPerSec: number | null;
  settleMs: number | null;
}

const profDir = opts.cpuProf ? join(tmpdir(), 'ro-bench-delivery-prof') : null;
const log = logger('bench:delivery');
let pgClient: pg.Client | null = null;
const cleanup = cleaner(opts.adminUrl, opts.dbName, log, async () => {
  await pgClient?.end().catch(() => {});
});

const runId = randomBytes(4).toString('hex');
let seq = 0;
/** A fresh copy of the template event (new event and order ids) and its signature. */
function freshEvent(ready: DeliveryReadyMessage) {
  const n = seq++;
  const body = ready.template
    .replaceAll(ready.templateEventId, `bench-ev-${runId}-${n}`)
    .replaceAll(ready.templateOrderId, `bench-order-${runId}-${n}`);
  return { body, signature: createHmac('sha256', ready.secret).update(body).digest('hex') };
}

/** Waits for the order queue to empty (no event `queued`); ms waited after the slice. */
async function settle(since: Date): Promise<number> {
  const started = Date.now();
  for (;;) {
    const { rows } = await pgClient!.query<{ n: number }>(`select count(*)::int as n from delivery_events where status = 'queued' and received_at >= $1`, [since]);
    if (rows[0].n === 0) return Date.now() - started;
    if (Date.now() - started > opts.settle * 1000) throw new Error(`${rows[0].n} webhook events still queued after ${opts.settle} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function measure(t: Target, ready: DeliveryReadyMessage, duplicateBody: { body: string; signature: string }): Promise<Sample> {
  const url = ready.appUrl + (t.id === 'staff' ? ready.staffPath : ready.webhookPath);
  const json = { 'content-type': 'application/json' };
  const what =
    t.id === 'staff'
      ? { url, method: 'POST' as const, headers: { ...json, authorization: `Bearer ${ready.adminJwt}` }, body: JSON.stringify(ready.staffBody) }
      : t.id === 'duplicate'
        ? { url, method: 'POST' as const, headers: { ...json, 'x-provider-a-hmac-sha256': duplicateBody.signature }, body: duplicateBody.body }
        : {
            url,
            method: 'POST' as const,
            requests: [
              {
                setupRequest: (req: Request) => {
                  const e = freshEvent(ready);
                  return { ...req, method: 'POST', body: e.body, headers: { ...req.headers, ...json, 'x-provider-a-hmac-sha256': e.signature } };
                },
              },
            ],
          };
  const load = t.mode === 'fixed' ? { connections: Math.min(opts.connections, 4), overallRate: opts.rate, ignoreCoordinatedOmission: true } : { connections: opts.connections };
  if (opts.warmup > 0) await cannon({ ...what, ...load, duration: opts.warmup });
  if (t.id === 'webhook') await settle(new Date(0));
  const since = new Date();
  const loadAvg = loadavg()[0];
  const cpuBefore = await serverCpu();
  const r = await cannon({ ...what, ...load, duration: opts.duration });
  let ack: number[] = [];
  let ordersPerSec: number | null = null;
  let settleMs: number | null = null;
  if (t.id === 'webhook') {
    settleMs = await settle(since);
    const { rows } = await pgClient!.query<{ ack: number; received: Date; processed: Date; status: string }>(
      `select ack_latency_ms as ack, received_at as received, processed_at as processed, status from delivery_events where received_at >= $1`,
      [since],
    );
    const notCreated = rows.filter((row) => row.status !== 'created');
    if (notCreated.length) throw new Error(`${notCreated.length} webhook events ended ${notCreated[0].status}, not created`);
    ack = rows.map((row) => Number(row.ack)).sort((a, b) => a - b);
    if (rows.length) {
      const first = Math.min(...rows.map((row) => row.received.getTime()));
      const last = Math.max(...rows.map((row) => row.processed.getTime()));
      ordersPerSec = rows.length / Math.max(0.001, (last - first) / 1000);
    }
  }
  // The CPU of (1) includes its order jobs (run by the same process while and after the load).
  const cpu = (await serverCpu()) - cpuBefore;
  return {
    seconds: r.duration,
    requests: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors + r.timeouts,
    load: loadAvg,
    cpu,
    ack,
    ordersPerSec,
    settleMs,
  };
}

/** Before measuring: a webhook creates its order; a repeat is deduplicated; a bad signature is 401; the staff route creates an order. */
async function check(ready: DeliveryReadyMessage) {
  const e = freshEvent(ready);
  const post = (body: string, signature: string) =>
    fetch(ready.appUrl + ready.webhookPath, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provider-a-hmac-sha256': signature }, body });
  const first = await post(e.body, e.signature);
  const firstBody = (await first.json()) as { received?: boolean; eventId?: string };
  if (first.status !== 200 || firstBody.received !== true) throw new Error(`webhook: ${first.status} ${JSON.stringify(firstBody)}`);
  const again = await post(e.body, e.signature);
  const againBody = (await again.json()) as { deduplicated?: boolean };
  if (again.status !== 200 || againBody.deduplicated !== true) throw new Error(`duplicate: ${again.status} ${JSON.stringify(againBody)}`);
  const bad = await post(freshEvent(ready).body, '0'.repeat(64));
  if (bad.status !== 401) throw new Error(`bad signature answered ${bad.status}, expected 401`);
  await settle(new Date(0));
  const { rows } = await pgClient!.query<{ status: string; order_id: string | null }>(`select status, order_id from delivery_events where id = $1`, [firstBody.eventId]);
  if (rows[0]?.status !== 'created' || !rows[0].order_id) throw new Error(`the webhook's event ended ${JSON.stringify(rows[0])}`);
  const staff = await fetch(ready.appUrl + ready.staffPath, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ready.adminJwt}` },
    body: JSON.stringify(ready.staffBody),
  });
  if (staff.status !== 201 && staff.status !== 200) throw new Error(`staff order: ${staff.status} ${await staff.text()}`);
  return e;
}

// ---- report ---------------------------------------------------------------------------------

const ms = (n: number) => (n === 0 ? '<1' : String(Math.round(n * 10) / 10));

function report(targets: Target[], runs: Sample[][], meta: Record<string, string>): string {
  const rows = targets.map((t, i) => {
    const s = runs[i];
    const sum = (f: (x: Sample) => number) => s.reduce((a, x) => a + f(x), 0);
    const total = sum((x) => x.requests);
    const ack = s.flatMap((x) => x.ack).sort((a, b) => a - b);
    const orders = s.map((x) => x.ordersPerSec).filter((x): x is number => x !== null);
    return {
      target: t,
      reqPerSec: total / sum((x) => x.seconds),
      p50: median(s.map((x) => x.p50)),
      p99: median(s.map((x) => x.p99)),
      total,
      bad: sum((x) => x.bad),
      cpuPerReq: total ? sum((x) => x.cpu) / total : 0,
      load: sum((x) => x.load) / s.length,
      ack,
      ordersPerSec: orders.length ? median(orders) : null,
      settle: s.map((x) => x.settleMs).filter((x): x is number => x !== null),
    };
  });
  const lines = [
    ...metaLines(meta),
    ...table(
      ['target', 'req/s', 'answer p50 ms', 'answer p99 ms', 'requests', 'server CPU µs/req', 'order created p50 / p99 ms', 'orders/s', 'non-2xx/errors', 'load 1m'],
      rows.map((r) => [
        r.target.label, fmt(r.reqPerSec), ms(r.p50), ms(r.p99), fmt(r.total), fmt(r.cpuPerReq),
        r.ack.length ? `${fmt(percentile(r.ack, 50))} / ${fmt(percentile(r.ack, 99))}` : '-',
        r.ordersPerSec === null ? '-' : fmt(r.ordersPerSec, 1), r.bad, r.load.toFixed(1),
      ]),
    ),
    '',
  ];
  const by = (id: Target['id']) => rows.find((r) => r.target.id === id);
  const hook = by('webhook');
  const staff = by('staff');
  const dup = by('duplicate');
  if (hook && staff) {
    lines.push(
      `- webhook answer vs staff order at ${opts.rate}/s: p50 ${ms(hook.p50)} vs ${ms(staff.p50)} ms, p99 ${ms(hook.p99)} vs ${ms(staff.p99)} ms; ` +
        `server CPU per order ${fmt(hook.cpuPerReq)} µs (route + order job) vs ${fmt(staff.cpuPerReq)} µs`,
    );
  }
  if (hook?.ack.length) {
    lines.push(
      `- received -> order created (ackLatencyMs, ${fmt(hook.ack.length)} events): p50 ${fmt(percentile(hook.ack, 50))} ms, p99 ${fmt(percentile(hook.ack, 99))} ms, ` +
        `max ${fmt(hook.ack[hook.ack.length - 1])} ms; the queue emptied ${hook.settle.map((x) => `${fmt(x)} ms`).join(', ')} after the slices`,
    );
  }
  if (dup && hook) lines.push(`- duplicate path: ${fmt(dup.reqPerSec)} req/s closed loop, ${fmt(dup.cpuPerReq)} µs server CPU each (a fresh webhook with its order: ${fmt(hook.cpuPerReq)} µs)`);
  return lines.join('\n');
}

// ---- main -----------------------------------------------------------------------------------

async function main() {
  if (!/^ro_bench[a-z0-9_]*$/.test(opts.dbName)) throw new Error('BENCH_DB must start with ro_bench (it is dropped at the end)');
  checkLocal(opts.adminUrl, 'BENCH_PG_URL');
  const targets = pickTargets(TARGETS, opts.breakdown, opts.only);
  const watch = watchdog(targets.length * opts.rounds * (opts.warmup + opts.duration + opts.settle + 5) + 240, cleanup, log);

  const loadBefore = loadavg();
  const pgVersion = await createDb(opts.adminUrl, opts.dbName);
  log(`database ${opts.dbName} created; starting the server`);
  const url = dbUrl(opts.adminUrl, opts.dbName);
  // Workers on: the order job runs in the server process, as in a single-process deployment (`npm start`).
  const env = { ...DEMO_ENV, BENCH_DATABASE_URL: url, ROLE: 'all', PROVIDER_A_MODE: 'simulator' };
  const ready = await startServer<DeliveryReadyMessage>('delivery-server.ts', env, { name: 'delivery bench server', seconds: 180, profDir });
  checkLocal(ready.appUrl, 'app');
  pgClient = await connect(url);
  const duplicate = await check(ready);
  log('checks passed: a signed webhook creates its order, its repeat is deduplicated, a bad signature is 401, the staff route creates orders');

  const runs = await inRounds(targets, opts.rounds, (t, round) => {
    log(`round ${round + 1}/${opts.rounds}: ${t.id} (${opts.warmup} s warm-up + ${opts.duration} s, ${t.mode === 'fixed' ? `${opts.rate} req/s` : `${opts.connections} connections`})`);
    return measure(t, ready, duplicate);
  });
  const loadAfter = loadavg();
  await cleanup();
  clearTimeout(watch);

  const meta = {
    ...machine(pgVersion, loadBefore, loadAfter),
    autocannon: `fixed: ${opts.rate} req/s over ${Math.min(opts.connections, 4)} connections; closed loop: ${opts.connections} connections; ${opts.rounds} round(s), alternating order, each slice ${opts.warmup} s warm-up + ${opts.duration} s measured`,
    orders: process.env.BENCH_PREPAID === '1' ? 'prepaid at the platform (payment, posting and stock deduction per webhook order)' : 'unpaid (cash on delivery), like the staff order',
    server: 'one process, ROLE=all (HTTP and the job workers, pg-boss polling every 1 s; a job sent in a transaction waits for the next poll)',
  };
  const text = report(targets, runs, meta);
  const rows = targets.map((t, i) => ({ target: t, bad: runs[i].reduce((a, s) => a + s.bad, 0) }));
  printReport(text, rows, log, { out: opts.out, profDir });
}

runMain(main, cleanup, log);

/**
 * `npm run bench`: in one run, on PostgreSQL, compares with autocannon
 *   (1) a bare Fastify route with a small JSON payload,
 *   (2) GET /health of the real app,
 *   (3) GET /t/demo/users of the real app (JWT + guard chain),
 *   (4) the same users listing without auth, on the same app instance,
 *   (5) the same users listing on the bare Fastify instance,
 * and, with BENCH_BREAKDOWN=1, the guard's steps one at a time.
 *
 * It creates a dedicated database (ro_bench), serves everything from one child process
 * (bench/server.ts) on 127.0.0.1, drives the load from this process, prints a markdown table
 * and drops the database. See bench/README.md for the options and the last results.
 */
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  DEMO_ENV, cannon, checkLocal, cleaner, createDb, dbUrl, fmt, inRounds, logger, machine, median, metaLines, pct,
  pickTargets, printReport, readSettings, runMain, serverCpu, startServer, table, watchdog,
} from './lib-run.js';
import type { ReadyMessage } from './server.js';

/** The share of req/s the JWT + guard chain may cost against the same route without auth (issue 2). */
const TARGET_GUARD_COST = 0.25;

const opts = {
  // Rounds in alternating order; each target's numbers add up its rounds.
  ...readSettings({ duration: 3, warmup: 1, rounds: 4 }),
  dbName: process.env.BENCH_DB || 'ro_bench',
};
const profDir = opts.cpuProf ? join(tmpdir(), 'ro-bench-prof') : null;

interface Target {
  id: string;
  label: string;
  server: 'app' | 'bare';
  path: string;
  auth?: boolean;
  /** Its body must equal the authenticated listing's. */
  usersList?: boolean;
  breakdown?: boolean;
}

const TARGETS: Target[] = [
  { id: 'bare', label: '(1) bare Fastify `GET /bare` (small JSON)', server: 'bare', path: '/bare' },
  { id: 'health', label: '(2) app `GET /health`', server: 'app', path: '/health' },
  { id: 'users-auth', label: '(3) app `GET /t/demo/users` (JWT + guard chain)', server: 'app', path: '/t/demo/users', auth: true, usersList: true },
  { id: 'users-noauth', label: '(4) app users listing, no auth (`users.list(ctx)`)', server: 'app', path: '/bench/t/demo/users', usersList: true },
  { id: 'users-bare', label: '(5) bare Fastify users listing, no auth', server: 'bare', path: '/bare/t/demo/users', usersList: true },
  { id: 'step-hook', label: 'b1 no-op async onRequest hook', server: 'app', path: '/bench/hook/t/demo/users', auth: true, usersList: true, breakdown: true },
  { id: 'step-jwt', label: 'b2 hook + JWT verify', server: 'app', path: '/bench/jwt/t/demo/users', auth: true, usersList: true, breakdown: true },
  { id: 'step-tenant', label: 'b3 + tenant by slug (cached)', server: 'app', path: '/bench/jwt-tenant/t/demo/users', auth: true, usersList: true, breakdown: true },
  { id: 'step-member', label: 'b4 + membership query', server: 'app', path: '/bench/jwt-tenant-member/t/demo/users', auth: true, usersList: true, breakdown: true },
  { id: 'alt-jwt-key', label: 'w1 hook + JWT verify, jose with the key imported once', server: 'app', path: '/bench/jwt-key/t/demo/users', auth: true, usersList: true, breakdown: true },
  { id: 'alt-jwt-hmac', label: 'w2 hook + JWT verify, sync node:crypto HMAC', server: 'app', path: '/bench/jwt-hmac/t/demo/users', auth: true, usersList: true, breakdown: true },
  { id: 'alt-prepared', label: 'w3 w2 + tenant + membership as a prepared statement', server: 'app', path: '/bench/hmac-tenant-prepared/t/demo/users', auth: true, usersList: true, breakdown: true },
  { id: 'alt-cached', label: 'w4 w2 + tenant + membership cached 5 s', server: 'app', path: '/bench/hmac-tenant-cached/t/demo/users', auth: true, usersList: true, breakdown: true },
];

/** One measured slice of one target. */
interface Sample {
  seconds: number;
  requests: number;
  p50: number;
  p99: number;
  mean: number;
  bad: number;
  /** 1-minute load average when the slice started. */
  load: number;
  /** CPU time of the server process during the slice, in microseconds. */
  cpu: number;
}

/** A target's rounds added up. */
interface Row {
  target: Target;
  /** All requests over all measured seconds. */
  reqPerSec: number;
  /** req/s of each round, in round order. */
  perRound: number[];
  /** Medians over the rounds (autocannon gives percentiles per slice, not histograms). */
  p50: number;
  p99: number;
  /** Weighted by requests. */
  mean: number;
  total: number;
  bad: number;
  load: number;
  /** CPU time of the server process per request (PostgreSQL and autocannon not included). */
  cpuPerReq: number;
}

function aggregate(target: Target, samples: Sample[]): Row {
  const sum = (f: (s: Sample) => number) => samples.reduce((acc, s) => acc + f(s), 0);
  const total = sum((s) => s.requests);
  return {
    target,
    reqPerSec: total / sum((s) => s.seconds),
    perRound: samples.map((s) => s.requests / s.seconds),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    mean: total ? sum((s) => s.mean * s.requests) / total : 0,
    total,
    bad: sum((s) => s.bad),
    load: sum((s) => s.load) / samples.length,
    cpuPerReq: total ? sum((s) => s.cpu) / total : 0,
  };
}

const log = logger('bench');
const cleanup = cleaner(opts.adminUrl, opts.dbName, log);

async function measure(url: string, headers: Record<string, string>): Promise<Sample> {
  const what = { url, headers, connections: opts.connections };
  if (opts.warmup > 0) await cannon({ ...what, duration: opts.warmup });
  const load = loadavg()[0];
  const cpuBefore = await serverCpu();
  const r = await cannon({ ...what, duration: opts.duration });
  const cpu = (await serverCpu()) - cpuBefore;
  return {
    seconds: r.duration,
    requests: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    mean: r.latency.mean,
    bad: r.non2xx + r.errors + r.timeouts,
    load,
    cpu,
  };
}

/** Each target answers 200 once before it is measured, and the user listings agree. */
async function check(targets: Target[], urlOf: (t: Target) => string, token: string) {
  let reference: unknown = null;
  for (const t of targets) {
    const res = await fetch(urlOf(t), { headers: t.auth ? { authorization: `Bearer ${token}` } : {} });
    const body: unknown = await res.json();
    if (res.status !== 200) throw new Error(`${t.id}: ${res.status} ${JSON.stringify(body)}`);
    if (t.usersList) {
      if (!Array.isArray(body) || body.length < 2) throw new Error(`${t.id}: expected the demo users, got ${JSON.stringify(body)}`);
      reference ??= body;
      if (!isDeepStrictEqual(body, reference)) throw new Error(`${t.id}: body differs from the other users listings`);
    }
  }
  // The guard is really on: without a token the tenant route is refused.
  const anon = await fetch(urlOf(TARGETS.find((t) => t.id === 'users-auth')!));
  if (anon.status !== 401) throw new Error(`GET /t/demo/users without a token answered ${anon.status}, expected 401`);
}

// ---- report ---------------------------------------------------------------------------------

/** autocannon records latency in whole milliseconds: 0 means under 1 ms. */
const ms = (n: number) => (n === 0 ? '<1' : String(Math.round(n * 10) / 10));

function report(rows: Row[], meta: Record<string, string>): { text: string; met: boolean | null } {
  const by = (id: string) => rows.find((r) => r.target.id === id);
  const bare = by('bare');
  const lines = [
    ...metaLines(meta),
    ...table(
      ['target', 'req/s', 'p50 ms', 'p99 ms', 'mean ms', 'requests', 'server CPU µs/req', 'non-2xx/errors', 'load 1m', 'req/s vs (1)'],
      rows.map((r) => [
        r.target.label, fmt(r.reqPerSec), ms(r.p50), ms(r.p99), fmt(r.mean, 2), fmt(r.total), fmt(r.cpuPerReq), r.bad, r.load.toFixed(1),
        bare ? pct(r.reqPerSec / bare.reqPerSec) : '-',
      ]),
    ),
    '',
  ];
  const auth = by('users-auth');
  const noauth = by('users-noauth');
  const bareUsers = by('users-bare');
  const health = by('health');
  if (bare && health) lines.push(`- /health vs bare route: ${pct(health.reqPerSec / bare.reqPerSec)} of the req/s (app hooks: request id header, schemas)`);
  let met: boolean | null = null;
  if (auth && noauth) {
    const cost = 1 - auth.reqPerSec / noauth.reqPerSec;
    met = cost <= TARGET_GUARD_COST;
    lines.push(
      `- **Guard chain cost: (3) reaches ${pct(auth.reqPerSec / noauth.reqPerSec)} of the req/s of (4), a cost of ${pct(cost)} ` +
        `(target <= ${pct(TARGET_GUARD_COST)}): ${met ? 'MET' : 'NOT MET'}**; p50 ${noauth.p50} -> ${auth.p50} ms, p99 ${noauth.p99} -> ${auth.p99} ms`,
    );
    const rounds = auth.perRound.map((a, i) => pct(1 - a / noauth.perRound[i]));
    if (rounds.length > 1) lines.push(`- guard chain cost in each round: ${rounds.join(', ')}`);
    lines.push(`- server CPU per request: ${fmt(noauth.cpuPerReq)} µs without auth, ${fmt(auth.cpuPerReq)} µs with the guard chain (+${fmt(auth.cpuPerReq - noauth.cpuPerReq)} µs)`);
  }
  if (auth && bareUsers) lines.push(`- (3) vs (5) (listing on the bare instance): ${pct(auth.reqPerSec / bareUsers.reqPerSec)} of the req/s, a cost of ${pct(1 - auth.reqPerSec / bareUsers.reqPerSec)}`);
  const steps = rows.filter((r) => r.target.breakdown);
  if (steps.length && noauth) {
    lines.push(`- breakdown, req/s against (4): ${steps.map((s) => `${s.target.id} ${pct(s.reqPerSec / noauth.reqPerSec)}`).join(', ')}`);
  }
  return { text: lines.join('\n'), met };
}

// ---- main -----------------------------------------------------------------------------------

async function main() {
  if (!/^ro_bench[a-z0-9_]*$/.test(opts.dbName)) throw new Error('BENCH_DB must start with ro_bench (it is dropped at the end)');
  checkLocal(opts.adminUrl, 'BENCH_PG_URL');
  const targets = pickTargets(TARGETS, opts.breakdown, opts.only);
  const watch = watchdog(targets.length * opts.rounds * (opts.warmup + opts.duration + 3) + 180, cleanup, log);

  const loadBefore = loadavg();
  const pgVersion = await createDb(opts.adminUrl, opts.dbName);
  log(`database ${opts.dbName} created; starting the server`);
  const env = { ...DEMO_ENV, BENCH_DATABASE_URL: dbUrl(opts.adminUrl, opts.dbName) };
  const ready = await startServer<ReadyMessage>('server.ts', env, { name: 'bench server', seconds: 60, profDir });
  checkLocal(ready.appUrl, 'app');
  checkLocal(ready.bareUrl, 'bare server');
  const urlOf = (t: Target) => (t.server === 'app' ? ready.appUrl : ready.bareUrl) + t.path;
  await check(targets, urlOf, ready.token);

  const runs = await inRounds(targets, opts.rounds, (t, round) => {
    log(`round ${round + 1}/${opts.rounds}: ${t.id} (${opts.warmup} s warm-up + ${opts.duration} s, ${opts.connections} connections)`);
    const headers: Record<string, string> = t.auth ? { authorization: `Bearer ${ready.token}` } : {};
    return measure(urlOf(t), headers);
  });
  const loadAfter = loadavg();
  const rows = runs.map((samples, i) => aggregate(targets[i], samples));

  await cleanup();
  clearTimeout(watch);

  const meta = {
    ...machine(pgVersion, loadBefore, loadAfter),
    autocannon: `${opts.connections} connections; ${opts.rounds} round(s) over the targets in alternating order, each slice ${opts.warmup} s warm-up + ${opts.duration} s measured (${opts.rounds * opts.duration} s measured per target)`,
  };
  const { text, met } = report(rows, meta);
  printReport(text, rows, log, { out: opts.out, profDir });
  if (met === false) log('the guard chain costs more than the target (reported, not a failure)');
}

runMain(main, cleanup, log);

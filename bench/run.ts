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
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import type { CpuMessage, ReadyMessage } from './server.js';

/** The share of req/s the JWT + guard chain may cost against the same route without auth (issue 2). */
const TARGET_GUARD_COST = 0.25;

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

const opts = {
  connections: envInt('BENCH_CONNECTIONS', 10, 1, 200),
  /** Seconds measured per target and round. */
  duration: envInt('BENCH_DURATION', 3, 1, 120),
  /** Seconds of unmeasured load before each measured slice. */
  warmup: envInt('BENCH_WARMUP', 1, 0, 30),
  /** Rounds over all targets, in alternating order; each target's numbers add up its rounds. */
  rounds: envInt('BENCH_ROUNDS', 4, 1, 20),
  breakdown: process.env.BENCH_BREAKDOWN === '1',
  cpuProf: process.env.BENCH_CPU_PROF === '1',
  only: process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((s) => s.trim()) : null,
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  dbName: process.env.BENCH_DB || 'ro_bench',
  out: process.env.BENCH_OUT || null,
};

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

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

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

const root = fileURLToPath(new URL('..', import.meta.url));
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
function fail(message: string): never {
  throw new Error(message);
}

function checkLocal(url: string, what: string) {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`${what} must point to 127.0.0.1 (got ${host})`);
}

// ---- database -------------------------------------------------------------------------------

function benchDbUrl(): string {
  const u = new URL(opts.adminUrl);
  u.pathname = `/${opts.dbName}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: opts.adminUrl, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

const dropDb = () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${opts.dbName} WITH (FORCE)`));

// ---- server child ---------------------------------------------------------------------------

let child: ChildProcess | null = null;

function startServer(): Promise<ReadyMessage> {
  const execArgv = ['--import', 'tsx'];
  if (opts.cpuProf) execArgv.push('--cpu-prof', `--cpu-prof-dir=${join(tmpdir(), 'ro-bench-prof')}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BENCH_DATABASE_URL: benchDbUrl(),
    // Set so loadConfig writes nothing to ./data; throwaway values for a throwaway database.
    JWT_SECRET: 'bench-jwt-secret-bench-jwt-secret-0123456789',
    ENCRYPTION_KEY: '00'.repeat(32),
    BCRYPT_COST: '4',
    DEMO_PASSWORD: 'bench-demo-password',
    SUPERADMIN_EMAIL: 'superadmin@bench.local',
    SUPERADMIN_PASSWORD: 'bench-superadmin-password',
    SEED_DEMO: 'true',
    LOG_LEVEL: 'silent',
    // The HTTP API process only: no job workers polling in the background of the measurements.
    ROLE: 'api',
  };
  delete env.DATABASE_URL;
  const proc = fork(join(root, 'bench', 'server.ts'), [], { cwd: root, execArgv, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child = proc;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bench server not ready after 60 s')), 60_000);
    proc.on('message', (msg: ReadyMessage) => {
      if (msg?.type === 'ready') {
        clearTimeout(timer);
        resolve(msg);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      child = null;
      reject(new Error(`bench server exited with code ${code}`));
    });
  });
}

/** The server's CPU time so far, in microseconds. */
function serverCpu(): Promise<number> {
  const proc = child ?? fail('the bench server is not running');
  return new Promise((resolve) => {
    const onMessage = (msg: CpuMessage) => {
      if (msg?.type !== 'cpu') return;
      proc.off('message', onMessage);
      resolve(msg.micros);
    };
    proc.on('message', onMessage);
    proc.send({ type: 'cpu' });
  });
}

async function stopServer() {
  const proc = child;
  if (!proc) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  if (proc.connected) proc.send({ type: 'stop' });
  else proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
  child = null;
}

// ---- load -----------------------------------------------------------------------------------

let current: { stop(): void } | null = null;

async function cannon(url: string, headers: Record<string, string>, duration: number) {
  const run = autocannon({ url, connections: opts.connections, duration, headers, timeout: 10 });
  current = run;
  try {
    return await run;
  } finally {
    current = null;
  }
}

async function measure(url: string, headers: Record<string, string>): Promise<Sample> {
  if (opts.warmup > 0) await cannon(url, headers, opts.warmup);
  const load = loadavg()[0];
  const cpuBefore = await serverCpu();
  const r = await cannon(url, headers, opts.duration);
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

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
/** autocannon records latency in whole milliseconds: 0 means under 1 ms. */
const ms = (n: number) => (n === 0 ? '<1' : String(Math.round(n * 10) / 10));

function report(rows: Row[], meta: Record<string, string>): { text: string; met: boolean | null } {
  const by = (id: string) => rows.find((r) => r.target.id === id);
  const bare = by('bare');
  const lines: string[] = [];
  for (const [k, v] of Object.entries(meta)) lines.push(`- ${k}: ${v}`);
  lines.push('');
  lines.push('| target | req/s | p50 ms | p99 ms | mean ms | requests | server CPU µs/req | non-2xx/errors | load 1m | req/s vs (1) |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    lines.push(
      `| ${r.target.label} | ${fmt(r.reqPerSec)} | ${ms(r.p50)} | ${ms(r.p99)} | ${fmt(r.mean, 2)} | ${fmt(r.total)} | ${fmt(r.cpuPerReq)} | ${r.bad} | ${r.load.toFixed(1)} | ${bare ? pct(r.reqPerSec / bare.reqPerSec) : '-'} |`,
    );
  }
  lines.push('');
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

let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  current?.stop();
  await stopServer().catch((err) => log(`stopping the server: ${String(err)}`));
  await dropDb()
    .then(() => log(`dropped database ${opts.dbName}`))
    .catch((err) => log(`could not drop database ${opts.dbName}: ${String(err)}`));
}

async function main() {
  if (!/^ro_bench[a-z0-9_]*$/.test(opts.dbName)) throw new Error('BENCH_DB must start with ro_bench (it is dropped at the end)');
  checkLocal(opts.adminUrl, 'BENCH_PG_URL');
  let targets = TARGETS.filter((t) => opts.breakdown || !t.breakdown);
  if (opts.only) targets = TARGETS.filter((t) => opts.only!.includes(t.id));
  if (!targets.length) throw new Error(`BENCH_ONLY matches no target; targets: ${TARGETS.map((t) => t.id).join(', ')}`);

  // Stops by itself whatever happens.
  const budgetMs = (targets.length * opts.rounds * (opts.warmup + opts.duration + 3) + 180) * 1000;
  const watchdog = setTimeout(() => {
    log(`still running after ${budgetMs / 1000} s: giving up`);
    void cleanup().finally(() => process.exit(1));
  }, budgetMs);

  const loadBefore = loadavg();
  const pgVersion = await admin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${opts.dbName} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${opts.dbName}`);
    return (await c.query<{ server_version: string }>('show server_version')).rows[0].server_version;
  }).catch((err: Error) => {
    throw new Error(`PostgreSQL at ${opts.adminUrl} is not usable (${err.message}); start it, e.g. pg_ctlcluster <version> main start`);
  });
  log(`database ${opts.dbName} created; starting the server`);
  const ready = await startServer();
  checkLocal(ready.appUrl, 'app');
  checkLocal(ready.bareUrl, 'bare server');
  const urlOf = (t: Target) => (t.server === 'app' ? ready.appUrl : ready.bareUrl) + t.path;
  await check(targets, urlOf, ready.token);

  const runs: Sample[][] = targets.map(() => []);
  for (let round = 0; round < opts.rounds; round++) {
    // Alternate the order between rounds so a drift in machine load does not favour one side.
    const order = targets.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const t = targets[i];
      log(`round ${round + 1}/${opts.rounds}: ${t.id} (${opts.warmup} s warm-up + ${opts.duration} s, ${opts.connections} connections)`);
      const headers: Record<string, string> = t.auth ? { authorization: `Bearer ${ready.token}` } : {};
      runs[i].push(await measure(urlOf(t), headers));
    }
  }
  const loadAfter = loadavg();
  const rows = runs.map((samples, i) => aggregate(targets[i], samples));

  await cleanup();
  clearTimeout(watchdog);

  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    postgres: pgVersion,
    machine: `${cpus().length} x ${cpus()[0]?.model.trim() ?? 'cpu'}`,
    'load average (1/5/15 min)': `before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' ')}`,
    autocannon: `${opts.connections} connections; ${opts.rounds} round(s) over the targets in alternating order, each slice ${opts.warmup} s warm-up + ${opts.duration} s measured (${opts.rounds * opts.duration} s measured per target)`,
  };
  const { text, met } = report(rows, meta);
  process.stdout.write(text + '\n');
  if (opts.out) writeFileSync(opts.out, text + '\n');
  if (opts.cpuProf) log(`CPU profile of the server written to ${join(tmpdir(), 'ro-bench-prof')}`);

  const bad = rows.filter((r) => r.bad > 0);
  if (bad.length) {
    log(`non-2xx responses or errors on: ${bad.map((r) => r.target.id).join(', ')}; the numbers are not valid`);
    process.exitCode = 1;
  }
  if (met === false) log('the guard chain costs more than the target (reported, not a failure)');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

main().catch(async (err) => {
  log(`failed: ${err instanceof Error ? err.message : String(err)}`);
  await cleanup();
  process.exit(1);
});

/**
 * `npx tsx bench/menu-items.ts`: the public item listing of a 200-item menu against a bare
 * Fastify route returning a payload of the same size, in the same run, on PostgreSQL, with
 * autocannon. Targets, measured in turn, `BENCH_ROUNDS` times (median kept):
 *
 *   bare      bare Fastify, the same 200-item array serialized with JSON.stringify per request
 *   app       GET /t/bench/menu/items on the real app (tenant guard, menu version query, cached body)
 *   app-304   the same with a current If-None-Match (what a phone that already has the menu sends)
 *   uncached  the same listing built from the database and serialized on every request (bench-only)
 *
 * A dedicated database (ro_bench_menu) is created on the server of BENCH_PG_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres) and dropped at the end. The servers run in
 * one child process on 127.0.0.1 (bench/menu-server.ts); the load comes from this process.
 * Options: BENCH_CONNECTIONS (10), BENCH_DURATION seconds (10), BENCH_WARMUP seconds (2), BENCH_ROUNDS (2).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { MenuReadyMessage } from './menu-server.js';

/** The part of autocannon's result used here (the package ships no types). */
interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
  timeout: number;
}) => Promise<CannonResult>;

/** The aim: the app's listing reaches at least half the bare route's req/s. */
const TARGET_RATIO = 0.5;

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

const opts = {
  connections: envInt('BENCH_CONNECTIONS', 10, 1, 200),
  duration: envInt('BENCH_DURATION', 10, 1, 120),
  warmup: envInt('BENCH_WARMUP', 2, 0, 30),
  rounds: envInt('BENCH_ROUNDS', 2, 1, 5),
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  dbName: 'ro_bench_menu',
};

const root = fileURLToPath(new URL('..', import.meta.url));
const log = (msg: string) => process.stderr.write(`[menu-bench] ${msg}\n`);

const host = new URL(opts.adminUrl).hostname;
if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`BENCH_PG_URL must point to 127.0.0.1 (got ${host})`);

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: opts.adminUrl, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end().catch(() => {});
  }
}

let child: ChildProcess | null = null;

function startServer(dbUrl: string): Promise<MenuReadyMessage> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    BENCH_DATABASE_URL: dbUrl,
    ROLE: 'api',
    JWT_SECRET: 'bench-jwt-secret-bench-jwt-secret-0123456789',
    ENCRYPTION_KEY: '00'.repeat(32),
    LOG_LEVEL: 'silent',
  };
  delete env.DATABASE_URL;
  const proc = fork(join(root, 'bench', 'menu-server.ts'), [], { cwd: root, execArgv: ['--import', 'tsx'], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child = proc;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('menu bench server not ready after 120 s')), 120_000);
    proc.on('message', (msg: MenuReadyMessage) => {
      if (msg?.type === 'ready') {
        clearTimeout(timer);
        resolve(msg);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      child = null;
      reject(new Error(`menu bench server exited with code ${code}`));
    });
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
}

interface Target {
  id: 'bare' | 'app' | 'app-304' | 'uncached';
  label: string;
  url: string;
  headers: Record<string, string>;
  expect: 200 | 304;
}

interface Sample {
  reqPerSec: number;
  p50: number;
  p99: number;
  bad: number;
  load: number;
}

async function cannon(t: Target, duration: number) {
  return autocannon({ url: t.url, connections: opts.connections, duration, headers: t.headers, timeout: 10 });
}

async function measure(t: Target): Promise<Sample> {
  if (opts.warmup > 0) await cannon(t, opts.warmup);
  const load = loadavg()[0];
  const r = await cannon(t, opts.duration);
  // autocannon counts a 304 as non-2xx: for the conditional target every answer must be one.
  const bad = t.expect === 304 ? r.errors + r.timeouts + (r.requests.total - r.non2xx) : r.errors + r.timeouts + r.non2xx;
  return { reqPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad, load };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main() {
  const dbUrl = (() => {
    const u = new URL(opts.adminUrl);
    u.pathname = `/${opts.dbName}`;
    return u.toString();
  })();
  await admin(`DROP DATABASE IF EXISTS ${opts.dbName} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${opts.dbName}`);
  try {
    log('starting the servers and seeding 200 items...');
    const ready = await startServer(dbUrl);
    const path = '/t/bench/menu/items';
    const first = await fetch(ready.appUrl + path);
    const etag = first.headers.get('etag')!;
    const appBody = await first.text();
    const bareBody = await (await fetch(ready.bareUrl + '/bare/menu/items')).text();
    if (appBody !== bareBody) throw new Error('the bare route and the app do not return the same payload');
    if ((await fetch(ready.appUrl + path, { headers: { 'if-none-match': etag } })).status !== 304) throw new Error('no 304 for a current ETag');
    log(`payload: ${ready.items} items, ${ready.bytes} bytes; ${cpus().length} CPUs`);

    const targets: Target[] = [
      { id: 'bare', label: 'bare Fastify route, same 200-item payload', url: ready.bareUrl + '/bare/menu/items', headers: {}, expect: 200 },
      { id: 'app', label: 'app `GET /t/bench/menu/items` (public, cached body, 200)', url: ready.appUrl + path, headers: {}, expect: 200 },
      { id: 'app-304', label: 'app, same request with a current `If-None-Match` (304)', url: ready.appUrl + path, headers: { 'if-none-match': etag }, expect: 304 },
      { id: 'uncached', label: 'app listing without the body cache (query + serialize per request)', url: ready.appUrl + '/bench/uncached/t/bench/menu/items', headers: {}, expect: 200 },
    ];
    const samples = new Map<Target['id'], Sample[]>(targets.map((t) => [t.id, []]));
    for (let round = 1; round <= opts.rounds; round++) {
      for (const t of targets) {
        log(`round ${round}/${opts.rounds}: ${t.id}`);
        samples.get(t.id)!.push(await measure(t));
      }
    }
    const med = (id: Target['id']) => {
      const s = samples.get(id)!;
      return { reqPerSec: median(s.map((x) => x.reqPerSec)), p50: median(s.map((x) => x.p50)), p99: median(s.map((x) => x.p99)), bad: s.reduce((n, x) => n + x.bad, 0) };
    };
    const bare = med('bare').reqPerSec;
    const lines = [
      `${opts.connections} connections, ${opts.duration} s per target after ${opts.warmup} s warm-up, median of ${opts.rounds} round(s); payload ${ready.items} items, ${ready.bytes} bytes; load average at start ${samples.get('bare')![0].load.toFixed(2)}`,
      '',
      '| target | req/s | vs bare | p50 ms | p99 ms | bad answers |',
      '|---|---:|---:|---:|---:|---:|',
      ...targets.map((t) => {
        const m = med(t.id);
        return `| ${t.label} | ${Math.round(m.reqPerSec)} | ${((m.reqPerSec / bare) * 100).toFixed(0)}% | ${m.p50} | ${m.p99} | ${m.bad} |`;
      }),
    ];
    process.stdout.write(lines.join('\n') + '\n');
    const ratio = med('app').reqPerSec / bare;
    log(`app / bare = ${(ratio * 100).toFixed(0)}% (aim: at least ${TARGET_RATIO * 100}%)`);
    if (targets.some((t) => med(t.id).bad > 0)) throw new Error('some answers were not the expected status');
  } finally {
    await stopServer().catch(() => {});
    await admin(`DROP DATABASE IF EXISTS ${opts.dbName} WITH (FORCE)`).catch(() => {});
  }
}

main().catch((err) => {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});

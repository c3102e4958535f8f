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
import { cpus, loadavg } from 'node:os';
import { SECRETS, admin, cannon, checkLocal, dbUrl, dropDb, logger, median, readSettings, startServer, stopServer, table } from './lib-run.js';
import type { MenuReadyMessage } from './menu-server.js';

/** The aim: the app's listing reaches at least half the bare route's req/s. */
const TARGET_RATIO = 0.5;

const opts = { ...readSettings({ duration: 10, warmup: 2, rounds: 2, maxRounds: 5 }), dbName: 'ro_bench_menu' };

const log = logger('menu-bench');

checkLocal(opts.adminUrl, 'BENCH_PG_URL');

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

async function measure(t: Target): Promise<Sample> {
  const run = (duration: number) => cannon({ url: t.url, connections: opts.connections, duration, headers: t.headers });
  if (opts.warmup > 0) await run(opts.warmup);
  const load = loadavg()[0];
  const r = await run(opts.duration);
  // autocannon counts a 304 as non-2xx: for the conditional target every answer must be one.
  const bad = t.expect === 304 ? r.errors + r.timeouts + (r.requests.total - r.non2xx) : r.errors + r.timeouts + r.non2xx;
  return { reqPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad, load };
}

async function main() {
  await dropDb(opts.adminUrl, opts.dbName);
  await admin(opts.adminUrl, (c) => c.query(`CREATE DATABASE ${opts.dbName}`));
  try {
    log('starting the servers and seeding 200 items...');
    const env = { NODE_ENV: 'production', GATEWAY_A_MODE: 'off', WALLET_MODE: 'simulator', PIX_PSP_MODE: 'off', BENCH_DATABASE_URL: dbUrl(opts.adminUrl, opts.dbName), ROLE: 'api', ...SECRETS, LOG_LEVEL: 'silent' };
    const ready = await startServer<MenuReadyMessage>('menu-server.ts', env, { name: 'menu bench server', seconds: 120 });
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
      return {
        reqPerSec: median(s.map((x) => x.reqPerSec)),
        p50: median(s.map((x) => x.p50)),
        p99: median(s.map((x) => x.p99)),
        bad: s.reduce((n, x) => n + x.bad, 0),
      };
    };
    const bare = med('bare').reqPerSec;
    const lines = [
      `${opts.connections} connections, ${opts.duration} s per target after ${opts.warmup} s warm-up, median of ${opts.rounds} round(s); payload ${ready.items} items, ${ready.bytes} bytes; load average at start ${samples.get('bare')![0].load.toFixed(2)}`,
      '',
      ...table(
        ['target', 'req/s', 'vs bare', 'p50 ms', 'p99 ms', 'bad answers'],
        targets.map((t) => {
          const m = med(t.id);
          return [t.label, Math.round(m.reqPerSec), `${((m.reqPerSec / bare) * 100).toFixed(0)}%`, m.p50, m.p99, m.bad];
        }),
      ),
    ];
    process.stdout.write(lines.join('\n') + '\n');
    const ratio = med('app').reqPerSec / bare;
    log(`app / bare = ${(ratio * 100).toFixed(0)}% (aim: at least ${TARGET_RATIO * 100}%)`);
    if (targets.some((t) => med(t.id).bad > 0)) throw new Error('some answers were not the expected status');
  } finally {
    await stopServer().catch(() => {});
    await dropDb(opts.adminUrl, opts.dbName).catch(() => {});
  }
}

main().catch((err) => {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});

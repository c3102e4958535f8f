/**
 * `npm run bench:rls`: what PostgreSQL's row-level security policies cost (issue 9). In one run, with
 * autocannon, the same build on two databases that differ only in whether the policies apply:
 *
 *   on   ro_bench_rls_on   as migrated: every tenant table with RLS enabled and forced
 *   off  ro_bench_rls_off  the same, then RLS disabled (NO FORCE + DISABLE) on every table with tenant_id
 *
 * and on each, two targets: order creation (`POST /t/demo/orders`, the staff order of the orders
 * bench) and the guarded users listing (`GET /t/demo/users` as the demo admin). Each database has its
 * own server child (bench/rls-server.ts, identical code, role app_tenant, the same transactions);
 * only one target is loaded at a time, in alternating order over the rounds. The aim: with the
 * policies on, no more than 10% fewer requests/s. See bench/README.md for the options and results.
 */
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import {
  DEMO_ENV, backendsCpu, backendsCpuSince, cannon, checkLocal, cleaner, connect, createDb, dbUrl, fail, fmt, inRounds, logger,
  machine, median, metaLines, pickTargets, printReport, readSettings, runMain, serverCpu, startServerChild, table, watchdog,
} from './lib-run.js';
import type { RlsReadyMessage } from './rls-server.js';

/** The aim: with the policies on, at most this share fewer requests/s than with them off. */
const MAX_LOSS = 0.1;

const opts = {
  ...readSettings({ duration: 3, warmup: 1, rounds: 4 }),
  dbs: { on: 'ro_bench_rls_on', off: 'ro_bench_rls_off' },
};

type Side = 'on' | 'off';
type Work = 'orders' | 'users';
interface Target {
  id: string;
  label: string;
  work: Work;
  side: Side;
}

const WORK: Record<Work, string> = {
  orders: 'order creation `POST /t/demo/orders`',
  users: 'users listing `GET /t/demo/users` (guarded)',
};
const TARGETS: Target[] = (['orders', 'users'] as const).flatMap((work) =>
  (['on', 'off'] as const).map((side) => ({ id: `${work}-${side}`, label: `${WORK[work]}, policies ${side}`, work, side })),
);

interface Server {
  proc: ChildProcess;
  ready: RlsReadyMessage;
  /** The runner's own connection to the server's database, as postgres. */
  db: pg.Client;
}
const servers: Partial<Record<Side, Server>> = {};
const server = (side: Side) => servers[side] ?? fail(`the ${side} server is not running`);

interface Sample {
  seconds: number;
  ok: number;
  bad: number;
  p50: number;
  p99: number;
  load: number;
  /** CPU of the server process during the slice, µs. */
  cpu: number;
  /** CPU of the database's PostgreSQL backends during the slice, µs (null when /proc cannot tell). */
  pgCpu: number | null;
}

/** A target's rounds added up: req/s over all measured seconds, p50/p99 the medians of the rounds', CPU per 2xx answer. */
function aggregate(target: Target, samples: Sample[]) {
  const sum = (f: (s: Sample) => number) => samples.reduce((acc, s) => acc + f(s), 0);
  const ok = sum((s) => s.ok);
  const pgCpu = samples.every((s) => s.pgCpu !== null) ? sum((s) => s.pgCpu!) : null;
  return {
    target,
    reqPerSec: ok / sum((s) => s.seconds),
    perRound: samples.map((s) => s.ok / s.seconds),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    ok,
    bad: sum((s) => s.bad),
    load: sum((s) => s.load) / samples.length,
    cpuPerReq: ok ? sum((s) => s.cpu) / ok : 0,
    pgCpuPerReq: ok && pgCpu !== null ? pgCpu / ok : null,
  };
}
type Row = ReturnType<typeof aggregate>;

const log = logger('rls-bench');

// ---- databases ------------------------------------------------------------------------------

/** The tables of the public schema with a tenant_id column, and their RLS flags, from the catalog. */
async function tenantTables(db: pg.Client) {
  const { rows } = await db.query<{ name: string; enabled: boolean; forced: boolean; policies: number }>(
    `select c.relname as name, c.relrowsecurity as enabled, c.relforcerowsecurity as forced,
            (select count(*)::int from pg_policy p where p.polrelid = c.oid) as policies
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p')
        and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped)
      order by 1`,
  );
  return rows;
}

/** Switches the policies off on every tenant table: they stay defined, PostgreSQL no longer applies them. */
async function policiesOff(db: pg.Client) {
  for (const { name } of await tenantTables(db)) {
    await db.query(`alter table public."${name}" no force row level security`);
    await db.query(`alter table public."${name}" disable row level security`);
  }
}

/**
 * The databases differ as intended: the same tenant tables, on all with RLS enabled, forced and a
 * policy, off none enabled or forced. And PostgreSQL acts on it: as app_tenant without a tenant,
 * memberships shows no row on, the demo's on off.
 */
async function checkDatabases() {
  const on = await tenantTables(server('on').db);
  const off = await tenantTables(server('off').db);
  const names = (ts: typeof on) => ts.map((t) => t.name);
  if (!on.length || !isDeepStrictEqual(names(on), names(off))) throw new Error(`tenant tables differ: on ${names(on).join(',')}; off ${names(off).join(',')}`);
  const notOn = on.filter((t) => !t.enabled || !t.forced || t.policies < 1);
  if (notOn.length) throw new Error(`policies on: RLS not enabled+forced with a policy on ${names(notOn).join(', ')}`);
  const notOff = off.filter((t) => t.enabled || t.forced);
  if (notOff.length) throw new Error(`policies off: RLS still enabled or forced on ${names(notOff).join(', ')}`);
  const visible = async (side: Side) => {
    const db = server(side).db;
    await db.query('begin; set local role app_tenant');
    try {
      return (await db.query<{ n: number }>('select count(*)::int as n from memberships')).rows[0].n;
    } finally {
      await db.query('rollback');
    }
  };
  const [seenOn, seenOff] = [await visible('on'), await visible('off')];
  if (seenOn !== 0 || seenOff < 2) throw new Error(`as app_tenant without a tenant: ${seenOn} memberships with policies on (expected 0), ${seenOff} off (expected the demo's)`);
  log(`${on.length} tenant tables: RLS enabled + forced on ${opts.dbs.on}, disabled on ${opts.dbs.off}; app_tenant without a tenant sees ${seenOn} vs ${seenOff} memberships`);
  return on.length;
}

// ---- load -----------------------------------------------------------------------------------

/** A target's request: the same on both servers but for the port and the token. */
function request(t: Pick<Target, 'work' | 'side'>): { url: string; method?: 'POST'; headers: Record<string, string>; body?: string } {
  const { appUrl, token, order } = server(t.side).ready;
  const authorization = `Bearer ${token}`;
  if (t.work === 'users') return { url: `${appUrl}/t/demo/users`, headers: { authorization } };
  return { url: `${appUrl}/t/demo/orders`, method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(order) };
}

async function measure(t: Target): Promise<Sample> {
  const s = server(t.side);
  const what = { ...request(t), connections: opts.connections };
  if (opts.warmup > 0) await cannon({ ...what, duration: opts.warmup });
  const load = loadavg()[0];
  const cpuBefore = await serverCpu(s.proc);
  const pgBefore = await backendsCpu(s.db);
  const r = await cannon({ ...what, duration: opts.duration });
  const pgAfter = await backendsCpu(s.db);
  const cpu = (await serverCpu(s.proc)) - cpuBefore;
  return {
    seconds: r.duration,
    ok: r['2xx'],
    bad: r.non2xx + r.errors + r.timeouts,
    p50: r.latency.p50,
    p99: r.latency.p99,
    load,
    cpu,
    pgCpu: backendsCpuSince(pgBefore, pgAfter),
  };
}

interface OrderAnswer {
  orderNumber: string;
  items: { menuItem: string; name: string; price: number; quantity: number }[];
  total: number;
}

/** Both servers create the same order (201) and list the same users (200); without a token, 401. */
async function checkServers() {
  const answers: Partial<Record<Side, { order: OrderAnswer; emails: string[] }>> = {};
  for (const side of ['on', 'off'] as const) {
    const post = request({ work: 'orders', side });
    const created = await fetch(post.url, { method: 'POST', headers: post.headers, body: post.body });
    const order = (await created.json()) as OrderAnswer;
    if (created.status !== 201) throw new Error(`${side}: POST /t/demo/orders answered ${created.status} ${JSON.stringify(order)}`);
    const get = request({ work: 'users', side });
    const listed = await fetch(get.url, { headers: get.headers });
    const users = (await listed.json()) as { email: string }[];
    if (listed.status !== 200 || !Array.isArray(users) || users.length < 2) throw new Error(`${side}: GET /t/demo/users answered ${listed.status} ${JSON.stringify(users)}`);
    const anon = await fetch(get.url);
    if (anon.status !== 401) throw new Error(`${side}: GET /t/demo/users without a token answered ${anon.status}, expected 401`);
    answers[side] = { order, emails: users.map((u) => u.email).sort() };
  }
  const { on, off } = answers as Record<Side, { order: OrderAnswer; emails: string[] }>;
  // The ids differ (each database was seeded on its own), the lines and the total may not.
  const priced = (o: OrderAnswer) => ({ items: o.items.map(({ menuItem: _id, ...line }) => line), total: Number(o.total) });
  if (!isDeepStrictEqual(priced(on.order), priced(off.order)) || on.order.items.length < 2) {
    throw new Error(`the servers priced the order differently: ${JSON.stringify(priced(on.order))} vs ${JSON.stringify(priced(off.order))}`);
  }
  if (!isDeepStrictEqual(on.emails, off.emails)) throw new Error(`the servers list different users: ${on.emails.join(',')} vs ${off.emails.join(',')}`);
}

// ---- report ---------------------------------------------------------------------------------

const ms = (n: number) => (n === 0 ? '<1' : String(Math.round(n * 10) / 10));
const change = (off: number, on: number) => (on - off) / off;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

function report(rows: Row[], meta: Record<string, string>): { text: string; met: boolean | null } {
  const lines = [
    ...metaLines(meta),
    ...table(
      ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'server CPU µs/req', 'PG backends CPU µs/req', 'non-2xx/errors', 'load 1m'],
      rows.map((r) => [
        r.target.label, fmt(r.reqPerSec), ms(r.p50), ms(r.p99), fmt(r.ok), fmt(r.cpuPerReq),
        r.pgCpuPerReq === null ? '-' : fmt(r.pgCpuPerReq), r.bad, r.load.toFixed(1),
      ]),
    ),
    '',
  ];
  const by = (id: string) => rows.find((r) => r.target.id === id);
  let met: boolean | null = null;
  for (const work of ['orders', 'users'] as const) {
    const on = by(`${work}-on`);
    const off = by(`${work}-off`);
    if (!on || !off) continue;
    const c = change(off.reqPerSec, on.reqPerSec);
    const ok = c >= -MAX_LOSS;
    met = (met ?? true) && ok;
    const pgCpu = on.pgCpuPerReq !== null && off.pgCpuPerReq !== null ? `, PG backends ${fmt(off.pgCpuPerReq)} -> ${fmt(on.pgCpuPerReq)} µs/req` : '';
    lines.push(
      `- **${WORK[work]}: off -> on ${signed(c)} req/s (${fmt(off.reqPerSec)} -> ${fmt(on.reqPerSec)}; aim >= -${(MAX_LOSS * 100).toFixed(0)}%): ${ok ? 'MET' : 'NOT MET'}**`,
      `  - per round: ${on.perRound.map((x, i) => signed(change(off.perRound[i], x))).join(', ')}; p50 ${ms(off.p50)} -> ${ms(on.p50)} ms, p99 ${ms(off.p99)} -> ${ms(on.p99)} ms; ` +
        `server CPU ${fmt(off.cpuPerReq)} -> ${fmt(on.cpuPerReq)} µs/req${pgCpu}`,
    );
  }
  return { text: lines.join('\n'), met };
}

// ---- main -----------------------------------------------------------------------------------

const cleanup = cleaner(opts.adminUrl, [opts.dbs.on, opts.dbs.off], log, async () => {
  for (const s of Object.values(servers)) await s.db.end().catch(() => {});
});

async function main() {
  checkLocal(opts.adminUrl, 'BENCH_PG_URL');
  const targets = pickTargets(TARGETS, false, opts.only);
  const watch = watchdog(targets.length * opts.rounds * (opts.warmup + opts.duration + 3) + 180, cleanup, log);

  const loadBefore = loadavg();
  let pgVersion = '';
  // One after the other: the migrations of both databases create the same cluster-wide role.
  for (const side of ['on', 'off'] as const) {
    pgVersion = await createDb(opts.adminUrl, opts.dbs[side]);
    log(`database ${opts.dbs[side]} created; starting its server (migrations, demo seed)`);
    const url = dbUrl(opts.adminUrl, opts.dbs[side]);
    const { proc, ready } = await startServerChild<RlsReadyMessage>('rls-server.ts', { ...DEMO_ENV, BENCH_DATABASE_URL: url }, { name: `rls bench server (${side})`, seconds: 90 });
    checkLocal(ready.appUrl, `${side} server`);
    servers[side] = { proc, ready, db: await connect(url) };
  }
  await policiesOff(server('off').db);
  const tables = await checkDatabases();
  await checkServers();

  const runs = await inRounds(targets, opts.rounds, (t, round) => {
    log(`round ${round + 1}/${opts.rounds}: ${t.id} (${opts.warmup} s warm-up + ${opts.duration} s, ${opts.connections} connections)`);
    return measure(t);
  });
  const loadAfter = loadavg();
  const rows = runs.map((samples, i) => aggregate(targets[i], samples));
  // The policies were really in force during the load, and still differ the same way.
  await checkDatabases();

  await cleanup();
  clearTimeout(watch);

  const meta = {
    ...machine(pgVersion, loadBefore, loadAfter),
    load: `${opts.connections} connections closed loop; ${opts.rounds} round(s) over the targets in alternating order, each slice ${opts.warmup} s warm-up + ${opts.duration} s measured (${opts.rounds * opts.duration} s measured per target)`,
    databases: `${opts.dbs.on} (policies on) and ${opts.dbs.off} (RLS disabled on the same ${tables} tenant tables), one server process each`,
  };
  const { text, met } = report(rows, meta);
  printReport(text, rows, log, { out: opts.out, profDir: null });
  if (met === false) log('the policies cost more than the aim (reported, not a failure)');
}

runMain(main, cleanup, log);

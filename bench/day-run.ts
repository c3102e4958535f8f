/**
 * `npm run bench:day`: a mixed restaurant day (bench/day-workload.ts) at fixed arrival rates, in steps, against the
 * real service as it is deployed: two API processes (`ROLE=api`) and one worker (`ROLE=worker`) of `src/main.ts` on
 * one fresh PostgreSQL database (`ro_bench_day` on 127.0.0.1, dropped at the end), sharing a data dir (keys). The
 * generator spreads the requests round-robin over the two APIs (no load balancer in front).
 *
 * Each step: warm-up, then `BENCH_DURATION` seconds measured; per operation sent / 2xx / errors / p50 / p99 / max,
 * the rate achieved against the rate offered, and the CPU of each process (API 1, API 2, worker, the PostgreSQL
 * backends of the bench database, the generator itself) from /proc, with the request pools' waiting count from each
 * API's /metrics. The steps go on until the whole mix's p99 passes `BENCH_P99_MS` (250) or errors appear. Then the
 * queues are let drain and the invariants are checked (bench/day-workload.ts `checkInvariants`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { startService, type ServiceProcess } from '../test/service-process.js';
import {
  DayWorkload, OPERATIONS, OP_KINDS, checkInvariants, closeAgents, destroyStep, msAt, prepareDay, renewTokens, send, settle, runOpenLoop,
  type Invariant, type StepResult,
} from './day-workload.js';
import { backendsCpu, backendsCpuSince, checkLocal, connect, createDb, dbUrl, dropDb, envInt, fmt, logger, machine, metaLines, runMain, table, watchdog } from './lib-run.js';

const log = logger('bench:day');
const opts = {
  adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  dbName: process.env.BENCH_DB || 'ro_bench_day',
  rates: (process.env.BENCH_RATES || '5,10,20,30,40,50,60,80,100,120,150').split(',').map((r) => Number(r.trim())),
  duration: envInt('BENCH_DURATION', 20, 2, 600),
  warmup: envInt('BENCH_WARMUP', 5, 0, 120),
  tables: envInt('BENCH_TABLES', 60, 10, 500),
  p99Limit: envInt('BENCH_P99_MS', 250, 1, 60_000),
  /**
   * 1: go on past the rate found, up to saturation (the rate achieved under 90% of the offered, more than 1% errors
   * or p99 past 5 s), to show the whole curve.
   */
  allSteps: process.env.BENCH_ALL_STEPS === '1',
  out: process.env.BENCH_OUT || null,
};

const PASSWORD = 'bench-day-demo-password';
const WEBHOOK_SECRET = 'bench-day-provider-a-secret';
const METRICS_TOKEN = 'bench-day-metrics-token';

const procs: ServiceProcess[] = [];
let db: pg.Client | null = null;
let dataDir: string | null = null;
let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  closeAgents();
  await db?.end().catch(() => {});
  for (const p of procs) await p.stop().catch(() => {});
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  await dropDb(opts.adminUrl, opts.dbName)
    .then(() => log(`dropped database ${opts.dbName}`))
    .catch((err) => log(`could not drop ${opts.dbName}: ${String(err)}`));
}

// ---- CPU and pool sampling ------------------------------------------------------------------

const TICK_US = 10_000; // USER_HZ 100

function procCpu(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  } catch {
    return NaN;
  }
}

/** Busy and total CPU time of the whole machine (all cores), µs. */
function machineCpu() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  const idle = f[3] + (f[4] ?? 0);
  return { busy: (total - idle) * TICK_US, total: total * TICK_US };
}

interface CpuSnapshot {
  at: number;
  procs: number[];
  generator: number;
  backends: Map<number, number> | null;
  machine: { busy: number; total: number };
}

async function snapshot(): Promise<CpuSnapshot> {
  const { user, system } = process.cpuUsage();
  return {
    at: performance.now(),
    procs: procs.map((p) => procCpu(p.pid)),
    generator: user + system,
    backends: await backendsCpu(db!),
    machine: machineCpu(),
  };
}

interface CpuShare {
  /** Per process, % of one core over the measured window: API 1, API 2, worker. */
  procs: number[];
  postgres: number | null;
  generator: number;
  /** The machine's busy share of all its cores, %. */
  machine: number;
}

function shares(a: CpuSnapshot, b: CpuSnapshot): CpuShare {
  const wallUs = (b.at - a.at) * 1000;
  const pct = (us: number) => (100 * us) / wallUs;
  const pg = backendsCpuSince(a.backends, b.backends);
  return {
    procs: a.procs.map((x, i) => pct(b.procs[i] - x)),
    postgres: pg === null ? null : pct(pg),
    generator: pct(b.generator - a.generator),
    machine: (100 * (b.machine.busy - a.machine.busy)) / (b.machine.total - a.machine.total),
  };
}

/** Reads `db_pool_connections` of each API's /metrics; keeps the largest `waiting` and `total` seen. */
function poolWatcher() {
  const seen = { waitingMax: 0, waitingSum: 0, samples: 0, totalMax: 0, queueMax: 0 };
  const pgSeen = { lockMax: 0, lockSum: 0, activeMax: 0, activeSum: 0, idleSum: 0, pgSamples: 0 };
  /** The statements seen waiting for a lock, by their first characters, and how often. */
  const waiters = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  const scrape = async () => {
    // The bench database's backends: running a statement, and among them waiting for a lock (row or transaction id).
    const { rows } = await db!
      .query<{ active: number; lock: number; idle: number }>(
        `select count(*) filter (where state = 'active')::int as active, count(*) filter (where wait_event_type = 'Lock')::int as lock,
                count(*) filter (where state = 'idle in transaction')::int as idle
           from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      )
      .catch(() => ({ rows: [] as { active: number; lock: number; idle: number }[] }));
    const waits = await db!
      .query<{ q: string }>(
        `select left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as q from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`,
      )
      .catch(() => ({ rows: [] as { q: string }[] }));
    for (const w of waits.rows) waiters.set(w.q, (waiters.get(w.q) ?? 0) + 1);
    if (rows[0]) {
      pgSeen.lockMax = Math.max(pgSeen.lockMax, rows[0].lock);
      pgSeen.lockSum += rows[0].lock;
      pgSeen.activeMax = Math.max(pgSeen.activeMax, rows[0].active);
      pgSeen.activeSum += rows[0].active;
      pgSeen.idleSum += rows[0].idle;
      pgSeen.pgSamples++;
    }
    for (const p of procs) {
      if (!p.base) continue;
      const a = await send(p.base, 'GET', '/metrics', { token: METRICS_TOKEN }).catch(() => null);
      if (!a || a.status !== 200) continue;
      const value = (re: RegExp) => Number(re.exec(a.text)?.[1] ?? 0);
      const waiting = value(/^db_pool_connections\{state="waiting"\} (\S+)$/m);
      seen.waitingMax = Math.max(seen.waitingMax, waiting);
      seen.waitingSum += waiting;
      seen.samples++;
      seen.totalMax = Math.max(seen.totalMax, value(/^db_pool_connections\{state="total"\} (\S+)$/m));
      let queued = 0;
      for (const m of a.text.matchAll(/^job_queue_depth\{[^}]*state="(?:waiting|active)"[^}]*\} (\S+)$/gm)) queued += Number(m[1]);
      seen.queueMax = Math.max(seen.queueMax, queued);
    }
  };
  return {
    start() {
      timer = setInterval(() => void scrape(), 1000);
    },
    stop() {
      if (timer) clearInterval(timer);
      return { ...seen, ...pgSeen, waiters: [...waiters].sort((a, b) => b[1] - a[1]).slice(0, 4) };
    },
  };
}

// ---- report ---------------------------------------------------------------------------------

const ms = (x: number) => (Number.isNaN(x) ? '-' : x < 10 ? x.toFixed(1) : fmt(x));
const errText = (m: Map<string, number>) => (m.size ? [...m].map(([k, v]) => `${v}×${k}`).join(' ') : '0');

interface Step {
  r: StepResult;
  cpu: CpuShare;
  pool: ReturnType<ReturnType<typeof poolWatcher>['stop']>;
  load: number;
}

function stepTable(s: Step): string[] {
  const rows = OP_KINDS.filter((k) => s.r.perKind.get(k)!.sent > 0).map((k) => {
    const st = s.r.perKind.get(k)!;
    return [`${k}: ${OPERATIONS[k].route}`, st.sent, st.ok, errText(st.errors), ms(msAt(st.hist, 50)), ms(msAt(st.hist, 99)), ms(st.hist.maxValue / 1000)];
  });
  const a = s.r.all;
  rows.push(['**all**', a.sent, a.ok, errText(a.errors), ms(msAt(a.hist, 50)), ms(msAt(a.hist, 99)), ms(a.hist.maxValue / 1000)]);
  return table(['operation: route', 'sent', '2xx', 'errors', 'p50 ms', 'p99 ms', 'max ms'], rows);
}

function summaryTable(steps: Step[]): string[] {
  const pct = (x: number | null) => (x === null || Number.isNaN(x) ? '-' : `${fmt(x)}%`);
  return table(
    [
      'offered req/s', 'achieved req/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'p99 > limit: routes', 'API 1 CPU', 'API 2 CPU', 'worker CPU',
      'PG backends CPU', 'generator CPU', 'machine busy', 'pool waiting max / avg', 'PG active max / avg', 'PG idle in tx avg', 'PG lock waits max / avg', 'CPU ms per request',
      'generator lag p99 ms', 'load 1m',
    ],
    steps.map((s) => {
      const slow = OP_KINDS.filter((k) => msAt(s.r.perKind.get(k)!.hist, 99) > opts.p99Limit);
      const errors = s.r.all.sent - s.r.all.ok;
      return [
        s.r.rate, fmt(s.r.achieved, 1), ms(msAt(s.r.all.hist, 50)), ms(msAt(s.r.all.hist, 99)), ms(s.r.all.hist.maxValue / 1000), errors,
        slow.join(', ') || '-', pct(s.cpu.procs[0]), pct(s.cpu.procs[1]), pct(s.cpu.procs[2]), pct(s.cpu.postgres), pct(s.cpu.generator),
        pct(s.cpu.machine), `${s.pool.waitingMax} / ${s.pool.samples ? (s.pool.waitingSum / s.pool.samples).toFixed(1) : '-'}`,
        `${s.pool.activeMax} / ${s.pool.pgSamples ? (s.pool.activeSum / s.pool.pgSamples).toFixed(1) : '-'}`,
        s.pool.pgSamples ? (s.pool.idleSum / s.pool.pgSamples).toFixed(1) : '-',
        `${s.pool.lockMax} / ${s.pool.pgSamples ? (s.pool.lockSum / s.pool.pgSamples).toFixed(1) : '-'}`,
        // APIs + worker + PostgreSQL backends, per 2xx answer (the generator's own CPU left out).
        ms((10 * (s.cpu.procs.reduce((a, b) => a + b, 0) + (s.cpu.postgres ?? 0))) / Math.max(0.001, s.r.achieved)),
        ms(s.r.lagP99), s.load.toFixed(1),
      ];
    }),
  );
}

// ---- main -----------------------------------------------------------------------------------

async function main() {
  if (!/^ro_bench[a-z0-9_]*$/.test(opts.dbName)) throw new Error('BENCH_DB must start with ro_bench (it is dropped at the end)');
  if (opts.rates.some((r) => !Number.isFinite(r) || r <= 0 || r > 5000)) throw new Error('BENCH_RATES: comma-separated rates from 1 to 5000');
  checkLocal(opts.adminUrl, 'BENCH_PG_URL');
  const watch = watchdog(opts.rates.length * (opts.duration + opts.warmup + 30) + 600, cleanup, log);
  const loadBefore = loadavg();
  const pgVersion = await createDb(opts.adminUrl, opts.dbName);
  const url = dbUrl(opts.adminUrl, opts.dbName);
  dataDir = mkdtempSync(join(tmpdir(), 'ro-bench-day-'));
  const env = {
    DEMO_PASSWORD: PASSWORD,
    SUPERADMIN_PASSWORD: 'bench-day-superadmin',
    METRICS_TOKEN,
    PROVIDER_A_WEBHOOK_SECRET: WEBHOOK_SECRET,
    // Every guest order comes from 127.0.0.1 here: the per-address limit of guest orders would refuse them.
    GUEST_ORDER_RATE_LIMIT: 'off',
    LOG_LEVEL: 'error',
  };
  const start = (role: 'api' | 'worker') => startService({ role, dataDir: dataDir!, databaseUrl: url, env, startTimeoutMs: 180_000 });
  log(`database ${opts.dbName} created; starting API 1 (migrates and seeds the demo tenant)`);
  procs.push(await start('api'));
  log('starting API 2 and the worker');
  procs.push(...(await Promise.all([start('api'), start('worker')])));
  const bases = procs.map((p) => p.base).filter((b): b is string => b !== null);
  bases.forEach((b) => checkLocal(b, 'API'));
  db = await connect(url);
  const setup = await prepareDay({ bases, password: PASSWORD, webhookSecret: WEBHOOK_SECRET }, { tables: opts.tables });
  const w = new DayWorkload(setup);
  log(`ready: APIs ${bases.join(', ')} (pids ${procs.map((p) => p.pid).join(', ')}); ${setup.tables.length} tables, ${setup.items.length} dishes`);

  const steps: Step[] = [];
  const text: string[] = [];
  let found: { rate: number; why: string } | null = null;
  for (const rate of opts.rates) {
    await renewTokens(setup);
    const pool = poolWatcher();
    let before: Promise<CpuSnapshot> | null = null;
    let after: Promise<CpuSnapshot> | null = null;
    const load = loadavg()[0];
    log(`step ${rate} req/s: ${opts.warmup} s warm-up + ${opts.duration} s measured`);
    const r = await runOpenLoop(w, {
      rate,
      seconds: opts.duration,
      warmup: opts.warmup,
      onMeasure: (edge) => {
        if (edge === 'start') {
          before = snapshot();
          pool.start();
        } else {
          after = snapshot();
        }
      },
    });
    const step: Step = { r, cpu: shares(await before!, await after!), pool: pool.stop(), load };
    steps.push(step);
    const lines = [`#### ${rate} req/s offered, ${fmt(r.achieved, 1)} achieved`, '', ...stepTable(step), ''];
    if (step.pool.waiters.length) {
      lines.push('Statements seen waiting for a lock (samples every second):', '', ...step.pool.waiters.map(([q, n]) => `- ${n}× \`${q.replace(/`/g, "'")}\``), '');
    }
    if (r.samples.length) lines.push('Errors (first answers):', '', ...r.samples.map((x) => `- \`${x.replace(/`/g, "'")}\``), '');
    text.push(...lines);
    process.stdout.write(lines.join('\n') + '\n');
    const p99 = msAt(r.all.hist, 99);
    const errors = r.all.sent - r.all.ok;
    if (!found && (p99 > opts.p99Limit || errors > 0)) {
      const slow = OP_KINDS.filter((k) => msAt(r.perKind.get(k)!.hist, 99) > opts.p99Limit);
      found = { rate, why: `${errors ? `${errors} errors; ` : ''}p99 ${ms(p99)} ms (routes past ${opts.p99Limit} ms: ${slow.join(', ') || 'none'})` };
      if (!opts.allSteps) break;
    }
    if (found && (r.achieved < 0.9 * rate || errors > 0.01 * r.all.sent || p99 > 5000)) {
      log(`saturated at ${rate} req/s: stopping`);
      break;
    }
  }
  const subs = [...w.substituted].map(([k, n]) => `${k} ${n}`).join(', ') || 'none';

  log('draining the queues, then checking the invariants');
  const settleMs = await settle(db, 180_000);
  const invariants: Invariant[] = await checkInvariants(w, db);
  const loadAfter = loadavg();
  const outputs = procs.map((p, i) => ({ i, errors: p.output().split('\n').filter((l) => /"level":(50|60)/.test(l)).length }));
  await cleanup();
  clearTimeout(watch);

  const meta = {
    ...machine(pgVersion, loadBefore, loadAfter),
    processes: `2 x ROLE=api + 1 x ROLE=worker (src/main.ts via tsx), one database, DB pool 10 per process; requests round-robin over the APIs by the generator (no load balancer)`,
    load: `open loop, fixed arrival rate; each step ${opts.warmup} s warm-up + ${opts.duration} s measured; ${opts.tables} tables; weights ${OP_KINDS.map((k) => `${k} ${OPERATIONS[k].weight}`).join(', ')}`,
    substituted: `arrivals run as another kind because nothing was free for them: ${subs}`,
    'error log lines of the processes (level error/fatal)': outputs.map((o) => `${['API 1', 'API 2', 'worker'][o.i]} ${o.errors}`).join(', '),
  };
  const report = [
    ...metaLines(meta),
    '### Steps',
    '',
    ...summaryTable(steps),
    '',
    found
      ? `**p99 passes ${opts.p99Limit} ms (or errors appear) at ${found.rate} req/s offered**: ${found.why}.`
      : `p99 stayed under ${opts.p99Limit} ms without errors up to ${opts.rates[opts.rates.length - 1]} req/s.`,
    '',
    '### Per operation, each step',
    '',
    ...text,
    `### Invariants (after the queues drained, ${fmt(settleMs)} ms)`,
    '',
    ...invariants.map((i) => `- ${i.ok ? 'OK' : '**FAILED**'} ${i.name}: ${i.detail}`),
    '',
  ].join('\n');
  process.stdout.write('\n' + report + '\n');
  if (opts.out) writeFileSync(opts.out, report + '\n');
  for (const s of steps) destroyStep(s.r);
  w.close();
  if (invariants.some((i) => !i.ok)) {
    log('an invariant failed');
    process.exitCode = 1;
  }
}

runMain(main, cleanup, log);

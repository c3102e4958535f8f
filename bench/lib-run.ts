/**
 * The runner side shared by bench/run.ts, bench/menu-items.ts and bench/orders-run.ts: settings,
 * the bench database on 127.0.0.1, the server child, autocannon, number formats, the report's
 * table and machine lines, and the cleanup that runs whatever happens. Each benchmark keeps its
 * targets, checks and verdicts in its own file.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Options } from 'autocannon';
import pg from 'pg';
import type { CpuMessage } from './lib-server.js';

// ---- settings -------------------------------------------------------------------------------

export function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** The settings every runner reads from the same variables (each uses those it needs); the load's defaults are its own. */
export function readSettings(defaults: { duration: number; warmup: number; rounds: number; maxRounds?: number }) {
  return {
    connections: envInt('BENCH_CONNECTIONS', 10, 1, 200),
    /** Seconds measured per target and round. */
    duration: envInt('BENCH_DURATION', defaults.duration, 1, 120),
    /** Seconds of unmeasured load before each measured slice. */
    warmup: envInt('BENCH_WARMUP', defaults.warmup, 0, 30),
    /** Rounds over all targets. */
    rounds: envInt('BENCH_ROUNDS', defaults.rounds, 1, defaults.maxRounds ?? 20),
    breakdown: process.env.BENCH_BREAKDOWN === '1',
    cpuProf: process.env.BENCH_CPU_PROF === '1',
    only: process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((s) => s.trim()) : null,
    adminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    out: process.env.BENCH_OUT || null,
  };
}

export type Log = (msg: string) => void;
export const logger = (name: string): Log => (msg) => void process.stderr.write(`[${name}] ${msg}\n`);

export function fail(message: string): never {
  throw new Error(message);
}

export function checkLocal(url: string, what: string) {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`${what} must point to 127.0.0.1 (got ${host})`);
}

// ---- database -------------------------------------------------------------------------------

export function dbUrl(adminUrl: string, dbName: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
}

export async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await c.connect();
  return c;
}

export async function admin<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = await connect(adminUrl);
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

export const dropDb = (adminUrl: string, dbName: string) => admin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));

/** Drops and creates the bench database; answers PostgreSQL's version. */
export function createDb(adminUrl: string, dbName: string): Promise<string> {
  return admin(adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${dbName}`);
    return (await c.query<{ server_version: string }>('show server_version')).rows[0].server_version;
  }).catch((err: Error) => {
    throw new Error(`PostgreSQL at ${adminUrl} is not usable (${err.message}); start it, e.g. pg_ctlcluster <version> main start`);
  });
}

// ---- server child ---------------------------------------------------------------------------

const root = fileURLToPath(new URL('..', import.meta.url));

/** Throwaway values for a throwaway database, set so loadConfig writes nothing to ./data. */
export const SECRETS = {
  JWT_SECRET: 'bench-jwt-secret-bench-jwt-secret-0123456789',
  ENCRYPTION_KEY: '00'.repeat(32),
};

/** The env of a server child that seeds the demo tenant (bench/lib-server.ts `demoApp`). */
export const DEMO_ENV = {
  ...SECRETS,
  BCRYPT_COST: '4',
  DEMO_PASSWORD: 'bench-demo-password',
  SUPERADMIN_EMAIL: 'superadmin@bench.local',
  SUPERADMIN_PASSWORD: 'bench-superadmin-password',
  SEED_DEMO: 'true',
  LOG_LEVEL: 'silent',
  // The HTTP API process only: no job workers polling in the background of the measurements.
  ROLE: 'api',
};

/** The server child `ask`, `serverCpu` and `stopServer` talk to by default: the last one started. */
let child: ChildProcess | null = null;
/** Every server child still running (bench/rls-run.ts runs two at once); the cleanup stops them all. */
const children = new Set<ChildProcess>();

/**
 * Forks bench/`file` with tsx and `env` on top of this process's (DATABASE_URL removed) and waits
 * for its `ready` message. `profDir`: write a CPU profile of the child there.
 */
export async function startServer<T extends { type: string }>(
  file: string,
  env: NodeJS.ProcessEnv,
  o: { name: string; seconds: number; profDir?: string | null },
): Promise<T> {
  return (await startServerChild<T>(file, env, o)).ready;
}

/**
 * `startServer` for a runner with more than one server child: also answers the child, to pass to
 * `ask`, `serverCpu` and `stopServer`.
 */
export function startServerChild<T extends { type: string }>(
  file: string,
  env: NodeJS.ProcessEnv,
  o: { name: string; seconds: number; profDir?: string | null },
): Promise<{ proc: ChildProcess; ready: T }> {
  const execArgv = ['--import', 'tsx'];
  if (o.profDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${o.profDir}`);
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete fullEnv.DATABASE_URL;
  const proc = fork(join(root, 'bench', file), [], { cwd: root, execArgv, env: fullEnv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child = proc;
  children.add(proc);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${o.name} not ready after ${o.seconds} s`)), o.seconds * 1000);
    proc.on('message', (msg: T) => {
      if (msg?.type === 'ready') {
        clearTimeout(timer);
        resolve({ proc, ready: msg });
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      children.delete(proc);
      if (child === proc) child = null;
      reject(new Error(`${o.name} exited with code ${code}`));
    });
  });
}

/** Sends `msg` to the server child (by default the last started) and waits for its message of type `reply`. */
export function ask<T extends { type: string }>(msg: { type: string; [key: string]: unknown }, reply: string, to: ChildProcess | null = child): Promise<T> {
  const proc = to ?? fail('the bench server is not running');
  return new Promise((resolve) => {
    const onMessage = (m: T) => {
      if (m?.type !== reply) return;
      proc.off('message', onMessage);
      resolve(m);
    };
    proc.on('message', onMessage);
    proc.send(msg);
  });
}

/** The server child's CPU time so far (user + system), in microseconds. */
export const serverCpu = async (to: ChildProcess | null = child) => (await ask<CpuMessage>({ type: 'cpu' }, 'cpu', to)).micros;

/** Stops a server child (by default the last started) and waits for its exit. */
export async function stopServer(proc: ChildProcess | null = child) {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return; // not running (any more)
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  if (proc.connected) proc.send({ type: 'stop' });
  else proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
  children.delete(proc);
  if (child === proc) child = null;
}

// ---- PostgreSQL backends' CPU ----------------------------------------------------------------

/**
 * CPU time so far (user + system) of the PostgreSQL backends connected to `db`'s database, `db`'s
 * own left out, per pid, in µs, read from /proc (PostgreSQL on this machine: `checkLocal`). The
 * backends of other databases (other work on the machine) and the shared background processes (WAL
 * writer, checkpointer) are not in it. Null where /proc cannot tell.
 */
export async function backendsCpu(db: pg.Client): Promise<Map<number, number> | null> {
  const { rows } = await db.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile, or no /proc
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * 10_000); // utime + stime in ticks of 10 ms (USER_HZ 100)
  }
  return rows.length && !cpu.size ? null : cpu;
}

/** The backends' CPU between two `backendsCpu` readings, µs (a backend opened in between counts from its start). */
export function backendsCpuSince(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (!before || !after) return null;
  let total = 0;
  for (const [pid, micros] of after) total += micros - (before.get(pid) ?? 0);
  return total;
}

// ---- load -----------------------------------------------------------------------------------

const running = new Set<{ stop(): void }>();

/** One autocannon run (10 s request timeout), stopped by the cleanup if still going; `onResponse` sees every answer. */
export async function cannon(options: Options, onResponse?: (status: number, ms: number) => void) {
  const run = autocannon({ ...options, timeout: 10 });
  running.add(run);
  if (onResponse) void run.on('response', (_client, status, _bytes, ms) => onResponse(status, ms));
  try {
    return await run;
  } finally {
    running.delete(run);
  }
}

/** The targets to run: all but the breakdown ones, all with `breakdown`, or those `only` names. */
export function pickTargets<T extends { id: string; breakdown?: boolean }>(all: T[], breakdown: boolean, only: string[] | null): T[] {
  const targets = only ? all.filter((t) => only.includes(t.id)) : all.filter((t) => breakdown || !t.breakdown);
  if (!targets.length) throw new Error(`BENCH_ONLY matches no target; targets: ${all.map((t) => t.id).join(', ')}`);
  return targets;
}

/**
 * `rounds` rounds over the targets, the order alternating between rounds (forward, backward, ...)
 * so a drift in machine load does not favour one side. Each target's samples, in round order.
 */
export async function inRounds<T, S>(targets: T[], rounds: number, measure: (t: T, round: number) => Promise<S>): Promise<S[][]> {
  const runs: S[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) runs[i].push(await measure(targets[i], round));
  }
  return runs;
}

// ---- numbers and report ---------------------------------------------------------------------

/** The nearest-rank percentile `p` (0-100) of a list sorted ascending; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
export const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The report's first lines: date, versions, machine, load averages (loadavg() before and after). */
export function machine(pgVersion: string, loadBefore: number[], loadAfter: number[]): Record<string, string> {
  const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
  return {
    date: new Date().toISOString(),
    node: process.version,
    postgres: pgVersion,
    machine: `${cpus().length} x ${cpus()[0]?.model.trim() ?? 'cpu'}`,
    'load average (1/5/15 min)': `before ${load(loadBefore)}, after ${load(loadAfter)}`,
  };
}

/** `- key: value` lines, then a blank line. */
export const metaLines = (meta: Record<string, string>) => [...Object.entries(meta).map(([k, v]) => `- ${k}: ${v}`), ''];

/** A markdown table: the first column left-aligned, the others right-aligned. */
export function table(head: string[], rows: (string | number)[][]): string[] {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(head), `|---|${'---:|'.repeat(head.length - 1)}`, ...rows.map(line)];
}

/**
 * Prints the report (also to `out` when set) and where the server's CPU profile went, if any. Any
 * non-2xx answer or error during the load makes the numbers invalid and the run exit 1.
 */
export function printReport(text: string, rows: { target: { id: string }; bad: number }[], log: Log, o: { out: string | null; profDir: string | null }) {
  process.stdout.write(text + '\n');
  if (o.out) writeFileSync(o.out, text + '\n');
  if (o.profDir) log(`CPU profile of the server written to ${o.profDir}`);
  const bad = rows.filter((r) => r.bad > 0);
  if (bad.length) {
    log(`non-2xx responses or errors on: ${bad.map((r) => r.target.id).join(', ')}; the numbers are not valid`);
    process.exitCode = 1;
  }
}

// ---- cleanup --------------------------------------------------------------------------------

/**
 * The cleanup of a run, done once: stops the load, runs `close` (e.g. the runner's own
 * connections), stops the server children and drops the bench database(s).
 */
export function cleaner(adminUrl: string, dbName: string | string[], log: Log, close?: () => Promise<void>) {
  let cleaned = false;
  return async () => {
    if (cleaned) return;
    cleaned = true;
    for (const run of running) run.stop();
    await close?.();
    for (const proc of [...children]) await stopServer(proc).catch((err) => log(`stopping the server: ${String(err)}`));
    for (const name of typeof dbName === 'string' ? [dbName] : dbName) {
      await dropDb(adminUrl, name)
        .then(() => log(`dropped database ${name}`))
        .catch((err) => log(`could not drop database ${name}: ${String(err)}`));
    }
  };
}

/** Stops the run by itself after `seconds`, whatever happens (clear it when done). */
export function watchdog(seconds: number, cleanup: () => Promise<void>, log: Log) {
  return setTimeout(() => {
    log(`still running after ${seconds} s: giving up`);
    void cleanup().finally(() => process.exit(1));
  }, seconds * 1000);
}

/** Runs `main`; on SIGINT/SIGTERM (exit 130) and on a failure (exit 1) cleans up first. */
export function runMain(main: () => Promise<void>, cleanup: () => Promise<void>, log: Log) {
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
}

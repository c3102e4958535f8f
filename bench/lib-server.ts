/**
 * The server side shared by bench/server.ts and bench/orders-server.ts (children of their runner,
 * never on their own: they need the IPC channel): the real app on the bench database seeded with
 * the demo tenant, the runner's `stop` and `cpu` messages, and a clean stop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openPostgres } from '../src/db/client.js';
import { seedFirstStart } from '../src/seed.js';

export interface CpuMessage {
  type: 'cpu';
  /** User + system CPU time of the server process, in microseconds. */
  micros: number;
}

export function fail(message: string): never {
  throw new Error(message);
}

/** What stop closes, the last added first. */
const closers: (() => Promise<unknown>)[] = [];
export const onStop = (close: () => Promise<unknown>) => void closers.unshift(close);

let stopping = false;
export async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  for (const close of closers) await close().catch(() => {});
  process.exit(code); // a clean exit also writes the --cpu-prof profile
}

/**
 * Answers the runner: `stop`, `cpu` (so it can tell the CPU cost per request) and what `other`
 * handles; stops when the runner goes away and on SIGTERM/SIGINT.
 */
export function answerRunner<M extends { type?: string }>(other?: (msg: M) => void) {
  process.on('message', (msg: M) => {
    if (msg?.type === 'stop') void stop(0);
    if (msg?.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      const reply: CpuMessage = { type: 'cpu', micros: user + system };
      process.send!(reply);
    }
    other?.(msg);
  });
  process.on('disconnect', () => void stop(0)); // the runner went away
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));
}

/**
 * The real app (`buildApp`) on BENCH_DATABASE_URL, seeded with the demo tenant by `seedFirstStart`.
 * Config from the env the runner passes (JWT_SECRET, ENCRYPTION_KEY set: nothing is written to
 * ./data); its data dir is a temp dir removed on stop.
 */
export async function demoApp(tmpPrefix: string) {
  const url = process.env.BENCH_DATABASE_URL ?? fail('BENCH_DATABASE_URL is not set');
  const password = process.env.DEMO_PASSWORD ?? fail('DEMO_PASSWORD is not set');
  const dataDir = mkdtempSync(join(tmpdir(), tmpPrefix));
  onStop(async () => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: url });
  const database = await openPostgres(url);
  onStop(() => database.close());
  const app = await buildApp({ database, config, logger: false });
  onStop(() => app.close());
  await seedFirstStart(database.tenant, app.services, config, { ...process.env, DEMO_PASSWORD: password });
  return { app, database, url, password };
}

/** The access token of a real `POST /auth/login`. */
export async function login(app: App, email: string, password: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
  if (res.statusCode !== 200) fail(`login failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { accessToken: string }).accessToken;
}

/** Listens on a free port of 127.0.0.1; answers the URL. */
export const listenLocal = (server: FastifyInstance) => server.listen({ host: '127.0.0.1', port: 0 });

/** Says why the server could not start and stops it with 1. */
export async function failed(name: string, err: unknown) {
  process.stderr.write(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  await stop(1);
}

/**
 * The baselines' statement runner: one statement on the pool (autocommit, as the owner), or with `tx` inside a
 * tenant transaction as app_tenant (what row-level security costs the hand-written statement).
 */
export function baselineRunner(pool: pg.Pool, tenantId: string) {
  return async (text: string, values: unknown[], tx: boolean) => {
    if (!tx) return (await pool.query(text, values)).rows;
    const c = await pool.connect();
    try {
      await c.query(`begin; select set_config('role', 'app_tenant', true), set_config('app.tenant_id', '${tenantId}', true)`);
      const { rows } = await c.query(text, values);
      await c.query('commit');
      return rows;
    } catch (err) {
      await c.query('rollback').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  };
}

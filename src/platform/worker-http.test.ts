import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, createTestDatabase, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp, type TestDatabase } from '../../test/app.js';
import { startService, type ServiceProcess } from '../../test/service-process.js';
import { ConfigError } from '../config.js';
import { metricsPort, startWorkerHttp, type WorkerHttp } from './worker-http.js';

/**
 * A `ROLE=worker` process serves no API, so its own job runs and process metrics are served on METRICS_PORT
 * (`GET /metrics`, `GET /health`, nothing else): through the function the worker calls, then the real process.
 */

const RESET_MAIL = 'auth.password-reset-mail';
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;

/** The value of `name` whose labels include `labels` (summed over the others), from a scrape's text. */
function valueIn(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m || m[1] !== name) continue;
    if (Object.entries(labels).every(([k, v]) => (m[2] ?? '').includes(`${k}="${v}"`))) sum += Number(m[3]);
  }
  return sum;
}

describe('METRICS_PORT', () => {
  const fail = (message: string) => new ConfigError(message);
  it('is off when unset, a port from 0 (any free one) to 65535 otherwise', () => {
    expect(metricsPort({}, fail)).toBeNull();
    expect(metricsPort({ METRICS_PORT: '' }, fail)).toBeNull();
    expect(metricsPort({ METRICS_PORT: '0' }, fail)).toBe(0);
    expect(metricsPort({ METRICS_PORT: '9464' }, fail)).toBe(9464);
    for (const bad of ['-1', '65536', '94.64', 'nine', ' 9464']) {
      expect(() => metricsPort({ METRICS_PORT: bad }, fail), bad).toThrow(ConfigError);
    }
  });
});

describe('the worker listener (startWorkerHttp, as main.ts starts it)', () => {
  let t: TestApp;
  let listener: WorkerHttp;
  const token = `metrics-${randomUUID()}`;
  beforeAll(async () => {
    // Workers on: the app polls its queues as a worker process does.
    t = await createTestApp({}, { jobs: { workers: true, pollingIntervalMs: 100 } });
    listener = await startWorkerHttp({ port: 0, host: '127.0.0.1', metrics: t.app.deps.metrics, jobs: t.app.jobs, log: t.app.log });
  });
  afterAll(async () => {
    await listener?.close();
    await t?.close();
  });

  it('serves the job runs of this process and its process metrics to loopback callers over HTTP', async () => {
    await t.app.jobs.send(RESET_MAIL, { email: `nobody-${randomUUID()}@example.com` });
    // The job runs on the app's own poll loop: wait for its run to be counted.
    await vi.waitFor(
      async () => {
        const res = await fetch(`${listener.url}/metrics`);
        expect(res.status).toBe(200);
        expect(valueIn(await res.text(), 'job_run_duration_seconds_count', { queue: RESET_MAIL, outcome: 'completed' })).toBe(1);
      },
      { timeout: 20_000, interval: 100 },
    );
    const res = await fetch(`${listener.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) expect(text).toContain(`\n${name} `);
    expect(valueIn(text, 'job_queue_depth', { queue: RESET_MAIL, state: 'waiting' })).toBe(0);
    expect(text).toContain('db_pool_connections');
  });

  it('answers /health while the job queue runs, and nothing else', async () => {
    const health = await fetch(`${listener.url}/health`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok', role: 'worker' }]);
    for (const path of ['/ready', '/openapi.json', '/auth/login', `/t/demo/orders`]) {
      const res = await fetch(`${listener.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'route_not_found' });
    }
  });

  it('refuses callers off the machine without METRICS_TOKEN, and asks everyone for it when set', async () => {
    const remote = await listener.server.inject({ url: '/metrics', remoteAddress: '203.0.113.9' });
    expect([remote.statusCode, remote.json().code]).toEqual([403, 'metrics_loopback_only']);
    const guarded = await startWorkerHttp({ port: 0, host: '127.0.0.1', token, metrics: t.app.deps.metrics, jobs: t.app.jobs, log: t.app.log });
    try {
      const none = await fetch(`${guarded.url}/metrics`);
      expect([none.status, none.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="metrics"']);
      expect(await none.text()).not.toContain('job_run_duration_seconds');
      const ok = await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('job_run_duration_seconds');
      const far = await guarded.server.inject({ url: '/metrics', remoteAddress: '203.0.113.9', headers: { authorization: `Bearer ${token}` } });
      expect(far.statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
    await expect(fetch(`${guarded.url}/health`)).rejects.toThrow();
  });
});

describe('a ROLE=worker process with METRICS_PORT', () => {
  let dataDir: string;
  let db: TestDatabase | null = null;
  const running: ServiceProcess[] = [];
  const token = `metrics-${randomUUID()}`;
  const env = { JWT_SECRET: TEST_JWT_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY.toString('hex'), METRICS_TOKEN: token };
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ro-worker-metrics-'));
    // On PostgreSQL the processes share this file's own migrated database.
    if (process.env.DATABASE_URL) db = await createTestDatabase();
    await db?.database.close();
  });
  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop('SIGKILL')));
    rmSync(dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  it('serves its metrics and health on METRICS_PORT, counts the jobs it runs, and closes the port on SIGTERM', async () => {
    const worker = await startService({ role: 'worker', dataDir, databaseUrl: db?.url ?? undefined, env: { ...env, METRICS_PORT: '0' } });
    running.push(worker);
    const base = /Metrics:\s+(http:\/\/\S+)\/metrics/.exec(worker.output())?.[1];
    expect(base, worker.output()).toBeDefined();
    const scrape = (headers: Record<string, string> = { authorization: `Bearer ${token}` }) => fetch(`${base}/metrics`, { headers });

    expect((await scrape({})).status).toBe(401);
    const first = await scrape();
    expect(first.status).toBe(200);
    const text = await first.text();
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes']) expect(text).toContain(`\n${name} `);
    // Every queue the worker runs has its depth, and the run histogram is declared.
    expect(text).toMatch(/^job_queue_depth\{queue="auth\.password-reset-mail",state="waiting"\} \d+$/m);
    expect(text).toContain('# TYPE job_run_duration_seconds histogram');
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/openapi.json`)).status).toBe(404);

    if (db) {
      // PostgreSQL: an API process on the same database queues a job (a reset mail); the worker runs it and counts it.
      const api = await startService({ role: 'api', dataDir, databaseUrl: db.url ?? undefined, env });
      running.push(api);
      const forgot = await fetch(`${api.base}/auth/password/forgot`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `nobody-${randomUUID()}@example.com` }),
      });
      expect(forgot.status).toBe(202);
      await vi.waitFor(
        async () => expect(valueIn(await (await scrape()).text(), 'job_run_duration_seconds_count', { queue: RESET_MAIL, outcome: 'completed' })).toBe(1),
        { timeout: 30_000, interval: 200 },
      );
      // The API process ran no job: its own /metrics has no run.
      const apiMetrics = await (await fetch(`${api.base}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
      expect(valueIn(apiMetrics, 'job_run_duration_seconds_count', {})).toBe(0);
      expect(await api.stop()).toBe(0);
    }

    expect(await worker.stop(), worker.output().slice(-2000)).toBe(0);
    await expect(fetch(`${base}/health`)).rejects.toThrow();
  }, 180_000);
});

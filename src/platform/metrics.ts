import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/client.js';
import { HttpError } from './errors.js';
import type { JobHandler, JobRef, Jobs, QueueOptions } from './jobs.js';

/**
 * Prometheus metrics (`GET /metrics`, prom-client). Each app has its own registry (tests build many apps in
 * one process); the process metrics of prom-client (CPU, memory, event loop, GC) live in one registry per
 * process, made once, and are appended to every app's answer. Whoever owns a number registers it through
 * `deps.metrics`: a counter it increments, or a gauge read when scraped (never polled).
 */

export type MetricLabels<L extends string> = Partial<Record<L, string>>;

export interface MetricCounter<L extends string> {
  inc(labels: MetricLabels<L>, value?: number): void;
}

export interface MetricHistogram<L extends string> {
  observe(labels: MetricLabels<L>, value: number): void;
}

export interface Metrics {
  /** The counter `name` of this app, made at the first call (the same name answers the same counter). Name it `<what>_total`. */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): MetricCounter<L>;
  /** A histogram of this app (prom-client's default buckets, in seconds, unless `buckets`); one registration per name. */
  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets?: number[]): MetricHistogram<L>;
  /**
   * A gauge whose values `collect` sets at each scrape (`set(labels, value)`); a series it does not set is
   * not shown. A failing `collect` is logged and leaves the gauge empty, the rest of the scrape answers.
   */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: (set: (labels: MetricLabels<L>, value: number) => void) => Promise<void> | void,
  ): void;
  /** The app's metrics, then the process's, in the text format. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

let processRegistry: Registry | null = null;

/** prom-client's default metrics, once per process (they hold a GC observer and an event loop monitor). */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createMetrics(log: FastifyBaseLogger): Metrics {
  const registry = new Registry();
  const counters = new Map<string, { labels: string; counter: Counter<string> }>();
  const once = new Set<string>();
  const claim = (name: string) => {
    if (once.has(name)) throw new Error(`metrics: ${name} is already registered`);
    once.add(name);
  };
  const proc = processMetrics();
  return {
    counter<L extends string>(name: string, help: string, labelNames: readonly L[]) {
      const labels = labelNames.join(',');
      const known = counters.get(name);
      if (known && known.labels !== labels) throw new Error(`metrics: ${name} is already a counter with labels ${known.labels}`);
      if (!known) claim(name);
      const counter = known?.counter ?? new Counter({ name, help, labelNames: [...labelNames], registers: [registry] });
      if (!known) counters.set(name, { labels, counter });
      return { inc: (l, value = 1) => counter.inc(l, value) };
    },
    histogram(name, help, labelNames, buckets) {
      claim(name);
      const histogram = new Histogram({ name, help, labelNames: [...labelNames], registers: [registry], ...(buckets ? { buckets } : {}) });
      return { observe: (l, value) => histogram.observe(l, value) };
    },
    gauge(name, help, labelNames, collect) {
      claim(name);
      new Gauge({
        name,
        help,
        labelNames: [...labelNames],
        registers: [registry],
        async collect() {
          this.reset();
          try {
            await collect((l, value) => this.set(l, value));
          } catch (err) {
            this.reset();
            log.warn({ err, metric: name }, 'metrics: a gauge could not be read');
          }
        },
      });
    },
    async scrape() {
      const [own, shared] = await Promise.all([registry.metrics(), proc.metrics()]);
      return { contentType: registry.contentType, body: `${own}\n${shared}` };
    },
  };
}

/** The route label of unmatched URLs (404 without a route): one value, never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

const isLoopback = (ip: string) => ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.');
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Who may read `/metrics`: with `METRICS_TOKEN`, a caller sending `Authorization: Bearer <token>` (401
 * otherwise); without it, loopback callers only (403 otherwise). The address is Fastify's `req.ip`, so
 * behind a proxy `TRUST_PROXY` makes it the client's.
 */
function checkAccess(req: FastifyRequest, token: string | undefined) {
  if (!token) {
    if (!isLoopback(req.ip)) throw new HttpError(403, 'Metrics are served to loopback callers only (set METRICS_TOKEN for remote scrapers)', 'metrics_loopback_only');
    return;
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match || !timingSafeEqual(digest(match[1]), digest(token))) {
    throw new HttpError(401, 'A valid metrics token is required', 'unauthorized', undefined, { 'www-authenticate': 'Bearer realm="metrics"' });
  }
}

export interface MetricsSources {
  jobs: Jobs;
  database: Database;
  /** `METRICS_TOKEN`; unset = loopback callers only. */
  token?: string;
}

/** `GET /metrics` on `app`, hidden from OpenAPI: the token (or loopback) rule, then this app's and the process's metrics. */
export function serveMetrics(app: FastifyInstance, metrics: Metrics, token: string | undefined) {
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    checkAccess(req, token);
    const { contentType, body } = await metrics.scrape();
    return reply.type(contentType).header('cache-control', 'no-store').send(body);
  });
}

/** Seconds: jobs run from milliseconds (a mail) to minutes (an export, a sync), up to their 300 s default limit. */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * Times every job handler registered on `jobs` from now on (the modules register theirs after `installMetrics`):
 * `job_run_duration_seconds{queue, outcome}`, outcome `completed`, `retried` (failed, another attempt follows) or
 * `failed` (for good). A run the queue gives up on (over its time limit, or still running at shutdown) is aborted
 * through its signal: counted as failed then, even if the handler goes on. Counted in the process that runs the job
 * (a worker serves them on its own listener, see `worker-http.ts`), `drain()` included.
 */
function timeJobs(jobs: Jobs, metrics: Metrics) {
  const histogram = metrics.histogram(
    'job_run_duration_seconds',
    'Job handler runs in this process by queue and outcome (completed, retried, failed): duration in seconds (its _count is the number of runs)',
    ['queue', 'outcome'],
    JOB_BUCKETS,
  );
  const timed = (queue: string, handler: JobHandler<object>): JobHandler<object> =>
    async (data, job) => {
      const started = performance.now();
      let counted = false;
      const failure = () => (job.attempt > job.retryLimit ? 'failed' : 'retried');
      const count = (outcome: 'completed' | 'retried' | 'failed') => {
        if (counted) return;
        counted = true;
        job.signal.removeEventListener('abort', onAbort);
        histogram.observe({ queue, outcome }, (performance.now() - started) / 1000);
      };
      const onAbort = () => count(failure());
      job.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const result = await handler(data, job);
        count('completed');
        return result;
      } catch (err) {
        count(failure());
        throw err;
      }
    };
  // Jobs has no hook around its handlers: its `register` is wrapped (the app's one instance, before any module registers).
  const register = jobs.register.bind(jobs) as (job: JobRef, handler: JobHandler<object>, options?: QueueOptions) => void;
  jobs.register = ((job: JobRef, handler: JobHandler<object>, options?: QueueOptions) =>
    register(job, timed(typeof job === 'string' ? job : job.name, handler), options)) as Jobs['register'];
}

/**
 * The platform's metrics on an app: the request histogram (an `onResponse` hook: install before the routes),
 * the job runs (handlers registered afterwards are timed), the queue depths and the database pool read at each
 * scrape, and the `/metrics` route (hidden from OpenAPI).
 */
export function installMetrics(app: FastifyInstance, metrics: Metrics, { jobs, database, token }: MetricsSources) {
  const histogram = metrics.histogram(
    'http_request_duration_seconds',
    'HTTP requests by method, route pattern and status code: duration in seconds (its _count is the request count)',
    ['method', 'route', 'status_code'],
  );
  app.addHook('onResponse', async (req, reply) => {
    histogram.observe({ method: req.method, route: req.routeOptions.url ?? UNMATCHED_ROUTE, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  timeJobs(jobs, metrics);

  metrics.gauge('job_queue_depth', 'Jobs not yet finished per queue: waiting (due now), delayed (later start or retry backoff), active', ['queue', 'state'], async (set) => {
    for (const d of await jobs.depths()) {
      set({ queue: d.queue, state: 'waiting' }, d.waiting);
      set({ queue: d.queue, state: 'delayed' }, d.delayed);
      set({ queue: d.queue, state: 'active' }, d.active);
    }
  });

  // drizzle keeps the driver's client as `$client`: the pg Pool on PostgreSQL, PGlite's one connection otherwise.
  const client = (database.db as unknown as { $client?: unknown }).$client;
  const pool = client instanceof pg.Pool ? client : null;
  metrics.gauge('db_pool_connections', 'Database connections of the request pool: total (open), idle, waiting (requests queued for one); PGlite: total 1', ['state'], (set) => {
    if (!pool) return set({ state: 'total' }, 1);
    set({ state: 'total' }, pool.totalCount);
    set({ state: 'idle' }, pool.idleCount);
    set({ state: 'waiting' }, pool.waitingCount);
  });

  serveMetrics(app, metrics, token);
}

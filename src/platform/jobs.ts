import { databaseFailure } from '../db/failures.js';
import type { FastifyBaseLogger } from 'fastify';
import PgBoss from 'pg-boss';
import type { Database, Db } from '../db/client.js';
import { jobIdForKey, pgliteExecutor, transactionExecutor } from './jobs-sql.js';
import { TENANT_ROLE } from '../db/scopes.js';

/**
 * Background jobs on PostgreSQL (pg-boss 10), the same on PGlite and on a server.
 * Modules use this interface, never pg-boss. A module declares its jobs with typed payloads
 * (`defineJob`), names their handlers and cron schedules in its entry (`index.ts`, see `module.ts`),
 * and the app registers them; services send with the declaration, so the payload is type-checked:
 *
 *   export const expiryJob = defineJob<{ orderId: string }>('payments.expire', { retryLimit: 3 });  // <domain>.jobs.ts
 *   await deps.jobs.send(expiryJob, { orderId }, { startAfter: 60, singletonKey: orderId, tx });     // in the service
 *
 * Plain queue names (`register('name', handler)`, `send('name', data)`) remain for tests and platform code.
 * Delivery is at least once: a handler may run again after a crash or a timeout, so handlers are idempotent.
 * pg-boss stores the jobs, dedupes, schedules cron and fails jobs stuck in `active` (maintenance);
 * this file runs the handlers (poll loops per queue, `drain()` for tests) and stops them gracefully.
 */

export interface JobInfo {
  id: string;
  name: string;
  /** 1 for the first run, 2 for the first retry... */
  attempt: number;
  retryLimit: number;
  /** Aborted when the job times out or the process stops before the job ends. */
  signal: AbortSignal;
}

export type JobHandler<T extends object = Record<string, unknown>> = (data: T, job: JobInfo) => Promise<unknown> | unknown;

/**
 * A job as its module declares it: the queue name, the queue options and (in the type only) the
 * payload. Made by `defineJob`; `send(job, data)` checks `data` against the payload type.
 */
export interface JobDef<T extends object = Record<string, never>> {
  readonly name: string;
  readonly options: QueueOptions;
  /** Never set: carries the payload type (`JobDef<never>` accepts every declaration). */
  readonly payloadType?: (payload: T) => void;
}

/** The jobs of one module by key, e.g. `{ expire: defineJob<ExpiryJob>('payments.expire') }`. */
export type JobMap = Readonly<Record<string, JobDef<never>>>;

export type PayloadOf<J> = J extends JobDef<infer T> ? T : never;

/** One handler for every job of a map, with the payload type of its declaration. */
export type JobHandlers<M extends JobMap> = { [K in keyof M]: JobHandler<PayloadOf<M[K]>> };

/** Declares a job: `defineJob<{ orderId: string }>('orders.remind', { retryLimit: 5 })`. Payload-less jobs omit the type. */
export function defineJob<T extends object = Record<string, never>>(name: string, options: QueueOptions = {}): JobDef<T> {
  if (!QUEUE_NAME.test(name)) throw new Error(`job queue: invalid queue name ${name}`);
  return Object.freeze({ name, options: Object.freeze({ ...options }) });
}

/** A declared job or a plain queue name. */
export type JobRef = string | JobDef<never>;

const nameOf = (job: JobRef) => (typeof job === 'string' ? job : job.name);

export interface QueueOptions {
  /** Retries after the first attempt (default 2: three attempts in all). */
  retryLimit?: number;
  /** Seconds before a retry (default 2). With backoff: delay * 2^n / 2 * (1 + random), so 2 s gives 2-4 s then 4-8 s. */
  retryDelay?: number;
  /** Exponential backoff with jitter (default true). */
  retryBackoff?: boolean;
  /** A run that takes longer fails (and is retried); default 300 s, below 24 h. */
  expireInSeconds?: number;
  /** Jobs of this queue run at once in one process (default 1). */
  concurrency?: number;
}

export interface SendOptions {
  /**
   * Drops the job if one with the same key is already in this queue (waiting, running, or finished and not yet
   * archived: 24 h for completed jobs, 7 days for failed ones). Use the event id, order id...
   */
  singletonKey?: string;
  /** Seconds from now (measured by the database clock), or a date. */
  startAfter?: number | Date;
  /**
   * The drizzle transaction of the change this job follows: the job exists only if it commits.
   * On PGlite this is required inside a transaction: the single connection is held by the transaction,
   * and a send outside it would wait for the transaction to end, which is waiting for the send.
   */
  tx?: Db;
}

export interface QueueStats {
  /** Ready to run now. */
  waiting: number;
  /** Waiting for a later start or for a retry's backoff. */
  delayed: number;
  active: number;
  completed: number;
  failed: number;
  cancelled: number;
}

export interface QueueDepth extends Pick<QueueStats, 'waiting' | 'delayed' | 'active'> {
  queue: string;
}

export interface JobView {
  id: string;
  name: string;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  data: unknown;
  retryCount: number;
  retryLimit: number;
  startAfter: Date;
  startedOn: Date | null;
  completedOn: Date | null;
  output: unknown;
}

export interface DrainOptions {
  /** Queues to run (default: all registered). */
  names?: JobRef[];
  /** Also run jobs whose start time or retry backoff is still in the future (default false). */
  includeDelayed?: boolean;
  /** Stop after this many handler runs (default: until no job is due; over 10000 runs throws, as a guard against self-feeding handlers). */
  limit?: number;
}

export interface DrainResult {
  /** Handler runs, retries included. */
  runs: number;
  completed: number;
  failed: number;
}

export interface Jobs {
  /**
   * Declares a queue and its handler (options: the declaration's, then these). Call before `start()` in every
   * role: api processes send to it too. The app registers the jobs of its modules; modules do not call this.
   */
  register<T extends object>(job: JobDef<T>, handler: JobHandler<T>, options?: QueueOptions): void;
  register<T extends object>(name: string, handler: JobHandler<T>, options?: QueueOptions): void;
  /** Enqueues a job; the job id, or null when dropped as a duplicate of `singletonKey`. */
  send<T extends object>(job: JobDef<T>, data: NoInfer<T>, options?: SendOptions): Promise<string | null>;
  send<T extends object>(name: string, data: T, options?: SendOptions): Promise<string | null>;
  /** Runs a job on a cron (5 fields, minutes). Stored in the database: one schedule per queue for all processes. */
  schedule(job: JobRef, cron: string, data?: object, options?: { tz?: string }): Promise<void>;
  unschedule(job: JobRef): Promise<void>;
  stats(job: JobRef): Promise<QueueStats>;
  /** Jobs not yet finished in each registered queue (one query for all; for `/metrics`). Empty before `start()`. */
  depths(): Promise<QueueDepth[]>;
  job(job: JobRef, id: string): Promise<JobView | null>;
  /**
   * Keeps the newest `completed` completed and `failed` failed jobs of each queue whose name starts with
   * `queuePrefix` (live and archived rows together) and deletes the older ones; the number deleted.
   * pg-boss 10 has no such retention option (spec 8: delivery queues keep the last 100 completed, 50 failed).
   */
  trim(queuePrefix: string, keep: { completed: number; failed: number }): Promise<number>;
  /** Runs due jobs in this process now, until none is left. For tests and scripts. */
  drain(options?: DrainOptions): Promise<DrainResult>;
  /** Installs or migrates pg-boss's schema, creates the queues, and starts the workers when enabled. */
  start(): Promise<void>;
  /** Stops fetching; waits up to `timeoutMs` for running jobs, then fails the rest so they are retried elsewhere. */
  stopWorkers(timeoutMs?: number): Promise<void>;
  /** stopWorkers, then closes pg-boss. Idempotent. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  readonly started: boolean;
  readonly workers: boolean;
}

export interface JobsOptions {
  database: Database;
  log: FastifyBaseLogger;
  /** Run handlers in this process (ROLE worker or all). */
  workers: boolean;
  /** Run maintenance (expire, archive) and cron in this process; default: same as `workers`. */
  scheduler?: boolean;
  /** How often an idle queue is polled (default 1000 ms); a send from this process wakes its queue at once. */
  pollingIntervalMs?: number;
  /** pg-boss's own pool on PostgreSQL (default 4). */
  poolSize?: number;
  /** Bound for `stop()` (default 10 s). */
  stopTimeoutMs?: number;
  /** Extra pg-boss constructor options (tests shorten the cron intervals). */
  boss?: Partial<PgBoss.ConstructorOptions>;
}

interface Running {
  job: PgBoss.JobWithMetadata<object>;
  abort: AbortController;
  done: Promise<void>;
}

interface Queue {
  name: string;
  handler: JobHandler<object>;
  options: Required<QueueOptions>;
  running: Map<string, Running>;
  loop: Promise<void> | null;
  wake: () => void;
  woken: boolean;
}

const QUEUE_NAME = /^[a-z][a-z0-9_.-]{0,99}$/i;
const SCHEMA = 'pgboss';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

function errorOutput(err: unknown) {
  return err instanceof Error ? { name: err.name, message: err.message } : { message: String(err) };
}

/** What a tenant transaction needs of the queue's schema: reading queue options and inserting a job. */
const TENANT_GRANTS = `GRANT USAGE ON SCHEMA ${SCHEMA} TO ${TENANT_ROLE};
  GRANT SELECT ON ${SCHEMA}.queue TO ${TENANT_ROLE};
  GRANT SELECT, INSERT ON ${SCHEMA}.job TO ${TENANT_ROLE}`;

export function createJobs(opts: JobsOptions): Jobs {
  const { database, log } = opts;
  const scheduler = opts.scheduler ?? opts.workers;
  const pollMs = opts.pollingIntervalMs ?? 1000;
  const queues = new Map<string, Queue>();
  const pendingSchedules: Array<{ name: string; cron: string; data?: object; tz?: string }> = [];
  let boss: PgBoss | null = null;
  let starting: Promise<void> | null = null;
  let started = false;
  let halting = false;
  let stoppingWorkers: Promise<void> | null = null;
  let stopping: Promise<void> | null = null;
  let closed = false;

  function bossConfig(): PgBoss.ConstructorOptions {
    const common: PgBoss.ConstructorOptions = {
      schema: SCHEMA,
      migrate: true,
      supervise: scheduler,
      schedule: scheduler,
      // Finished jobs stay visible (stats, job(), singleton keys) for a day; failed ones a week.
      archiveCompletedAfterSeconds: 24 * 3600,
      archiveFailedAfterSeconds: 7 * 24 * 3600,
      deleteAfterDays: 7,
      ...opts.boss,
    };
    if (database.kind === 'pglite') {
      if (!database.pglite) throw new Error('job queue: the PGlite database does not expose its client');
      return { ...common, db: pgliteExecutor(database.pglite, () => closed) };
    }
    if (!database.url) throw new Error('job queue: the PostgreSQL database does not expose its connection string');
    return { ...common, connectionString: database.url, max: opts.poolSize ?? 4, application_name: 'restaurant-ops-jobs' };
  }

  function queueOf(name: string): Queue {
    const q = queues.get(name);
    if (!q) throw new Error(`job queue: no queue named ${name} is registered`);
    return q;
  }

  function running(): PgBoss {
    if (!boss || !started) throw new Error('job queue: not started');
    return boss;
  }

  /**
   * Records a job's outcome, again on a fresh connection when the database dropped the one it used (a restart,
   * a terminated session): otherwise the job would stay active until pg-boss expires it (minutes) and run again.
   */
  async function record(write: () => Promise<unknown>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await write();
        return;
      } catch (err) {
        if (attempt >= 5 || databaseFailure(err) !== 'unavailable' || halting) throw err;
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      }
    }
  }

  /** Runs one fetched job to the end; never throws. True when the handler succeeded. */
  async function runJob(q: Queue, job: PgBoss.JobWithMetadata<object>, abort: AbortController): Promise<boolean> {
    const b = boss!;
    const info: JobInfo = { id: job.id, name: q.name, attempt: job.retryCount + 1, retryLimit: job.retryLimit, signal: abort.signal };
    const timeoutMs = (Number(job.expireInSeconds) || q.options.expireInSeconds) * 1000;
    let timer: NodeJS.Timeout | undefined;
    let result: unknown;
    try {
      result = await Promise.race([
        Promise.resolve().then(() => q.handler(job.data, info)),
        new Promise((_, reject) => {
          timer = setTimeout(() => {
            abort.abort();
            reject(new Error(`job ran over its ${timeoutMs / 1000} s limit`));
          }, timeoutMs);
        }),
      ]);
    } catch (err) {
      const final = info.attempt > job.retryLimit;
      log[final ? 'error' : 'warn']({ err, queue: q.name, jobId: job.id, attempt: info.attempt }, final ? 'job failed for good' : 'job failed; will retry');
      await record(() => b.fail(q.name, job.id, errorOutput(err))).catch((e) => log.error({ err: e, queue: q.name, jobId: job.id }, 'could not record a job failure'));
      return false;
    } finally {
      clearTimeout(timer);
    }
    try {
      await record(() => b.complete(q.name, job.id, isPlainObject(result) ? result : undefined));
    } catch (err) {
      // The job stays active; pg-boss maintenance expires it and it runs again (at least once).
      log.error({ err, queue: q.name, jobId: job.id }, 'could not record a job completion');
    }
    return true;
  }

  function track(q: Queue, job: PgBoss.JobWithMetadata<object>): Running {
    const abort = new AbortController();
    const entry = { job, abort } as Running;
    entry.done = runJob(q, job, abort).then(() => {
      q.running.delete(job.id);
    });
    q.running.set(job.id, entry);
    return entry;
  }

  function sleep(q: Queue, ms: number): Promise<void> {
    if (q.woken) {
      q.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        q.wake = () => {
          q.woken = true;
        };
        resolve();
      }
      q.wake = done;
    });
  }

  async function loop(q: Queue) {
    while (!halting) {
      const free = q.options.concurrency - q.running.size;
      if (free <= 0) {
        await Promise.race([...q.running.values()].map((r) => r.done));
        continue;
      }
      let jobs: PgBoss.JobWithMetadata<object>[] = [];
      try {
        jobs = await boss!.fetch<object>(q.name, { batchSize: free, includeMetadata: true });
      } catch (err) {
        log.error({ err, queue: q.name }, 'could not fetch jobs');
      }
      for (const job of jobs) track(q, job);
      if (jobs.length === 0 && !halting) await sleep(q, pollMs);
    }
  }

  function stopWorkers(timeoutMs = opts.stopTimeoutMs ?? 10_000): Promise<void> {
    halting = true;
    stoppingWorkers ??= (async () => {
      const all = [...queues.values()];
      for (const q of all) q.wake();
      const settled = Promise.all(all.map((q) => q.loop)).then(() =>
        Promise.all(all.flatMap((q) => [...q.running.values()].map((r) => r.done))),
      );
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        settled.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (!timedOut) return;
      for (const q of all) {
        for (const r of q.running.values()) {
          log.warn({ queue: q.name, jobId: r.job.id }, 'job still running at shutdown; failed so that it is retried');
          // Failed first, then aborted: a handler that ends on abort must not complete the job.
          await boss?.fail(q.name, r.job.id, { message: 'the process stopped while the job was running' }).catch(() => {});
          r.abort.abort();
        }
      }
    })();
    return stoppingWorkers;
  }

  return {
    get started() {
      return started;
    },
    get workers() {
      return opts.workers;
    },

    register(job: JobRef, handler: JobHandler<never>, extra: QueueOptions = {}) {
      const name = nameOf(job);
      const options = typeof job === 'string' ? extra : { ...job.options, ...extra };
      if (!QUEUE_NAME.test(name)) throw new Error(`job queue: invalid queue name ${name}`);
      if (queues.has(name)) throw new Error(`job queue: ${name} is already registered`);
      if (starting || started) throw new Error(`job queue: register ${name} before start()`);
      const q: Queue = {
        name,
        // The payload is what `send` checked against the declaration (or the caller's type for a plain name).
        handler: handler as JobHandler<object>,
        options: { retryLimit: 2, retryDelay: 2, retryBackoff: true, expireInSeconds: 300, concurrency: 1, ...options },
        running: new Map(),
        loop: null,
        wake: () => {
          q.woken = true;
        },
        woken: false,
      };
      queues.set(name, q);
    },

    async send(job: JobRef, data: object, options: SendOptions = {}) {
      const name = nameOf(job);
      const q = queueOf(name);
      const b = running();
      if (!isPlainObject(data)) throw new Error(`job queue: the data of a ${name} job must be a plain object`);
      const sendOptions: PgBoss.SendOptions = {};
      if (options.singletonKey !== undefined) {
        sendOptions.id = jobIdForKey(name, options.singletonKey);
        sendOptions.singletonKey = options.singletonKey;
      }
      if (options.startAfter !== undefined) sendOptions.startAfter = options.startAfter;
      if (options.tx) sendOptions.db = transactionExecutor(options.tx);
      const id = await b.send(name, data, sendOptions);
      // A job sent inside a transaction is invisible until commit: the next poll picks it up.
      if (id && !options.tx && !options.startAfter) q.wake();
      return id;
    },

    async schedule(job, cron, data, options = {}) {
      const name = nameOf(job);
      queueOf(name);
      if (started) await running().schedule(name, cron, data ?? {}, { tz: options.tz ?? 'UTC' });
      else pendingSchedules.push({ name, cron, data, tz: options.tz });
    },

    async unschedule(job) {
      await running().unschedule(nameOf(job));
    },

    async stats(job) {
      const name = nameOf(job);
      queueOf(name);
      const { rows } = await running()
        .getDb()
        .executeSql(
          `SELECT state::text AS state, (state < 'active' AND start_after > now()) AS later, count(*)::int AS n
             FROM ${SCHEMA}.job WHERE name = $1 GROUP BY 1, 2`,
          [name],
        );
      const stats: QueueStats = { waiting: 0, delayed: 0, active: 0, completed: 0, failed: 0, cancelled: 0 };
      for (const r of rows as Array<{ state: JobView['state']; later: boolean; n: number }>) {
        const n = Number(r.n);
        if (r.state === 'created' || r.state === 'retry') stats[r.later ? 'delayed' : 'waiting'] += n;
        else stats[r.state] += n;
      }
      return stats;
    },

    async depths() {
      if (!boss || !started) return [];
      const { rows } = await boss
        .getDb()
        .executeSql(
          `SELECT name, state::text AS state, (state < 'active' AND start_after > now()) AS later, count(*)::int AS n
             FROM ${SCHEMA}.job WHERE state < 'completed' GROUP BY 1, 2, 3`,
          [],
        );
      const depths = new Map([...queues.keys()].map((queue) => [queue, { queue, waiting: 0, delayed: 0, active: 0 }]));
      for (const r of rows as Array<{ name: string; state: JobView['state']; later: boolean; n: number }>) {
        const d = depths.get(r.name);
        if (!d) continue;
        d[r.state === 'active' ? 'active' : r.later ? 'delayed' : 'waiting'] += Number(r.n);
      }
      return [...depths.values()];
    },

    async job(job, id) {
      const name = nameOf(job);
      queueOf(name);
      const j = await running().getJobById<object>(name, id, { includeArchive: true });
      if (!j) return null;
      return {
        id: j.id,
        name: j.name,
        state: j.state,
        data: j.data,
        retryCount: j.retryCount,
        retryLimit: j.retryLimit,
        startAfter: new Date(j.startAfter),
        startedOn: j.startedOn ? new Date(j.startedOn) : null,
        completedOn: j.completedOn ? new Date(j.completedOn) : null,
        output: j.output,
      };
    },

    async trim(queuePrefix, keep) {
      const pattern = `${queuePrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const { rows } = await running()
        .getDb()
        .executeSql(
          `WITH finished AS (
             SELECT name, id, state::text AS state, completed_on, 'job' AS src FROM ${SCHEMA}.job
              WHERE name LIKE $1 AND state IN ('completed', 'failed')
             UNION ALL
             SELECT name, id, state::text, completed_on, 'archive' FROM ${SCHEMA}.archive
              WHERE name LIKE $1 AND state IN ('completed', 'failed')
           ), ranked AS (
             SELECT name, id, src, state,
                    row_number() OVER (PARTITION BY name, state ORDER BY completed_on DESC NULLS LAST, id DESC) AS rn
               FROM finished
           ), doomed AS (
             SELECT name, id, src FROM ranked WHERE (state = 'completed' AND rn > $2) OR (state = 'failed' AND rn > $3)
           ), from_job AS (
             DELETE FROM ${SCHEMA}.job j USING doomed d WHERE d.src = 'job' AND j.name = d.name AND j.id = d.id RETURNING 1
           ), from_archive AS (
             DELETE FROM ${SCHEMA}.archive a USING doomed d WHERE d.src = 'archive' AND a.name = d.name AND a.id = d.id RETURNING 1
           )
           SELECT ((SELECT count(*) FROM from_job) + (SELECT count(*) FROM from_archive))::int AS n`,
          [pattern, keep.completed, keep.failed],
        );
      return Number((rows[0] as { n: number } | undefined)?.n ?? 0);
    },

    async drain(options = {}) {
      const b = running();
      const names = options.names?.map(nameOf) ?? [...queues.keys()];
      const limit = options.limit ?? Infinity;
      const result: DrainResult = { runs: 0, completed: 0, failed: 0 };
      for (;;) {
        let ran = false;
        for (const name of names) {
          const q = queueOf(name);
          const [job] = await b.fetch<object>(name, { batchSize: 1, includeMetadata: true, ignoreStartAfter: !!options.includeDelayed });
          if (!job) continue;
          ran = true;
          const ok = await runJob(q, job, new AbortController());
          result.runs++;
          result[ok ? 'completed' : 'failed']++;
          if (result.runs >= limit) return result;
          if (result.runs >= 10_000) throw new Error('job queue: drain stopped after 10000 runs');
        }
        if (!ran) return result;
      }
    },

    start() {
      if (stopping) return Promise.reject(new Error('job queue: stopped'));
      starting ??= (async () => {
        const b = new PgBoss(bossConfig());
        b.on('error', (err) => {
          if (halting) log.debug({ err }, 'job queue error while stopping');
          else log.error({ err }, 'job queue error');
        });
        await b.start();
        // Tenant transactions (role app_tenant) enqueue jobs in the same transaction as their change.
        await b.getDb().executeSql(TENANT_GRANTS, []);
        boss = b;
        for (const q of queues.values()) {
          const { retryLimit, retryDelay, retryBackoff, expireInSeconds } = q.options;
          const queueOptions = { name: q.name, policy: 'standard' as const, retryLimit, retryDelay, retryBackoff, expireInSeconds };
          await b.createQueue(q.name, queueOptions);
          // createQueue keeps an existing queue as it is: bring its options up to date.
          await b.updateQueue(q.name, queueOptions);
        }
        for (const s of pendingSchedules.splice(0)) await b.schedule(s.name, s.cron, s.data ?? {}, { tz: s.tz ?? 'UTC' });
        started = true;
        if (opts.workers) for (const q of queues.values()) q.loop = loop(q);
        log.debug({ queues: [...queues.keys()], workers: opts.workers, scheduler }, 'job queue started');
      })();
      return starting;
    },

    stopWorkers,

    stop(options = {}) {
      stopping ??= (async () => {
        await starting?.catch(() => {});
        await stopWorkers(options.timeoutMs);
        if (boss) await boss.stop({ graceful: true, close: true, wait: true, timeout: 1000 }).catch((err) => log.warn({ err }, 'job queue stop'));
        closed = true;
        started = false;
      })();
      return stopping;
    },
  };
}

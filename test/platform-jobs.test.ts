import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJobs, type JobInfo, type Jobs } from '../src/platform/jobs.js';
import { createTestApp, type TestApp } from './app.js';

let t: TestApp;
const echoed: number[] = [];
const flakyAttempts: number[] = [];

beforeAll(async () => {
  t = await createTestApp({}, {
    beforeReady: (app) => {
      app.jobs.register<{ n: number }>('test.echo', async ({ n }) => {
        echoed.push(n);
        return { doubled: n * 2 };
      });
      app.jobs.register<{ n: number }>(
        'test.flaky',
        async (_data, job) => {
          flakyAttempts.push(job.attempt);
          throw new Error(`attempt ${job.attempt} failed`);
        },
        { retryLimit: 2, retryDelay: 2, retryBackoff: true },
      );
    },
  });
});
afterAll(() => t.close());

const secondsFromNow = (d: Date) => (d.getTime() - Date.now()) / 1000;

describe('job queue', () => {
  it('runs a job and records its completion', async () => {
    const { jobs } = t.app;
    const id = await jobs.send('test.echo', { n: 21 });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await jobs.stats('test.echo')).toMatchObject({ waiting: 1, active: 0, completed: 0 });

    expect(await jobs.drain({ names: ['test.echo'] })).toEqual({ runs: 1, completed: 1, failed: 0 });
    expect(echoed).toContain(21);
    const job = await jobs.job('test.echo', id!);
    expect(job).toMatchObject({ state: 'completed', data: { n: 21 }, output: { doubled: 42 }, retryCount: 0 });
    expect(await jobs.stats('test.echo')).toMatchObject({ waiting: 0, completed: 1 });
  });

  it('retries with exponential backoff, then fails for good after the retry limit', async () => {
    const { jobs } = t.app;
    const id = (await jobs.send('test.flaky', { n: 1 }))!;

    // First attempt fails: the retry waits 2-4 s (2 s * 2^1 / 2, plus up to 100% jitter).
    expect(await jobs.drain({ names: ['test.flaky'] })).toEqual({ runs: 1, completed: 0, failed: 1 });
    let job = (await jobs.job('test.flaky', id))!;
    expect(job).toMatchObject({ state: 'retry', retryCount: 0, retryLimit: 2, output: { message: 'attempt 1 failed' } });
    const firstDelay = secondsFromNow(job.startAfter);
    expect(firstDelay).toBeGreaterThan(1.5);
    expect(firstDelay).toBeLessThan(4.5);
    expect(await jobs.stats('test.flaky')).toMatchObject({ waiting: 0, delayed: 1, failed: 0 });

    // The backoff is honoured: nothing is due yet.
    expect(await jobs.drain({ names: ['test.flaky'] })).toEqual({ runs: 0, completed: 0, failed: 0 });

    // Second attempt (run early): the next retry waits 4-8 s.
    expect(await jobs.drain({ names: ['test.flaky'], includeDelayed: true, limit: 1 })).toEqual({ runs: 1, completed: 0, failed: 1 });
    job = (await jobs.job('test.flaky', id))!;
    expect(job).toMatchObject({ state: 'retry', retryCount: 1 });
    const secondDelay = secondsFromNow(job.startAfter);
    expect(secondDelay).toBeGreaterThan(3.5);
    expect(secondDelay).toBeLessThan(8.5);

    // Third and last attempt: failed for good, nothing left to run.
    expect(await jobs.drain({ names: ['test.flaky'], includeDelayed: true })).toEqual({ runs: 1, completed: 0, failed: 1 });
    job = (await jobs.job('test.flaky', id))!;
    expect(job).toMatchObject({ state: 'failed', retryCount: 2, output: { message: 'attempt 3 failed' } });
    expect(job.completedOn).toBeInstanceOf(Date);
    expect(flakyAttempts).toEqual([1, 2, 3]);
    expect(await jobs.stats('test.flaky')).toEqual({ waiting: 0, delayed: 0, active: 0, completed: 0, failed: 1, cancelled: 0 });
  });

  it('drops a job whose singleton key is already queued, even when sent concurrently', async () => {
    const { jobs } = t.app;
    const before = (await jobs.stats('test.echo')).waiting;
    const first = await jobs.send('test.echo', { n: 1 }, { singletonKey: 'event-1' });
    expect(first).not.toBeNull();
    expect(await jobs.send('test.echo', { n: 2 }, { singletonKey: 'event-1' })).toBeNull();

    const racing = await Promise.all(Array.from({ length: 10 }, (_, i) => jobs.send('test.echo', { n: 100 + i }, { singletonKey: 'event-2' })));
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect((await jobs.stats('test.echo')).waiting).toBe(before + 2);

    // Still dropped once the first has run: the key holds while the job is kept (24 h after completion).
    await jobs.drain({ names: ['test.echo'] });
    expect(await jobs.send('test.echo', { n: 3 }, { singletonKey: 'event-1' })).toBeNull();
    // The same key on another queue is another job.
    expect(await jobs.send('test.flaky', { n: 3 }, { singletonKey: 'event-1' })).not.toBeNull();
  });

  it('enqueues inside a transaction: a rollback drops the job, a commit keeps it', async () => {
    const { jobs } = t.app;
    const { db } = t.app.deps;
    const before = (await jobs.stats('test.echo')).waiting;
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await jobs.send('test.echo', { n: 7 }, { tx });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect((await jobs.stats('test.echo')).waiting).toBe(before);

    const id = await db.transaction(async (tx) => jobs.send('test.echo', { n: 8 }, { tx }));
    expect(id).not.toBeNull();
    expect((await jobs.stats('test.echo')).waiting).toBe(before + 1);
    expect((await jobs.job('test.echo', id!))!.data).toEqual({ n: 8 });
  });

  it('counts waiting, delayed, completed and failed jobs per queue', async () => {
    const { jobs } = t.app;
    await jobs.drain();
    const base = await jobs.stats('test.echo');
    await jobs.send('test.echo', { n: 30 });
    await jobs.send('test.echo', { n: 31 });
    await jobs.send('test.echo', { n: 32 }, { startAfter: 3600 });
    expect(await jobs.stats('test.echo')).toEqual({ ...base, waiting: 2, delayed: 1 });
    await jobs.drain({ names: ['test.echo'] });
    expect(await jobs.stats('test.echo')).toEqual({ ...base, waiting: 0, delayed: 1, completed: base.completed + 2 });
  });

  it('refuses unknown queues, non-object data and late registrations', async () => {
    const { jobs } = t.app;
    await expect(jobs.send('test.nope', {})).rejects.toThrow(/no queue named test.nope/);
    await expect(jobs.send('test.echo', [1, 2] as never)).rejects.toThrow(/plain object/);
    expect(() => jobs.register('test.late', async () => {})).toThrow(/before start/);
    expect(() => jobs.register('bad name!', async () => {})).toThrow(/invalid queue name/);
  });
});

describe('workers', () => {
  let worker: Jobs;
  let release: () => void = () => {};
  const ran: string[] = [];
  const cronRuns: number[] = [];

  beforeAll(async () => {
    // A second process on the same database, polling like ROLE=worker.
    worker = createJobs({
      database: t.db.database,
      log: t.app.log,
      workers: true,
      pollingIntervalMs: 50,
      poolSize: 2,
      boss: { cronMonitorIntervalSeconds: 1, cronWorkerIntervalSeconds: 1 },
    });
    worker.register<{ tag: string }>('test.polled', async ({ tag }) => {
      ran.push(tag);
    });
    worker.register<{ tag: string }>('test.slow', async ({ tag }) => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      ran.push(tag);
    });
    worker.register('test.cron', async () => {
      cronRuns.push(Date.now());
    });
    await worker.schedule('test.cron', '* * * * *');
    await worker.start();
  });
  afterAll(() => worker.stop({ timeoutMs: 1000 }));

  it('picks up a sent job by polling, without drain', async () => {
    await worker.send('test.polled', { tag: 'a' });
    await vi.waitFor(() => expect(ran).toContain('a'), { timeout: 5000, interval: 20 });
  });

  it('runs scheduled (cron) jobs', async () => {
    await vi.waitFor(() => expect(cronRuns.length).toBeGreaterThanOrEqual(1), { timeout: 10_000, interval: 100 });
  });

  it('on stop, lets a running job finish, and fails one that outlives the bound so it is retried', async () => {
    const slow = (await worker.send('test.slow', { tag: 'slow' }))!;
    await vi.waitFor(async () => expect((await worker.job('test.slow', slow))!.state).toBe('active'), { timeout: 5000, interval: 20 });
    const events: string[] = [];
    const stopping = worker.stopWorkers(5000).then(() => events.push('stopped'));
    // The stop is under way and the job is still running (read back from the database after the
    // stop began): only now is it let go, so the stop can only have ended early by not waiting.
    expect((await worker.job('test.slow', slow))!.state).toBe('active');
    expect(ran).not.toContain('slow');
    events.push('released');
    release();
    await stopping;
    expect(events).toEqual(['released', 'stopped']);
    expect(ran).toContain('slow');
    expect((await worker.job('test.slow', slow))!.state).toBe('completed');

    // A fresh instance for the stuck case (stopWorkers is once per instance).
    const other = createJobs({ database: t.db.database, log: t.app.log, workers: true, pollingIntervalMs: 50, poolSize: 2 });
    other.register<{ tag: string }>('test.slow', async (_data, job: JobInfo) => {
      await new Promise((resolve) => job.signal.addEventListener('abort', resolve));
    });
    await other.start();
    const stuck = (await other.send('test.slow', { tag: 'stuck' }))!;
    await vi.waitFor(async () => expect((await other.job('test.slow', stuck))!.state).toBe('active'), { timeout: 5000, interval: 20 });
    const started = Date.now();
    await other.stop({ timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await worker.job('test.slow', stuck)).toMatchObject({ state: 'retry', output: { message: 'the process stopped while the job was running' } });
  });
});

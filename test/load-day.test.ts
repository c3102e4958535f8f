import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DayWorkload, OP_KINDS, checkInvariants, closeAgents, destroyStep, prepareDay, runOpenLoop, setRequestTimeout, settle, type StepResult,
} from '../bench/day-workload.js';
import { createTestDatabase, type TestDatabase } from './app.js';
import { startService, type ServiceProcess } from './service-process.js';

/**
 * The short run of the load benchmark (issue 20, "Load"; the full run is `npm run bench:day`, bench/README.md): the
 * same mixed restaurant day from the same code (bench/day-workload.ts), for a few seconds at a low fixed rate,
 * against two real API processes and a worker on one PostgreSQL database. No timing is asserted: zero errors, every
 * operation acknowledged at least once, and after the queues drain the invariants (every acknowledged order, payment,
 * movement and webhook order exists, the books balance, every payment is posted, no job failed).
 */
describe.runIf(Boolean(process.env.DATABASE_URL))('a mixed restaurant day, short run (two APIs and a worker on PostgreSQL)', () => {
  const password = 'load-day-demo-password';
  const webhookSecret = 'load-day-provider-a-secret';
  const procs: ServiceProcess[] = [];
  let db: TestDatabase;
  let dataDir: string;
  let client: pg.Client | null = null;

  beforeAll(async () => {
    db = await createTestDatabase();
    if (!db.url) throw new Error('the short day run needs PostgreSQL (DATABASE_URL)');
    const url = db.url;
    dataDir = mkdtempSync(join(tmpdir(), 'ro-load-day-'));
    const env = {
      DEMO_PASSWORD: password,
      SUPERADMIN_PASSWORD: 'load-day-superadmin',
      PROVIDER_A_WEBHOOK_SECRET: webhookSecret,
      GUEST_ORDER_RATE_LIMIT: 'off',
      LOG_LEVEL: 'error',
    };
    const start = (role: 'api' | 'worker') => startService({ role, dataDir, databaseUrl: url, env, startTimeoutMs: 120_000 });
    // The first API seeds the demo tenant; the others start on it, side by side.
    procs.push(await start('api'));
    procs.push(...(await Promise.all([start('api'), start('worker')])));
  }, 300_000);

  afterAll(async () => {
    closeAgents();
    await client?.end().catch(() => {});
    for (const p of procs) await p.stop();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('answers every operation without an error and keeps the invariants', async () => {
    // A loaded CI machine may be slow: only a request that gets no answer at all is an error here.
    setRequestTimeout(60_000);
    const bases = procs.map((p) => p.base).filter((b): b is string => b !== null);
    expect(bases).toHaveLength(2);
    const setup = await prepareDay({ bases, password, webhookSecret }, { tables: 20 });
    const w = new DayWorkload(setup);
    let r: StepResult | null = null;
    try {
      r = await runOpenLoop(w, { rate: 10, seconds: 10, warmup: 0 });
      expect(r.samples).toEqual([]);
      expect(r.all.sent).toBe(100);
      expect(r.all.ok).toBe(r.all.sent);
      expect(OP_KINDS.filter((k) => r!.perKind.get(k)!.ok === 0)).toEqual([]);
      expect(w.ack.orders.size).toBeGreaterThan(0);
      expect(w.ack.payments.size).toBeGreaterThan(0);
      expect(w.ack.webhookEvents.size).toBeGreaterThan(0);

      client = new pg.Client({ connectionString: db.url ?? undefined });
      await client.connect();
      await settle(client, 120_000);
      const invariants = await checkInvariants(w, client);
      expect(invariants.filter((i) => !i.ok)).toEqual([]);
      expect(invariants.length).toBeGreaterThanOrEqual(8);
    } finally {
      if (r) destroyStep(r);
      w.close();
    }
  }, 240_000);
});

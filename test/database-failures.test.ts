import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, openPostgres, type Database } from '../src/db/client.js';
import { manualClock } from '../src/platform/clock.js';
import { databaseFailure } from '../src/platform/http.js';
import { createTestApp, createTestDatabase, testConfig, type TestApp, type TestDatabase } from './app.js';
import { makeCategory, makeTenantWithTeam } from './factories.js';

/**
 * Access integrity (issue 7): while the database is unreachable, or a statement runs past its timeout,
 * API routes answer 503 with Retry-After and a code, never a 500 and never a hung request.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);

function expect503(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown; body: string }, code: string) {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.json()).toEqual({ statusCode: 503, error: 'Service Unavailable', message: expect.any(String), code });
}

describe('DB_STATEMENT_TIMEOUT_MS and DB_ACQUIRE_TIMEOUT_MS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ro-dbcfg-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = (extra: Record<string, string>) => ({ DATA_DIR: dir, ...extra });

  it('default to 15000 and 5000 ms and refuse values out of range, naming the variable', () => {
    expect(loadConfig(env({}))).toMatchObject({ dbStatementTimeoutMs: 15_000, dbAcquireTimeoutMs: 5_000 });
    expect(loadConfig(env({ DB_STATEMENT_TIMEOUT_MS: '2500', DB_ACQUIRE_TIMEOUT_MS: '750' }))).toMatchObject({ dbStatementTimeoutMs: 2500, dbAcquireTimeoutMs: 750 });
    expect(() => loadConfig(env({ DB_STATEMENT_TIMEOUT_MS: 'soon' }))).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
    expect(() => loadConfig(env({ DB_STATEMENT_TIMEOUT_MS: '0' }))).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
    expect(() => loadConfig(env({ DB_ACQUIRE_TIMEOUT_MS: '-1' }))).toThrow(/DB_ACQUIRE_TIMEOUT_MS/);
  });

  it.runIf(onPostgres)('reach every connection of the PostgreSQL pool', async () => {
    const tdb = await createTestDatabase();
    const database = await openDatabase({ ...loadConfig(env({ DB_STATEMENT_TIMEOUT_MS: '2500' })), databaseUrl: tdb.url! });
    try {
      const rows = await database.db.transaction(async (tx) => ((await tx.execute(sql`show statement_timeout`)) as unknown as { rows: unknown[] }).rows);
      expect(rows).toEqual([{ statement_timeout: '2500ms' }]);
    } finally {
      await database.close();
      await tdb.drop();
    }
  });
});

describe('a closed database (both databases)', () => {
  it('API routes answer 503 database_unavailable with Retry-After', async () => {
    const t = await createTestApp();
    try {
      const a = await makeTenantWithTeam(t.app);
      await makeCategory(t.app, a.tenant);
      expect((await t.app.inject({ url: `/t/${a.slug}/menu/categories` })).statusCode).toBe(200);
      // PGlite: "PGlite is closed"; PostgreSQL: the pool has ended.
      await t.db.database.close();
      expect503(await t.app.inject({ url: `/t/${a.slug}/menu/items` }), 'database_unavailable');
      expect503(await t.app.inject({ url: `/t/${a.slug}/users`, headers: a.admin.headers }), 'database_unavailable');
      expect503(await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'x@example.com', password: 'long-enough' } }), 'database_unavailable');
      const ready = await t.app.inject({ url: '/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.headers['retry-after']).toBe('5');
    } finally {
      await t.app.close().catch(() => {});
      await t.db.drop().catch(() => {});
    }
  });
});

// The rest needs a server: PGlite is one connection inside this process, with no connections to
// refuse or terminate, no other session to hold a lock, and a statement_timeout it accepts but never
// fires (no timer signals in WebAssembly; see docs/decisions.md, "Access integrity").
describe.runIf(onPostgres)('PostgreSQL: connections refused, statement and lock timeouts, pool exhausted', () => {
  const admin = () => new pg.Client({ connectionString: process.env.DATABASE_URL });
  let tdb: TestDatabase;
  let open: { app: App; database: Database }[] = [];
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterEach(async () => {
    for (const o of open) {
      await o.app.close().catch(() => {});
      await o.database.close().catch(() => {});
    }
    open = [];
  });
  afterAll(() => tdb.drop());

  /** An app on this file's database through a pool opened with the given options. */
  async function appWith(opts: Parameters<typeof openPostgres>[1]) {
    const database = await openPostgres(tdb.url!, { migrate: false, ...opts });
    const app = await buildApp({ database, config: testConfig(), clock: manualClock(), logger: false, jobs: { workers: false, poolSize: 2 } });
    await app.ready();
    open.push({ app, database });
    return app;
  }

  it('while the database refuses connections and its sessions are terminated: 503, then recovery', async () => {
    const t: TestApp = await createTestApp();
    const name = new URL(t.db.url!).pathname.slice(1);
    const c = admin();
    await c.connect();
    try {
      const a = await makeTenantWithTeam(t.app);
      await makeCategory(t.app, a.tenant);
      expect((await t.app.inject({ url: `/t/${a.slug}/menu/categories` })).statusCode).toBe(200);

      // The realtime adapter's LISTEN session is up before the outage, so the outage really ends it.
      await expect
        .poll(async () => (await c.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'`, [name])).rows[0].n, { timeout: 10_000 })
        .toBeGreaterThan(0);
      await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      // Every session of the app (API pool, job queue, realtime adapter) is cut off.
      await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
      expect503(await t.app.inject({ url: `/t/${a.slug}/menu/categories` }), 'database_unavailable');
      expect503(await t.app.inject({ url: `/t/${a.slug}/users`, headers: a.admin.headers }), 'database_unavailable');
      expect503(
        await t.app.inject({ method: 'POST', url: `/t/${a.slug}/menu/categories`, headers: a.admin.headers, payload: { name: 'Sobremesas' } }),
        'database_unavailable',
      );
      expect((await t.app.inject({ url: '/ready' })).statusCode).toBe(503);

      await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      expect((await t.app.inject({ url: `/t/${a.slug}/menu/categories` })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/ready' })).statusCode).toBe(200);
    } finally {
      await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => {});
      await c.end();
      await t.close();
    }
  });

  /** A tenant's category whose row lock another session holds (in an open transaction) until `lock` rolls back. */
  async function lockedCategory(app: App) {
    const a = await makeTenantWithTeam(app);
    const category = await makeCategory(app, a.tenant);
    const lock = new pg.Client({ connectionString: tdb.url! });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('SELECT 1 FROM menu_categories WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [a.tenant._id, category._id]);
    return { a, category, lock };
  }

  it('a statement past DB_STATEMENT_TIMEOUT_MS (waiting on a row lock) answers 503 database_timeout', async () => {
    const app = await appWith({ statementTimeoutMs: 300 });
    // Another session holds the category's row lock; the update waits on it until its statement times out.
    const { a, category, lock } = await lockedCategory(app);
    try {
      const started = Date.now();
      const rename = () =>
        app.inject({ method: 'PUT', url: `/t/${a.slug}/menu/categories/${category._id}`, headers: a.admin.headers, payload: { name: 'Renomeada' } });
      expect503(await rename(), 'database_timeout');
      expect(Date.now() - started).toBeLessThan(5_000);
      await lock.query('ROLLBACK');
      const after = await rename();
      expect(after.statusCode, after.body).toBe(200);
    } finally {
      await lock.end();
    }
  });

  it('a lock timeout (55P03) answers 503 database_timeout too', async () => {
    const app = await appWith({ lockTimeoutMs: 200 });
    const { a, category, lock } = await lockedCategory(app);
    try {
      expect503(
        await app.inject({ method: 'DELETE', url: `/t/${a.slug}/menu/categories/${category._id}`, headers: a.admin.headers }),
        'database_timeout',
      );
    } finally {
      await lock.query('ROLLBACK').catch(() => {});
      await lock.end();
    }
  });

  it('no free connection within DB_ACQUIRE_TIMEOUT_MS answers 503 database_unavailable', async () => {
    const app = await appWith({ poolSize: 1, acquireTimeoutMs: 200 });
    const a = await makeTenantWithTeam(app);
    // Warm the tenant cache so the route itself needs the (busy) connection.
    expect((await app.inject({ url: `/t/${a.slug}/menu/categories` })).statusCode).toBe(200);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    const busy = app.deps.db.transaction(async () => {
      holding();
      await gate;
    });
    await held;
    try {
      expect503(await app.inject({ url: `/t/${a.slug}/menu/items` }), 'database_unavailable');
    } finally {
      release();
      await busy;
    }
    expect((await app.inject({ url: `/t/${a.slug}/menu/items` })).statusCode).toBe(200);
  });
});

describe('a transaction rolled back by a concurrent one (both databases)', () => {
  it('is recognised through the driver and drizzle as contention (answered 409 concurrent_update by the error handler)', async () => {
    const t = await createTestApp();
    try {
      const a = await makeTenantWithTeam(t.app);
      for (const code of ['40P01', '40001']) {
        const err = await t.app.deps
          .tenantDb(a.tenant._id)
          .run((tx) => tx.db.execute(sql.raw(`DO $$ BEGIN RAISE EXCEPTION 'rolled back' USING ERRCODE = '${code}'; END $$`)))
          .then(() => null, (e: unknown) => e);
        expect(err).not.toBeNull();
        expect(databaseFailure(err)).toBe('contention');
      }
      expect(databaseFailure(new Error('duplicate key', { cause: { code: '23505' } }))).toBeNull();
    } finally {
      await t.close();
    }
  });
});

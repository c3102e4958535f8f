import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, type App, type AppOptions } from '../src/app.js';
import type { Config } from '../src/config.js';
import { openPglite, openPostgres, type Database } from '../src/db/client.js';
import { manualClock } from '../src/platform/clock.js';
import { memoryMailer, type MemoryMailer } from '../src/platform/mail.js';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-0123456789';
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7);

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: undefined,
    dataDir: '',
    jwtSecret: TEST_JWT_SECRET,
    encryptionKey: TEST_ENCRYPTION_KEY,
    bcryptCost: 4,
    logLevel: 'silent',
    superadminEmail: undefined,
    superadminPassword: undefined,
    seedDemo: false,
    publicUrl: 'http://localhost',
    role: 'all',
    ...overrides,
  };
}

export interface TestDatabase {
  database: Database;
  /** Connection string of this file's PostgreSQL database, or null on PGlite. */
  url: string | null;
  /** PGlite data dir of this file, or null on PostgreSQL. */
  dir: string | null;
  drop(): Promise<void>;
}

/** A fresh database for one test file: a copy of the migrated template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  const templateDb = inject('templateDb');
  if (base && templateDb) {
    const name = `${templateDb.replace('ro_tpl_', 'ro_test_')}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateDb}`);
        break;
      } catch (err) {
        // Two files copying the template at the same instant: wait and retry.
        if (attempt > 20 || !String((err as Error).message).includes('being accessed')) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    const database = await openPostgres(url.toString(), { migrate: false, poolSize: 10 });
    return {
      database,
      url: url.toString(),
      dir: null,
      async drop() {
        await database.close();
        const c = new pg.Client({ connectionString: base });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'ro-test-'));
  cpSync(inject('templateDir')!, dir, { recursive: true });
  const database = await openPglite(dir, { migrate: false });
  return {
    database,
    url: null,
    dir,
    async drop() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestApp {
  app: App;
  db: TestDatabase;
  clock: ReturnType<typeof manualClock>;
  /** Every mail the app sent (a memory transport). */
  mail: MemoryMailer;
  close(): Promise<void>;
}

/**
 * A test app on its own database. Its job queue starts without workers: tests run jobs with
 * `app.jobs.drain()` (pass `{ jobs: { workers: true } }` to poll like a real process).
 */
export async function createTestApp(
  overrides: Partial<Config> = {},
  opts: { beforeReady?: (app: App) => unknown } & Pick<AppOptions, 'jobs' | 'realtime'> = {},
): Promise<TestApp> {
  const db = await createTestDatabase();
  const clock = manualClock();
  const mail = memoryMailer();
  const app = await buildApp({
    database: db.database,
    config: testConfig(overrides),
    clock,
    logger: false,
    jobs: { workers: false, poolSize: 2, ...opts.jobs },
    realtime: opts.realtime,
    mailer: mail,
  });
  await opts.beforeReady?.(app);
  await app.ready();
  return {
    app,
    db,
    clock,
    mail,
    async close() {
      await app.close();
      await db.drop();
    },
  };
}

export interface RestartableApp {
  /** The app of the current "process": read it again after `restart`. */
  app: App;
  clock: ReturnType<typeof manualClock>;
  mail: MemoryMailer;
  /**
   * Stops the app and closes the database connection, then opens both again, as a new process would
   * (new caches and in-memory simulators; same rows, queue and keys).
   */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** A test app on its own database that a test can restart, for the "after a restart" rows of the state tables. */
export async function createRestartableApp(): Promise<RestartableApp> {
  const tdb = await createTestDatabase();
  let database = tdb.database;
  const clock = manualClock();
  const mail = memoryMailer();
  const start = async () => {
    const app = await buildApp({ database, config: testConfig(), clock, logger: false, jobs: { workers: false, poolSize: 2 }, mailer: mail });
    await app.ready();
    return app;
  };
  const handle: RestartableApp = {
    app: await start(),
    clock,
    mail,
    async restart() {
      await handle.app.close();
      await database.close();
      database = tdb.url ? await openPostgres(tdb.url, { migrate: false }) : await openPglite(tdb.dir!, { migrate: false });
      handle.app = await start();
    },
    async close() {
      await handle.app.close();
      await database.close();
      await tdb.drop();
    },
  };
  return handle;
}

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { openPglite, openPostgres, type Database } from '../src/db/client.js';
import { createTestDatabase, testConfig, type TestDatabase } from './app.js';
import { makeTenantWithTeam, PASSWORD } from './factories.js';

/**
 * Backup and restore as docs/deployment.md tells them: `pg_dump -Fc` and `pg_restore` into a new database on
 * PostgreSQL, a copy of the stopped data dir on PGlite. Data written through HTTP, read back through HTTP
 * from an app started on the restored copy.
 */
const onPostgres = !!process.env.DATABASE_URL;

async function startApp(database: Database): Promise<App> {
  const app = await buildApp({ database, config: testConfig(), logger: false, jobs: { workers: false, poolSize: 2 } });
  await app.ready();
  return app;
}

interface Written {
  slug: string;
  email: string;
  tableId: string;
  categoryId: string;
}

/** A tenant with an admin; a table and a menu category created through HTTP. */
async function writeData(app: App): Promise<Written> {
  const team = await makeTenantWithTeam(app);
  const table = await app.inject({ method: 'POST', url: `/t/${team.slug}/tables`, headers: team.admin.headers, payload: { number: 7, capacity: 4 } });
  expect(table.statusCode).toBe(201);
  const category = await app.inject({ method: 'POST', url: `/t/${team.slug}/menu/categories`, headers: team.admin.headers, payload: { name: 'Sobremesas' } });
  expect(category.statusCode).toBe(201);
  return { slug: team.slug, email: team.admin.email, tableId: table.json()._id, categoryId: category.json()._id };
}

/** Logs in (the password hash came through) and reads the table and the category back. */
async function readBack(app: App, w: Written) {
  const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { email: w.email, password: PASSWORD } });
  expect(login.statusCode).toBe(200);
  const headers = { authorization: `Bearer ${login.json().accessToken}` };
  const tables = await app.inject({ url: `/t/${w.slug}/tables`, headers });
  expect(tables.statusCode).toBe(200);
  expect(tables.json()).toEqual([expect.objectContaining({ _id: w.tableId, number: 7, capacity: 4 })]);
  const categories = await app.inject({ url: `/t/${w.slug}/menu/categories`, headers });
  expect(categories.statusCode).toBe(200);
  expect(JSON.stringify(categories.json())).toContain(w.categoryId);
}

describe.skipIf(!onPostgres)('PostgreSQL: pg_dump -Fc, pg_restore into a new database (skipped on PGlite: runs when DATABASE_URL is set)', () => {
  let source: TestDatabase;
  let restoredName: string;
  let restoredUrl: string;
  let dir: string;

  beforeAll(async () => {
    source = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'ro-dump-'));
    // Named like the test databases, so the run's teardown drops it even if this file does not get to.
    restoredName = `${new URL(source.url!).pathname.slice(1)}_restored_${randomBytes(3).toString('hex')}`;
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${restoredName}`;
    restoredUrl = url.toString();
  });
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${restoredName} WITH (FORCE)`);
    await admin.end();
    await source.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores every row, the logins and the migrations journal: an app on the copy reads the data back', async () => {
    const app = await startApp(source.database);
    let written: Written;
    const dump = join(dir, 'backup.dump');
    try {
      written = await writeData(app);
      // Online: pg_dump reads one consistent snapshot while the app runs.
      execFileSync('pg_dump', ['-Fc', '--file', dump, source.url!]);
    } finally {
      await app.close();
    }
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${restoredName} TEMPLATE template0`);
    await admin.end();
    execFileSync('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', restoredUrl, dump]);

    // The migrator finds every migration applied (its journal came with the dump) and changes nothing.
    const restored = await openPostgres(restoredUrl, { poolSize: 2 });
    const copy = await startApp(restored);
    try {
      await readBack(copy, written);
    } finally {
      await copy.close();
      await restored.close();
    }
  });
});

describe.skipIf(onPostgres)('PGlite: a copy of the stopped data dir (skipped when DATABASE_URL is set: PostgreSQL is backed up with pg_dump)', () => {
  let source: TestDatabase;
  let copyDir: string;

  beforeAll(async () => {
    source = await createTestDatabase();
    copyDir = mkdtempSync(join(tmpdir(), 'ro-copy-'));
  });
  afterAll(() => {
    rmSync(copyDir, { recursive: true, force: true });
    rmSync(source.dir!, { recursive: true, force: true });
  });

  it('an app on the copy, the original gone, reads the data back', async () => {
    const app = await startApp(source.database);
    let written: Written;
    try {
      written = await writeData(app);
    } finally {
      await app.close();
      await source.database.close();
    }
    cpSync(source.dir!, copyDir, { recursive: true });
    rmSync(source.dir!, { recursive: true, force: true });

    const restored = await openPglite(copyDir);
    const copy = await startApp(restored);
    try {
      await readBack(copy, written);
    } finally {
      await copy.close();
      await restored.close();
    }
  });
});

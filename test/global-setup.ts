import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { migratePostgres, openPglite } from '../src/db/client.js';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDb: string | null;
    templateDir: string | null;
  }
}

/**
 * Migrates once per run: a template database on PostgreSQL (DATABASE_URL set),
 * or a migrated PGlite data dir. Each test file then copies it.
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `ro_tpl_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const target = new URL(url);
    target.pathname = `/${name}`;
    await migratePostgres(target.toString());
    project.provide('templateDb', name);
    project.provide('templateDir', null);
    return async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const { rows } = await c.query(`SELECT datname FROM pg_database WHERE datname LIKE 'ro_t%_${process.pid}%' OR datname = $1`, [name]);
      for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`).catch(() => {});
      await c.end();
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'ro-tpl-'));
  const db = await openPglite(dir);
  await db.close();
  project.provide('templateDb', null);
  project.provide('templateDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}

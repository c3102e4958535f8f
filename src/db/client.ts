import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg, NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { CONNECT_FAILED, databaseFailure } from './failures.js';
import * as schema from './schema/index.js';
import { BYPASS_PRELUDE, TENANT_ROLE, bindTenant, bypassOf, refuseNesting, tenantPrelude, type Bypass, type ScopedTransactions, type TenantDb } from './scopes.js';

export type Schema = typeof schema;
/** Both drivers expose the same query builder; transactions are a Db too. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  /**
   * The shared handle: tables without a tenant (users, tenants, tokens). It runs as `app_tenant` with no
   * tenant set, so tenant tables answer it with nothing (src/db/scopes.ts).
   */
  db: Db;
  /** A handle bound to one tenant: its transactions see and write only that tenant's rows. */
  tenant(tenantId: string): TenantDb;
  /** The named way across tenants (`BYPASS_USES`): a transaction as the owning role. */
  bypass: Bypass;
  /**
   * A transaction as the owning role, unnamed: for the platform's own checks and the tests. Modules never
   * get it (their deps carry `bypass`, which names its use).
   */
  owner<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  kind: 'pglite' | 'postgres';
  /** The embedded client, for platform parts that speak SQL directly (the job queue). PGlite only. */
  pglite?: PGlite;
  /** Connection string, for platform parts that open their own connections (job queue, realtime adapter). PostgreSQL only. */
  url?: string;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/** Key of the advisory lock that serialises migrations between processes. */
const MIGRATION_LOCK = 727_001;

export async function openPglite(dataDir: string, { migrate = true } = {}): Promise<Database> {
  mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create({ dataDir, extensions: { pg_trgm } });
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  if (migrate) await migratePglite(db as never, { migrationsFolder });
  // From here on the one connection is app_tenant; the bypass and the job queue step back for one transaction.
  await client.exec(`set role ${TENANT_ROLE}`);
  // The one connection is held by a running transaction: a statement or a transaction started beside it
  // from inside it (the shared handle, the job queue) would wait for itself. Refused at once instead.
  guardMethods(client, ['query', 'exec', 'transaction'], 'on the shared handle or the job queue');
  const scoped: ScopedTransactions = {
    tenant: (tenantId, fn) => db.transaction(async (tx) => {
      await tx.execute(sql.raw(tenantPrelude(tenantId)));
      return fn(tx);
    }),
    bypass: (fn) => db.transaction(async (tx) => {
      await tx.execute(sql.raw(BYPASS_PRELUDE));
      return fn(tx);
    }),
  };
  return {
    db,
    tenant: (tenantId) => bindTenant(tenantId, scoped),
    bypass: bypassOf(scoped),
    owner: scoped.bypass,
    kind: 'pglite',
    pglite: client,
    ping: async () => {
      await client.query('select 1');
    },
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
}

/** Wraps methods of a client so that calling them from inside a scoped transaction throws (see `refuseNesting`). */
function guardMethods<T extends object>(target: T, names: (keyof T & string)[], where: string) {
  for (const name of names) {
    const original = (target[name] as (...args: unknown[]) => unknown).bind(target);
    (target as Record<string, unknown>)[name] = (...args: unknown[]) => {
      refuseNesting(`A statement ${where}`);
      return original(...args);
    };
  }
}

export async function migratePostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migratePg(drizzlePg({ client }), { migrationsFolder });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
}

/** Defaults of `DB_STATEMENT_TIMEOUT_MS` and `DB_ACQUIRE_TIMEOUT_MS` (docs/decisions.md, "Access integrity"). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 15_000;
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 5_000;

/** Marks an error raised while getting a connection: the database is unavailable, whatever the error says. */
function markConnectFailure(err: unknown): unknown {
  if (err && typeof err === 'object') (err as Record<symbol, boolean>)[CONNECT_FAILED] = true;
  return err;
}

type ConnectCallback = (err: Error | undefined, client?: pg.PoolClient, done?: (release?: unknown) => void) => void;

/**
 * Marks the pool's connection failures (refused, reset, timed out, `database is not accepting
 * connections`, pool ended), so the error handler answers 503 instead of 500. `pool.query` and
 * drizzle's transactions both acquire through `connect`.
 */
function markConnectFailures(pool: pg.Pool): pg.Pool {
  const connect = pool.connect.bind(pool) as (cb?: ConnectCallback) => Promise<pg.PoolClient> | void;
  (pool as unknown as { connect: unknown }).connect = (cb?: ConnectCallback) => {
    if (cb) return connect((err, client, done) => cb(err ? (markConnectFailure(err) as Error) : undefined, client, done));
    return (connect() as Promise<pg.PoolClient>).catch((err: unknown) => {
      throw markConnectFailure(err);
    });
  };
  return pool;
}

export interface PostgresOptions {
  migrate?: boolean;
  poolSize?: number;
  /** `statement_timeout` of every pooled connection, ms (0 = none). */
  statementTimeoutMs?: number;
  /** Wait for a pooled connection, or for a new one to connect, ms. */
  acquireTimeoutMs?: number;
  /** `lock_timeout` of every pooled connection, ms; unset = none (the statement timeout bounds lock waits). */
  lockTimeoutMs?: number;
}

/**
 * Transactions on a pooled connection whose first round trip is `begin` and the scope's setting
 * together (one simple-protocol message), then drizzle on that connection: nested `transaction()`
 * calls become savepoints.
 */
function pooledTransactions(pool: pg.Pool, base: Db): ScopedTransactions {
  const { dialect, session } = base as unknown as { dialect: never; session: { schema: never } };
  async function run<T>(prelude: string, fn: (db: Db) => Promise<T>, attempt = 1): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    // A checked-out client has no pool listener: a session the server ends now fails the running query
    // (and so this transaction) instead of crashing the process; the client is then destroyed.
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      await client.query(`begin; ${prelude}`);
    } catch (err) {
      // A pooled connection the server ended while it was idle (a restart, pg_terminate_backend): nothing ran
      // yet, so the transaction starts again on a fresh one.
      client.off('error', onError);
      client.release(err as Error);
      if (attempt < 3 && databaseFailure(err) === 'unavailable') return run(prelude, fn, attempt + 1);
      throw err;
    }
    try {
      const tx = new NodePgTransaction(dialect, new NodePgSession(client, dialect, session.schema), session.schema) as unknown as Db;
      const result = await fn(tx);
      await client.query('commit');
      return result;
    } catch (err) {
      await client.query('rollback').catch((e: Error) => {
        broken = e;
      });
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }
  return {
    tenant: (tenantId, fn) => run(tenantPrelude(tenantId), fn),
    bypass: (fn) => run(BYPASS_PRELUDE, fn),
  };
}

export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Database> {
  const { migrate = true, poolSize = 10, statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS, acquireTimeoutMs = DEFAULT_ACQUIRE_TIMEOUT_MS } = opts;
  if (migrate) await migratePostgres(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    application_name: 'restaurant-ops-api',
    connectionTimeoutMillis: acquireTimeoutMs,
    // Every pooled connection starts as app_tenant: without a tenant handle, tenant tables show nothing.
    options: `-c role=${TENANT_ROLE}`,
    // Sent as startup parameters: they hold for every statement on the connection, transactions included.
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
    ...(opts.lockTimeoutMs ? { lock_timeout: opts.lockTimeoutMs } : {}),
  });
  markConnectFailures(pool);
  // The same rule as on PGlite: inside a tenant transaction, statements go through its `tx.db`.
  guardMethods(pool, ['query'], 'on the shared handle');
  // An idle client that loses its server must not crash the process; /ready reports it.
  pool.on('error', () => {});
  // Nor may a checked-out one (drizzle's `transaction()` on the shared handle checks a client out without a listener):
  // a session the server ends between two statements fails the next one, and the pool drops the broken client.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  const scoped = pooledTransactions(pool, db);
  let closed = false;
  return {
    db,
    tenant: (tenantId) => bindTenant(tenantId, scoped),
    bypass: bypassOf(scoped),
    owner: scoped.bypass,
    kind: 'postgres',
    url,
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

export function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  dbStatementTimeoutMs?: number;
  dbAcquireTimeoutMs?: number;
}): Promise<Database> {
  // PGlite is one connection inside this process: `statement_timeout` is accepted there but never fires
  // (no timer signals in WebAssembly) and there is no pool to wait for (docs/decisions.md).
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, { statementTimeoutMs: opts.dbStatementTimeoutMs, acquireTimeoutMs: opts.dbAcquireTimeoutMs })
    : openPglite(opts.dataDir);
}

import { createHash } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import type { Db } from '../db/client.js';
import { BYPASS_PRELUDE } from '../db/scopes.js';

/** A result row of pg-boss's own SQL: pg-boss reads its columns by name. */
type Row = Record<string, unknown>;

/** What pg-boss needs to run its SQL: its `db: { executeSql }` option. */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

/** Something with node-postgres' `query(text, values)`: a pg Pool/PoolClient, PGlite or a PGlite transaction. */
interface QueryClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  exec?(text: string): Promise<Array<{ rows: Row[] }>>;
}

const nulls = (values: unknown[]) => values.map((v) => (v === undefined ? null : v));

/**
 * pg-boss on the embedded PGlite (one connection shared with the app).
 * - With parameters: `query()` (extended protocol).
 * - Without: `exec()` (simple protocol; several statements allowed).
 * - pg-boss's locked scripts (`BEGIN; SET LOCAL ...; pg_advisory_xact_lock(...); ...; COMMIT;`) run inside
 *   `client.transaction()`: PGlite then holds its transaction mutex for the whole script, and if a statement
 *   fails it rolls back before anyone else can use the connection. Run with a bare `exec()`, a failure would
 *   leave the shared connection in an aborted transaction for the next query of the app. The inner BEGIN and
 *   COMMIT only raise notices. The advisory lock is trivially ours: there is one connection.
 * - The connection's own role is app_tenant (src/db/scopes.ts); the queue is platform work that owns its
 *   schema, so each statement runs in a transaction that steps back to the owning role (the job
 *   scheduler's bypass, docs/decisions.md).
 */
export function pgliteExecutor(client: PGlite, isClosed: () => boolean = () => false): SqlExecutor {
  return {
    async executeSql(text, values) {
      if (isClosed() || client.closed) throw new Error('job queue: the database is closed');
      return client.transaction(async (tx) => {
        await tx.exec(BYPASS_PRELUDE);
        if (values && values.length) return tx.query<Row>(text, nulls(values));
        const results = await tx.exec(text);
        return results[results.length - 1] ?? { rows: [] };
      });
    },
  };
}

/**
 * The SQL client under a drizzle database or transaction, so that pg-boss's insert runs on the same
 * connection and inside the same transaction as the change it follows. This reads drizzle's session
 * (`db.session.client`: a pg PoolClient inside a node-postgres transaction, a PGlite `Transaction`
 * inside a PGlite one); test/platform-jobs.test.ts proves that a rollback drops the job on both drivers.
 */
export function transactionExecutor(tx: Db): SqlExecutor {
  const client = (tx as unknown as { session?: { client?: QueryClient } }).session?.client;
  if (!client || typeof client.query !== 'function') {
    throw new Error('job queue: cannot find the SQL client of this drizzle transaction');
  }
  return {
    async executeSql(text, values) {
      if (values && values.length) return client.query(text, nulls(values));
      if (client.exec) {
        const results = await client.exec(text);
        return results[results.length - 1] ?? { rows: [] };
      }
      return client.query(text);
    },
  };
}

/**
 * A stable job id for (queue, key): pg-boss's primary key is (name, id) and its insert is
 * `ON CONFLICT DO NOTHING`, so a second job with the same key is dropped while the first is kept.
 * Shaped like a version-5 UUID (SHA-256 based instead of SHA-1).
 */
export function jobIdForKey(queue: string, key: string): string {
  const b = createHash('sha256').update(queue).update('\u0000').update(key).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

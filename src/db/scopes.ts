import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from './client.js';
import { isId } from './ids.js';

/**
 * Tenant isolation in the database (docs/architecture.md). Every table with `tenant_id` has a forced
 * row-level security policy; code reaches those tables through one of three handles:
 *
 * - the shared handle (`Deps.db`): tables without a tenant (users, tenants, tokens, rate limits).
 *   It runs as `app_tenant` with no tenant set, so every tenant table answers it with nothing;
 * - a tenant handle (`TenantDb`, from the guard chain, or `Deps.tenantDb(id)` in jobs and sockets):
 *   one transaction as `app_tenant` with `app.tenant_id` set, so only that tenant's rows exist;
 * - the bypass (`Deps.bypass(use, fn)`): a transaction as the owning role, for the few platform paths
 *   that must cross tenants. Each use is named in `BYPASS_USES` and explained in docs/decisions.md.
 */

/** The role of tenant work: owns no table, cannot bypass row-level security (migration 0008). */
export const TENANT_ROLE = 'app_tenant';

/** A database handle bound to one tenant. */
export interface TenantDb {
  readonly tenantId: string;
  /**
   * Runs `fn` in one transaction bound to this tenant and commits it (rolls back on a throw).
   * On a handle passed into `fn` (a `TenantTx`), runs in that same transaction.
   */
  run<T>(fn: (tx: TenantTx) => Promise<T>): Promise<T>;
}

/** A tenant handle inside its transaction: `db` is the drizzle transaction. */
export interface TenantTx extends TenantDb {
  readonly db: Db;
  /**
   * Runs `fn` once the outermost transaction has committed (never when it rolls back): where realtime
   * events of a change made deep inside another module's transaction are sent. `fn` must not throw
   * (a throw is swallowed: the data is committed already).
   */
  afterCommit(fn: () => void | Promise<void>): void;
}

/**
 * The platform paths allowed to cross tenants. Adding one is a decision: name it here, explain it in
 * docs/decisions.md ("Tenant isolation"), and test/tenant-isolation.test.ts checks both lists agree.
 */
export const BYPASS_USES = [
  /** A person's memberships in every tenant: login, the token pair, the account's tenants. */
  'person-memberships',
  /** The gateway's webhook names a payment intent; the order (and so the tenant) is not known yet. */
  'payment-webhook',
  /** The job that settles payments left processing, in every tenant. */
  'payment-sweep',
  /** The superadmin's seed of the system chart of accounts (`system_accounts`, shared, read-only to tenants). */
  'system-chart-seed',
  /** The platform operator's view of an App across tenants (active installations) and its kill-switch (revoke them all). */
  'app-operator',
  /** The superadmin's audit log across tenants (every tenant's events and the platform's). */
  'audit-operator',
] as const;
export type BypassUse = (typeof BYPASS_USES)[number];

/** Runs `fn` in a transaction as the owning role: row-level security does not apply. */
export type Bypass = <T>(use: BypassUse, fn: (db: Db) => Promise<T>) => Promise<T>;

/** How a driver opens the two kinds of transactions. */
export interface ScopedTransactions {
  tenant<T>(tenantId: string, fn: (db: Db) => Promise<T>): Promise<T>;
  bypass<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}

/** The statement that binds a transaction to a tenant (ids are checked first: it is sent as text). */
export function tenantPrelude(tenantId: string): string {
  if (!isId(tenantId)) throw new Error(`tenant scope: ${JSON.stringify(tenantId)} is not a tenant id`);
  return `select set_config('role', '${TENANT_ROLE}', true), set_config('app.tenant_id', '${tenantId}', true)`;
}

/** Back to the login role (the owner) for the rest of the transaction. */
export const BYPASS_PRELUDE = 'set local role none';

/**
 * Set while a scoped transaction runs. Opening another one from inside it would wait for a second
 * connection (PostgreSQL) or for itself (PGlite's one connection: a hang), so it is refused at once:
 * pass the `tx` you hold instead, or run the other work before or after.
 */
const inScope = new AsyncLocalStorage<string>();

/** Throws when called inside a scoped transaction (the shared handle's queries and the job queue check it). */
export function refuseNesting(what: string) {
  const outer = inScope.getStore();
  if (outer) throw new Error(`${what} opened inside the transaction of ${outer}: pass its tx, or do it before or after`);
}

export function bindTenant(tenantId: string, open: ScopedTransactions): TenantDb {
  if (!isId(tenantId)) throw new Error(`tenant scope: ${JSON.stringify(tenantId)} is not a tenant id`);
  const name = `tenant ${tenantId}`;
  return {
    tenantId,
    run: async (fn) => {
      refuseNesting(`A transaction of ${name}`);
      const committed: (() => void | Promise<void>)[] = [];
      // Awaited inside the marker's context, so that a lazy query (drizzle's thenables) runs inside it too.
      const result = await open.tenant(tenantId, (db) => inScope.run(name, async () => await fn(inTransaction(tenantId, db, committed))));
      for (const after of committed) await Promise.resolve().then(after).catch(() => {});
      return result;
    },
  };
}

/** The bypass of a driver: the same nesting rule. */
export function bypassOf(open: ScopedTransactions): Bypass {
  return async (use, fn) => {
    refuseNesting(`The bypass ${use}`);
    return open.bypass((db) => inScope.run(`the bypass ${use}`, async () => await fn(db)));
  };
}

function inTransaction(tenantId: string, db: Db, committed: (() => void | Promise<void>)[]): TenantTx {
  const tx: TenantTx = { tenantId, db, run: (fn) => fn(tx), afterCommit: (fn) => void committed.push(fn) };
  return tx;
}

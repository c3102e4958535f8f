import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { and, eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { idempotencyKeys } from '../db/schema/idempotency.js';
import type { Clock } from './clock.js';
import { conflict, HttpError, invalidField } from './errors.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const KEY = /^[A-Za-z0-9._:-]{1,255}$/;

/** Stable hash of a JSON body: key order does not matter. */
export function hashBody(body: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]))
        : v;
  return createHash('sha256').update(JSON.stringify(canonical(body ?? null))).digest('hex');
}

export interface Replayable {
  status: number;
  body: unknown;
}

/**
 * Called by the work inside the transaction that writes its result: stores the key with that transaction, so
 * the key exists exactly when the work committed (a crash, a killed connection or a rollback leaves neither).
 * `ref` names what was written (an order's id), so an answer lost with a crashed process can be rebuilt.
 */
export type ClaimKey = (txDb: Db, ref: string, status: number) => Promise<void>;

/** The key was already stored by a committed request: the work's transaction rolls back and the request is answered from that one. */
class KeyTaken extends Error {}

/** True for the error `claim` throws when a committed request already holds the key (nothing to undo but the transaction). */
export const isKeyTaken = (err: unknown): boolean => err instanceof KeyTaken;

type KeyRow = typeof idempotencyKeys.$inferSelect;

/**
 * `Idempotency-Key` handling: the first request with a key runs; the same key and body later gets the
 * same answer (kept for 24 hours) without running again; the same key with another body is a 422.
 * The key is stored in the work's own transaction (`claim`), so a request that failed, or was cut off
 * before its commit, leaves nothing behind and its retry runs; one cut off after its commit is answered
 * from what it wrote (`replay`). Two at once: the second waits on the first's uncommitted key (a unique
 * index), then rolls back and answers as the first did.
 */
export function idempotency(db: Db, clock: Clock) {
  const live = async (scope: string, key: string): Promise<KeyRow | null> => {
    const [row] = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), gt(idempotencyKeys.expiresAt, clock.now())));
    return row ?? null;
  };

  async function answer(row: KeyRow, requestHash: string, replay: ((ref: string) => Promise<Replayable>) | undefined): Promise<Replayable> {
    if (row.requestHash !== requestHash) {
      throw new HttpError(422, 'This Idempotency-Key was used with a different request body', 'idempotency_mismatch');
    }
    if (row.state === 'done') return { status: row.responseStatus ?? 200, body: row.responseBody };
    // Committed, its answer not stored yet (still on its way, or its process died): rebuilt from what it wrote.
    if (row.ref && replay) return { ...(await replay(row.ref)), status: row.responseStatus ?? 200 };
    throw conflict('A request with this Idempotency-Key is still being processed; retry shortly', 'idempotency_in_progress');
  }

  return {
    /**
     * Runs `fn` once per (scope, key); `fn` must call `claim` inside the transaction that writes its result.
     * Returns its answer, or the remembered one with `replayed`.
     */
    async run(
      scope: string,
      key: string | undefined,
      body: unknown,
      fn: (claim: ClaimKey) => Promise<Replayable>,
      replay?: (ref: string) => Promise<Replayable>,
    ): Promise<Replayable & { replayed: boolean }> {
      if (key === undefined) return { ...(await fn(async () => {})), replayed: false };
      if (!KEY.test(key)) throw invalidField('headers.idempotency-key', 'must be 1-255 characters of letters, digits and . _ : -');
      const requestHash = hashBody(body);
      const earlier = await live(scope, key);
      if (earlier) return { ...(await answer(earlier, requestHash, replay)), replayed: true };
      let claimed = false;
      const claim: ClaimKey = async (txDb, ref, status) => {
        const now = clock.now();
        const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
        const values = { scope, key, requestHash, state: 'running' as const, ref, responseStatus: status, responseBody: null, expiresAt };
        const rows = await txDb
          .insert(idempotencyKeys)
          .values(values)
          .onConflictDoUpdate({
            target: [idempotencyKeys.scope, idempotencyKeys.key],
            set: { ...values, createdAt: now },
            setWhere: lt(idempotencyKeys.expiresAt, now),
          })
          .returning({ key: idempotencyKeys.key });
        if (!rows.length) throw new KeyTaken();
        claimed = true;
      };
      let result: Replayable;
      try {
        result = await fn(claim);
      } catch (err) {
        if (!(err instanceof KeyTaken)) throw err;
        const first = await live(scope, key);
        if (!first) throw conflict('A request with this Idempotency-Key is still being processed; retry shortly', 'idempotency_in_progress');
        return { ...(await answer(first, requestHash, replay)), replayed: true };
      }
      const done = { state: 'done' as const, responseStatus: result.status, responseBody: result.body as object };
      try {
        if (claimed) await db.update(idempotencyKeys).set(done).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
        // A path that wrote nothing (nothing to claim in a transaction) remembers its answer now.
        else {
          const expiresAt = new Date(clock.now().getTime() + IDEMPOTENCY_TTL_MS);
          await db.insert(idempotencyKeys).values({ scope, key, requestHash, ...done, expiresAt }).onConflictDoNothing();
        }
      } catch {
        // The work is committed: answer it. A retry is answered from `ref` (`replay`) instead of the stored body.
      }
      return { ...result, replayed: false };
    },
  };
}

export type Idempotency = ReturnType<typeof idempotency>;

/** Sends an idempotent route's answer; a replay is marked with `idempotent-replayed: true`. */
export function sendIdempotent(reply: FastifyReply, result: Replayable & { replayed: boolean }) {
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(result.status).send(result.body);
}

/**
 * Claims `(scope, key)` once for `ttlMs` (a signed webhook's event id): true the first time, false while an
 * earlier claim lives. Atomic: one insert that also takes over an expired row, so concurrent callers of the
 * same key get exactly one true. Throws when the store cannot be reached (the caller decides).
 */
export async function claimOnce(db: Db, clock: Clock, scope: string, key: string, ttlMs: number = IDEMPOTENCY_TTL_MS): Promise<boolean> {
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + ttlMs);
  const rows = await db
    .insert(idempotencyKeys)
    .values({ scope, key, requestHash: '', state: 'done', expiresAt })
    .onConflictDoUpdate({
      target: [idempotencyKeys.scope, idempotencyKeys.key],
      set: { requestHash: '', state: 'done', responseStatus: null, responseBody: null, expiresAt, createdAt: now },
      setWhere: lt(idempotencyKeys.expiresAt, now),
    })
    .returning({ key: idempotencyKeys.key });
  return rows.length > 0;
}

/** Gives up a claim of `claimOnce` (the work it guarded failed before anything was written). */
export async function releaseClaim(db: Db, scope: string, key: string): Promise<void> {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
}

import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { and, eq, lt } from 'drizzle-orm';
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
 * `Idempotency-Key` handling: the first request with a key runs and its 2xx answer is kept for
 * 24 hours; the same key and body replays it without running again; the same key with another
 * body is a 422; a retry while the first is still running is a 409. A failed first attempt
 * releases the key so the client can retry.
 */
export function idempotency(db: Db, clock: Clock) {
  async function claim(scope: string, key: string, requestHash: string) {
    const now = clock.now();
    await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), lt(idempotencyKeys.expiresAt, now)));
    const inserted = await db
      .insert(idempotencyKeys)
      .values({ scope, key, requestHash, state: 'running', expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS) })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length) return null;
    const [row] = await db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
    if (!row) return claim(scope, key, requestHash);
    if (row.requestHash !== requestHash) {
      throw new HttpError(422, 'This Idempotency-Key was used with a different request body', 'idempotency_mismatch');
    }
    if (row.state === 'running') throw conflict('A request with this Idempotency-Key is still being processed; retry shortly', 'idempotency_in_progress');
    return { status: row.responseStatus ?? 200, body: row.responseBody } satisfies Replayable;
  }

  return {
    /** Runs `fn` once per (scope, key); returns its answer or the remembered one with `replayed`. */
    async run(scope: string, key: string | undefined, body: unknown, fn: () => Promise<Replayable>): Promise<Replayable & { replayed: boolean }> {
      if (key === undefined) return { ...(await fn()), replayed: false };
      if (!KEY.test(key)) throw invalidField('headers.idempotency-key', 'must be 1-255 characters of letters, digits and . _ : -');
      const requestHash = hashBody(body);
      const previous = await claim(scope, key, requestHash);
      if (previous) return { ...previous, replayed: true };
      try {
        const result = await fn();
        await db
          .update(idempotencyKeys)
          .set({ state: 'done', responseStatus: result.status, responseBody: result.body as object })
          .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
        return { ...result, replayed: false };
      } catch (err) {
        await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
        throw err;
      }
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

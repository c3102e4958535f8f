import { Type } from '@sinclair/typebox';
import { and, asc, eq, gt, lte, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/client.js';
import type { TenantDb, TenantTx } from '../db/scopes.js';
import { rateLimitHits } from '../db/schema/rate-limits.js';
import type { Clock } from './clock.js';

/** The 429 body of section 8 of the spec: exactly `{ statusCode: 429, message }`. */
export const RateLimited = Type.Object(
  { statusCode: Type.Literal(429), message: Type.String() },
  { description: 'Rate limit exceeded; wait Retry-After seconds' },
);

export interface RateLimitRule {
  /** Prefix of the counting key, e.g. `reservations:create`. */
  name: string;
  limit: number;
  windowMs: number;
  message?: string;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the oldest counted hit leaves the window. */
  resetAt: number;
  /** Seconds to wait before the next hit can be accepted (0 when allowed). */
  retryAfter: number;
}

/** Longest window a rule may use: older hits are pruned for every key. */
const MAX_WINDOW_MS = 3_600_000;
const PRUNE_EVERY_MS = 60_000;

/** Thrown by `within` when the key is over its limit: nothing was run, nothing counted. */
export class RateLimitExceeded extends Error {
  constructor(readonly result: RateLimitResult) {
    super('rate limit exceeded');
  }
}

/**
 * Rolling-window limiter whose counts live in PostgreSQL, so every API process shares them.
 * Only accepted hits are recorded; a key's hits are serialised by a transaction-scoped advisory lock,
 * so concurrent requests cannot both take the last slot.
 */
export function rateLimiter(db: Db, clock: Clock) {
  let lastPrune = 0;

  async function prune(now: number) {
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    await db.delete(rateLimitHits).where(lte(rateLimitHits.at, new Date(now - MAX_WINDOW_MS)));
  }

  /** Inside `tx`: locks the key, forgets hits out of the window, and records one hit if there is room. */
  async function take(tx: Db, key: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult> {
    if (windowMs > MAX_WINDOW_MS) throw new Error(`rate limit windows are at most ${MAX_WINDOW_MS} ms`);
    const since = new Date(now - windowMs);
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}))`);
    await tx.delete(rateLimitHits).where(and(eq(rateLimitHits.key, key), lte(rateLimitHits.at, since)));
    const hits = await tx
      .select({ at: rateLimitHits.at })
      .from(rateLimitHits)
      .where(and(eq(rateLimitHits.key, key), gt(rateLimitHits.at, since)))
      .orderBy(asc(rateLimitHits.at));
    const times = hits.map((h) => h.at.getTime());
    if (times.length >= limit) {
      // The hit whose expiry brings the count below the limit.
      const freeing = times[times.length - limit];
      return {
        allowed: false,
        limit,
        remaining: 0,
        resetAt: Math.ceil((times[0] + windowMs) / 1000),
        retryAfter: Math.max(1, Math.ceil((freeing + windowMs - now) / 1000)),
      };
    }
    await tx.insert(rateLimitHits).values({ key, at: new Date(now) });
    return {
      allowed: true,
      limit,
      remaining: limit - times.length - 1,
      resetAt: Math.ceil(((times[0] ?? now) + windowMs) / 1000),
      retryAfter: 0,
    };
  }

  return {
    /** Counts one hit for `key` now, if there is room. */
    async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
      const now = clock.now().getTime();
      const result = await db.transaction((tx) => take(tx, key, limit, windowMs, now));
      await prune(now).catch(() => {});
      return result;
    },

    /**
     * Counts one hit for `key` only if `fn` succeeds: the hit and `fn`'s writes commit together, in one
     * transaction of the tenant `t` (the hits table is shared, so a tenant transaction reaches it), and a
     * failure of `fn` rolls both back. Over the limit, `fn` is not run and `RateLimitExceeded` is thrown.
     * The key stays locked while `fn` runs, so keep `fn` short.
     */
    async within<T>(
      key: string,
      limit: number,
      windowMs: number,
      t: TenantDb,
      fn: (tx: TenantTx) => Promise<T>,
    ): Promise<{ value: T; result: RateLimitResult }> {
      const now = clock.now().getTime();
      const out = await t.run(async (tx) => {
        const result = await take(tx.db, key, limit, windowMs, now);
        if (!result.allowed) return { result };
        return { result, value: await fn(tx) };
      });
      await prune(now).catch(() => {});
      if (!('value' in out)) throw new RateLimitExceeded(out.result);
      return out as { value: T; result: RateLimitResult };
    },
  };
}

export type RateLimiter = ReturnType<typeof rateLimiter>;

/** The `X-RateLimit-*` headers of section 8 of the spec. */
export function setRateLimitHeaders(reply: FastifyReply, r: RateLimitResult) {
  reply.header('x-ratelimit-limit', String(r.limit));
  reply.header('x-ratelimit-remaining', String(r.remaining));
  reply.header('x-ratelimit-reset', String(r.resetAt));
}

/** The spec's 429: `Retry-After`, the `X-RateLimit-*` headers, and the body `{ statusCode: 429, message }`. */
export function sendRateLimited(reply: FastifyReply, r: RateLimitResult, message?: string) {
  setRateLimitHeaders(reply, r);
  reply.header('retry-after', String(r.retryAfter));
  return reply
    .code(429)
    .type('application/json; charset=utf-8')
    .send({ statusCode: 429, message: message ?? `Too many requests: try again in ${r.retryAfter} seconds` });
}

/**
 * An `onRequest` hook limiting a route per client IP (`req.ip`; set Fastify's `trustProxy`
 * when running behind a proxy). It runs before body validation, so malformed attempts count too.
 * Sends the `X-RateLimit-*` headers on every answer, and the spec's 429 when over the limit.
 */
export function limitPerIp(limiter: RateLimiter, rule: RateLimitRule) {
  return async function rateLimitByIp(req: FastifyRequest, reply: FastifyReply) {
    const r = await limiter.hit(`${rule.name}:${req.ip}`, rule.limit, rule.windowMs);
    setRateLimitHeaders(reply, r);
    if (!r.allowed) return sendRateLimited(reply, r, rule.message);
  };
}

/**
 * Runs `work`, giving it the tenant's handle whose transaction also counts one hit for `key`: only work
 * that succeeds (commits) uses up the budget, and a request refused along the way (a 400 for a slot in
 * the past, say) does not. Over the limit, answers the spec's 429 and returns null; otherwise sets the
 * `X-RateLimit-*` headers and returns the work's value.
 */
export async function countAccepted<T>(
  limiter: RateLimiter,
  reply: FastifyReply,
  key: string,
  rule: RateLimitRule,
  tenant: TenantDb,
  work: (counted: TenantDb) => Promise<T>,
): Promise<{ value: T } | null> {
  let counted: RateLimitResult | undefined;
  const handle: TenantDb = {
    tenantId: tenant.tenantId,
    run: async (fn) => {
      const out = await limiter.within(key, rule.limit, rule.windowMs, tenant, fn);
      counted = out.result;
      return out.value;
    },
  };
  try {
    const value = await work(handle);
    if (counted) setRateLimitHeaders(reply, counted);
    return { value };
  } catch (err) {
    if (!(err instanceof RateLimitExceeded)) throw err;
    sendRateLimited(reply, err.result, rule.message);
    return null;
  }
}

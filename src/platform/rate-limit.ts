import { Type } from '@sinclair/typebox';
import { and, asc, eq, gt, lte, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/client.js';
import type { TenantDb, TenantTx } from '../db/scopes.js';
import { rateLimitHits, rateLimitWindows } from '../db/schema/rate-limits.js';
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

  /** Inside `tx`: locks the key, forgets hits out of the window, and records one hit if there is room (unless `record` is false). */
  async function take(tx: Db, key: string, limit: number, windowMs: number, now: number, record = true): Promise<RateLimitResult> {
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
    if (record) await tx.insert(rateLimitHits).values({ key, at: new Date(now) });
    return {
      allowed: true,
      limit,
      remaining: limit - times.length - (record ? 1 : 0),
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

    /** Whether `key` has room for one more hit now, counting nothing (e.g. check before work, `hit` only when it fails). */
    async peek(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
      const now = clock.now().getTime();
      return db.transaction((tx) => take(tx, key, limit, windowMs, now, false));
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

/**
 * A rolling-window counter for hot paths (the public API): one row per key holding the accepted hits
 * per bucket of whole seconds (at most 60 buckets: 1 s for a minute's window), so a check is one statement whatever the
 * limit, serialised per key by the row lock of its upsert. Exact to one bucket: a hit leaves the window
 * at the end of its bucket's second. Rejected hits are not counted.
 *
 * A key found full is remembered in this process until its first bucket leaves the window: hits
 * cannot come back sooner in any process, so a client hammering past its limit costs no query.
 */
type Counts = { secs: number[]; counts: number[] };

export function rollingCounter(db: Db, clock: Clock) {
  const fullUntil = new Map<string, { until: number; limit: number; resetAt: number }>();
  // A prepared statement (planned once per connection): the check and the count of a hit, under the key's row lock.
  const w = sql.raw('"rate_limit_windows"');
  const [pKey, pBucket, pSince, pLimit] = (['key', 'bucket', 'since', 'limit'] as const).map((name) => sql.placeholder(name));
  const kept = sql`from unnest(${w}.secs, ${w}.counts) as x(s, n) where s > ${pSince}::bigint`;
  const hitStatement = db
    .insert(rateLimitWindows)
    .values({ key: sql`${pKey}::text`, secs: sql`array[${pBucket}::bigint]`, counts: sql`array[1]` })
    .onConflictDoUpdate({
      target: rateLimitWindows.key,
      set: {
        secs: sql`array(select s ${kept} and s <> ${pBucket}::bigint order by s) || ${pBucket}::bigint`,
        counts: sql`array(select n ${kept} and s <> ${pBucket}::bigint order by s) || (coalesce((select n ${kept} and s = ${pBucket}::bigint), 0) + 1)`,
      },
      setWhere: sql`(select coalesce(sum(n), 0) ${kept}) < ${pLimit}::int`,
    })
    .returning({ secs: rateLimitWindows.secs, counts: rateLimitWindows.counts })
    .prepare('rate_limit_hit');

  function verdict(secs: number[], counts: number[], limit: number, windowS: number, nowS: number, allowed: boolean): RateLimitResult {
    const pairs = secs.map((s, i) => [s, counts[i]] as const).sort((a, b) => a[0] - b[0]);
    const used = pairs.reduce((sum, [, n]) => sum + n, 0);
    const resetAt = pairs.length ? pairs[0][0] + windowS : nowS + windowS;
    let retryAfter = 0;
    if (!allowed) {
      // The bucket whose expiry brings the count below the limit.
      let left = used;
      for (const [s, n] of pairs) {
        left -= n;
        if (left < limit) {
          retryAfter = Math.max(1, s + windowS - nowS);
          break;
        }
      }
    }
    return { allowed, limit, remaining: allowed ? Math.max(0, limit - used) : 0, resetAt, retryAfter };
  }

  return {
    async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
      const now = clock.now().getTime();
      const known = fullUntil.get(key);
      if (known && known.until > now && known.limit === limit) {
        return { allowed: false, limit, remaining: 0, resetAt: known.resetAt, retryAfter: Math.max(1, Math.ceil((known.until - now) / 1000)) };
      }
      if (known) fullUntil.delete(key);
      // At most 60 buckets of whole seconds: a minute's window counts per second.
      const bucketS = Math.max(1, Math.ceil(windowMs / 60_000));
      const windowS = bucketS * Math.ceil(windowMs / 1000 / bucketS);
      const nowS = Math.floor(now / 1000);
      const bucket = nowS - (nowS % bucketS);
      const since = bucket + bucketS - windowS - 1;
      const written = (await hitStatement.execute({ key, bucket, since, limit }))[0];
      if (written) return verdict(written.secs.map(Number), written.counts.map(Number), limit, windowS, nowS, true);
      const current = rowsOf<Counts>(await db.execute<{ secs: number[]; counts: number[] }>(sql`
        select array(select s from unnest(secs, counts) as x(s, n) where s > ${since}) as secs,
               array(select n from unnest(secs, counts) as x(s, n) where s > ${since}) as counts
        from rate_limit_windows where key = ${key}`))[0] ?? { secs: [], counts: [] };
      const result = verdict(current.secs.map(Number), current.counts.map(Number), limit, windowS, nowS, false);
      if (fullUntil.size > 10_000) fullUntil.clear();
      fullUntil.set(key, { until: now + result.retryAfter * 1000, limit, resetAt: result.resetAt });
      return result;
    },
    /** Whether this process already knows `key` is full (no query): the hit it would count is refused. */
    knownFull(key: string): boolean {
      const known = fullUntil.get(key);
      return known !== undefined && known.until > clock.now().getTime();
    },
    /** Forgets what this process remembers of full keys (tests that move the clock back). */
    forget: () => fullUntil.clear(),
  };
}

export type RollingCounter = ReturnType<typeof rollingCounter>;

/** Rows of `db.execute` on either driver (node-postgres answers `{ rows }`, PGlite too). */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

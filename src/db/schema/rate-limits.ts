import { bigint, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';

/**
 * Accepted hits of rolling-window rate limits, shared by every API process.
 * Rows older than the longest window are pruned as keys are hit.
 */
export const rateLimitHits = pgTable(
  'rate_limit_hits',
  {
    key: text('key').notNull(),
    at: ts('at').notNull(),
  },
  (t) => [index('rate_limit_hits_key_at_idx').on(t.key, t.at)],
);

/**
 * Rolling-window counters in one row per key: accepted hits per time bucket (`secs[i]` is a bucket's
 * start in seconds, `counts[i]` its hits), only the buckets still inside the window. One statement
 * reads, checks and writes a key under its row lock (`platform/rate-limit.ts`, `rollingCounter`).
 */
export const rateLimitWindows = pgTable('rate_limit_windows', {
  key: text('key').primaryKey(),
  secs: bigint('secs', { mode: 'number' }).array().notNull(),
  counts: integer('counts').array().notNull(),
});

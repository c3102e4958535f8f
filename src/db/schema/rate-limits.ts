import { index, pgTable, text } from 'drizzle-orm/pg-core';
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

import { integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns.js';

/**
 * Responses remembered per `Idempotency-Key` for 24 hours. `scope` names the tenant and route,
 * so the same key on two routes or tenants never collides.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    /** `running`: committed with its work, the answer not stored yet; `done`: the answer is in `response_*`. */
    state: text('state', { enum: ['running', 'done'] }).notNull(),
    /** What the work wrote (an order's id): a lost answer is rebuilt from it. */
    ref: text('ref'),
    responseStatus: integer('response_status'),
    responseBody: jsonb('response_body'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
);

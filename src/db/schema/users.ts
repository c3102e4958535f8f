import { sql } from 'drizzle-orm';
import { boolean, char, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

export const MEMBER_ROLES = ['admin', 'staff', 'accountant', 'branch_manager'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A person who can log in. Users are global; tenants are reached through memberships. */
export const users = pgTable(
  'users',
  {
    id: id('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    passwordHash: text('password_hash').notNull(),
    isSuperadmin: boolean('is_superadmin').notNull().default(false),
    /** Raised whenever every session must end (password change, removal): access tokens carry it as `sv`. */
    sessionVersion: integer('session_version').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('users_email_key').on(t.email)],
);

export const memberships = pgTable(
  'memberships',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    userId: id('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: MEMBER_ROLES }).notNull(),
    /**
     * The name this tenant gave when it linked an existing account; null when the tenant created the
     * account. The tenant sees it instead of the account's own name, so linking tells nothing.
     */
    displayName: text('display_name'),
    assignedPdvIds: char('assigned_pdv_ids', { length: 24 }).array().notNull().default(sql`'{}'`),
    assignedBranchIds: char('assigned_branch_ids', { length: 24 }).array().notNull().default(sql`'{}'`),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

/** Opaque rotating refresh tokens, stored as SHA-256 hashes and grouped in families. */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: id('id').primaryKey(),
    userId: id('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    familyId: id('family_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    /** The user's session version when issued: a token issued before a password change is dead. */
    sessionVersion: integer('session_version').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    revokedAt: ts('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('refresh_tokens_hash_key').on(t.tokenHash), index('refresh_tokens_family_idx').on(t.familyId)],
);

/** Single-use password reset links: SHA-256 of the token, valid 30 minutes. */
export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    id: id('id').primaryKey(),
    userId: id('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('password_reset_tokens_hash_key').on(t.tokenHash), index('password_reset_tokens_user_idx').on(t.userId)],
);

export type UserRow = typeof users.$inferSelect;
export type MembershipRow = typeof memberships.$inferSelect;

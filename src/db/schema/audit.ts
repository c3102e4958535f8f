import { index, inet, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { id, ts } from './columns.js';
import { tenants } from './tenants.js';

/** The sensitive actions the audit log records (docs/decisions.md, "Audit log"). */
export const AUDIT_ACTIONS = [
  'auth.login',
  'auth.login_failed',
  'auth.password_changed',
  'auth.password_reset',
  'member.added',
  'member.invited',
  'member.removed',
  'member.role_changed',
  'member.password_set',
  'tenant.secrets_changed',
  'app.installed',
  'app.revoked',
  'period.closed',
  'period.reopened',
  'fiscal.cancelled',
  'payment.refunded',
  'order.discount_above_limit',
  'order.void_after_kitchen',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Columns both audit tables share: who did what to which record, from where. */
const eventColumns = () => ({
  id: id('id').primaryKey(),
  at: ts('at').notNull().defaultNow(),
  action: text('action', { enum: AUDIT_ACTIONS }).notNull(),
  /** Null when nobody is known (a failed login); no foreign key: the event outlives the account. */
  actorUserId: id('actor_user_id'),
  /** The actor's e-mail when the event was written (for a failed login: the e-mail tried). */
  actorLabel: text('actor_label'),
  targetType: text('target_type'),
  targetId: text('target_id'),
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  ip: inet('ip'),
});

/**
 * A tenant's audit log: append-only (the migration revokes UPDATE, DELETE and TRUNCATE from app_tenant),
 * under the tenant policy like every tenant table.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    ...eventColumns(),
  },
  (t) => [index('audit_events_tenant_at_idx').on(t.tenantId, t.at, t.id), index('audit_events_tenant_action_idx').on(t.tenantId, t.action, t.at)],
);

/** Events of no tenant (logins, a person's password): shared, append-only, read by the superadmin only. */
export const platformAuditEvents = pgTable('platform_audit_events', eventColumns(), (t) => [index('platform_audit_events_at_idx').on(t.at, t.id)]);

export type AuditEventRow = typeof auditEvents.$inferSelect;
export type PlatformAuditEventRow = typeof platformAuditEvents.$inferSelect;

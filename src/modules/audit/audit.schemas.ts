import { Type, type Static } from '@sinclair/typebox';
import { AUDIT_ACTIONS } from '../../db/schema/audit.js';
import { DateTimeInput, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/** The largest page of the audit routes. */
export const AUDIT_PAGE_MAX = 200;

const filters = {
  action: Type.Optional(StringEnum(AUDIT_ACTIONS)),
  actor: Type.Optional(Id),
  from: Type.Optional(DateTimeInput('events at or after')),
  to: Type.Optional(DateTimeInput('events before')),
  page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: AUDIT_PAGE_MAX, default: 50 }),
};

export const AuditQuery = Type.Object(filters, { additionalProperties: false });
export const PlatformAuditQuery = Type.Object(
  { ...filters, tenant: Type.Optional(Id) },
  { additionalProperties: false, description: 'without `tenant`: every tenant and the platform events (no tenant); with it: that tenant only' },
);
export type AuditFilter = Static<typeof AuditQuery> & { tenant?: string };

export const AuditEvent = Type.Object(
  {
    _id: Type.String(),
    tenant: Nullable(Type.String(), { description: 'null: a platform event (a login, a password)' }),
    at: Timestamp,
    action: StringEnum(AUDIT_ACTIONS),
    actor: Nullable(Type.String(), { description: 'the user id; null when unknown (a failed login)' }),
    actorLabel: Nullable(Type.String(), { description: 'the e-mail of the actor (of a failed login: the e-mail tried)' }),
    targetType: Nullable(Type.String()),
    targetId: Nullable(Type.String()),
    details: Type.Record(Type.String(), Type.Unknown()),
    ip: Nullable(Type.String()),
  },
  { description: 'AuditEvent' },
);
export type AuditEventView = Static<typeof AuditEvent>;

export const AuditPage = Type.Object({
  data: Type.Array(AuditEvent),
  total: Type.Integer({ description: 'events matching the filter' }),
  page: Type.Integer(),
  totalPages: Type.Integer(),
});
export type AuditPageView = Static<typeof AuditPage>;

import { and, count, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { auditEvents, platformAuditEvents, type AuditEventRow } from '../../db/schema/audit.js';
import type { AuditFilter } from './audit.schemas.js';

export type NewAuditEvent = typeof auditEvents.$inferInsert;
export type NewPlatformAuditEvent = typeof platformAuditEvents.$inferInsert;
/** An event of either table: a platform event has no tenant. */
export type AnyAuditEventRow = Omit<AuditEventRow, 'tenantId'> & { tenantId: string | null };

export const insertEvent = (db: Db, row: NewAuditEvent) => db.insert(auditEvents).values(row);
export const insertPlatformEvent = (db: Db, row: NewPlatformAuditEvent) => db.insert(platformAuditEvents).values(row);

function tenantConditions(tenantId: string, f: AuditFilter): SQL | undefined {
  return and(
    eq(auditEvents.tenantId, tenantId),
    f.action ? eq(auditEvents.action, f.action) : undefined,
    f.actor ? eq(auditEvents.actorUserId, f.actor) : undefined,
    f.from ? gte(auditEvents.at, new Date(f.from)) : undefined,
    f.to ? lt(auditEvents.at, new Date(f.to)) : undefined,
  );
}

/** One tenant's events, newest first, and how many match. */
export async function listTenantEvents(db: Db, tenantId: string, f: AuditFilter) {
  const where = tenantConditions(tenantId, f);
  const rows = await db
    .select()
    .from(auditEvents)
    .where(where)
    .orderBy(desc(auditEvents.at), desc(auditEvents.id))
    .limit(f.limit)
    .offset((f.page - 1) * f.limit);
  const [{ total }] = await db.select({ total: count() }).from(auditEvents).where(where);
  return { rows, total };
}

interface RawEvent {
  tenant_id: string | null;
  id: string;
  at: Date | string;
  action: AuditEventRow['action'];
  actor_user_id: string | null;
  actor_label: string | null;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown> | string;
  ip: string | null;
}

/** Every tenant's events and the platform's, newest first (run through the bypass `audit-operator`). */
export async function listAllEvents(db: Db, f: AuditFilter) {
  const conds: SQL[] = [];
  if (f.action) conds.push(sql`action = ${f.action}`);
  if (f.actor) conds.push(sql`actor_user_id = ${f.actor}`);
  if (f.from) conds.push(sql`at >= ${f.from}::timestamptz`);
  if (f.to) conds.push(sql`at < ${f.to}::timestamptz`);
  const where = conds.length ? sql`where ${sql.join(conds, sql` and `)}` : sql``;
  const events = sql`(select tenant_id, id, at, action, actor_user_id, actor_label, target_type, target_id, details, host(ip) as ip from audit_events
    union all
    select null::char(24), id, at, action, actor_user_id, actor_label, target_type, target_id, details, host(ip) from platform_audit_events) e`;
  const page = (await db.execute(
    sql`select * from ${events} ${where} order by at desc, id desc limit ${f.limit} offset ${(f.page - 1) * f.limit}`,
  )) as unknown as { rows: RawEvent[] };
  const counted = (await db.execute(sql`select count(*)::int as total from ${events} ${where}`)) as unknown as { rows: { total: number }[] };
  const rows: AnyAuditEventRow[] = page.rows.map((r) => ({
    tenantId: r.tenant_id,
    id: r.id,
    at: new Date(r.at),
    action: r.action,
    actorUserId: r.actor_user_id,
    actorLabel: r.actor_label,
    targetType: r.target_type,
    targetId: r.target_id,
    details: typeof r.details === 'string' ? (JSON.parse(r.details) as Record<string, unknown>) : r.details,
    ip: r.ip,
  }));
  return { rows, total: Number(counted.rows[0]?.total ?? 0) };
}

import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import type { AuditAction } from '../../db/schema/audit.js';
import type { TenantDb } from '../../db/scopes.js';
import type { Deps } from '../../platform/deps.js';
import * as q from './audit.queries.js';
import type { AuditEventView, AuditFilter, AuditPageView } from './audit.schemas.js';

/** One sensitive action: who (a user id, and a label: their e-mail), what, on which record, from where. */
export interface AuditEntry {
  action: AuditAction;
  actorId: string | null;
  actorLabel?: string | null;
  targetType?: string;
  targetId?: string;
  /** What changed, never a secret or a password (names of fields, old and new roles, amounts). */
  details?: Record<string, unknown>;
  ip?: string | null;
}

const toRow = (e: AuditEntry, at: Date) => ({
  id: newId(),
  at,
  action: e.action,
  actorUserId: e.actorId,
  actorLabel: e.actorLabel ?? null,
  targetType: e.targetType ?? null,
  targetId: e.targetId ?? null,
  details: e.details ?? {},
  ip: e.ip ?? null,
});

function toView(r: q.AnyAuditEventRow): AuditEventView {
  return {
    _id: r.id,
    tenant: r.tenantId,
    at: r.at.toISOString(),
    action: r.action,
    actor: r.actorUserId,
    actorLabel: r.actorLabel,
    targetType: r.targetType,
    targetId: r.targetId,
    details: r.details,
    ip: r.ip,
  };
}

const page = (f: AuditFilter, { rows, total }: { rows: q.AnyAuditEventRow[]; total: number }): AuditPageView => ({
  data: rows.map(toView),
  total,
  page: f.page,
  totalPages: Math.ceil(total / f.limit),
});

/**
 * The audit log (docs/decisions.md, "Audit log"): append-only, written by the services of the sensitive
 * actions inside their own transaction where they have one, so an action and its event commit together.
 */
export function auditService({ bypass, tenantDb, clock }: Deps) {
  return {
    /** A tenant's event; given the caller's `tx` (a TenantTx), written in that transaction. */
    record: (t: TenantDb, entry: AuditEntry) => t.run(async (tx) => void (await q.insertEvent(tx.db, { tenantId: tx.tenantId, ...toRow(entry, clock.now()) }))),

    /** An event of no tenant (a login, a person's password), on the shared handle or inside its transaction. */
    recordPlatform: async (db: Db, entry: AuditEntry) => void (await q.insertPlatformEvent(db, toRow(entry, clock.now()))),

    /** A tenant's events, newest first. */
    list: (t: TenantDb, f: AuditFilter) => t.run(async (tx) => page(f, await q.listTenantEvents(tx.db, tx.tenantId, f))),

    /** The superadmin's view: one tenant's events, or every tenant's and the platform's (the bypass `audit-operator`). */
    listAll: (f: AuditFilter): Promise<AuditPageView> => {
      const { tenant } = f;
      if (tenant) return tenantDb(tenant).run(async (tx) => page(f, await q.listTenantEvents(tx.db, tx.tenantId, f)));
      return bypass('audit-operator', async (db) => page(f, await q.listAllEvents(db, f)));
    },
  };
}

export type AuditService = ReturnType<typeof auditService>;

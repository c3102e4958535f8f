import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { TenantDb } from '../../db/scopes.js';
import { memberships, users, type MemberRole } from '../../db/schema/users.js';

export interface Principal {
  id: string;
  email: string;
  name: string;
  isSuperadmin: boolean;
  /** Raised when every session of the user must end; access tokens carry the value they were issued with. */
  sessionVersion: number;
}

/**
 * An access token is current while the user's session version is the one it was issued with. The
 * version comes with the cached membership, so another process may accept an old token for up to
 * MEMBER_TTL_MS after a password change; this process refuses it at once (the change calls `forget`).
 */
export function tokenIsCurrent(claims: { sv: number }, principal: Principal): boolean {
  return claims.sv === principal.sessionVersion;
}

export interface Membership {
  role: MemberRole;
  assignedPdvIds: string[];
  assignedBranchIds: string[];
}

const principalColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  isSuperadmin: users.isSuperadmin,
  sessionVersion: users.sessionVersion,
};

export async function loadUser(db: Db, userId: string): Promise<Principal | null> {
  const [row] = await db.select(principalColumns).from(users).where(eq(users.id, userId));
  return row ?? null;
}

/** The user behind a token and their membership in the tenant: one indexed query. */
export async function loadMember(
  db: Db,
  userId: string,
  tenantId: string,
): Promise<{ principal: Principal; membership: Membership | null } | null> {
  const [row] = await db
    .select({
      ...principalColumns,
      role: memberships.role,
      assignedPdvIds: memberships.assignedPdvIds,
      assignedBranchIds: memberships.assignedBranchIds,
    })
    .from(users)
    .leftJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, tenantId)))
    .where(eq(users.id, userId));
  if (!row) return null;
  const { role, assignedPdvIds, assignedBranchIds, ...principal } = row;
  return {
    principal,
    membership: role ? { role, assignedPdvIds: assignedPdvIds ?? [], assignedBranchIds: assignedBranchIds ?? [] } : null,
  };
}

/** How long another process may keep a membership it read (a demotion, removal or password change there waits this long). */
export const MEMBER_TTL_MS = 2_000;

export type MemberLookup = NonNullable<Awaited<ReturnType<typeof loadMember>>>;

/**
 * Per-process cache of (user, tenant) -> user and membership, so the guard chain does not cost a
 * database round trip on every request. Writes in this process call `forget` and take effect at
 * once; other processes see them within two seconds.
 */
export function memberCache(tenantDb: (tenantId: string) => TenantDb) {
  const cache = new Map<string, { value: MemberLookup | null; until: number }>();
  const listeners: ((userId: string) => void)[] = [];
  return {
    async get(userId: string, tenantId: string): Promise<MemberLookup | null> {
      const key = `${userId}:${tenantId}`;
      const now = Date.now();
      const hit = cache.get(key);
      if (hit && hit.until > now) return hit.value;
      const value = await tenantDb(tenantId).run((tx) => loadMember(tx.db, userId, tenantId));
      if (cache.size > 50_000) cache.clear();
      cache.set(key, { value, until: now + MEMBER_TTL_MS });
      return value;
    },
    /** Drops every cached membership of a user (any change to the user or their memberships). */
    forget(userId: string) {
      for (const key of cache.keys()) if (key.startsWith(`${userId}:`)) cache.delete(key);
      for (const listener of listeners) listener(userId);
    },
    /** Called with the user id on every `forget` (the realtime layer re-checks that user's sockets). */
    onForget(listener: (userId: string) => void) {
      listeners.push(listener);
    },
    clear: () => cache.clear(),
  };
}

export type MemberCache = ReturnType<typeof memberCache>;

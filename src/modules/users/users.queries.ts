import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { memberships, users, type MemberRole } from '../../db/schema/users.js';

export const memberColumns = {
  id: users.id,
  email: users.email,
  // What this tenant knows of the person: the name it gave, and when it added them (see displayName).
  name: sql<string>`coalesce(${memberships.displayName}, ${users.name})`,
  createdAt: memberships.createdAt,
  role: memberships.role,
  assignedPdvIds: memberships.assignedPdvIds,
  assignedBranchIds: memberships.assignedBranchIds,
};

export type MemberRow = {
  id: string;
  email: string;
  name: string;
  createdAt: Date;
  role: MemberRole;
  assignedPdvIds: string[];
  assignedBranchIds: string[];
};

/** One page of the members, oldest first (the id breaks ties), and the number of members. */
export async function listMembers(db: Db, tenantId: string, page: { offset: number; limit: number }): Promise<{ rows: MemberRow[]; total: number }> {
  const rows = await db
    .select(memberColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.tenantId, tenantId))
    .orderBy(asc(memberships.createdAt), asc(users.id))
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(memberships).where(eq(memberships.tenantId, tenantId));
  return { rows, total: total!.n };
}

export async function findMember(db: Db, tenantId: string, userId: string): Promise<MemberRow | null> {
  const [row] = await db
    .select(memberColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)));
  return row ?? null;
}

export async function findUserByEmail(db: Db, email: string) {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  return row ?? null;
}

export async function findUserById(db: Db, id: string) {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row ?? null;
}

export async function insertUser(db: Db, row: typeof users.$inferInsert) {
  await db.insert(users).values(row);
}

export async function updateUser(db: Db, id: string, patch: Partial<typeof users.$inferInsert>) {
  await db.update(users).set({ ...patch, updatedAt: sql`now()` }).where(eq(users.id, id));
}

/**
 * Ends every session of a user: raises the session version (access and refresh tokens issued before are
 * refused; the auth module also revokes the refresh tokens), optionally setting a new password in the same
 * statement. Returns the new session version, or null when there is no such user (or `onlyIfHash` no longer matches).
 */
export async function endSessions(db: Db, userId: string, opts: { passwordHash?: string; onlyIfHash?: string } = {}) {
  const [row] = await db
    .update(users)
    .set({
      sessionVersion: sql`${users.sessionVersion} + 1`,
      updatedAt: sql`now()`,
      ...(opts.passwordHash ? { passwordHash: opts.passwordHash } : {}),
    })
    .where(and(eq(users.id, userId), opts.onlyIfHash ? eq(users.passwordHash, opts.onlyIfHash) : undefined))
    .returning({ sessionVersion: users.sessionVersion });
  return row?.sessionVersion ?? null;
}

export async function deleteUser(db: Db, id: string) {
  await db.delete(users).where(eq(users.id, id));
}

export async function insertMembership(db: Db, row: typeof memberships.$inferInsert) {
  await db.insert(memberships).values(row);
}

export async function updateMembership(
  db: Db,
  tenantId: string,
  userId: string,
  patch: Partial<Pick<typeof memberships.$inferInsert, 'role' | 'assignedPdvIds' | 'assignedBranchIds' | 'displayName'>>,
) {
  await db.update(memberships).set(patch).where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)));
}

export async function deleteMembership(db: Db, tenantId: string, userId: string) {
  await db.delete(memberships).where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)));
}

export async function countMemberships(db: Db, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(memberships).where(eq(memberships.userId, userId));
  return Number(row?.n ?? 0);
}

export async function countAdmins(db: Db, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.role, 'admin')));
  return Number(row?.n ?? 0);
}

/**
 * Serialises membership changes of one tenant until the transaction ends (the last-admin rule needs it):
 * an advisory lock keyed by the tenant, so this module does not lock the tenants module's rows.
 */
export async function lockTenantMembers(tx: Db, tenantId: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`memberships:${tenantId}`}))`);
}

/** The tenants a user belongs to, with their role in each. */
export function membershipsOfUser(db: Db, userId: string): Promise<{ tenantId: string; role: MemberRole }[]> {
  return db.select({ tenantId: memberships.tenantId, role: memberships.role }).from(memberships).where(eq(memberships.userId, userId));
}

export async function countSuperadmins(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users).where(eq(users.isSuperadmin, true));
  return Number(row?.n ?? 0);
}

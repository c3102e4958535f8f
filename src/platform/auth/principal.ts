import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { memberships, users, type MemberRole } from '../../db/schema/users.js';

export interface Principal {
  id: string;
  email: string;
  name: string;
  isSuperadmin: boolean;
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

/** Who may open a tenant's kitchen display: a member with a kitchen role (the API's kitchen room roles). */
import type { Session } from '../shared/session.js';

export const KITCHEN_ROLES = ['admin', 'branch_manager', 'staff'] as const;

/** Why a logged-in user cannot use this tenant's kitchen display. */
export type AccessProblem = 'notMember' | 'wrongRole' | 'inactiveTenant';
export type Access = { ok: true; tenantId: string; userName: string } | { ok: false; problem: AccessProblem };

/** Whether the user may open this tenant's kitchen display, and the tenant id the socket join needs. */
export async function kitchenAccess(session: Session, slug: string): Promise<Access> {
  const me = await session.me();
  const membership = me.tenants.find((t) => t.slug === slug);
  if (!membership) return { ok: false, problem: 'notMember' };
  if (!membership.isActive) return { ok: false, problem: 'inactiveTenant' };
  if (!(KITCHEN_ROLES as readonly string[]).includes(membership.role)) return { ok: false, problem: 'wrongRole' };
  return { ok: true, tenantId: membership._id, userName: me.user.name };
}

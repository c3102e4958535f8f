import { newId } from '../../db/ids.js';
import { hashPassword } from '../../platform/auth/passwords.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Deps } from '../../platform/deps.js';
import { conflict, forbidden, isUniqueViolation, notFound } from '../../platform/errors.js';
import * as q from './users.queries.js';
import type { CreateUserInput, UpdateUserInput, UserView } from './users.schemas.js';

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function toUserView(m: q.MemberRow): UserView {
  return {
    _id: m.id,
    email: m.email,
    name: m.name,
    role: m.role,
    assignedPdvIds: m.assignedPdvIds,
    assignedBranchIds: m.assignedBranchIds,
    createdAt: m.createdAt.toISOString(),
  };
}

const emailTaken = () => conflict('A user with this email already exists', 'email_taken');
const lastAdmin = () => conflict('The tenant must keep at least one admin', 'last_admin');

/** What users need of the branches module: that assignments name this tenant's PDVs and branches. */
export interface AssignmentChecker {
  checkAssignments(tenantId: string, input: { assignedPdvIds?: string[]; assignedBranchIds?: string[] }): Promise<void>;
}

export function usersService({ db, config, members }: Deps, branches: AssignmentChecker) {
  async function member(tenantId: string, userId: string) {
    const m = await q.findMember(db, tenantId, userId);
    if (!m) throw notFound('User');
    return m;
  }

  return {
    async list(ctx: TenantCtx) {
      return (await q.listMembers(db, ctx.tenantId)).map(toUserView);
    },

    /**
     * Creates a user in the tenant. An email already registered is a 409, except for a
     * superadmin, who links the existing account to this tenant (its password is kept).
     */
    async create(ctx: TenantCtx, input: CreateUserInput): Promise<UserView> {
      await branches.checkAssignments(ctx.tenantId, input);
      const email = normalizeEmail(input.email);
      const passwordHash = await hashPassword(input.password, config.bcryptCost);
      try {
        await db.transaction(async (tx) => {
          const existing = await q.findUserByEmail(tx, email);
          let userId: string;
          if (existing) {
            if (ctx.role !== 'superadmin' || (await q.findMember(tx, ctx.tenantId, existing.id))) throw emailTaken();
            userId = existing.id;
          } else {
            userId = newId();
            await q.insertUser(tx, { id: userId, email, name: input.name, passwordHash });
          }
          await q.insertMembership(tx, {
            tenantId: ctx.tenantId,
            userId,
            role: input.role,
            assignedPdvIds: input.assignedPdvIds ?? [],
            assignedBranchIds: input.assignedBranchIds ?? [],
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw emailTaken();
        throw err;
      }
      const created = await q.findUserByEmail(db, email);
      members.forget(created!.id);
      return toUserView(await member(ctx.tenantId, created!.id));
    },

    async update(ctx: TenantCtx, userId: string, input: UpdateUserInput): Promise<UserView> {
      await branches.checkAssignments(ctx.tenantId, input);
      try {
        await db.transaction(async (tx) => {
          await q.lockTenant(tx, ctx.tenantId);
          const current = await q.findMember(tx, ctx.tenantId, userId);
          if (!current) throw notFound('User');
          if (input.role && input.role !== 'admin' && current.role === 'admin' && (await q.countAdmins(tx, ctx.tenantId)) <= 1) {
            throw lastAdmin();
          }
          const identity: { email?: string; name?: string; passwordHash?: string } = {};
          if (input.name !== undefined) identity.name = input.name;
          if (input.email !== undefined && normalizeEmail(input.email) !== current.email) identity.email = normalizeEmail(input.email);
          if (input.password !== undefined) identity.passwordHash = await hashPassword(input.password, config.bcryptCost);
          // Email and password belong to the person, not the tenant: another tenant's admin must not change them.
          if ((identity.email || identity.passwordHash) && ctx.role !== 'superadmin' && userId !== ctx.user.id) {
            if ((await q.countMemberships(tx, userId)) > 1) {
              throw forbidden('This user also belongs to other tenants; only they or a superadmin can change their email or password');
            }
          }
          if (Object.keys(identity).length) await q.updateUser(tx, userId, identity);
          const membership = {
            ...(input.role !== undefined ? { role: input.role } : {}),
            ...(input.assignedPdvIds !== undefined ? { assignedPdvIds: input.assignedPdvIds } : {}),
            ...(input.assignedBranchIds !== undefined ? { assignedBranchIds: input.assignedBranchIds } : {}),
          };
          if (Object.keys(membership).length) await q.updateMembership(tx, ctx.tenantId, userId, membership);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw emailTaken();
        throw err;
      } finally {
        members.forget(userId);
      }
      return toUserView(await member(ctx.tenantId, userId));
    },

    /** Removes the membership; the user row goes only when no tenant is left. */
    async remove(ctx: TenantCtx, userId: string) {
      await db.transaction(async (tx) => {
        await q.lockTenant(tx, ctx.tenantId);
        const current = await q.findMember(tx, ctx.tenantId, userId);
        if (!current) throw notFound('User');
        if (current.role === 'admin' && (await q.countAdmins(tx, ctx.tenantId)) <= 1) throw lastAdmin();
        await q.deleteMembership(tx, ctx.tenantId, userId);
        const user = await q.findUserById(tx, userId);
        if (user && !user.isSuperadmin && (await q.countMemberships(tx, userId)) === 0) await q.deleteUser(tx, userId);
      });
      members.forget(userId);
      return { deleted: true };
    },

    findByEmail: (email: string) => q.findUserByEmail(db, normalizeEmail(email)),
    findById: (id: string) => q.findUserById(db, id),
    tenantsOf: (userId: string) => q.tenantsOfUser(db, userId),

    /** Creates a user with a membership, for the seed and the superadmin bootstrap. */
    async createAccount(input: { email: string; name: string; password: string; isSuperadmin?: boolean }) {
      const id = newId();
      await q.insertUser(db, {
        id,
        email: normalizeEmail(input.email),
        name: input.name,
        passwordHash: await hashPassword(input.password, config.bcryptCost),
        isSuperadmin: input.isSuperadmin ?? false,
      });
      return id;
    },
    addMember: async (
      tenantId: string,
      userId: string,
      role: q.MemberRow['role'],
      assigned: { assignedPdvIds?: string[]; assignedBranchIds?: string[] } = {},
    ) => {
      await q.insertMembership(db, { tenantId, userId, role, ...assigned });
      members.forget(userId);
    },
  };
}

export type UsersService = ReturnType<typeof usersService>;

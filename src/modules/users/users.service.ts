import { randomBytes } from 'node:crypto';
import { newId } from '../../db/ids.js';
import { hashPassword } from '../../platform/auth/passwords.js';
import type { Db } from '../../db/client.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Forbidden, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import { pageWindow } from '../../platform/pagination.js';
import type { AuditService } from '../audit/index.js';
import * as q from './users.queries.js';
import { USERS_PAGE, type CreateUserInput, type UpdateUserInput, type UserView } from './users.schemas.js';

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

const emailTaken = () => new Conflict('A user with this email already exists', 'email_taken');
const alreadyMember = () => new Conflict('A user with this email is already a member of this tenant', 'already_member');
const lastAdmin = () => new Conflict('The tenant must keep at least one admin', 'last_admin');
const superadminAccount = () => new Forbidden('A superadmin account can be changed only by a superadmin', 'superadmin_account');
const sharedAccount = () =>
  new Forbidden('This person also belongs to other tenants: only they or a superadmin can change their name, email or password', 'shared_account');

/** What users need of the branches module: that assignments name this tenant's PDVs and branches. */
export interface AssignmentChecker {
  checkAssignments(t: TenantDb, input: { assignedPdvIds?: string[]; assignedBranchIds?: string[] }): Promise<void>;
}

/** What users need of the tenants module: the tenants a person belongs to, in name order. */
export interface TenantDirectory {
  listByIds(ids: string[]): Promise<{ id: string; slug: string; name: string; isActive: boolean }[]>;
}

/** Told, inside the transaction, that every session of a user ended (the auth module revokes its refresh tokens). */
export type SessionsEndedListener = (tx: Db, userId: string, now: Date) => Promise<unknown>;

export function usersService({ db, bypass, config, clock, members }: Deps, branches: AssignmentChecker, tenants: TenantDirectory, audit: AuditService) {
  const actor = (ctx: TenantCtx) => ({ actorId: ctx.user.id, actorLabel: ctx.user.email, targetType: 'user' });
  const sessionsEnded: SessionsEndedListener[] = [];

  /** Raises the session version (optionally setting the password) and tells the listeners; the new version, or null. */
  async function endSessions(tx: Db, userId: string, opts: { passwordHash?: string; onlyIfHash?: string } = {}) {
    const version = await q.endSessions(tx, userId, opts);
    if (version !== null) for (const listener of sessionsEnded) await listener(tx, userId, clock.now());
    return version;
  }

  /** Inside a membership change: the tenant's members locked, this member and their account, or NotFound. */
  async function lockedMember(tx: TenantTx, userId: string) {
    await q.lockTenantMembers(tx.db, tx.tenantId);
    const current = await q.findMember(tx.db, tx.tenantId, userId);
    const target = current && (await q.findUserById(tx.db, userId));
    if (!current || !target) throw new NotFound('User');
    return { current, target };
  }

  const member = (t: TenantDb, userId: string) =>
    t.run(async (tx) => {
      const m = await q.findMember(tx.db, tx.tenantId, userId);
      if (!m) throw new NotFound('User');
      return m;
    });

  /** In how many tenants the person is a member (a read across tenants: the bypass `person-memberships`). */
  const membershipCount = (userId: string) => bypass('person-memberships', (tx) => q.countMemberships(tx, userId));

  /**
   * What a tenant admin may do to another person's account: nothing to a superadmin's, and only the
   * role and assignments in this tenant for someone who also belongs to another tenant (name, email
   * and password are the person's). A superadmin, and the person themself, may change everything.
   * `tenantsOfTarget` is read before the tenant's transaction (the bypass is a transaction of its own).
   */
  function checkMayChange(ctx: TenantCtx, target: { id: string; isSuperadmin: boolean }, changesAccount: boolean, tenantsOfTarget: number) {
    if (ctx.role === 'superadmin' || target.id === ctx.user.id) return;
    if (target.isSuperadmin) throw superadminAccount();
    if (changesAccount && tenantsOfTarget > 1) throw sharedAccount();
  }

  /**
   * After a membership is removed: a person left with no tenant loses the account, or, for a
   * superadmin (whose account stays), every session. One statement decides, across tenants.
   */
  const dropIfMemberOfNone = (userId: string) =>
    bypass('person-memberships', async (tx) => {
      if ((await q.countMemberships(tx, userId)) > 0) return;
      const user = await q.findUserById(tx, userId);
      if (user?.isSuperadmin) await endSessions(tx, userId);
      else if (user) await q.deleteUser(tx, userId);
    });

  return {
    /** One page of the tenant's users (USERS_PAGE) and the number of users. */
    listPage: (ctx: TenantCtx, query: { page?: number; limit?: number } = {}) =>
      ctx.db.run(async (tx) => {
        const { rows, total } = await q.listMembers(tx.db, tx.tenantId, pageWindow(query, USERS_PAGE));
        return { users: rows.map(toUserView), total };
      }),

    /** The first page of the tenant's users (the default: the maximum), as an array (the benchmark's list). */
    list: (ctx: TenantCtx) =>
      ctx.db.run(async (tx) => (await q.listMembers(tx.db, tx.tenantId, pageWindow({}, USERS_PAGE))).rows.map(toUserView)),

    /**
     * Adds a person to the tenant. A new email creates the account; an email that already has an
     * account links it (its name and password are kept, the given password is ignored) and answers the
     * same way, with the name given and the time of linking, so neither the answer nor the tenant's list
     * tells whether the email existed. Already a member here: a `Conflict`.
     */
    async create(ctx: TenantCtx, input: CreateUserInput): Promise<UserView> {
      await branches.checkAssignments(ctx.db, input);
      const email = normalizeEmail(input.email);
      // Hashed in both cases, so linking an existing account takes as long as creating one.
      const passwordHash = await hashPassword(input.password, config.bcryptCost, 'password');
      let userId: string | null = null;
      for (let attempt = 0; userId === null; attempt++) {
        try {
          userId = await ctx.db.run(async (tx) => {
            const existing = await q.findUserByEmail(tx.db, email);
            const id = existing?.id ?? newId();
            if (existing) {
              if (await q.findMember(tx.db, ctx.tenantId, id)) throw alreadyMember();
            } else {
              await q.insertUser(tx.db, { id, email, name: input.name, passwordHash });
            }
            await q.insertMembership(tx.db, {
              tenantId: ctx.tenantId,
              userId: id,
              role: input.role,
              assignedPdvIds: input.assignedPdvIds ?? [],
              assignedBranchIds: input.assignedBranchIds ?? [],
              // A linked account keeps its own name; this tenant sees the one it gave.
              displayName: existing ? input.name : null,
            });
            await audit.record(tx, { action: 'member.added', ...actor(ctx), targetId: id, details: { email, role: input.role } });
            return id;
          });
        } catch (err) {
          // The account was created by a concurrent request: try once more, as a link.
          if (attempt === 0 && isUniqueViolation(err, 'users_email_key')) continue;
          if (isUniqueViolation(err)) throw alreadyMember();
          throw err;
        }
      }
      members.forget(userId);
      return toUserView(await member(ctx.db, userId));
    },

    async update(ctx: TenantCtx, userId: string, input: UpdateUserInput): Promise<UserView> {
      await branches.checkAssignments(ctx.db, input);
      // Outside the transaction: bcrypt must not hold the tenant lock (or PGlite's one connection).
      const passwordHash = input.password !== undefined ? await hashPassword(input.password, config.bcryptCost, 'password') : undefined;
      // Read across tenants only when the person's own account (name, email, password) may change.
      const touchesAccount = input.name !== undefined || input.email !== undefined || passwordHash !== undefined;
      const tenantsOfTarget = touchesAccount ? await membershipCount(userId) : 0;
      try {
        await ctx.db.run(async (tx) => {
          const { current, target } = await lockedMember(tx, userId);
          const account: { email?: string; name?: string } = {};
          if (input.name !== undefined && input.name !== current.name) account.name = input.name;
          if (input.email !== undefined && normalizeEmail(input.email) !== current.email) account.email = normalizeEmail(input.email);
          // A superadmin's account is refused whatever the fields; an unchanged name or email is not a change.
          checkMayChange(ctx, target, Object.keys(account).length > 0 || passwordHash !== undefined, tenantsOfTarget);
          if (input.role && input.role !== 'admin' && current.role === 'admin' && (await q.countAdmins(tx.db, ctx.tenantId)) <= 1) {
            throw lastAdmin();
          }
          if (Object.keys(account).length) await q.updateUser(tx.db, userId, account);
          // A new password ends every session of the person (access and refresh tokens).
          if (passwordHash !== undefined) await endSessions(tx.db, userId, { passwordHash });
          const membership = {
            ...(input.role !== undefined ? { role: input.role } : {}),
            ...(input.assignedPdvIds !== undefined ? { assignedPdvIds: input.assignedPdvIds } : {}),
            ...(input.assignedBranchIds !== undefined ? { assignedBranchIds: input.assignedBranchIds } : {}),
            // The account's own name now stands for this tenant too.
            ...(account.name !== undefined ? { displayName: null } : {}),
          };
          if (Object.keys(membership).length) await q.updateMembership(tx.db, ctx.tenantId, userId, membership);
          if (input.role !== undefined && input.role !== current.role) {
            await audit.record(tx, { action: 'member.role_changed', ...actor(ctx), targetId: userId, details: { email: current.email, from: current.role, to: input.role } });
          }
          if (passwordHash !== undefined) await audit.record(tx, { action: 'member.password_set', ...actor(ctx), targetId: userId, details: { email: current.email } });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw emailTaken();
        throw err;
      } finally {
        members.forget(userId);
      }
      return toUserView(await member(ctx.db, userId));
    },

    /**
     * Removes the membership; the user row goes only when no tenant is left. A superadmin's row is
     * kept, and losing their last membership ends their sessions.
     */
    async remove(ctx: TenantCtx, userId: string) {
      try {
        await ctx.db.run(async (tx) => {
          const { current, target } = await lockedMember(tx, userId);
          checkMayChange(ctx, target, false, 0);
          if (current.role === 'admin' && (await q.countAdmins(tx.db, ctx.tenantId)) <= 1) throw lastAdmin();
          await q.deleteMembership(tx.db, ctx.tenantId, userId);
          await audit.record(tx, { action: 'member.removed', ...actor(ctx), targetId: userId, details: { email: current.email, role: current.role } });
        });
        await dropIfMemberOfNone(userId);
      } finally {
        members.forget(userId);
      }
      return { deleted: true };
    },

    /**
     * Sets a new password (already hashed) and ends every session in the same transaction; with
     * `onlyIfHash`, only if the password is still that one. The new session version, or null.
     */
    async setPassword(tx: Db, userId: string, passwordHash: string, onlyIfHash?: string) {
      return endSessions(tx, userId, { passwordHash, onlyIfHash });
    },

    /** The tenant's member `userId` (name, email, role, assignments), or null; in the caller's transaction when given its `tx`. */
    findMember: (t: TenantDb, userId: string): Promise<q.MemberRow | null> => t.run((tx) => q.findMember(tx.db, tx.tenantId, userId)),

    findByEmail: (email: string) => q.findUserByEmail(db, normalizeEmail(email)),
    findById: (id: string, exec: Db = db) => q.findUserById(exec, id),

    /** The tenants the user belongs to, by name, with their role in each. */
    async tenantsOf(userId: string) {
      const mine = await bypass('person-memberships', (tx) => q.membershipsOfUser(tx, userId));
      const roles = new Map(mine.map((m) => [m.tenantId, m.role]));
      const found = await tenants.listByIds([...roles.keys()]);
      return found.map((t) => ({ ...t, role: roles.get(t.id)! }));
    },

    /** Whether the platform superadmin exists (the first start creates one). */
    hasSuperadmin: async () => (await q.countSuperadmins(db)) > 0,

    /** `listener` runs inside the transaction that ends a user's sessions (password set, superadmin's last membership removed). */
    onSessionsEnded(listener: SessionsEndedListener) {
      sessionsEnded.push(listener);
    },

    /**
     * Invites someone into the tenant with a role (the accountant portal's invite): an unknown email gets an
     * account without a usable password (the invitation link sets one), a known one is linked as `create`
     * does. Already a member here: a `Conflict`. `created` tells the caller which mail to send. Audited as
     * `member.invited` in the same transaction, with `invitedBy` (the route's caller) as the actor.
     */
    async invite(
      t: TenantDb,
      input: { email: string; name?: string; role: q.MemberRow['role']; invitedBy?: { id: string; email: string } },
    ): Promise<{ userId: string; email: string; created: boolean }> {
      const email = normalizeEmail(input.email);
      // Nobody knows this password: the account opens with the invitation link (a password reset token).
      const passwordHash = await hashPassword(randomBytes(32).toString('base64url'), config.bcryptCost, 'password');
      try {
        const out = await t.run(async (tx) => {
          const existing = await q.findUserByEmail(tx.db, email);
          const id = existing?.id ?? newId();
          if (existing && (await q.findMember(tx.db, tx.tenantId, id))) throw alreadyMember();
          if (!existing) await q.insertUser(tx.db, { id, email, name: input.name ?? email.split('@')[0], passwordHash });
          await q.insertMembership(tx.db, { tenantId: tx.tenantId, userId: id, role: input.role, displayName: existing ? (input.name ?? null) : null });
          // `newAccount`: the person sets a password through the mailed link; otherwise an existing account was linked.
          const by = input.invitedBy;
          await audit.record(tx, {
            action: 'member.invited',
            actorId: by?.id ?? null,
            actorLabel: by?.email ?? null,
            targetType: 'user',
            targetId: id,
            details: { email, role: input.role, newAccount: !existing },
          });
          return { userId: id, email, created: !existing };
        });
        members.forget(out.userId);
        return out;
      } catch (err) {
        if (isUniqueViolation(err)) throw alreadyMember();
        throw err;
      }
    },

    /** Creates a user with a membership, for the seed and the superadmin bootstrap. */
    async createAccount(input: { email: string; name: string; password: string; isSuperadmin?: boolean }) {
      const id = newId();
      await q.insertUser(db, {
        id,
        email: normalizeEmail(input.email),
        name: input.name,
        passwordHash: await hashPassword(input.password, config.bcryptCost, 'password'),
        isSuperadmin: input.isSuperadmin ?? false,
      });
      return id;
    },
    addMember: async (
      t: TenantDb,
      userId: string,
      role: q.MemberRow['role'],
      assigned: { assignedPdvIds?: string[]; assignedBranchIds?: string[] } = {},
    ) => {
      await t.run((tx) => q.insertMembership(tx.db, { tenantId: tx.tenantId, userId, role, ...assigned }));
      members.forget(userId);
    },
  };
}

export type UsersService = ReturnType<typeof usersService>;

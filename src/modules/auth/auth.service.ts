import { createHmac } from 'node:crypto';
import type { Db } from '../../db/client.js';
import type { TenantDb } from '../../db/scopes.js';
import { newId } from '../../db/ids.js';
import { ACCESS_TOKEN_SECONDS } from '../../platform/auth/jwt.js';
import { hashPassword, verifyPassword } from '../../platform/auth/passwords.js';
import { randomToken, sha256 } from '../../platform/crypto.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Invalid, InvalidRequest, Unauthenticated } from '../../platform/domain-errors.js';
import { rateLimiter, RateLimitExceeded, type RateLimitRule } from '../../platform/rate-limit.js';
import type { AuditService } from '../audit/index.js';
import { normalizeEmail, type UsersService } from '../users/index.js';
import { authJobs, type InvitationMail } from './auth.jobs.js';
import * as q from './auth.queries.js';
import type { ChangePasswordInput, LoginInput, ResetPasswordInput } from './auth.schemas.js';

export const REFRESH_TOKEN_DAYS = 30;
/**
 * A refresh token presented again within this time after it was spent (two tabs refreshing at once,
 * a retried request) gets the same new refresh token instead of revoking the family.
 */
export const REFRESH_REUSE_GRACE_MS = 10_000;
/** Password reset links are single use and valid this long. */
export const RESET_TOKEN_MINUTES = 30;
/** The queue of the job that looks the address up and mails the reset link, after `forgot` has answered. */
export const PASSWORD_RESET_MAIL_JOB = authJobs.resetMail.name;
/** Invitation links (a password reset token of a new account) are single use and valid this long. */
export const INVITATION_TOKEN_DAYS = 7;
/** The queue of the job that mails an invitation. */
export const INVITATION_MAIL_JOB = authJobs.invitationMail.name;

/**
 * Failed logins per account (the normalized e-mail, known or not), from any address: then 429 until the
 * oldest counted failure leaves the window. Only failures count; a throttled attempt runs no bcrypt.
 */
export const LOGIN_ACCOUNT_LIMIT: RateLimitRule = {
  name: 'auth:login:account',
  limit: 10,
  windowMs: 15 * 60_000,
  message: 'Too many failed logins for this e-mail; wait and try again',
};

const badCredentials = () => new Unauthenticated('Invalid email or password');
const badRefresh = () => new Unauthenticated('Invalid or expired refresh token');
const badResetToken = () => new InvalidRequest('This reset link is invalid, expired or already used', 'invalid_reset_token');
const wrongCurrentPassword = () =>
  new Invalid('currentPassword', 'is wrong', { code: 'invalid_current_password', summary: 'The current password is wrong' });

type SessionUser = { id: string; email: string; name: string; isSuperadmin: boolean; sessionVersion: number };

export function authService({ db, clock, jwt, config, log, jobs, mail, members }: Deps, users: UsersService, audit: AuditService) {
  // Compared against when the email is unknown, so both failures take the same time.
  const dummyHash = hashPassword(randomToken(16), config.bcryptCost);

  /**
   * The refresh token that replaces `token` on rotation. Derived (HMAC with the JWT key), not
   * stored: a repeat of the spent token within the grace gets the very same one back.
   */
  const successorOf = (token: string) => createHmac('sha256', config.jwtSecret).update(`refresh-successor:${token}`).digest('hex');

  // The shared rate-limit counts (the app's clock); the account's failed logins are counted here.
  const limiter = rateLimiter(db, clock);

  /** Throws `RateLimitExceeded` when `key` has its limit of failures in the window; counts nothing. */
  async function refuseIfThrottled(key: string) {
    const result = await limiter.peek(key, LOGIN_ACCOUNT_LIMIT.limit, LOGIN_ACCOUNT_LIMIT.windowMs);
    if (!result.allowed) throw new RateLimitExceeded(result);
  }

  async function pair(user: SessionUser, refreshToken: string) {
    return {
      accessToken: await jwt.sign(user.id, user.sessionVersion),
      refreshToken,
      expiresIn: ACCESS_TOKEN_SECONDS,
      user: { _id: user.id, email: user.email, name: user.name, isSuperadmin: user.isSuperadmin },
    };
  }

  async function storeRefreshToken(tx: Db, user: SessionUser, familyId: string, refreshToken: string) {
    await q.insertRefreshToken(tx, {
      id: newId(),
      userId: user.id,
      familyId,
      tokenHash: sha256(refreshToken),
      sessionVersion: user.sessionVersion,
      expiresAt: new Date(clock.now().getTime() + REFRESH_TOKEN_DAYS * 86_400_000),
    });
  }

  /** A new session (a new refresh-token family). */
  async function startSession(tx: Db, user: SessionUser) {
    const refreshToken = randomToken(32);
    await storeRefreshToken(tx, user, newId(), refreshToken);
    return pair(user, refreshToken);
  }

  // Refresh tokens are this module's: a password change or a lost superadmin membership (users) revokes them.
  users.onSessionsEnded((tx, userId, now) => q.revokeUserRefreshTokens(tx, userId, now));

  /** The `authJobs.resetMail` handler (registered by the module entry). */
  async function sendResetMail({ email }: { email: string }) {
    const user = await users.findByEmail(email);
    if (!user) return;
    const token = randomToken(32);
    await q.insertResetToken(db, {
      id: newId(),
      userId: user.id,
      tokenHash: sha256(token),
      expiresAt: new Date(clock.now().getTime() + RESET_TOKEN_MINUTES * 60_000),
    });
    // In the fragment: browsers send it neither to servers nor in Referer headers.
    const link = `${config.publicUrl.replace(/\/+$/, '')}/reset-password#token=${token}`;
    await mail.send({
      to: user.email,
      subject: 'Password reset',
      text:
        `Someone asked to reset the password of ${user.email}.\n\n` +
        `To choose a new password, open this link within ${RESET_TOKEN_MINUTES} minutes (it works once):\n${link}\n\n` +
        'If it was not you, ignore this message: your password stays as it is.\n',
    });
  }

  /** The `authJobs.invitationMail` handler: a new account gets a single-use link to choose its password. */
  async function sendInvitationMail({ userId, tenantName, role, created }: InvitationMail) {
    const user = await users.findById(userId);
    if (!user) return;
    const base = config.publicUrl.replace(/\/+$/, '');
    let access = `Log in with your email and password at ${base}/.\n`;
    if (created) {
      const token = randomToken(32);
      await q.insertResetToken(db, {
        id: newId(),
        userId: user.id,
        tokenHash: sha256(token),
        expiresAt: new Date(clock.now().getTime() + INVITATION_TOKEN_DAYS * 86_400_000),
      });
      access = `To choose your password, open this link within ${INVITATION_TOKEN_DAYS} days (it works once):\n${base}/reset-password#token=${token}\n`;
    }
    await mail.send({
      to: user.email,
      subject: `Invitation to ${tenantName}`,
      text: `You were invited to ${tenantName} as ${role}.\n\n${access}\nIf you did not expect this invitation, ignore this message.\n`,
    });
  }

  return {
    sendResetMail,
    sendInvitationMail,

    /**
     * Invites someone into a tenant with a role (through the users service) and queues the invitation mail;
     * `created` tells whether the account is new. 409 `already_member`. `invitedBy`: the caller, the audit event's actor.
     */
    async invite(
      t: TenantDb,
      input: { email: string; name?: string; role: 'accountant' | 'admin' | 'staff'; tenantName: string; invitedBy?: { id: string; email: string } },
    ) {
      const out = await users.invite(t, input);
      await jobs.send(authJobs.invitationMail, { userId: out.userId, tenantName: input.tenantName, role: input.role, created: out.created });
      return out;
    },

    /**
     * Logs in; the success (with the session) and a failure (the e-mail tried, never the password) are audited.
     * An e-mail with LOGIN_ACCOUNT_LIMIT failures in the window is refused first (`RateLimitExceeded`, not audited,
     * no bcrypt), known or not; a failure is counted after it is audited.
     */
    async login({ email, password }: LoginInput, ip?: string) {
      const accountKey = `${LOGIN_ACCOUNT_LIMIT.name}:${sha256(normalizeEmail(email))}`;
      await refuseIfThrottled(accountKey);
      const user = await users.findByEmail(email);
      const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash));
      if (!user || !ok) {
        const reason = user ? 'wrong_password' : 'unknown_email';
        await audit.recordPlatform(db, { action: 'auth.login_failed', actorId: user?.id ?? null, actorLabel: normalizeEmail(email), details: { reason }, ip });
        // Refused only when concurrent failures filled the window meanwhile: this guess was answered anyway.
        await limiter.hit(accountKey, LOGIN_ACCOUNT_LIMIT.limit, LOGIN_ACCOUNT_LIMIT.windowMs);
        throw badCredentials();
      }
      return db.transaction(async (tx) => {
        await audit.recordPlatform(tx, { action: 'auth.login', actorId: user.id, actorLabel: user.email, ip });
        return startSession(tx, user);
      });
    },

    /**
     * Rotates: the token is spent and a new pair returned in the same family. A repeat of the spent
     * token within REFRESH_REUSE_GRACE_MS gets the same new refresh token (and a fresh access token);
     * after that, a spent token is taken as stolen and revokes the whole family. Everything done to a
     * family is serialised by a lock, so no token rotated at the moment of a revocation stays live.
     */
    async refresh(refreshToken: string) {
      const hash = sha256(refreshToken);
      const known = await q.findRefreshToken(db, hash);
      if (!known) throw badRefresh();
      const now = clock.now();
      const outcome = await db.transaction(async (tx) => {
        await q.lockFamily(tx, known.familyId);
        const row = await q.findRefreshToken(tx, hash);
        const user = row && (await users.findById(row.userId, tx));
        // Revoked, expired, or issued before the password changed (the session version moved on).
        if (!row || !user || row.revokedAt || row.expiresAt <= now || row.sessionVersion !== user.sessionVersion) return null;
        const successor = successorOf(refreshToken);
        if (!row.usedAt) {
          await q.markRefreshTokenUsed(tx, row.id, now);
          await storeRefreshToken(tx, user, row.familyId, successor);
          return { kind: 'rotated' as const, user, successor };
        }
        if (now.getTime() - row.usedAt.getTime() <= REFRESH_REUSE_GRACE_MS) {
          const next = await q.findRefreshToken(tx, sha256(successor));
          const live = next && next.familyId === row.familyId && !next.usedAt && !next.revokedAt && next.expiresAt > now;
          // The successor already rotated on, or was revoked: refused, but nothing is revoked within the grace.
          return live ? { kind: 'rotated' as const, user, successor } : null;
        }
        await q.revokeFamily(tx, row.familyId, now);
        return { kind: 'reused' as const, row };
      });
      if (!outcome) throw badRefresh();
      if (outcome.kind === 'reused') {
        log.warn({ userId: outcome.row.userId, familyId: outcome.row.familyId }, 'refresh token reused after the grace: family revoked');
        throw badRefresh();
      }
      return pair(outcome.user, outcome.successor);
    },

    async logout(refreshToken: string) {
      const known = await q.findRefreshToken(db, sha256(refreshToken));
      if (!known) return;
      await db.transaction(async (tx) => {
        await q.lockFamily(tx, known.familyId);
        await q.revokeFamily(tx, known.familyId, clock.now());
      });
    },

    /**
     * The logged-in user changes their password: every session ends (refresh families revoked,
     * access tokens refused) and a new pair is returned so this device stays logged in.
     */
    async changePassword(userId: string, { currentPassword, newPassword }: ChangePasswordInput, ip?: string) {
      const user = await users.findById(userId);
      if (!user) throw new Unauthenticated();
      if (!(await verifyPassword(currentPassword, user.passwordHash))) throw wrongCurrentPassword();
      const passwordHash = await hashPassword(newPassword, config.bcryptCost, 'newPassword');
      try {
        const session = await db.transaction(async (tx) => {
          // Only if the password is still the one just checked (two changes at once: one wins).
          const sessionVersion = await users.setPassword(tx, userId, passwordHash, user.passwordHash);
          if (sessionVersion === null) return null;
          await audit.recordPlatform(tx, { action: 'auth.password_changed', actorId: userId, actorLabel: user.email, targetType: 'user', targetId: userId, ip });
          return startSession(tx, { ...user, sessionVersion });
        });
        if (!session) throw new Conflict('The password was changed at the same moment; log in again', 'password_changed');
        return session;
      } finally {
        members.forget(userId);
      }
    },

    /**
     * Queues the reset mail and returns at once: the answer is the same, and takes the same path,
     * whether or not the address has an account. The job looks the address up.
     */
    async forgotPassword(email: string) {
      await jobs.send(authJobs.resetMail, { email: normalizeEmail(email) });
    },

    /** Spends a reset link (once, also under concurrency), sets the password and ends every session. */
    async resetPassword({ token, newPassword }: ResetPasswordInput, ip?: string) {
      const hash = sha256(token);
      // A quick look first, so an unknown token costs no bcrypt.
      if (!(await q.findLiveResetToken(db, hash, clock.now()))) throw badResetToken();
      const passwordHash = await hashPassword(newPassword, config.bcryptCost, 'newPassword');
      const now = clock.now();
      const userId = await db.transaction(async (tx) => {
        const spent = await q.consumeResetToken(tx, hash, now);
        if (!spent) return null;
        await q.spendOtherResetTokens(tx, spent.userId, spent.id, now);
        if ((await users.setPassword(tx, spent.userId, passwordHash)) === null) return null;
        // The person is known by the link only: no actor label beyond their id.
        await audit.recordPlatform(tx, { action: 'auth.password_reset', actorId: spent.userId, targetType: 'user', targetId: spent.userId, ip });
        return spent.userId;
      });
      if (!userId) throw badResetToken();
      members.forget(userId);
    },

    async me(userId: string) {
      const user = await users.findById(userId);
      if (!user) throw new Unauthenticated();
      const tenants = await users.tenantsOf(userId);
      return {
        user: {
          _id: user.id,
          email: user.email,
          name: user.name,
          isSuperadmin: user.isSuperadmin,
          createdAt: user.createdAt.toISOString(),
        },
        tenants: tenants.map((t) => ({ _id: t.id, slug: t.slug, name: t.name, isActive: t.isActive, role: t.role })),
      };
    },
  };
}

export type AuthService = ReturnType<typeof authService>;

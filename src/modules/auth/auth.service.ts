import { newId } from '../../db/ids.js';
import { ACCESS_TOKEN_SECONDS } from '../../platform/auth/jwt.js';
import { hashPassword, verifyPassword } from '../../platform/auth/passwords.js';
import { randomToken, sha256 } from '../../platform/crypto.js';
import type { Deps } from '../../platform/deps.js';
import { unauthorized } from '../../platform/errors.js';
import type { UsersService } from '../users/users.service.js';
import * as q from './auth.queries.js';
import type { LoginInput } from './auth.schemas.js';

export const REFRESH_TOKEN_DAYS = 30;
const badCredentials = () => unauthorized('Invalid email or password');
const badRefresh = () => unauthorized('Invalid or expired refresh token');

export function authService({ db, clock, jwt, config, log }: Deps, users: UsersService) {
  // Compared against when the email is unknown, so both failures take the same time.
  const dummyHash = hashPassword(randomToken(16), config.bcryptCost);

  async function issue(user: { id: string; email: string; name: string; isSuperadmin: boolean; sessionVersion: number }, familyId: string) {
    const refreshToken = randomToken(32);
    const now = clock.now();
    await q.insertRefreshToken(db, {
      id: newId(),
      userId: user.id,
      familyId,
      tokenHash: sha256(refreshToken),
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_DAYS * 86_400_000),
    });
    return {
      accessToken: await jwt.sign(user.id, user.sessionVersion),
      refreshToken,
      expiresIn: ACCESS_TOKEN_SECONDS,
      user: { _id: user.id, email: user.email, name: user.name, isSuperadmin: user.isSuperadmin },
    };
  }

  return {
    async login({ email, password }: LoginInput) {
      const user = await users.findByEmail(email);
      const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash));
      if (!user || !ok) throw badCredentials();
      return issue(user, newId());
    },

    /** Rotates: the old token is spent; presenting a spent token again revokes its whole family. */
    async refresh(refreshToken: string) {
      const hash = sha256(refreshToken);
      const now = clock.now();
      const row = await q.consumeRefreshToken(db, hash, now);
      if (!row) {
        const known = await q.findRefreshToken(db, hash);
        if (known?.usedAt && !known.revokedAt) {
          log.warn({ userId: known.userId, familyId: known.familyId }, 'refresh token reused: family revoked');
          await q.revokeFamily(db, known.familyId, now);
        }
        throw badRefresh();
      }
      const user = await users.findById(row.userId);
      if (!user) throw badRefresh();
      return issue(user, row.familyId);
    },

    async logout(refreshToken: string) {
      const known = await q.findRefreshToken(db, sha256(refreshToken));
      if (known) await q.revokeFamily(db, known.familyId, clock.now());
    },

    async me(userId: string) {
      const user = await users.findById(userId);
      if (!user) throw unauthorized();
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

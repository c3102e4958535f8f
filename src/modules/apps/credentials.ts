import bcrypt from 'bcrypt';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { apiKeys } from '../../db/schema/apps.js';
import type { ApiAuthenticator, ApiCaller } from '../../platform/auth/api-credentials.js';
import { sha256 } from '../../platform/crypto.js';
import { HttpError, unauthorized } from '../../platform/errors.js';
import type { ModuleDeps } from '../../platform/module.js';
import type { UsersService } from '../users/index.js';
import { findByTokenLookup } from './installations.queries.js';
import { TOKEN_LOOKUP_LENGTH } from './installations.service.js';

/** How long a verified token skips bcrypt in this process (the installation's status is still read on every call). */
export const VERIFIED_TTL_MS = 5 * 60_000;
/** How long a token that failed bcrypt is refused without trying again. */
const REFUSED_TTL_MS = 60_000;
/** bcrypt comparisons at once in a process: a flood of near-valid tokens queues here instead of taking every thread. */
const MAX_CONCURRENT_BCRYPT = 2;
const CACHE_MAX = 20_000;

const TOKEN = /^[0-9a-f]{128}$/;
const KEY = /^[0-9a-f]{64}$/;

/**
 * The public API's credentials (spec section 5). An installation token is found by its first 16 hex
 * characters (a unique index, read through one SECURITY DEFINER function: the tenant is not known yet), and
 * its bcrypt hash is compared once: the verified token is remembered by its SHA-256 for a few minutes. Every
 * call still reads the installation's status (one indexed row), so a
 * revocation (the tenant's or the kill-switch) refuses the token on the next call in every process.
 * Legacy keys are SHA-256 stored, bound to a user, 30 days.
 */
export function credentials(deps: ModuleDeps, { users }: { users: UsersService }): ApiAuthenticator {
  const { db, clock, tenants } = deps;
  const verified = new Map<string, { installationId: string; until: number }>();
  const refused = new Map<string, number>();
  let running = 0;
  const waiting: (() => void)[] = [];

  async function compare(token: string, hash: string): Promise<boolean> {
    while (running >= MAX_CONCURRENT_BCRYPT) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await bcrypt.compare(token, hash);
    } finally {
      running--;
      waiting.shift()?.();
    }
  }

  function remember<V>(map: Map<string, V>, key: string, value: V) {
    if (map.size >= CACHE_MAX) map.clear();
    map.set(key, value);
  }

  async function tenantOf(tenantId: string) {
    const tenant = await tenants.byIdCached(tenantId);
    if (!tenant) return null;
    if (!tenant.isActive) throw new HttpError(403, 'This tenant is deactivated', 'tenant_inactive');
    return tenant;
  }

  return {
    async byToken(token) {
      if (!TOKEN.test(token)) return null;
      const row = await findByTokenLookup(db, token.slice(0, TOKEN_LOOKUP_LENGTH));
      const digest = sha256(token);
      if (!row || row.status !== 'active') {
        verified.delete(digest);
        return null;
      }
      const now = Date.now();
      const known = verified.get(digest);
      if (!known || known.installationId !== row.id || known.until <= now) {
        if ((refused.get(digest) ?? 0) > now) return null;
        if (!(await compare(token, row.accessTokenHash))) {
          remember(refused, digest, now + REFUSED_TTL_MS);
          return null;
        }
        remember(verified, digest, { installationId: row.id, until: now + VERIFIED_TTL_MS });
      }
      const tenant = await tenantOf(row.tenantId);
      if (!tenant) return null;
      return {
        kind: 'installation',
        credential: `installation:${row.id}`,
        tenant,
        user: { id: row.installedBy, email: '', name: 'App installation', isSuperadmin: false, sessionVersion: 0 },
        role: 'admin',
        scopes: row.scopes,
        installationId: row.id,
      } satisfies ApiCaller;
    },

    isVerified(token) {
      const known = TOKEN.test(token) ? verified.get(sha256(token)) : undefined;
      return known !== undefined && known.until > Date.now();
    },

    async byKey(key, tenantHeader) {
      if (!KEY.test(key)) return null;
      const [found] = await db
        .select({ id: apiKeys.id, userId: apiKeys.userId })
        .from(apiKeys)
        .where(and(eq(apiKeys.keyHash, sha256(key)), isNull(apiKeys.revokedAt), gt(apiKeys.expiresAt, clock.now())));
      if (!found) return null;
      const user = await users.findById(found.userId);
      if (!user) return null;
      const mine = await users.tenantsOf(found.userId);
      let chosen = mine[0];
      if (mine.length > 1) {
        if (!tenantHeader) throw new HttpError(400, 'This key\'s user belongs to several tenants: send x-tenant-id', 'tenant_required');
        chosen = mine.find((t) => t.id === tenantHeader)!;
        if (!chosen) throw unauthorized('x-tenant-id names a tenant this key\'s user does not belong to');
      }
      if (!chosen) return null;
      const tenant = await tenantOf(chosen.id);
      if (!tenant) return null;
      return {
        kind: 'api_key',
        credential: `key:${found.id}`,
        tenant,
        user: { id: user.id, email: user.email, name: user.name, isSuperadmin: user.isSuperadmin, sessionVersion: user.sessionVersion },
        role: chosen.role,
        scopes: null,
        installationId: null,
      } satisfies ApiCaller;
    },
  };
}

import { and, desc, eq, isNull } from 'drizzle-orm';
import { isId, newId } from '../../db/ids.js';
import { apiKeys } from '../../db/schema/apps.js';
import { randomToken, sha256 } from '../../platform/crypto.js';
import { Invalid, NotFound } from '../../platform/domain-errors.js';
import type { ModuleDeps } from '../../platform/module.js';
import type { UsersService } from '../users/index.js';

/** A legacy key lives 30 days from its creation (spec section 5). */
export const API_KEY_TTL_MS = 30 * 24 * 60 * 60_000;

/** A label says what the key is for (`POS bridge`), short. */
export const API_KEY_LABEL_MAX = 200;

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

/** A key as the operator sees it: never the key itself nor its hash. */
export interface ApiKeyView {
  id: string;
  userId: string;
  email: string;
  label: string;
  status: ApiKeyStatus;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * Legacy public API keys (`x-api-key`, spec section 5), minted by the operator's CLI only (no HTTP
 * route): 32 random bytes in hex, stored as SHA-256, bound to a user, 30 days. The key is returned once.
 */
export function apiKeysService(deps: ModuleDeps, { users }: { users: UsersService }) {
  const { db, clock } = deps;

  async function userByEmail(email: string) {
    const user = await users.findByEmail(email);
    if (!user) throw new NotFound('User', `No user with email ${email}`);
    return user;
  }

  function view(row: ApiKeyRow, email: string): ApiKeyView {
    const now = clock.now().getTime();
    const status: ApiKeyStatus = row.revokedAt ? 'revoked' : row.expiresAt.getTime() <= now ? 'expired' : 'active';
    return {
      id: row.id,
      userId: row.userId,
      email,
      label: row.label,
      status,
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
      revokedAt: row.revokedAt?.toISOString() ?? null,
    };
  }

  return {
    /** Mints a key for the user with this email; `key` is the only copy (64 hex characters). */
    async create(email: string, label = ''): Promise<{ key: string; apiKey: ApiKeyView }> {
      if (label.length > API_KEY_LABEL_MAX) throw new Invalid('label', `must be at most ${API_KEY_LABEL_MAX} characters`);
      const user = await userByEmail(email);
      const key = randomToken(32);
      const now = clock.now();
      const [row] = await db
        .insert(apiKeys)
        .values({ id: newId(), userId: user.id, keyHash: sha256(key), label, createdAt: now, expiresAt: new Date(now.getTime() + API_KEY_TTL_MS) })
        .returning();
      return { key, apiKey: view(row, user.email) };
    },

    /** The user's keys, newest first, whatever their status. */
    async list(email: string): Promise<ApiKeyView[]> {
      const user = await userByEmail(email);
      const rows = await db.select().from(apiKeys).where(eq(apiKeys.userId, user.id)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
      return rows.map((r) => view(r, user.email));
    },

    /** Revokes a key at once (the guard reads the key on every call); a repeat keeps the first `revokedAt`. */
    async revoke(keyId: string): Promise<ApiKeyView> {
      if (!isId(keyId)) throw new NotFound('API key');
      await db.update(apiKeys).set({ revokedAt: clock.now() }).where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)));
      const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
      if (!row) throw new NotFound('API key');
      const user = await users.findById(row.userId);
      return view(row, user?.email ?? '');
    },
  };
}

export type ApiKeysService = ReturnType<typeof apiKeysService>;

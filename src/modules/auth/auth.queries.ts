import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { refreshTokens } from '../../db/schema/users.js';

export async function insertRefreshToken(db: Db, row: typeof refreshTokens.$inferInsert) {
  await db.insert(refreshTokens).values(row);
}

/** Marks an unused, live token as used; returns it only to the one caller that won. */
export async function consumeRefreshToken(db: Db, tokenHash: string, now: Date) {
  const [row] = await db
    .update(refreshTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(refreshTokens.tokenHash, tokenHash),
        isNull(refreshTokens.usedAt),
        isNull(refreshTokens.revokedAt),
        gt(refreshTokens.expiresAt, now),
      ),
    )
    .returning();
  return row ?? null;
}

export async function findRefreshToken(db: Db, tokenHash: string) {
  const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash));
  return row ?? null;
}

export async function revokeFamily(db: Db, familyId: string, now: Date) {
  await db
    .update(refreshTokens)
    .set({ revokedAt: sql`coalesce(${refreshTokens.revokedAt}, ${now.toISOString()}::timestamptz)` })
    .where(eq(refreshTokens.familyId, familyId));
}

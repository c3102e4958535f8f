import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { passwordResetTokens, refreshTokens } from '../../db/schema/users.js';

export async function insertRefreshToken(db: Db, row: typeof refreshTokens.$inferInsert) {
  await db.insert(refreshTokens).values(row);
}

export async function findRefreshToken(db: Db, tokenHash: string) {
  const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash));
  return row ?? null;
}

/**
 * Serialises everything done to one refresh-token family (rotation, revocation) until the transaction
 * ends, so a revocation cannot miss a token rotated at the same moment.
 */
export async function lockFamily(tx: Db, familyId: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`refresh-family:${familyId}`}))`);
}

export async function markRefreshTokenUsed(tx: Db, id: string, now: Date) {
  await tx.update(refreshTokens).set({ usedAt: now }).where(eq(refreshTokens.id, id));
}

/** Revokes every live refresh token of a user (their sessions were ended: new password, lost access). */
export async function revokeUserRefreshTokens(db: Db, userId: string, now: Date) {
  await db
    .update(refreshTokens)
    .set({ revokedAt: now })
    .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)));
}

export async function revokeFamily(db: Db, familyId: string, now: Date) {
  await db
    .update(refreshTokens)
    .set({ revokedAt: sql`coalesce(${refreshTokens.revokedAt}, ${now.toISOString()}::timestamptz)` })
    .where(eq(refreshTokens.familyId, familyId));
}

export async function insertResetToken(db: Db, row: typeof passwordResetTokens.$inferInsert) {
  await db.insert(passwordResetTokens).values(row);
}

/** The reset token with this hash, if it is unused and unexpired. */
const liveResetToken = (tokenHash: string, now: Date) =>
  and(eq(passwordResetTokens.tokenHash, tokenHash), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, now));

/** An unused, unexpired reset token (read only: `consumeResetToken` spends it). */
export async function findLiveResetToken(db: Db, tokenHash: string, now: Date) {
  const [row] = await db
    .select({ id: passwordResetTokens.id, userId: passwordResetTokens.userId })
    .from(passwordResetTokens)
    .where(liveResetToken(tokenHash, now));
  return row ?? null;
}

/** Spends a live reset token; returns it only to the one caller that won (concurrent resets: one succeeds). */
export async function consumeResetToken(db: Db, tokenHash: string, now: Date) {
  const [row] = await db
    .update(passwordResetTokens)
    .set({ usedAt: now })
    .where(liveResetToken(tokenHash, now))
    .returning({ id: passwordResetTokens.id, userId: passwordResetTokens.userId });
  return row ?? null;
}

/** Spends the user's other outstanding reset links (after a reset, older links are void). */
export async function spendOtherResetTokens(db: Db, userId: string, keepId: string, now: Date) {
  await db
    .update(passwordResetTokens)
    .set({ usedAt: now })
    .where(and(eq(passwordResetTokens.userId, userId), isNull(passwordResetTokens.usedAt), ne(passwordResetTokens.id, keepId)));
}

import { Type } from '@sinclair/typebox';
import bcrypt from 'bcrypt';
import { Invalid } from '../domain-errors.js';

export const MIN_PASSWORD_LENGTH = 8;
/** bcrypt only reads the first 72 bytes; longer input would be silently truncated. */
export const MAX_PASSWORD_BYTES = 72;
/** A character is at least one byte, so the schema can refuse more than 72 characters before the byte check. */
export const MAX_PASSWORD_LENGTH = MAX_PASSWORD_BYTES;

/** Every field that sets a password: 8 characters to 72 bytes of UTF-8 (the bytes are checked by `hashPassword`). */
export const PasswordSchema = Type.String({
  minLength: MIN_PASSWORD_LENGTH,
  maxLength: MAX_PASSWORD_LENGTH,
  description: `${MIN_PASSWORD_LENGTH} characters to ${MAX_PASSWORD_BYTES} bytes of UTF-8 (bcrypt ignores anything longer)`,
});

/** Why a new password cannot be used, or null. The one check of every path that sets a password. */
export function passwordProblem(plain: string): string | null {
  if ([...plain].length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (Buffer.byteLength(plain, 'utf8') > MAX_PASSWORD_BYTES) return `must be at most ${MAX_PASSWORD_BYTES} bytes of UTF-8`;
  return null;
}

/**
 * Hashes a new password, refusing one bcrypt could not hold whole: an `Invalid` naming `field` of the
 * input (e.g. `newPassword`). Every password that is set goes through here.
 */
export function hashPassword(plain: string, cost: number, field = 'password'): Promise<string> {
  const problem = passwordProblem(plain);
  if (problem) return Promise.reject(new Invalid(field, problem));
  return bcrypt.hash(plain, cost);
}

export const verifyPassword = (plain: string, hash: string) => bcrypt.compare(plain, hash);

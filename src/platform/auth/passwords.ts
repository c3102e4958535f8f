import bcrypt from 'bcrypt';

export const MIN_PASSWORD_LENGTH = 8;
/** bcrypt only reads the first 72 bytes; longer input would be silently truncated. */
export const MAX_PASSWORD_LENGTH = 72;

export const hashPassword = (plain: string, cost: number) => bcrypt.hash(plain, cost);
export const verifyPassword = (plain: string, hash: string) => bcrypt.compare(plain, hash);

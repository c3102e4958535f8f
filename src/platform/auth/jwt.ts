import { SignJWT, jwtVerify, errors } from 'jose';
import type { Clock } from '../clock.js';

export const ACCESS_TOKEN_SECONDS = 15 * 60;

export interface AccessClaims {
  sub: string;
  /** Expiry, Unix seconds. */
  exp: number;
}

export function jwtSigner(secret: string, clock: Clock) {
  // Imported once: given raw bytes, jose would import the key again on every sign and verify.
  const keyPromise = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  return {
    async sign(userId: string): Promise<string> {
      const now = Math.floor(clock.now().getTime() / 1000);
      return new SignJWT({ typ: 'access' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(userId)
        .setIssuedAt(now)
        .setExpirationTime(now + ACCESS_TOKEN_SECONDS)
        .sign(await keyPromise);
    },
    /** The claims, or null when the token is malformed, forged or expired. */
    async verify(token: string): Promise<AccessClaims | null> {
      try {
        const { payload } = await jwtVerify(token, await keyPromise, { algorithms: ['HS256'], currentDate: clock.now() });
        if (payload.typ !== 'access' || typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return null;
        return { sub: payload.sub, exp: payload.exp };
      } catch (err) {
        if (err instanceof errors.JOSEError || err instanceof TypeError) return null;
        throw err;
      }
    },
  };
}

export type JwtSigner = ReturnType<typeof jwtSigner>;

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';

export const ACCESS_TOKEN_SECONDS = 15 * 60;

export interface AccessClaims {
  sub: string;
  /** Issued at and expiry, Unix seconds. */
  iat: number;
  exp: number;
  /** The user's session version when the token was issued (0 for tokens from before versions existed). */
  sv: number;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * Panel access tokens: compact JWS, HS256 only, with `sub`, `typ: access`, `iat`, `exp` and `sv`
 * (the user's session version: see `tokenIsCurrent` in principal.ts).
 * Signed and checked with node:crypto directly: every guarded request verifies one, and the
 * WebCrypto path (async, on the thread pool) cost a third of the guard chain's throughput.
 */
export function jwtSigner(secret: string, clock: Clock) {
  const mac = (data: string) => createHmac('sha256', secret).update(data).digest();
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

  return {
    /** `sessionVersion` is the user's current one: raising it in the database ends the token at once. */
    async sign(userId: string, sessionVersion = 0): Promise<string> {
      const iat = nowSeconds();
      const payload = Buffer.from(
        JSON.stringify({ typ: 'access', sub: userId, iat, exp: iat + ACCESS_TOKEN_SECONDS, sv: sessionVersion }),
      ).toString('base64url');
      return `${HEADER}.${payload}.${mac(`${HEADER}.${payload}`).toString('base64url')}`;
    },

    /** The claims, or null when the token is malformed, forged, of another algorithm or expired. */
    async verify(token: string): Promise<AccessClaims | null> {
      const parts = token.split('.');
      if (parts.length !== 3) return null;
      const [header, payload, signature] = parts;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(`${header}.${payload}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      let head: unknown;
      let claims: Record<string, unknown>;
      try {
        head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
        claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return null;
      }
      if ((head as { alg?: unknown } | null)?.alg !== 'HS256' || !claims || typeof claims !== 'object') return null;
      const { typ, sub, exp, iat, sv } = claims;
      if (typ !== 'access' || typeof sub !== 'string' || typeof exp !== 'number') return null;
      if (exp <= nowSeconds()) return null;
      return { sub, exp, iat: typeof iat === 'number' ? iat : 0, sv: typeof sv === 'number' ? sv : 0 };
    },
  };
}

export type JwtSigner = ReturnType<typeof jwtSigner>;

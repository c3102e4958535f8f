/**
 * provider_c authenticates each webhook with an RS256 JWT in `Authorization: Bearer <jwt>` (spec 4.14),
 * not an HMAC. The token, signed with one of the platform's RSA keys (header `kid`, public keys at its
 * JWKS URL), carries:
 *   iss          the platform (checked when the caller gives `issuer`)
 *   aud          the store the webhook is for (= the tenant's `merchantId`; checked when the caller gives `audience`)
 *   iat, exp     issued now, valid a few minutes (the simulator: 5); at most `maxTokenAgeSec` old (10 min)
 *   body_sha256  base64url (no padding) of the SHA-256 of the raw body: the token is bound to the exact
 *                bytes sent, so it cannot be replayed with another body (the idea of DPoP's `ath`)
 * Verification is over the raw body, before any JSON parsing; the hash is compared in constant time.
 */
import { createHash, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { safeEqual } from '../../platform/crypto.js';
import { systemClock, type Clock } from '../../platform/clock.js';
import type { FetchLike } from '../http.js';
import { ProviderCJwksCache } from './jwks.js';

export { ProviderCJwksCache, type JwksCacheOptions } from './jwks.js';

export const PROVIDER_C_SIGNATURE_HEADER = 'authorization';
export const PROVIDER_C_BODY_CLAIM = 'body_sha256';
export const PROVIDER_C_JWT_ALG = 'RS256';

export type ProviderCJwtFailure =
  | 'missing_jwks_url' // no JWKS URL configured: the route may accept as sandbox, with a warning
  | 'missing_header'
  | 'malformed'
  | 'bad_alg'
  | 'unknown_kid'
  | 'bad_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'too_old'
  | 'bad_audience'
  | 'bad_issuer'
  | 'body_mismatch'
  | 'jwks_unavailable'; // the keys could not be read: not the sender's fault (answer 503 so it retries)

export type ProviderCJwtCheck =
  | { valid: true; kid: string; claims: JWTPayload }
  | { valid: false; reason: ProviderCJwtFailure; message: string };

export interface VerifyProviderCJwtOptions {
  /** Keys cached across calls; default one cache per `fetch` function (module-wide). */
  cache?: ProviderCJwksCache;
  /** Used when no `cache` is given (tests and the in-process simulator: `injectFetch`). */
  fetch?: FetchLike;
  clock?: Clock;
  /** The store id the token must name in `aud` (the tenant's merchant id). */
  audience?: string;
  issuer?: string;
  clockToleranceSec?: number;
  maxTokenAgeSec?: number;
}

/** base64url SHA-256 of the raw body (the `body_sha256` claim). */
export const providerCBodyHash = (rawBody: string | Buffer): string => createHash('sha256').update(rawBody).digest('base64url');

export interface SignProviderCJwtInput {
  rawBody: string | Buffer;
  privateKey: KeyObject | CryptoKey;
  kid: string;
  issuer: string;
  audience: string;
  now?: Date;
  ttlSec?: number;
  /** Overrides of the claims (tests and the simulator's bad-signature webhooks). */
  claims?: Record<string, unknown>;
}

/** The JWT the platform puts in `Authorization: Bearer ...` for `rawBody` (the simulator signs with it). */
export function signProviderCJwt({ rawBody, privateKey, kid, issuer, audience, now = new Date(), ttlSec = 300, claims = {} }: SignProviderCJwtInput) {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ [PROVIDER_C_BODY_CLAIM]: providerCBodyHash(rawBody), ...claims })
    .setProtectedHeader({ alg: PROVIDER_C_JWT_ALG, kid, typ: 'JWT' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSec)
    .sign(privateKey);
}

const defaultCaches = new WeakMap<FetchLike, ProviderCJwksCache>();
const globalFetch: FetchLike = (input, init) => globalThis.fetch(input, init);

function cacheFor(opts: VerifyProviderCJwtOptions): ProviderCJwksCache {
  if (opts.cache) return opts.cache;
  const f = opts.fetch ?? globalFetch;
  let c = defaultCaches.get(f);
  if (!c) defaultCaches.set(f, (c = new ProviderCJwksCache({ fetch: f, clock: opts.clock })));
  return c;
}

const fail = (reason: ProviderCJwtFailure, message: string): ProviderCJwtCheck => ({ valid: false, reason, message });

/**
 * Checks the webhook's `Authorization: Bearer <jwt>` against the raw body and the keys at `jwksUrl`.
 * `missing_jwks_url` lets the route accept as sandbox with a warning; `jwks_unavailable` is ours to
 * retry (503); every other failure must be answered 401.
 */
export async function verifyProviderCJwt(
  rawBody: string | Buffer,
  authorizationHeader: string | string[] | undefined,
  jwksUrl: string | null | undefined,
  opts: VerifyProviderCJwtOptions = {},
): Promise<ProviderCJwtCheck> {
  if (!jwksUrl) return fail('missing_jwks_url', 'no JWKS URL configured for provider_c');
  const header = Array.isArray(authorizationHeader) ? (authorizationHeader.length === 1 ? authorizationHeader[0] : undefined) : authorizationHeader;
  if (!header || !header.trim()) return fail('missing_header', 'no Authorization header');
  const m = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\s*$/i.exec(header.trim());
  if (!m) return fail('malformed', 'Authorization is not "Bearer <jwt>"');
  const token = m[1];
  let kid: unknown;
  let alg: unknown;
  try {
    ({ kid, alg } = decodeProtectedHeader(token));
  } catch {
    return fail('malformed', 'the JWT header cannot be read');
  }
  if (alg !== PROVIDER_C_JWT_ALG) return fail('bad_alg', `alg ${JSON.stringify(alg)} is not RS256`);
  if (typeof kid !== 'string' || !kid) return fail('malformed', 'the JWT header has no kid');
  const found = await cacheFor(opts).key(jwksUrl, kid);
  if (!found.key) return fail(found.reason, found.message);
  const clock = opts.clock ?? systemClock;
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, found.key, {
      algorithms: [PROVIDER_C_JWT_ALG],
      audience: opts.audience,
      issuer: opts.issuer,
      currentDate: clock.now(),
      clockTolerance: opts.clockToleranceSec ?? 60,
      maxTokenAge: opts.maxTokenAgeSec ?? 600,
      requiredClaims: ['iat', 'exp', PROVIDER_C_BODY_CLAIM],
    }));
  } catch (err) {
    return fail(joseFailure(err), (err as Error).message);
  }
  const claimed = claims[PROVIDER_C_BODY_CLAIM];
  if (typeof claimed !== 'string' || !safeEqual(claimed, providerCBodyHash(rawBody))) {
    return fail('body_mismatch', `${PROVIDER_C_BODY_CLAIM} does not match the body received`);
  }
  return { valid: true, kid, claims };
}

function joseFailure(err: unknown): ProviderCJwtFailure {
  if (err instanceof errors.JWTExpired) return err.claim === 'iat' ? 'too_old' : 'expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return 'bad_audience';
    if (err.claim === 'iss') return 'bad_issuer';
    if (err.claim === 'iat' || err.claim === 'nbf') return 'not_yet_valid';
    return 'malformed';
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'bad_alg';
  return 'malformed';
}

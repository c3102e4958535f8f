import { checkHmacSignature, hmacSha256Hex, type SignatureCheck } from '../signature.js';

export type { SignatureCheck } from '../signature.js';

/** Header carrying the webhook signature (spec 4.14). Node lower-cases incoming header names. */
export const PROVIDER_A_SIGNATURE_HEADER = 'x-provider-a-hmac-sha256';

/** HMAC-SHA256 of the raw body keyed with the integration's webhook secret, lowercase hex (as iFood's `X-IFood-Signature`). */
export const signProviderAPayload = (rawBody: string | Buffer, secret: string): string => hmacSha256Hex(rawBody, secret);

/**
 * Checks `x-provider-a-hmac-sha256` against the raw body (the exact bytes received, before any JSON parsing),
 * in constant time. `missing_secret`: the integration has no webhook secret (the route accepts as sandbox with
 * a warning); every other failure must be answered 401 with nothing written.
 */
export const checkProviderASignature = (rawBody: string | Buffer, header: string | string[] | undefined, secret: string | undefined): SignatureCheck =>
  checkHmacSignature(rawBody, header, secret);

/** True only for a present, well-formed signature that matches the body under `secret`. */
export function verifyProviderASignature(rawBody: string | Buffer, header: string | string[] | undefined, secret: string): boolean {
  return checkProviderASignature(rawBody, header, secret).valid;
}

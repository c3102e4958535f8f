import { checkHmacSignature, hmacSha256Hex, type SignatureCheck } from '../signature.js';

export type { SignatureCheck } from '../signature.js';

/** Header carrying the webhook signature (spec 4.7). Node lower-cases incoming header names. */
export const GATEWAY_A_SIGNATURE_HEADER = 'X-GatewayA-Signature';

/** HMAC-SHA256 of the raw body keyed with the webhook secret, lowercase hex. */
export const signGatewayAPayload = (rawBody: string | Buffer, secret: string): string => hmacSha256Hex(rawBody, secret);

/**
 * Checks `X-GatewayA-Signature` against the raw body (the exact bytes received, before any JSON
 * parsing). The header is 64 hex characters, optionally prefixed `sha256=`; case does not matter.
 * The comparison is constant-time. `missing_secret` lets the caller apply spec 5.6 (skip the check
 * and log a warning when no secret is configured); every other failure must be answered 401.
 */
export const checkGatewayASignature = (rawBody: string | Buffer, header: string | string[] | undefined, secret: string | undefined): SignatureCheck =>
  checkHmacSignature(rawBody, header, secret);

/** True only for a present, well-formed signature that matches the body under `secret`. */
export function verifyGatewayASignature(rawBody: string | Buffer, header: string | string[] | undefined, secret: string): boolean {
  return checkGatewayASignature(rawBody, header, secret).valid;
}

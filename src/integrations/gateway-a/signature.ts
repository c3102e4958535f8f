import { createHmac } from 'node:crypto';
import { safeEqual } from '../../platform/crypto.js';

/** Header carrying the webhook signature (spec 4.7). Node lower-cases incoming header names. */
export const GATEWAY_A_SIGNATURE_HEADER = 'X-GatewayA-Signature';

/** HMAC-SHA256 of the raw body keyed with the webhook secret, lowercase hex. */
export function signGatewayAPayload(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

export type SignatureCheck =
  | { valid: true }
  | { valid: false; reason: 'missing_secret' | 'missing_header' | 'malformed' | 'mismatch' };

/**
 * Checks `X-GatewayA-Signature` against the raw body (the exact bytes received, before any JSON
 * parsing). The header is 64 hex characters, optionally prefixed `sha256=`; case does not matter.
 * The comparison is constant-time. `missing_secret` lets the caller apply spec 5.6 (skip the check
 * and log a warning when no secret is configured); every other failure must be answered 401.
 */
export function checkGatewayASignature(
  rawBody: string | Buffer,
  header: string | string[] | undefined,
  secret: string | undefined,
): SignatureCheck {
  if (!secret) return { valid: false, reason: 'missing_secret' };
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header;
  if (value === undefined || value.trim() === '') return { valid: false, reason: 'missing_header' };
  const provided = value.trim().replace(/^sha256=/i, '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(provided)) return { valid: false, reason: 'malformed' };
  return safeEqual(provided, signGatewayAPayload(rawBody, secret)) ? { valid: true } : { valid: false, reason: 'mismatch' };
}

/** True only for a present, well-formed signature that matches the body under `secret`. */
export function verifyGatewayASignature(rawBody: string | Buffer, header: string | string[] | undefined, secret: string): boolean {
  return checkGatewayASignature(rawBody, header, secret).valid;
}

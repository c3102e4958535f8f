/**
 * Webhook signatures shared by the integrations that sign their webhooks with a secret: HMAC-SHA256 of
 * the raw body (the exact bytes sent, before any JSON parsing), lowercase hex, in one header.
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../platform/crypto.js';

/** HMAC-SHA256 of the raw body keyed with the webhook secret, lowercase hex. */
export function hmacSha256Hex(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

export type SignatureCheck =
  | { valid: true }
  | { valid: false; reason: 'missing_secret' | 'missing_header' | 'malformed' | 'mismatch' };

/**
 * Checks a signature header against the raw body. The header is 64 hex characters, optionally prefixed
 * `sha256=`; case does not matter; a repeated header counts as missing. The comparison is constant-time.
 * `missing_secret` lets the caller accept with a warning when no secret is configured; every other
 * failure must be answered 401.
 */
export function checkHmacSignature(rawBody: string | Buffer, header: string | string[] | undefined, secret: string | undefined): SignatureCheck {
  if (!secret) return { valid: false, reason: 'missing_secret' };
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header;
  if (value === undefined || value.trim() === '') return { valid: false, reason: 'missing_header' };
  const provided = value.trim().replace(/^sha256=/i, '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(provided)) return { valid: false, reason: 'malformed' };
  return safeEqual(provided, hmacSha256Hex(rawBody, secret)) ? { valid: true } : { valid: false, reason: 'mismatch' };
}

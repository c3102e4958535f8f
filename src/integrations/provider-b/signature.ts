/**
 * provider_b's webhook signature, after the real platform's scheme: header `x-provider-b-signature:
 * t=<unix seconds>,sign=<hex>`, where `sign` is HMAC-SHA256, keyed with the webhook secret, of
 * `<t>.<raw body>` (the exact bytes received, before any JSON parsing), lowercase hex. The timestamp
 * makes a captured request useless after `toleranceSeconds` (default 5 minutes); within it, the
 * idempotency key deduplicates a replay. The comparison is constant-time.
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../../platform/crypto.js';

/** Header carrying the signature (spec 4.14). Node lower-cases incoming header names. */
export const PROVIDER_B_SIGNATURE_HEADER = 'x-provider-b-signature';

/** How old (or how far in the future) a signature's timestamp may be. */
export const PROVIDER_B_SIGNATURE_TOLERANCE_SECONDS = 300;

export type ProviderBSignatureCheck =
  | { valid: true }
  | { valid: false; reason: 'missing_secret' | 'missing_header' | 'malformed' | 'mismatch' | 'expired' };

const sign = (secret: string, t: string, rawBody: string | Buffer) =>
  createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');

/** The header value for `rawBody` signed at `at` (default now): `t=<unix seconds>,sign=<hex>`. */
export function signProviderBPayload(rawBody: string | Buffer, secret: string, at: Date = new Date()): string {
  const t = String(Math.floor(at.getTime() / 1000));
  return `t=${t},sign=${sign(secret, t, rawBody)}`;
}

/**
 * Checks the header against the raw body. `missing_secret` lets the route accept with a warning when no
 * secret is configured (sandbox); every other failure must be answered 401 with nothing written.
 */
export function checkProviderBSignature(
  rawBody: string | Buffer,
  header: string | string[] | undefined,
  secret: string | undefined,
  opts: { now?: Date; toleranceSeconds?: number } = {},
): ProviderBSignatureCheck {
  if (!secret) return { valid: false, reason: 'missing_secret' };
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header;
  if (value === undefined || value.trim() === '') return { valid: false, reason: 'missing_header' };
  const fields = new Map<string, string>();
  for (const part of value.split(',')) {
    const i = part.indexOf('=');
    if (i <= 0 || fields.has(part.slice(0, i).trim())) return { valid: false, reason: 'malformed' };
    fields.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  const t = fields.get('t') ?? '';
  const provided = (fields.get('sign') ?? '').toLowerCase();
  if (fields.size !== 2 || !/^\d{1,12}$/.test(t) || !/^[0-9a-f]{64}$/.test(provided)) return { valid: false, reason: 'malformed' };
  if (!safeEqual(provided, sign(secret, t, rawBody))) return { valid: false, reason: 'mismatch' };
  const now = (opts.now ?? new Date()).getTime() / 1000;
  const tolerance = opts.toleranceSeconds ?? PROVIDER_B_SIGNATURE_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(t)) > tolerance) return { valid: false, reason: 'expired' };
  return { valid: true };
}

/** True only for a present, well-formed, fresh signature that matches the body under `secret`. */
export const verifyProviderBSignature = (rawBody: string | Buffer, header: string | string[] | undefined, secret: string, now?: Date): boolean =>
  checkProviderBSignature(rawBody, header, secret, { now }).valid;

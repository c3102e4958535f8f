/**
 * Signature of the PSP's webhooks: HMAC-SHA256 of the raw body, lowercase hex, in `x-pix-psp-signature`,
 * keyed by the webhook secret we configure.
 *
 * DEVIATION from the Bacen API Pix: there, the PSP authenticates its webhook calls with mutual TLS (the
 * receiver checks the PSP's client certificate). The service runs behind a reverse proxy that terminates
 * TLS, so it never sees that certificate; the signature lets the webhook route authenticate the body
 * itself. A live PSP must be set up to sign (or a proxy that checks the mTLS certificate must sign for it).
 */
import { checkHmacSignature, hmacSha256Hex, type SignatureCheck } from '../signature.js';

export type { SignatureCheck } from '../signature.js';

/** Header carrying the signature (lower case, as Node hands incoming headers over). */
export const PIX_PSP_SIGNATURE_HEADER = 'x-pix-psp-signature';

/** HMAC-SHA256 of the raw body keyed with the webhook secret, lowercase hex. */
export const signPixPspPayload = (rawBody: string | Buffer, secret: string): string => hmacSha256Hex(rawBody, secret);

/**
 * Checks `x-pix-psp-signature` against the raw body (the exact bytes received, before JSON parsing), in
 * constant time; `sha256=` prefix and case allowed. `missing_secret`: no secret configured (accept with a
 * warning); any other failure must be answered 401.
 */
export const checkPixPspSignature = (rawBody: string | Buffer, header: string | string[] | undefined, secret: string | undefined): SignatureCheck =>
  checkHmacSignature(rawBody, header, secret);

/** True only for a present, well-formed signature that matches the body under `secret`. */
export const verifyPixPspSignature = (rawBody: string | Buffer, header: string | string[] | undefined, secret: string): boolean =>
  checkPixPspSignature(rawBody, header, secret).valid;

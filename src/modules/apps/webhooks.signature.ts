import { createHmac } from 'node:crypto';

/**
 * Signatures of the webhooks to Apps, the Standard Webhooks way (https://www.standardwebhooks.com):
 *
 *   webhook-id:        the event id (`evt_<24 hex>`), the same on every attempt
 *   webhook-timestamp: Unix seconds of this attempt
 *   webhook-signature: `v1,<base64 of HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`
 *
 * The key: an installation's signing secret is 32 random bytes, stored (encrypted) as 64 hex characters.
 * The HMAC key is those 32 RAW BYTES (the hex decoded), not the 64 ASCII characters. The App's publisher
 * receives the secret as `whsec_<base64 of the 32 bytes>`, the form Standard Webhooks libraries take
 * (`new Webhook('whsec_...')`), so any of them verifies our signatures unchanged.
 */

const SECRET_HEX = /^[0-9a-f]{64}$/;

/** The HMAC key of a stored secret (64 hex characters): its 32 bytes. */
export function signingKey(secretHex: string): Buffer {
  if (!SECRET_HEX.test(secretHex)) throw new Error('webhook signing secret: expected 64 hex characters');
  return Buffer.from(secretHex, 'hex');
}

/** The secret as the App's publisher gets it: `whsec_` and the base64 of the key bytes. */
export function toWhsec(secretHex: string): string {
  return `whsec_${signingKey(secretHex).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export function signWebhook(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The headers of one attempt. */
export function webhookHeaders(key: Buffer, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signWebhook(key, id, timestampSeconds, body),
  };
}

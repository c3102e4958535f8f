import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The receiving end of the service's webhooks, with its own verification (no library): Standard Webhooks
 * headers `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,<base64>` entries,
 * space separated), the signature being HMAC-SHA256 of `<id>.<timestamp>.<raw body>` keyed with the secret's
 * bytes. Bad or missing signatures and timestamps off by more than the tolerance get 401; a `webhook-id`
 * seen before gets 200 again without being handled twice (the service retries until it sees a 2xx).
 */

export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
const MAX_BODY_BYTES = 1024 * 1024;

/** The key bytes of a secret given as `whsec_<base64>` (what the operator hands over) or as 64 hex characters. */
export function secretKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) return Buffer.from(secret.slice('whsec_'.length), 'base64');
  if (/^[0-9a-f]{64}$/i.test(secret)) return Buffer.from(secret, 'hex');
  throw new Error('webhook secret: expected whsec_<base64> or 64 hex characters');
}

export type Verification = { ok: true; id: string } | { ok: false; reason: string };

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** Checks one webhook: headers present, timestamp within `toleranceSeconds` of `nowSeconds`, one `v1` signature matching. */
export function verifyWebhook(
  key: Buffer,
  headers: IncomingHttpHeaders,
  rawBody: string,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): Verification {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) return { ok: false, reason: 'missing webhook headers' };
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'bad timestamp' };
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return { ok: false, reason: 'timestamp outside the tolerance' };
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`, 'utf8').digest();
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, id };
  }
  return { ok: false, reason: 'no matching signature' };
}

/** A verified webhook as the App handles it. */
export interface WebhookEvent {
  id: string;
  type: string;
  timestamp: string;
  tenant: { _id: string; slug: string };
  data: { order: { _id: string; orderNumber: string; status: string; [k: string]: unknown }; previousStatus?: string };
}

export interface ReceiverOptions {
  /**
   * The signing secret (`whsec_<base64>` or 64 hex characters), or, for an App installed in several tenants
   * (one secret per installation), the secret of a tenant id (undefined: unknown tenant, refused).
   */
  secret: string | ((tenantId: string) => string | undefined);
  toleranceSeconds?: number;
  /** Current time in ms (tests move it). */
  now?: () => number;
  /** Called once per new event id, after verification; a throw answers 500 (the service retries). */
  onEvent?: (event: WebhookEvent) => void | Promise<void>;
}

export interface WebhookReceiver {
  server: Server;
  /** Verified events, in arrival order, once each. */
  readonly events: WebhookEvent[];
  /** Why requests were refused (401), in arrival order. */
  readonly rejected: string[];
  /** Ids seen again (answered 200, not handled). */
  readonly duplicates: string[];
  /** Every request that reached the path, as received (headers and raw body), verified or not. */
  readonly requests: Array<{ headers: IncomingHttpHeaders; body: string }>;
  /** Starts listening (port 0: any free port); answers the URL that receives webhooks. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

export function createWebhookReceiver(opts: ReceiverOptions): WebhookReceiver {
  const fixedKey = typeof opts.secret === 'string' ? secretKey(opts.secret) : null;
  const now = opts.now ?? Date.now;
  const seen = new Set<string>();
  const events: WebhookEvent[] = [];
  const rejected: string[] = [];
  const duplicates: string[] = [];
  const requests: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

  /** The key for this body: the fixed one, or the tenant's (the tenant id is read from the body only to pick the key). */
  const keyFor = (raw: string): Buffer | null => {
    if (fixedKey) return fixedKey;
    try {
      const tenantId: unknown = JSON.parse(raw)?.tenant?._id;
      const secret = typeof tenantId === 'string' && typeof opts.secret === 'function' ? opts.secret(tenantId) : undefined;
      return secret ? secretKey(secret) : null;
    } catch {
      return null;
    }
  };

  const server = createServer((req, res) => {
    const answer = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/webhooks') return answer(404, { error: 'not found' });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', async () => {
      // Verify the raw bytes, before any parsing.
      const raw = Buffer.concat(chunks).toString('utf8');
      requests.push({ headers: req.headers, body: raw });
      const key = keyFor(raw);
      const check = key ? verifyWebhook(key, req.headers, raw, Math.floor(now() / 1000), opts.toleranceSeconds) : { ok: false as const, reason: 'unknown tenant' };
      if (!check.ok) {
        rejected.push(check.reason);
        return answer(401, { error: check.reason });
      }
      if (seen.has(check.id)) {
        duplicates.push(check.id);
        return answer(200, { received: true, duplicate: true });
      }
      let event: WebhookEvent;
      try {
        event = JSON.parse(raw) as WebhookEvent;
      } catch {
        return answer(400, { error: 'body is not JSON' });
      }
      try {
        await opts.onEvent?.(event);
      } catch {
        return answer(500, { error: 'handler failed' });
      }
      seen.add(check.id);
      events.push(event);
      answer(200, { received: true });
    });
  });

  return {
    server,
    events,
    rejected,
    duplicates,
    requests,
    listen(port = 0, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const { address, port: bound } = server.address() as AddressInfo;
          resolve(`http://${address.includes(':') ? `[${address}]` : address}:${bound}/webhooks`);
        });
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

import type { FastifyInstance } from 'fastify';
import type { FetchLike } from '../http.js';

/** A webhook a simulator sends: where, with which headers (signature included) and the exact body. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** How a simulator sends a webhook; default an HTTP POST with fetch. In-process: through the app (`injectDeliverer`). */
export type WebhookDeliverer = (req: WebhookRequest) => Promise<{ status: number }>;

/** An HTTP POST with a 10 s deadline. */
export function fetchDeliverer(fetch: FetchLike = (input, init) => globalThis.fetch(input, init)): WebhookDeliverer {
  return async (req) => {
    const res = await fetch(req.url, { method: 'POST', headers: req.headers, body: req.body, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return { status: res.status };
  };
}

/** A webhook deliverer that hands the request to a Fastify app through `inject` (no socket): same route, same signature check. */
export function injectDeliverer(app: Pick<FastifyInstance, 'inject'>): WebhookDeliverer {
  return async (req) => {
    const url = new URL(req.url);
    const res = await app.inject({ method: 'POST', url: url.pathname + url.search, headers: req.headers, payload: req.body });
    return { status: res.statusCode };
  };
}

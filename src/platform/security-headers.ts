import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The public developer API (spec section 9): called by Apps' back ends and browsers on other origins. */
export const PUBLIC_API_PREFIX = '/public/v1/';

/** HSTS sent on answers to requests that arrived over HTTPS (180 days). */
export const HSTS = 'max-age=15552000';

export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, X-Api-Key, X-Tenant-Id, Idempotency-Key';
export const CORS_ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
/** Seconds a browser may cache a preflight answer. */
export const CORS_MAX_AGE_S = 600;
/** Answer headers a cross-origin script may read (pagination, rate limits, deprecations, request id). */
const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'Retry-After',
  'X-Total-Count',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Deprecation',
  'Sunset',
  'Link',
  'ETag',
  'Idempotent-Replayed',
  'X-Idempotency-Replayed',
].join(', ');

export interface SecurityHeadersOptions {
  /** Other origins allowed to call the rest of the API (CORS_ORIGINS); the public developer API allows any. */
  corsOrigins?: readonly string[];
}

function isPublicApi(url: string): boolean {
  return url.startsWith(PUBLIC_API_PREFIX);
}

function setIfAbsent(reply: FastifyReply, name: string, value: string) {
  if (!reply.hasHeader(name)) reply.header(name, value);
}

function addVaryOrigin(reply: FastifyReply) {
  const vary = reply.getHeader('vary');
  const current = Array.isArray(vary) ? vary.join(', ') : vary === undefined ? '' : String(vary);
  if (/(^|,)\s*(origin|\*)\s*(,|$)/i.test(current)) return;
  reply.header('vary', current ? `${current}, Origin` : 'Origin');
}

/**
 * Security headers on every answer and CORS (no package: the rules are few).
 * - `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` (a page's own policy is kept), `X-Frame-Options: DENY`
 *   on everything but HTML (pages carry CSP frame-ancestors), `Cross-Origin-Resource-Policy` same-origin (cross-origin on
 *   the public developer API), HSTS only when the request came over HTTPS (`req.protocol`: behind a trusted proxy, TRUST_PROXY).
 * - CORS: `/public/v1/*` allows any origin (`*`, no credentials) and answers preflights; the rest of the API sends no CORS
 *   headers unless the Origin is one of `corsOrigins`, which is echoed with `Vary: Origin` (no credentials: tokens travel in
 *   Authorization). A preflight from any other origin is left to the router (404: the browser refuses the call).
 */
export function installSecurityHeaders(app: FastifyInstance, opts: SecurityHeadersOptions = {}) {
  const allowed = new Set(opts.corsOrigins ?? []);

  /** The Access-Control-Allow-Origin value for this request, or null: no CORS headers. */
  const allowOrigin = (req: FastifyRequest): string | null => {
    if (isPublicApi(req.url)) return '*';
    const origin = req.headers.origin;
    return typeof origin === 'string' && allowed.has(origin) ? origin : null;
  };

  app.addHook('onRequest', async (req, reply) => {
    if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return;
    const origin = allowOrigin(req);
    if (!origin) return;
    reply
      .code(204)
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-methods', CORS_ALLOWED_METHODS)
      .header('access-control-allow-headers', CORS_ALLOWED_HEADERS)
      .header('access-control-max-age', String(CORS_MAX_AGE_S));
    if (origin !== '*') addVaryOrigin(reply);
    return reply.send();
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const publicApi = isPublicApi(req.url);
    setIfAbsent(reply, 'x-content-type-options', 'nosniff');
    setIfAbsent(reply, 'referrer-policy', 'no-referrer');
    const type = reply.getHeader('content-type');
    if (!(typeof type === 'string' && type.startsWith('text/html'))) setIfAbsent(reply, 'x-frame-options', 'DENY');
    setIfAbsent(reply, 'cross-origin-resource-policy', publicApi ? 'cross-origin' : 'same-origin');
    if (req.protocol === 'https') setIfAbsent(reply, 'strict-transport-security', HSTS);

    if (!reply.hasHeader('access-control-allow-origin')) {
      const origin = allowOrigin(req);
      if (origin) {
        reply.header('access-control-allow-origin', origin);
        reply.header('access-control-expose-headers', CORS_EXPOSED_HEADERS);
      }
      // Answers that depend on Origin say so, so a shared cache keeps them apart.
      if (!publicApi && allowed.size > 0) addVaryOrigin(reply);
    }
    return payload;
  });
}

/**
 * The browser pages (issue 19), built by Vite into `web/dist` (`npm run build`; `npm start` builds them when
 * missing or stale, see scripts/ensure-web.mjs) and served by the same process:
 *
 * - `GET /web/*`: the built files. Hashed assets (`/web/assets/`) are cached for a year (immutable);
 *   HTML is `no-cache`. Paths outside the dist dir are refused by @fastify/static (404/403).
 * - `GET /t/:slug/b/:pdvSlug/menu`: the customer menu page (`menu.html`); `?table=N` is read by the page.
 * - `GET /t/:slug/kitchen`: the kitchen display (`kitchen.html`).
 * - `GET /admin` and `/admin/*`: the restaurant's panel (`admin.html`), a one page app.
 *
 * The page routes are public (the pages call the API themselves), hidden from the OpenAPI document, and
 * registered outside the guarded scope, so they need no auth rule. Without a build they answer 503 with a
 * hint. Answers are compressed (br, gzip) when the browser accepts it.
 * Every HTML answer carries a Content-Security-Policy: scripts, styles and connections to the same
 * origin only (WebSocket included) plus the origins of `connectOrigins` (the wallet gateway's card
 * tokenization when it is not served by this process), `data:` images (the PIX QR code) and sounds (the kitchen cue).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCompress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface WebOptions {
  /** The built pages; default `web/dist` at the project root. Tests pass a temporary dir. */
  distDir?: string;
  /**
   * Other places the pages call from the browser (the wallet's card tokenization URL): an absolute URL adds its
   * origin to `connect-src`; a relative path is this origin already and adds nothing.
   */
  connectOrigins?: string[];
}

/** `web/dist` at the project root; `WEB_DIST_DIR` points elsewhere (a build of one's own, e.g. while several people test at once). */
export const DEFAULT_WEB_DIST = process.env.WEB_DIST_DIR || fileURLToPath(new URL('../../web/dist', import.meta.url));

const NOT_BUILT = 'Front end not built: run npm run build';
const HTML_CACHE = 'no-cache';
const ASSET_CACHE = 'public, max-age=31536000, immutable';
/** Vite's hashed output (`web/dist/assets/<name>-<hash>.js`): safe to cache for good. */
const ASSETS_DIR = /(^|[\\/])assets[\\/][^\\/]+$/;
/** A Host header usable in the CSP (host name or address, optional port); anything else is left out. */
const SAFE_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** The http(s) origins of the absolute URLs among `urls`, once each (relative paths and other schemes are left out). */
export function originsOf(urls: readonly string[]): string[] {
  const origins = new Set<string>();
  for (const url of urls) {
    if (!/^https?:\/\//i.test(url)) continue;
    try {
      origins.add(new URL(url).origin);
    } catch {
      // not a URL: nothing to allow
    }
  }
  return [...origins];
}

/**
 * The policy of the pages. `'self'` covers same-origin WebSocket in current browsers; the explicit ws/wss origin
 * covers the rest. `connect` are extra origins (from `originsOf`) the pages may call.
 */
export function contentSecurityPolicy(host: string | undefined, connect: readonly string[] = []): string {
  const sockets = host && SAFE_HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  const others = connect.map((o) => ` ${o}`).join('');
  return [
    `default-src 'self'`,
    `script-src 'self'`,
    `style-src 'self'`,
    `img-src 'self' data:`,
    `media-src 'self' data:`,
    `connect-src 'self'${sockets}${others}`,
    `object-src 'none'`,
    `base-uri 'self'`,
    `form-action 'self'`,
    `frame-ancestors 'none'`,
  ].join('; ');
}

function pageHeaders(reply: FastifyReply, req: FastifyRequest, connect: readonly string[]) {
  reply
    .header('cache-control', HTML_CACHE)
    .header('content-security-policy', contentSecurityPolicy(req.headers.host, connect))
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}

export async function webPages(app: FastifyInstance, opts: WebOptions = {}) {
  const dist = opts.distDir ?? DEFAULT_WEB_DIST;
  const connect = originsOf(opts.connectOrigins ?? []);
  // Pages and assets go out compressed (brotli or gzip, as the browser accepts): a phone on a slow network
  // loads the menu's first view in about 20 KB. Registered in this plugin's scope only: the API's answers
  // are not touched.
  await app.register(fastifyCompress, { global: true, threshold: 1024, encodings: ['br', 'gzip'] });

  await app.register(fastifyStatic, {
    root: dist,
    prefix: '/web/',
    decorateReply: false,
    index: false,
    // Our own Cache-Control per file kind, set below.
    cacheControl: false,
    etag: true,
    lastModified: true,
    // A dist dir that appears later (a build after start) is served without a restart.
    wildcard: true,
    schemaHide: true,
    setHeaders: (reply, path) => {
      if (path.endsWith('.html')) pageHeaders(reply, reply.request, connect);
      else reply.header('cache-control', ASSETS_DIR.test(path) ? ASSET_CACHE : HTML_CACHE);
    },
  });

  /** Sends `file` of the dist dir as a page, or 503 when the front end was not built. */
  const page = (file: string) => async (req: FastifyRequest, reply: FastifyReply) => {
    const path = join(dist, file);
    if (!existsSync(path)) {
      return reply.code(503).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(NOT_BUILT);
    }
    pageHeaders(reply, req, connect);
    return reply.type('text/html; charset=utf-8').send(await readFile(path));
  };

  const config = { auth: { public: true } };
  app.get('/t/:slug/b/:pdvSlug/menu', { schema: { hide: true }, config }, page('menu.html'));
  app.get('/t/:slug/kitchen', { schema: { hide: true }, config }, page('kitchen.html'));
  // The panel is one page app: every path under /admin is its page (it reads the path). The password
  // reset link of the mails has its own page (modules/auth/reset-page.ts).
  app.get('/admin', { schema: { hide: true }, config }, page('admin.html'));
  app.get('/admin/*', { schema: { hide: true }, config }, page('admin.html'));
}

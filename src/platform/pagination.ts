import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Pagination of array lists (issue 20, "pagination maximums on every list"). A list keeps the spec's plain
 * array body; the client asks `page` (from 1) and `limit` (1 to the list's maximum) and reads the number of
 * matching rows in `X-Total-Count`, and `Link: <…>; rel="next"` while there are more. Lists whose callers
 * expect every row default to their maximum, so a client sees truncation only past it (through the header).
 *
 *   export const SUPPLIERS_PAGE = pageLimits({ default: 500, maximum: 500, what: 'suppliers' });
 *   querystring: Type.Object({ ...pageQuery(SUPPLIERS_PAGE), q: ... })
 *   const window = pageWindow(req.query, SUPPLIERS_PAGE);           // { page, limit, offset }
 *   ... SQL: .orderBy(name, id).limit(window.limit).offset(window.offset), and a count(*) on the same filter
 *   return sendPage(req, reply, window, total, rows);
 */

/** Highest page number accepted (beyond it a list of any size is empty anyway). */
export const MAX_PAGE = 100_000;

export interface PageLimits {
  /** Rows a page when the client sends no `limit`. */
  default: number;
  /** Highest `limit` accepted; more is a 400. */
  maximum: number;
  /** What the rows are, for the parameters' descriptions ("suppliers"). */
  what: string;
}

export function pageLimits(limits: PageLimits): PageLimits {
  if (limits.default < 1 || limits.default > limits.maximum) throw new Error(`pagination of ${limits.what}: default outside 1..maximum`);
  return limits;
}

/** The `page` and `limit` query parameters of a list, to spread into its querystring schema. */
export function pageQuery(limits: PageLimits) {
  return {
    page: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: `page, from 1 (default 1); X-Total-Count gives the number of ${limits.what}` }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: limits.maximum, default: limits.default, description: `${limits.what} a page (default ${limits.default})` }),
    ),
  };
}

export interface PageWindow {
  page: number;
  limit: number;
  offset: number;
}

/** The rows a request asks for; a service called without a query (another module, a job) gets the first page. */
export function pageWindow(query: { page?: number; limit?: number } | undefined, limits: PageLimits): PageWindow {
  const page = Math.min(Math.max(1, Math.trunc(query?.page ?? 1)), MAX_PAGE);
  const limit = Math.min(Math.max(1, Math.trunc(query?.limit ?? limits.default)), limits.maximum);
  return { page, limit, offset: (page - 1) * limit };
}

/**
 * A page cut from rows already read and sorted (lists sorted with a locale collator in code, such as the menu's):
 * bounds the answer, not the read; the read is bounded by what the list is (a menu).
 */
export function slicePage<T>(rows: T[], window: PageWindow): { rows: T[]; total: number } {
  return { rows: rows.slice(window.offset, window.offset + window.limit), total: rows.length };
}

/** The link to the next page: the request's own path and query with `page` moved on. */
function nextLink(req: FastifyRequest, window: PageWindow): string {
  const url = new URL(req.url, 'http://x');
  url.searchParams.set('page', String(window.page + 1));
  url.searchParams.set('limit', String(window.limit));
  return `<${url.pathname}${url.search}>; rel="next"`;
}

/** Sets `X-Total-Count` (and `Link` rel="next" when rows remain past this page) and returns the page's rows. */
export function sendPage<T>(req: FastifyRequest, reply: FastifyReply, window: PageWindow, total: number, rows: T[]): T[] {
  reply.header('x-total-count', String(total));
  if (window.offset + rows.length < total && rows.length > 0) {
    // Keep a Link another hook set (a deprecation's successor): one header, comma-separated links.
    const before = reply.getHeader('link');
    reply.header('link', before ? `${String(before)}, ${nextLink(req, window)}` : nextLink(req, window));
  }
  return rows;
}

import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A serialized JSON body ready to send again, with its strong ETag. */
export interface CachedBody {
  version: number;
  etag: string;
  body: Buffer;
}

export const strongEtag = (body: Buffer | string) => `"${createHash('sha1').update(body).digest('base64url')}"`;

/**
 * `If-None-Match` against an ETag, with the weak comparison RFC 9110 asks for
 * (`W/` prefixes ignored) and `*` matching any current representation.
 */
export function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (!header) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return value.split(',').some((tag) => tag.trim().replace(/^W\//, '') === bare);
}

/**
 * Serialized bodies keyed by what was asked, each stamped with the data version it was built from.
 * The caller reads the current version from the database on every request, so an entry is only
 * ever served while nothing has been written since: there is no time-based staleness and no
 * cross-process invalidation to get wrong. Bounded; the oldest entries go first.
 */
export function versionedBodyCache({ maxEntries = 2000 } = {}) {
  const entries = new Map<string, CachedBody>();
  return {
    get(key: string, version: number): CachedBody | undefined {
      const hit = entries.get(key);
      if (!hit) return undefined;
      if (hit.version !== version) {
        entries.delete(key);
        return undefined;
      }
      return hit;
    },
    set(key: string, version: number, value: unknown): CachedBody {
      const body = Buffer.from(JSON.stringify(value));
      const entry = { version, etag: strongEtag(body), body };
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, entry);
      return entry;
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}

export type VersionedBodyCache = ReturnType<typeof versionedBodyCache>;

/**
 * Wraps a read (such as "current version of this tenant's menu") so that concurrent callers share
 * database round trips without ever getting an answer older than their call: a caller joins a read
 * only if that read starts after the call was made. While one read per key is in flight, every new
 * caller waits for the next one, which starts as soon as the current one ends. Under load this turns
 * N simultaneous lookups into at most two, and a value committed before a call is always seen by it.
 */
export function freshReadCoalescer<T>(read: (key: string) => Promise<T>) {
  const inFlight = new Map<string, Promise<T>>();
  const queued = new Map<string, Promise<T>>();

  function start(key: string): Promise<T> {
    const p = read(key).finally(() => {
      if (inFlight.get(key) === p) inFlight.delete(key);
    });
    inFlight.set(key, p);
    return p;
  }

  return (key: string): Promise<T> => {
    const running = inFlight.get(key);
    if (!running) return start(key);
    let next = queued.get(key);
    if (!next) {
      next = running.then(
        () => undefined,
        () => undefined,
      ).then(() => {
        queued.delete(key);
        return start(key);
      });
      queued.set(key, next);
    }
    return next;
  };
}

/** Response schema piece for the 304 of a conditional GET. */
export const NotModified = Type.Null({ description: 'Not modified: the ETag given in If-None-Match is current' });

/**
 * Sends a cached JSON body with `Cache-Control` and `ETag`, or a bodiless 304 when the
 * client already holds this representation.
 */
export function sendCached(req: FastifyRequest, reply: FastifyReply, entry: CachedBody, cacheControl: string) {
  reply.header('cache-control', cacheControl);
  reply.header('etag', entry.etag);
  if (etagMatches(req.headers['if-none-match'], entry.etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(entry.body);
}

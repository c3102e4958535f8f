/** Marks an error thrown while a pooled connection was being opened (the pool's connect failed). */
export const CONNECT_FAILED = Symbol.for('ro.db.connectFailed');

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const CONNECTION_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Cannot use a pool after calling end|PGlite is closed|connection error and is not queryable/;

/**
 * A database failure that is not the request's fault and should pass: `unavailable` (cannot connect,
 * connection lost, server shutting down: SQLSTATE class 08, 57P0x, 53300) or `timeout` (statement
 * timeout 57014, lock timeout 55P03), or `contention` (a deadlock 40P01 or a serialization failure 40001:
 * two requests took the same rows in opposite order; PostgreSQL rolled one back, which may simply be
 * sent again). Follows `cause` (drizzle wraps driver errors) and `errors`.
 */
export function databaseFailure(err: unknown, depth = 0): 'unavailable' | 'timeout' | 'contention' | null {
  if (!err || typeof err !== 'object' || depth > 8) return null;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; [CONNECT_FAILED]?: boolean };
  if (e[CONNECT_FAILED]) return 'unavailable';
  const code = typeof e.code === 'string' ? e.code : '';
  if (code === '57014' || code === '55P03') return 'timeout';
  if (code === '40P01' || code === '40001') return 'contention';
  if (/^08/.test(code) || /^57P0\d$/.test(code) || code === '53300' || NETWORK_CODES.has(code)) return 'unavailable';
  if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return 'unavailable';
  const nested = [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])];
  for (const n of nested) {
    const found = databaseFailure(n, depth + 1);
    if (found) return found;
  }
  return null;
}


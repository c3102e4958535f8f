import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance } from 'fastify';
import { CONNECT_FAILED } from '../db/client.js';
import { errorBody, HttpError } from './errors.js';
import { validationDetails } from './validation.js';

/** Seconds a client is told to wait (`Retry-After`) when the database is unavailable or timed out. */
export const DATABASE_RETRY_AFTER_S = 5;

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const CONNECTION_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Cannot use a pool after calling end|PGlite is closed/;

/**
 * A database failure that is not the request's fault and should pass: `unavailable` (cannot connect,
 * connection lost, server shutting down: SQLSTATE class 08, 57P0x, 53300) or `timeout` (statement
 * timeout 57014, lock timeout 55P03). Follows `cause` (drizzle wraps driver errors) and `errors`.
 */
export function databaseFailure(err: unknown, depth = 0): 'unavailable' | 'timeout' | null {
  if (!err || typeof err !== 'object' || depth > 8) return null;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; [CONNECT_FAILED]?: boolean };
  if (e[CONNECT_FAILED]) return 'unavailable';
  const code = typeof e.code === 'string' ? e.code : '';
  if (code === '57014' || code === '55P03') return 'timeout';
  if (/^08/.test(code) || /^57P0\d$/.test(code) || code === '53300' || NETWORK_CODES.has(code)) return 'unavailable';
  if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return 'unavailable';
  const nested = [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])];
  for (const n of nested) {
    const found = databaseFailure(n, depth + 1);
    if (found) return found;
  }
  return null;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request id accepted from `x-request-id` when it looks sane, else a fresh UUID. */
export function genReqId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** One error body for everything; client mistakes keep their 4xx, the rest is a 500 without internals. */
export function installErrorHandling(app: FastifyInstance) {
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody(404, `Route ${req.method} ${req.url.split('?')[0]} not found`, 'route_not_found'));
  });

  app.setErrorHandler((err: FastifyError | HttpError, req, reply) => {
    if (err instanceof HttpError) {
      if (err.headers) reply.headers(err.headers);
      return reply.code(err.statusCode).send(errorBody(err.statusCode, err.message, err.code, err.details));
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      const details = validationDetails(fe.validation, fe.validationContext);
      const message = details.map((d) => `${d.field} ${d.message}`).join('; ');
      return reply.code(400).send(errorBody(400, message, 'validation', details));
    }
    const status = fe.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const message = fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError ? 'Body is not valid JSON' : fe.message;
      return reply.code(status).send(errorBody(status, message, fe.code?.toLowerCase()));
    }
    const failure = databaseFailure(err);
    if (failure) {
      req.log.warn({ err }, failure === 'timeout' ? 'database statement timed out' : 'database unavailable');
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_S));
      return failure === 'timeout'
        ? reply.code(503).send(errorBody(503, 'The database took too long to answer; try again shortly', 'database_timeout'))
        : reply.code(503).send(errorBody(503, 'The database is unavailable; try again shortly', 'database_unavailable'));
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send(errorBody(500, `Internal error (request ${req.id})`, 'internal'));
  });
}

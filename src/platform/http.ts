import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyRequest, RawServerDefault } from 'fastify';
import { databaseFailure } from '../db/failures.js';
import {
  Conflict,
  Declined,
  DomainError,
  Forbidden,
  Invalid,
  InvalidRequest,
  NotFound,
  Rejected,
  Unauthenticated,
  Unavailable,
  type RequestPart,
} from './domain-errors.js';
import { errorBody, HttpError, type ErrorDetail } from './errors.js';
import { validationDetails } from './validation.js';

/**
 * What every module's routes function takes: a Fastify instance whose handlers get the types of `params`,
 * `querystring`, `body`, `headers` and of their answer from the route's TypeBox schemas (types only: the
 * validators stay the project's own, `platform/validation.ts`). Any Fastify instance can be passed as one.
 */
export type RouteApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse<IncomingMessage>, FastifyBaseLogger, TypeBoxTypeProvider>;

/** Seconds a client is told to wait (`Retry-After`) when the database is unavailable or timed out. */
export const DATABASE_RETRY_AFTER_S = 5;

export { databaseFailure };

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request id accepted from `x-request-id` when it looks sane, else a fresh UUID. */
export function genReqId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** The HTTP status of each domain error: the one place services' errors meet status codes. */
const DOMAIN_STATUS: [abstract new (...args: never[]) => DomainError, number][] = [
  [Invalid, 400],
  [InvalidRequest, 400],
  [Unauthenticated, 401],
  [Declined, 402],
  [Forbidden, 403],
  [NotFound, 404],
  [Conflict, 409],
  [Rejected, 422],
  [Unavailable, 503],
];

/** The part of the request a route's input fields are in by default: its body, else its query string, else its path. */
export function defaultPart(req: Pick<FastifyRequest, 'routeOptions'>): RequestPart {
  const schema = req.routeOptions?.schema;
  if (schema?.body) return 'body';
  if (schema?.querystring) return 'querystring';
  if (schema?.params) return 'params';
  return 'body';
}

/**
 * A domain error as an HTTP answer: its status, and its fields as request paths (`Invalid('items.0.quantity')`
 * on a route with a body -> `body.items.0.quantity`).
 */
export function domainErrorResponse(err: DomainError, part: RequestPart) {
  const status = DOMAIN_STATUS.find(([kind]) => err instanceof kind)?.[1] ?? 500;
  const path = (field: string) => `${err instanceof Invalid && err.in ? err.in : part}.${field}`;
  let message = err.message;
  let details: ErrorDetail[] | undefined;
  if (err instanceof Invalid) {
    details = err.problems.map((p) => ({ field: path(p.field), message: p.message }));
    message =
      err.summary ?? (err.listed ? details.map((d) => `${d.field} ${d.message}`).join('; ') : `${details[0].field}: ${details[0].message}`);
  } else if (err instanceof Conflict) {
    details = err.notes;
  } else if (err instanceof Declined && err.field) {
    details = [{ field: path(err.field), message: err.reason ?? err.message }];
  }
  return { status, body: errorBody(status, message, err.code, details) };
}

/** One error body for everything; client mistakes keep their 4xx, the rest is a 500 without internals. */
export function installErrorHandling(app: FastifyInstance) {
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody(404, `Route ${req.method} ${req.url.split('?')[0]} not found`, 'route_not_found'));
  });

  app.setErrorHandler((err: FastifyError | HttpError | DomainError, req, reply) => {
    if (err instanceof DomainError) {
      const { status, body } = domainErrorResponse(err, defaultPart(req as FastifyRequest));
      if (status === 500) req.log.error({ err }, 'domain error without a status');
      return reply.code(status).send(body);
    }
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
    if (failure === 'contention') {
      req.log.warn({ err }, 'transaction rolled back by a concurrent one');
      reply.header('retry-after', '1');
      return reply.code(409).send(errorBody(409, 'Another request changed the same records at the same moment; nothing was changed, try again', 'concurrent_update'));
    }
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

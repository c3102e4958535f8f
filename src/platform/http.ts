import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance } from 'fastify';
import { errorBody, HttpError } from './errors.js';
import { validationDetails } from './validation.js';

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
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send(errorBody(500, `Internal error (request ${req.id})`, 'internal'));
  });
}

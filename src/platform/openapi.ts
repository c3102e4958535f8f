import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorRef, ErrorResponse } from './schemas.js';

/** OpenAPI 3 generated from the route schemas, served at /openapi.json, with a UI at /docs. */
export async function installOpenApi(app: FastifyInstance) {
  app.addSchema(ErrorResponse);
  // Answers given before any handler, declared on every route they can reach: 400 when a parameter, the
  // query or the body fails validation (NUL characters included), 414 for a path parameter over the
  // router's length limit, 413 for a body over the route's size limit and 415 for a body in a content type
  // the service does not parse (any method that may carry a body, with or without a body schema).
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { response?: Record<string, unknown>; body?: unknown; params?: unknown; querystring?: unknown; hide?: boolean } | undefined;
    if (!schema?.response || schema.hide) return;
    const response = schema.response;
    const add = (code: string) => {
      if (!(code in response)) response[code] = ErrorRef();
    };
    if (schema.params || schema.querystring || schema.body) add('400');
    if (schema.params) add('414');
    const methods = ([] as string[]).concat(route.method);
    if (methods.some((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m))) {
      add('413');
      add('415');
    }
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Restaurant Operations Service',
        version: '0.1.0',
        description: 'Menu, orders, stock, fiscal documents and accounting for Brazilian restaurants. Errors share one body: `{ statusCode, error, message, code?, details? }`.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          installationToken: { type: 'http', scheme: 'bearer', description: 'An App installation\'s access token (128 hex), public API only' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Legacy public API key (64 hex), deprecated; x-tenant-id for users of several tenants' },
        },
      },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => (json.$id as string) || `def-${i}` },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  let document: unknown;
  app.get('/openapi.json', { schema: { hide: true } }, async () => (document ??= withNullInNullableEnums(structuredClone(app.swagger()))));
}

/**
 * The generator writes a nullable enum as `{ enum: [...], nullable: true }`; OpenAPI 3.0.3 says `null` must
 * then be one of the enum's values, or a validator refuses the nulls the API sends. Adds it, in place.
 */
export function withNullInNullableEnums<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(withNullInNullableEnums);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o.nullable === true && Array.isArray(o.enum) && !o.enum.includes(null)) o.enum = [...o.enum, null];
    Object.values(o).forEach(withNullInNullableEnums);
  }
  return node;
}

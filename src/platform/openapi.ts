import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorResponse } from './schemas.js';

/** OpenAPI 3 generated from the route schemas, served at /openapi.json, with a UI at /docs. */
export async function installOpenApi(app: FastifyInstance) {
  app.addSchema(ErrorResponse);
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
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

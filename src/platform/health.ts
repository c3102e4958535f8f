import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.js';
import { errorBody } from './errors.js';
import { DATABASE_RETRY_AFTER_S } from './http.js';

export function healthRoutes(app: FastifyInstance, database: Database) {
  app.get('/health', {
    schema: { tags: ['platform'], summary: 'Process is alive', security: [], response: { 200: Type.Object({ status: Type.String() }) } },
    handler: async () => ({ status: 'ok' }),
  });

  app.get('/ready', {
    schema: {
      tags: ['platform'],
      summary: 'Database is reachable (503 when not)',
      security: [],
      response: { 200: Type.Object({ status: Type.String(), database: Type.String() }), 503: Type.Ref('Error') },
    },
    handler: async (req, reply) => {
      try {
        await Promise.race([
          database.ping(),
          new Promise((_, reject) => setTimeout(() => reject(new Error('database ping timed out')), 2000).unref()),
        ]);
        return { status: 'ready', database: database.kind };
      } catch (err) {
        req.log.warn({ err }, 'readiness check failed');
        return reply.code(503).header('retry-after', String(DATABASE_RETRY_AFTER_S)).send(errorBody(503, 'Database is not reachable', 'not_ready'));
      }
    },
  });
}

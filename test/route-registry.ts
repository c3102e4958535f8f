import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { AuthRule } from '../src/platform/auth/guards.js';

/** One registered route: its method, its URL pattern and its auth rule (`null`: none declared). */
export interface RegisteredRoute {
  method: string;
  url: string;
  auth: AuthRule | null;
  /** Hidden from /openapi.json (`schema.hide`). */
  hidden: boolean;
}

/**
 * Records every route of the Fastify instances created while `build` runs, through Fastify's own
 * `fastify.initialization` diagnostics channel (the hook it publishes for exactly this: an `onRoute`
 * hook on the root instance before any route is registered). HEAD routes Fastify adds for GET are left out.
 */
export async function recordRoutes<T>(build: () => Promise<T>): Promise<{ result: T; routes: RegisteredRoute[] }> {
  const routes: RegisteredRoute[] = [];
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route: RouteOptions) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (method === 'HEAD') continue;
        const schema = route.schema as { hide?: boolean } | undefined;
        routes.push({ method, url: route.url, auth: route.config?.auth ?? null, hidden: !!schema?.hide });
      }
    });
  };
  subscribe('fastify.initialization', onInit);
  try {
    const result = await build();
    return { result, routes };
  } finally {
    unsubscribe('fastify.initialization', onInit);
  }
}

import type { FastifyInstance } from 'fastify';
import { limitPerIp, RateLimited, type RateLimiter } from '../../platform/rate-limit.js';
import { NoContent, withErrors } from '../../platform/schemas.js';
import { LoginBody, Me, RefreshBody, TokenPair, type LoginInput, type RefreshInput } from './auth.schemas.js';
import type { AuthService } from './auth.service.js';

/** Password guessing from one address: enough for a restaurant's staff behind one connection at shift change. */
export const LOGIN_LIMIT = { name: 'auth:login', limit: 20, windowMs: 60_000, message: 'Too many login attempts; wait and try again' };

export function authRoutes(app: FastifyInstance, { auth, rateLimits }: { auth: AuthService; rateLimits: RateLimiter }) {
  app.post('/auth/login', {
    schema: {
      tags: ['auth'],
      summary: 'Log in with email and password',
      body: LoginBody,
      response: withErrors({ 200: TokenPair, 429: RateLimited }, [400, 401]),
    },
    config: { auth: { public: true } },
    onRequest: limitPerIp(rateLimits, LOGIN_LIMIT),
    handler: (req) => auth.login(req.body as LoginInput),
  });

  app.post('/auth/refresh', {
    schema: {
      tags: ['auth'],
      summary: 'Exchange a refresh token for a new pair (the old one is spent)',
      body: RefreshBody,
      response: withErrors({ 200: TokenPair }, [400, 401]),
    },
    config: { auth: { public: true } },
    handler: (req) => auth.refresh((req.body as RefreshInput).refreshToken),
  });

  app.post('/auth/logout', {
    schema: {
      tags: ['auth'],
      summary: 'Revoke a refresh token and every token rotated from it',
      body: RefreshBody,
      response: withErrors({ 204: NoContent }, [400]),
    },
    config: { auth: { public: true } },
    handler: async (req, reply) => {
      await auth.logout((req.body as RefreshInput).refreshToken);
      return reply.code(204).send();
    },
  });

  app.get('/auth/me', {
    schema: { tags: ['auth'], summary: 'The logged-in user and their tenants', response: withErrors({ 200: Me }, [401]) },
    handler: (req) => auth.me(req.principal!.id),
  });
}

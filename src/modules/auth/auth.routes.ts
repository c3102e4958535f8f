import type { FastifyReply } from 'fastify';
import { principalOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { limitPerIp, RateLimited, RateLimitExceeded, sendRateLimited, type RateLimiter, type RateLimitRule } from '../../platform/rate-limit.js';
import { NoContent, withErrors } from '../../platform/schemas.js';
import { normalizeEmail } from '../users/index.js';
import { ChangePasswordBody, ForgotPasswordBody, LoginBody, Me, RefreshBody, ResetPasswordBody, TokenPair } from './auth.schemas.js';
import { LOGIN_ACCOUNT_LIMIT, type AuthService } from './auth.service.js';
import { RESET_PAGE_HTML, RESET_PAGE_PATH } from './reset-page.js';

/** Password guessing from one address: enough for a restaurant's staff behind one connection at shift change. */
export const LOGIN_LIMIT = { name: 'auth:login', limit: 20, windowMs: 60_000, message: 'Too many login attempts; wait and try again' };

/** Reset mails to one address: enough to retry, too few to flood someone's mailbox. */
export const FORGOT_EMAIL_LIMIT = { name: 'auth:forgot:email', limit: 3, windowMs: 15 * 60_000, message: 'Too many reset requests for this address; wait and try again' };
/** Reset requests from one client address, whatever the email. */
export const FORGOT_IP_LIMIT = { name: 'auth:forgot', limit: 10, windowMs: 15 * 60_000, message: 'Too many reset requests; wait and try again' };
/** Guesses of the current password with a stolen access token. */
export const PASSWORD_CHANGE_LIMIT = { name: 'auth:password', limit: 10, windowMs: 15 * 60_000, message: 'Too many password changes; wait and try again' };

/** Counts one hit of `key` against `rule`; answers the spec's 429 and returns false when over. */
async function withinLimit(rateLimits: RateLimiter, rule: RateLimitRule, key: string, reply: FastifyReply) {
  const r = await rateLimits.hit(`${rule.name}:${key}`, rule.limit, rule.windowMs);
  if (r.allowed) return true;
  await sendRateLimited(reply, r, rule.message);
  return false;
}

export function authRoutes(app: RouteApp, { auth, rateLimits }: { auth: AuthService; rateLimits: RateLimiter }) {
  app.post('/auth/login', {
    bodyLimit: 16 * 1024,
    schema: {
      tags: ['auth'],
      summary: 'Log in with email and password',
      description:
        'Limited per client address (20 attempts a minute) and per e-mail, known or not: after 10 failed logins in ' +
        '15 minutes, from any addresses, every attempt for it is a 429 until the oldest failure is 15 minutes old.',
      body: LoginBody,
      response: withErrors({ 200: TokenPair, 429: RateLimited }, [400, 401]),
    },
    config: { auth: { public: true } },
    onRequest: limitPerIp(rateLimits, LOGIN_LIMIT),
    handler: async (req, reply) => {
      try {
        return await auth.login(req.body, req.ip);
      } catch (err) {
        // Too many failed logins for this e-mail (LOGIN_ACCOUNT_LIMIT), whatever the address.
        if (err instanceof RateLimitExceeded) return sendRateLimited(reply, err.result, LOGIN_ACCOUNT_LIMIT.message);
        throw err;
      }
    },
  });

  app.post('/auth/refresh', {
    bodyLimit: 16 * 1024,
    schema: {
      tags: ['auth'],
      summary: 'Exchange a refresh token for a new pair (the old one is spent)',
      body: RefreshBody,
      response: withErrors({ 200: TokenPair }, [400, 401]),
    },
    config: { auth: { public: true } },
    handler: (req) => auth.refresh(req.body.refreshToken),
  });

  app.post('/auth/logout', {
    bodyLimit: 16 * 1024,
    schema: {
      tags: ['auth'],
      summary: 'Revoke a refresh token and every token rotated from it',
      body: RefreshBody,
      response: withErrors({ 204: NoContent }, [400]),
    },
    config: { auth: { public: true } },
    handler: async (req, reply) => {
      await auth.logout(req.body.refreshToken);
      return reply.code(204).send();
    },
  });

  app.post('/auth/password', {
    bodyLimit: 16 * 1024,
    schema: {
      tags: ['auth'],
      summary: 'Change my password',
      description:
        'Needs the current password (wrong: 400 `invalid_current_password`). Ends every session of the user, this ' +
        "one's refresh token included, and answers a new token pair so this device stays logged in.",
      body: ChangePasswordBody,
      response: withErrors({ 200: TokenPair, 429: RateLimited }, [400, 401, 409]),
    },
    // Any logged-in user (a rule with no roles).
    config: { auth: {} },
    handler: async (req, reply) => {
      const userId = principalOf(req).id;
      if (!(await withinLimit(rateLimits, PASSWORD_CHANGE_LIMIT, userId, reply))) return reply;
      return auth.changePassword(userId, req.body, req.ip);
    },
  });

  app.post('/auth/password/forgot', {
    bodyLimit: 16 * 1024,
    schema: {
      tags: ['auth'],
      summary: 'Mail a password reset link',
      description:
        'Always 202, whether or not the address has an account; the link (valid 30 minutes, single use) is mailed ' +
        'afterwards. Limited per address and per client.',
      body: ForgotPasswordBody,
      response: withErrors({ 202: NoContent, 429: RateLimited }, [400]),
    },
    config: { auth: { public: true } },
    onRequest: limitPerIp(rateLimits, FORGOT_IP_LIMIT),
    handler: async (req, reply) => {
      const email = normalizeEmail(req.body.email);
      if (!(await withinLimit(rateLimits, FORGOT_EMAIL_LIMIT, email, reply))) return reply;
      await auth.forgotPassword(email);
      return reply.code(202).send();
    },
  });

  // The page the reset mail links to: a web page, not part of the API (hidden from /openapi.json).
  app.get(RESET_PAGE_PATH, {
    schema: { hide: true },
    config: { auth: { public: true } },
    handler: async (_req, reply) =>
      reply
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .header('x-frame-options', 'DENY')
        .type('text/html; charset=utf-8')
        .send(RESET_PAGE_HTML),
  });

  app.post('/auth/password/reset', {
    bodyLimit: 16 * 1024,
    schema: {
      tags: ['auth'],
      summary: 'Set a new password with a reset link',
      description:
        'Spends the token (400 `invalid_reset_token` when unknown, expired or used) and ends every session of the user; ' +
        'log in with the new password.',
      body: ResetPasswordBody,
      response: withErrors({ 204: NoContent }, [400]),
    },
    config: { auth: { public: true } },
    handler: async (req, reply) => {
      await auth.resetPassword(req.body, req.ip);
      return reply.code(204).send();
    },
  });

  app.get('/auth/me', {
    schema: { tags: ['auth'], summary: 'The logged-in user and their tenants', response: withErrors({ 200: Me }, [401]) },
    // Any logged-in user (a rule with no roles).
    config: { auth: {} },
    handler: (req) => auth.me(principalOf(req).id),
  });
}

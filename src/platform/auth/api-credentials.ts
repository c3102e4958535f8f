import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config, Deprecation, RateLimitSetting } from '../../config.js';
import type { AppScope } from '../../db/schema/apps.js';
import type { Clock } from '../clock.js';
import { HttpError, unauthorized } from '../errors.js';
import { sendRateLimited, setRateLimitHeaders, type RollingCounter } from '../rate-limit.js';
import type { TenantRef } from '../tenancy.js';
import type { Role } from './permissions.js';
import type { Principal } from './principal.js';

/** Who called the public developer API: an App installation, or a user's legacy key. */
export interface ApiCaller {
  kind: 'installation' | 'api_key';
  /** What the rate limit counts: the installation or the key (never the raw secret). */
  credential: string;
  tenant: TenantRef;
  /** The installing admin, or the key's owner: records created through the API name them. */
  user: Principal;
  role: Role;
  /** The installation's scopes; null for legacy keys (full access, as before installations existed). */
  scopes: readonly AppScope[] | null;
  installationId: string | null;
}

/** How the public API's credentials are checked; the apps module provides it (`apiCredentials.use`). */
export interface ApiAuthenticator {
  /** An installation's access token: its caller, or null when unknown, wrong or revoked (401). */
  byToken(token: string): Promise<ApiCaller | null>;
  /**
   * A legacy key and the `x-tenant-id` header: its caller, null when invalid or expired (401), or throws
   * the 400 (several tenants, no header) and 401 (a tenant that is not the user's) of section 5.
   */
  byKey(key: string, tenantHeader: string | undefined): Promise<ApiCaller | null>;
  /** Whether this process verified `token` recently (no query): a known caller, not a stranger. */
  isVerified(token: string): boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on public developer API routes (`config.auth.api`); read it with `apiCallerOf(req)`. */
    apiCaller: ApiCaller | null;
  }
}

/** The rule of a public API route: the scope an installation token must hold. */
export interface ApiRule {
  scope: AppScope;
}

/**
 * The spec's planned per-endpoint limits (section 8): not in effect unless PUBLIC_API_ENDPOINT_LIMITS=on.
 * Counted per credential and route, beside the global limit.
 */
export const PLANNED_ENDPOINT_LIMITS: Record<string, RateLimitSetting> = {
  'GET /public/v1/orders': { limit: 60, windowMs: 60_000 },
  'GET /public/v1/menu/items': { limit: 60, windowMs: 60_000 },
  'GET /public/v1/reservations': { limit: 60, windowMs: 60_000 },
  'POST /public/v1/reservations': { limit: 10, windowMs: 60_000 },
};

/** Where the apps module plugs its authenticator in (the platform's guard cannot import a module). */
export function apiCredentials() {
  let impl: ApiAuthenticator | null = null;
  return {
    use(authenticator: ApiAuthenticator) {
      impl = authenticator;
    },
    get(): ApiAuthenticator {
      if (!impl) throw new Error('no public API authenticator: the apps module is not loaded');
      return impl;
    },
  };
}
export type ApiCredentials = ReturnType<typeof apiCredentials>;

function httpDate(d: Date) {
  return d.toUTCString();
}

/** `Sunset`, `Deprecation` and `Link` of section 9, or the 410 once the sunset has passed. */
function applyDeprecation(reply: FastifyReply, d: Deprecation | null, now: Date, what: string, successorOnly?: string) {
  if (!d && !successorOnly) return;
  reply.header('deprecation', 'true');
  reply.header('link', `<${d?.successor ?? successorOnly}>; rel="successor-version"`);
  if (!d) return;
  reply.header('sunset', httpDate(d.sunset));
  if (now.getTime() >= d.sunset.getTime()) {
    throw new HttpError(410, `${what} was retired on ${httpDate(d.sunset)}; use ${d.successor}`, 'sunset');
  }
}

function bearer(req: FastifyRequest): string | null {
  const [scheme, token] = (req.headers.authorization ?? '').split(' ');
  return scheme?.toLowerCase() === 'bearer' && token ? token : null;
}

export interface ApiGuardDeps {
  credentials: ApiCredentials;
  counter: RollingCounter;
  config: Config;
  clock: Clock;
}

/**
 * The guard of `/public/v1` (spec sections 5, 8 and 9), in order: the credential (installation token or
 * legacy key), the global rate limit per credential (per client address without a valid one, so a
 * flood of bad tokens is limited too), then 401, deprecation headers or 410, the scope (403), and the
 * planned per-endpoint limits when turned on. `X-RateLimit-*` are on every answer, errors included.
 */
export async function guardApiRoute(req: FastifyRequest, reply: FastifyReply, rule: ApiRule, deps: ApiGuardDeps): Promise<ApiCaller | null> {
  const settings = deps.config.publicApi;
  const limit = settings?.rateLimit ?? { limit: 200, windowMs: 60_000 };
  const auth = deps.credentials.get();
  const token = bearer(req);
  const key = req.headers['x-api-key'];
  const tenantHeader = req.headers['x-tenant-id'];
  const ipKey = `api-ip:${req.ip}`;
  // An address already over its limit, with a credential this process has not verified: refused before any
  // lookup, so a flood of bad tokens from one address costs no query (an App behind it waits out the window).
  if (deps.counter.knownFull(ipKey) && !(token && auth.isVerified(token))) {
    const counted = await deps.counter.hit(ipKey, limit.limit, limit.windowMs);
    if (!counted.allowed) {
      sendRateLimited(reply, counted);
      return null;
    }
  }
  let caller: ApiCaller | null = null;
  let refusal: HttpError | null = null;
  try {
    if (token) caller = await auth.byToken(token);
    else if (typeof key === 'string' && key) caller = await auth.byKey(key, typeof tenantHeader === 'string' ? tenantHeader : undefined);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    refusal = err;
  }
  const counted = await deps.counter.hit(caller ? `api:${caller.credential}` : ipKey, limit.limit, limit.windowMs);
  setRateLimitHeaders(reply, counted);
  if (!counted.allowed) {
    sendRateLimited(reply, counted);
    return null;
  }
  if (refusal) throw refusal;
  if (!caller) {
    throw token || key ? unauthorized('Invalid, expired or revoked credentials') : unauthorized('Send Authorization: Bearer <access token>');
  }
  const route = `${req.method} ${req.routeOptions.url}`;
  const now = deps.clock.now();
  if (caller.kind === 'api_key') applyDeprecation(reply, settings?.legacyKey ?? null, now, 'The x-api-key credential', '/docs/public-api#installation-tokens');
  applyDeprecation(reply, settings?.deprecations[route] ?? null, now, route);
  if (caller.scopes && !caller.scopes.includes(rule.scope)) {
    throw new HttpError(403, `This installation was not granted the ${rule.scope} scope`, 'scope');
  }
  const planned = settings?.endpointLimits ? PLANNED_ENDPOINT_LIMITS[route] : undefined;
  if (planned) {
    const own = await deps.counter.hit(`api:${caller.credential}:${route}`, planned.limit, planned.windowMs);
    if (!own.allowed) {
      sendRateLimited(reply, own);
      return null;
    }
  }
  return caller;
}

/** The caller of a public API route (set by the guard). */
export function apiCallerOf(req: FastifyRequest): ApiCaller {
  if (!req.apiCaller) throw new Error(`apiCaller is not set on ${req.method} ${req.routeOptions.url}: its auth rule has no api scope`);
  return req.apiCaller;
}

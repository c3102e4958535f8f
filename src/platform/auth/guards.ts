import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../clock.js';
import { rollingCounter } from '../rate-limit.js';
import { guardApiRoute, type ApiCredentials, type ApiRule } from './api-credentials.js';
import type { TenantDb } from '../../db/scopes.js';
import { forbidden, notFound, unauthorized } from '../errors.js';
import type { TenantRef, TenantResolver } from '../tenancy.js';
import type { JwtSigner } from './jwt.js';
import { PERMISSION_ALIASES, planHas, roleHolds, type Permission, type PlanFeature, type Role } from './permissions.js';
import { loadUser, tokenIsCurrent, type MemberCache, type Principal } from './principal.js';

/**
 * A route's guard rule, declared as data in `config.auth`. With no rule a route needs a valid JWT.
 * The chain runs in order: JWT -> tenant -> role -> permission -> plan feature -> branch scope.
 */
export interface AuthRule {
  /** No credentials needed; `:slug` is still resolved to an active tenant. */
  public?: boolean;
  /**
   * Public, but a request that carries a bearer token goes through the whole chain (a bad token
   * is a 401, never silently public). The handler tells them apart by `req.principal`.
   */
  optional?: boolean;
  /** Platform superadmin only (routes outside `/t/:slug`). */
  superadmin?: boolean;
  /** Tenant roles allowed; superadmin always passes. Omitted: any member. */
  roles?: readonly Role[];
  permission?: Permission | keyof typeof PERMISSION_ALIASES;
  feature?: PlanFeature;
  /** Name of a path param holding a branch id the user must be assigned to. */
  branchParam?: string;
  /** A public developer API route (`/public/v1`): App installation token or legacy key, and the scope it needs. */
  api?: ApiRule;
}

/** What a branch-scoped user may act on; `all` for admins, accountants and superadmins. */
export type BranchScope = { all: true } | { all: false; branchIds: string[]; pdvIds: string[] };

export interface TenantCtx {
  tenantId: string;
  /** The tenant's database handle: every service call on tenant data goes through it. */
  db: TenantDb;
  tenant: TenantRef;
  user: Principal;
  role: Role;
  branchScope: BranchScope;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
  }
  interface FastifyRequest {
    /** Set on authenticated tenant routes; read it with `ctxOf(req)`. */
    ctx: TenantCtx | null;
    /** The resolved tenant on any `/t/:slug` route, public ones included; read it with `tenantOf(req)`. */
    tenant: TenantRef | null;
    /** The authenticated user, when the route required one; read it with `principalOf(req)`. */
    principal: Principal | null;
  }
}

/**
 * A route read something its auth rule does not provide (e.g. `ctxOf` on a public route): a bug in the
 * route, never the client's doing, so a 500. Tests of every route catch it.
 */
class GuardDidNotRun extends Error {
  constructor(what: string, req: FastifyRequest) {
    super(`${what} is not set on ${req.method} ${req.routeOptions.url}: its auth rule does not provide it`);
  }
}

/** The caller's tenant context, on authenticated `/t/:slug` routes (any rule but `public`; `optional` when a token came). */
export function ctxOf(req: FastifyRequest): TenantCtx {
  if (!req.ctx) throw new GuardDidNotRun('The tenant context', req);
  return req.ctx;
}

/** The tenant of a `/t/:slug` route, public and optional routes included. */
export function tenantOf(req: FastifyRequest): TenantRef {
  if (!req.tenant) throw new GuardDidNotRun('The tenant', req);
  return req.tenant;
}

/** The authenticated user of a route that needs a token (a tenant's member, or anyone logged in outside `/t/:slug`). */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new GuardDidNotRun('The user', req);
  return req.principal;
}

function bearer(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const [scheme, token] = header.split(' ');
  return scheme?.toLowerCase() === 'bearer' && token ? token : null;
}

export function scopeOf(role: Role, assignedBranchIds: string[], assignedPdvIds: string[]): BranchScope {
  if (role === 'branch_manager' || role === 'staff') return { all: false, branchIds: assignedBranchIds, pdvIds: assignedPdvIds };
  return { all: true };
}

export interface GuardDeps {
  db: Db;
  jwt: JwtSigner;
  tenants: TenantResolver;
  members: MemberCache;
  apiCredentials: ApiCredentials;
  config: Config;
  clock: Clock;
}

/** Installs the guard chain on every route registered in `scope` (and its children). */
export function installGuards(scope: FastifyInstance, { db, jwt, tenants, members, apiCredentials, config, clock }: GuardDeps) {
  scope.decorateRequest('ctx', null);
  scope.decorateRequest('tenant', null);
  scope.decorateRequest('principal', null);
  scope.decorateRequest('apiCaller', null);
  const apiGuard = { credentials: apiCredentials, counter: rollingCounter(db, clock), config, clock };

  async function resolveTenant(req: FastifyRequest): Promise<TenantRef | null> {
    const slug = (req.params as Record<string, string> | undefined)?.slug;
    if (slug === undefined) return null;
    const tenant = /^[a-z0-9-]{1,64}$/.test(slug) ? await tenants.bySlug(slug) : null;
    if (!tenant) throw notFound('Tenant');
    if (!tenant.isActive) throw forbidden('This tenant is deactivated', 'tenant_inactive');
    return tenant;
  }

  scope.addHook('onRequest', async (req, reply) => {
    const rule: AuthRule = req.routeOptions.config.auth ?? {};
    if (rule.api) {
      const caller = await guardApiRoute(req, reply, rule.api, apiGuard);
      if (!caller) return reply;
      req.apiCaller = caller;
      req.tenant = caller.tenant;
      req.principal = caller.user;
      req.ctx = { tenantId: caller.tenant.id, db: caller.tenant.db, tenant: caller.tenant, user: caller.user, role: caller.role, branchScope: { all: true } };
      return;
    }
    if (rule.public || (rule.optional && !req.headers.authorization)) {
      req.tenant = await resolveTenant(req);
      return;
    }
    // 1. JWT
    const token = bearer(req);
    if (!token) throw unauthorized('Missing bearer token');
    const claims = await jwt.verify(token);
    if (!claims) throw unauthorized('Invalid or expired token');
    // 2. tenant
    const tenant = await resolveTenant(req);
    if (!tenant) {
      const user = await loadUser(db, claims.sub);
      if (!user || !tokenIsCurrent(claims, user)) throw unauthorized('Invalid or expired token');
      req.principal = user;
      if (rule.superadmin && !user.isSuperadmin) throw forbidden('Superadmin only');
      return;
    }
    const found = await members.get(claims.sub, tenant.id);
    if (!found || !tokenIsCurrent(claims, found.principal)) throw unauthorized('Invalid or expired token');
    const { principal, membership } = found;
    req.principal = principal;
    req.tenant = tenant;
    if (rule.superadmin && !principal.isSuperadmin) throw forbidden('Superadmin only');
    const role: Role | null = principal.isSuperadmin ? 'superadmin' : (membership?.role ?? null);
    if (!role) throw forbidden('You are not a member of this tenant', 'not_member');
    // 3. role
    if (rule.roles && role !== 'superadmin' && !rule.roles.includes(role)) {
      throw forbidden(`This action needs one of the roles: ${rule.roles.join(', ')}`, 'role');
    }
    // 4. permission
    if (rule.permission) {
      const permission = PERMISSION_ALIASES[rule.permission] ?? (rule.permission as Permission);
      if (!roleHolds(role, permission)) throw forbidden(`This action needs the ${permission} permission`, 'permission');
    }
    // 5. plan feature
    if (rule.feature && !planHas(tenant.plan, rule.feature)) {
      throw forbidden(`The ${tenant.plan} plan does not include ${rule.feature}`, 'plan_feature');
    }
    // 6. branch scope
    const branchScope = scopeOf(role, membership?.assignedBranchIds ?? [], membership?.assignedPdvIds ?? []);
    if (rule.branchParam && !branchScope.all) {
      const branchId = (req.params as Record<string, string>)[rule.branchParam];
      if (!branchScope.branchIds.includes(branchId)) throw forbidden('You have no access to this branch', 'branch_scope');
    }
    req.ctx = { tenantId: tenant.id, db: tenant.db, tenant, user: principal, role, branchScope };
  });
}

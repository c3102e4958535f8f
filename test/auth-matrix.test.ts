import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthRule } from '../src/platform/auth/guards.js';
import { PERMISSION_ALIASES, planHas, roleHolds, type Permission, type Plan, type Role } from '../src/platform/auth/permissions.js';
import type { AppScope } from '../src/db/schema/apps.js';
import { createTestApp, type TestApp } from './app.js';
import { installApp, makePublishedApp } from './apps.js';
import { makeScopedTeam, makeSuperadmin, makeTenant, makeTenantWithTeam, makeUser } from './factories.js';
import { recordRoutes, type RegisteredRoute } from './route-registry.js';

/**
 * The authorization matrix (issue 20): every registered route x every kind of caller x own / other / suspended tenant.
 * The expected guard decision of each cell comes from the route's own `config.auth`, read through the
 * same permission and plan tables the guard uses; the test asserts only what the guard decides (401,
 * 403, 404 for an unknown tenant, or "passed": whatever the handler answers after it). Every refused
 * request must leave every table as it was. A third side is a suspended tenant (deactivated by the superadmin):
 * its own members, its App installation and its legacy key, on every route of that tenant.
 */

/** Platform routes outside the guarded scope (no tenant, no data): documentation, probes, pages, simulators. */
const UNGUARDED = [/^\/health$/, /^\/ready$/, /^\/metrics$/, /^\/openapi\.json$/, /^\/docs(\/|$)/, /^\/web\//, /^\/__sim\//];
const isUnguarded = (r: RegisteredRoute) => UNGUARDED.some((re) => re.test(r.url));

/**
 * The pages' HTML shells under a tenant's path (src/platform/web.ts): one static file for every slug, unknown ones
 * included, registered outside the guarded scope, so a suspended tenant's page is served too; the tenant's data comes
 * from the API the page calls (the storefront, the kitchen's orders), which the matrix checks refuses a suspended tenant.
 */
const STATIC_PAGES = [/^\/t\/:slug\/b\/:pdvSlug\/menu$/, /^\/t\/:slug\/kitchen$/];
const isStaticPage = (r: RegisteredRoute) => STATIC_PAGES.some((re) => re.test(r.url));

/** Tables a refused request may legitimately touch: the rate-limit counters count refusals too. */
const COUNTERS = ['rate_limit_hits', 'rate_limit_windows'];

/**
 * The messages of the guards' own 401s, and the codes of their 403s: anything else came from past the guard.
 * A handler may answer the same code (a service's own branch check is `branch_scope` too), so a 403 counts as
 * the guard's only when the route's rule has the step that gives it.
 */
const GUARD_401 = new Set([
  'Missing bearer token',
  'Invalid or expired token',
  'Invalid, expired or revoked credentials',
  'Send Authorization: Bearer <access token>',
  "x-tenant-id names a tenant this key's user does not belong to",
]);
function guard403(rule: AuthRule, hasSlug: boolean): Set<string> {
  const codes = new Set<string>();
  if (rule.api) return new Set(['scope']);
  if (rule.public) return hasSlug ? new Set(['tenant_inactive']) : codes;
  if (hasSlug) ['not_member', 'tenant_inactive'].forEach((c) => codes.add(c));
  if (rule.superadmin) codes.add('forbidden');
  if (rule.roles) codes.add('role');
  if (rule.permission) codes.add('permission');
  if (rule.feature) codes.add('plan_feature');
  if (rule.branchParam) codes.add('branch_scope');
  return codes;
}

type Decision = 'pass' | 401 | 403;
type CallerKind = 'none' | 'staff' | 'branch_manager' | 'accountant' | 'admin' | 'superadmin' | 'installation' | 'api_key';
const CALLERS: CallerKind[] = ['none', 'staff', 'branch_manager', 'accountant', 'admin', 'superadmin', 'installation', 'api_key'];
/** The installation is granted these scopes only, so the other public API scopes are refused (403). */
const GRANTED: AppScope[] = ['orders.read', 'menu.read'];

/** What the guard chain must decide for this caller on this route (`own`: the caller's tenant). */
function expected(rule: AuthRule, caller: CallerKind, own: boolean, hasSlug: boolean, plan: Plan, branchAssigned: boolean): Decision {
  if (rule.api) {
    if (caller === 'installation') return GRANTED.includes(rule.api.scope) ? 'pass' : 403;
    // The key's owner belongs to two tenants: x-tenant-id naming another one is a 401.
    if (caller === 'api_key') return own ? 'pass' : 401;
    return 401;
  }
  if (rule.public) return 'pass';
  // Optional: without an Authorization header the route is public; the legacy key sends none.
  if (rule.optional && (caller === 'none' || caller === 'api_key')) return 'pass';
  if (caller === 'none' || caller === 'installation' || caller === 'api_key') return 401;
  const superadmin = caller === 'superadmin';
  if (rule.superadmin && !superadmin) return 403;
  if (!hasSlug) return 'pass';
  if (!own && !superadmin) return 403; // not a member of the other tenant
  const role: Role = caller;
  if (rule.roles && role !== 'superadmin' && !rule.roles.includes(role)) return 403;
  if (rule.permission) {
    const permission = PERMISSION_ALIASES[rule.permission] ?? (rule.permission as Permission);
    if (!roleHolds(role, permission)) return 403;
  }
  if (rule.feature && !planHas(plan, rule.feature)) return 403;
  if (rule.branchParam && (role === 'staff' || role === 'branch_manager') && !branchAssigned) return 403;
  return 'pass';
}

/**
 * What a caller gets on a route of a deactivated tenant (`tenant_inactive`, 403): the tenant is resolved right
 * after the credential is read and before membership, role, permission, plan and branch, so every member (and
 * the superadmin) is refused alike, and public routes too; a request the guard cannot read a user from stays a 401.
 * On the public developer API the credential names the tenant: its installation and its legacy key get the 403.
 */
function expectedSuspended(rule: AuthRule, caller: CallerKind): 401 | 403 {
  if (rule.api) return caller === 'installation' || caller === 'api_key' ? 403 : 401;
  if (rule.public) return 403;
  // Optional without an Authorization header: public, and the tenant is still resolved.
  if (rule.optional && (caller === 'none' || caller === 'api_key')) return 403;
  // The guard reads a JWT first: none, or an App token / legacy key in its place, is a 401 before any tenant.
  if (caller === 'none' || caller === 'installation' || caller === 'api_key') return 401;
  return 403;
}

/**
 * The guard decision a response shows: its own refusals are recognized by message (401) or code (403). On a
 * suspended tenant the only 403 the guard may give is `tenant_inactive`.
 */
function decided(res: LightMyRequestResponse, rule: AuthRule, hasSlug: boolean, suspended: boolean): Decision | 'tenant_404' {
  let body: { message?: string; code?: string } = {};
  try {
    body = res.json();
  } catch {
    /* not JSON: not a guard answer */
  }
  if (res.statusCode === 401 && GUARD_401.has(body.message ?? '')) return 401;
  if (res.statusCode === 403 && (suspended ? body.code === 'tenant_inactive' : guard403(rule, hasSlug).has(body.code ?? ''))) return 403;
  if (hasSlug && res.statusCode === 404 && body.message === 'Tenant not found') return 'tenant_404';
  return 'pass';
}

const randomId = () => randomBytes(12).toString('hex');

let t: TestApp;
let routes: RegisteredRoute[];

beforeAll(async () => {
  const recorded = await recordRoutes(() => createTestApp());
  t = recorded.result;
  routes = recorded.routes;
});
afterAll(() => t?.close());

describe('authorization matrix', () => {
  it('every route of the guarded scope declares its auth rule', () => {
    expect(routes.length).toBeGreaterThan(100);
    const undeclared = routes.filter((r) => !isUnguarded(r) && r.auth === null).map((r) => `${r.method} ${r.url}`);
    expect(undeclared, 'routes without config.auth (the guard treats them as "any member"): declare the rule').toEqual([]);
  });

  it('every route x caller x own / other / suspended tenant gets the guard decision of its rule, and refusals change nothing', async () => {
    const { app } = t;
    const plan: Plan = 'basic'; // has supplierManagement, lacks inventoryPrediction: both feature answers occur
    const team = await makeScopedTeam(app);
    const other = await makeTenantWithTeam(app);
    const superadmin = await makeSuperadmin(app);
    const planned = await app.inject({ method: 'PUT', url: `/api/superadmin/tenants/${team.tenant._id}`, headers: superadmin.headers, payload: { plan } });
    expect(planned.statusCode, planned.body).toBe(200);
    const planOf = async (slug: string) => (await app.deps.tenants.bySlug(slug))!.plan as Plan;
    const plans = { own: await planOf(team.slug), other: await planOf(other.slug) };
    expect(plans).toEqual({ own: plan, other: 'free' });
    const published = await makePublishedApp(app, superadmin, { scopes: ['orders.read', 'menu.read', 'reservations.read', 'reservations.write'] });
    const installation = await installApp(app, { slug: team.slug, admin: team.admin }, published.slug, GRANTED);
    // The legacy key's owner: an admin of the tenant and of a third one, so x-tenant-id picks between them.
    const keyOwner = await makeUser(app, team.tenant, 'admin');
    await app.services.users.addMember(app.deps.tenantDb((await makeTenant(app))._id), keyOwner.id, 'admin');
    const { key } = await app.services.apiKeys.create(keyOwner.email, 'matrix');
    // The suspended tenant: a full team, an installation and the key owner as a member, then deactivated.
    const suspended = await makeScopedTeam(app);
    const suspendedInstallation = await installApp(app, { slug: suspended.slug, admin: suspended.admin }, published.slug, GRANTED);
    await app.services.users.addMember(suspended.tdb, keyOwner.id, 'admin');
    const toggled = await app.inject({ method: 'PUT', url: `/api/superadmin/tenants/${suspended.tenant._id}/toggle`, headers: superadmin.headers });
    expect(toggled.json()).toEqual({ isActive: false });

    type Side = 'own' | 'other' | 'suspended';
    const headersOf = (caller: CallerKind, side: Side): Record<string, string> => {
      // On the suspended side every caller is the suspended tenant's own (its members, installation and key's tenant).
      const home = side === 'suspended' ? suspended : team;
      switch (caller) {
        case 'none':
          return {};
        case 'superadmin':
          return superadmin.headers;
        case 'installation':
          return side === 'suspended' ? suspendedInstallation.headers : installation.headers;
        case 'api_key':
          return { 'x-api-key': key, 'x-tenant-id': { own: team, other, suspended }[side].tenant._id };
        case 'branch_manager':
          return home.manager.headers;
        default:
          return home[caller satisfies 'staff' | 'accountant' | 'admin'].headers;
      }
    };

    interface Cell {
      route: RegisteredRoute;
      caller: CallerKind;
      side: Side;
      url: string;
      want: Decision;
    }
    const cells: Cell[] = [];
    const guarded = routes.filter((r) => !isUnguarded(r));
    for (const route of guarded) {
      const rule = route.auth ?? {};
      const hasSlug = route.url.includes(':slug');
      // Without a slug the tenant is the credential's: "other tenant" exists only for the legacy key's x-tenant-id,
      // and a suspended one only for the credentials of the public developer API.
      const sides: Side[] = hasSlug || rule.api ? ['own', 'other', 'suspended'] : ['own'];
      for (const side of sides) {
        const url = route.url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
          if (name === 'slug') return { own: team, other, suspended }[side].slug;
          if (rule.branchParam === name) return (side === 'suspended' ? suspended : team).main.branchId; // the branch manager's own branch
          return randomId();
        }).replace(/\*$/, 'x');
        for (const caller of CALLERS) {
          const want =
            side === 'suspended'
              ? isStaticPage(route) ? 'pass' : expectedSuspended(rule, caller)
              : expected(rule, caller, side === 'own', hasSlug, side === 'own' ? plans.own : plans.other, caller !== 'staff');
          cells.push({ route, caller, side, url, want });
        }
      }
    }

    const failures: string[] = [];
    const send = async (cells: Cell[]) => {
      for (let i = 0; i < cells.length; i += 20) {
        await Promise.all(
          cells.slice(i, i + 20).map(async (c) => {
            const res = await app.inject({ method: c.route.method as 'GET', url: c.url, headers: headersOf(c.caller, c.side) });
            const got = decided(res, c.route.auth ?? {}, c.route.url.includes(':slug'), c.side === 'suspended');
            if (got !== c.want) {
              failures.push(`${c.route.method} ${c.route.url} as ${c.caller} (${c.side} tenant, rule ${JSON.stringify(c.route.auth)}): want ${c.want}, got ${res.statusCode} ${res.body.slice(0, 160)}`);
            }
          }),
        );
      }
    };

    const snapshot = () =>
      t.db.database.owner(async (db) => {
        const res = (await db.execute(
          sql`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1`,
        )) as unknown as { rows: { name: string }[] };
        const out: Record<string, string> = {};
        for (const { name } of res.rows) {
          if (COUNTERS.includes(name)) continue;
          const r = (await db.execute(
            sql.raw(`select count(*)::int as n, coalesce(md5(string_agg(x::text, ',' order by x::text)), '') as h from "${name}" x`),
          )) as unknown as { rows: { n: number; h: string }[] };
          out[name] = `${r.rows[0].n} ${r.rows[0].h}`;
        }
        return out;
      });

    const refused = cells.filter((c) => c.want !== 'pass');
    const passing = cells.filter((c) => c.want === 'pass');
    expect(refused.length).toBeGreaterThan(500);
    expect(passing.length).toBeGreaterThan(200);
    // Every kind of decision occurs, for every caller that can get it.
    for (const [caller, decision] of [['none', 401], ['staff', 403], ['admin', 403], ['installation', 403], ['api_key', 401], ['superadmin', 'pass']] as const) {
      expect(cells.some((c) => c.caller === caller && c.want === decision), `${caller} ${decision}`).toBe(true);
    }
    // The suspended tenant: nothing but the static pages passes, and every caller meets its 403 somewhere (the public routes, the API's).
    const onSuspended = cells.filter((c) => c.side === 'suspended');
    expect(onSuspended.length).toBeGreaterThan(500);
    expect(onSuspended.filter((c) => c.want === 'pass' && !isStaticPage(c.route))).toEqual([]);
    expect(routes.filter(isStaticPage)).toHaveLength(STATIC_PAGES.length);
    for (const caller of CALLERS) expect(onSuspended.some((c) => c.caller === caller && c.want === 403), `${caller} 403 on the suspended tenant`).toBe(true);

    const before = await snapshot();
    await send(refused);
    expect(await snapshot()).toEqual(before);
    // The requests that pass the guard run last: their handlers may write (most answer 400 or 404).
    await send(passing);
    expect(failures).toEqual([]);
  });
});

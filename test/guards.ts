import { expect } from 'vitest';
import type { App } from '../src/app.js';
import { makeTenantWithTeam } from './factories.js';

/** A route to try: method, URL under `team.slug`, and a body where it takes one. */
export type RouteCase = [method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: object];

/**
 * Every route answers 401 without a token and 403 to staff and the accountant, and, on a tenant whose plan
 * lacks `feature`, 403 to its admin naming the feature (the same URLs under that tenant's slug).
 */
export async function expectAdminFeatureGuard(
  app: App,
  team: { slug: string; staff: { headers: Record<string, string> }; accountant: { headers: Record<string, string> } },
  routes: RouteCase[],
  feature: string,
) {
  const call = (method: RouteCase[0], url: string, headers: Record<string, string>, body?: object) =>
    app.inject({ method, url, headers, payload: body as never });
  for (const [method, url, body] of routes) {
    expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
    expect((await call(method, url, team.staff.headers, body)).statusCode, `${method} ${url}`).toBe(403);
    expect((await call(method, url, team.accountant.headers, body)).statusCode, `${method} ${url}`).toBe(403);
  }
  const free = await makeTenantWithTeam(app, { plan: 'free' });
  for (const [method, url, body] of routes) {
    const res = await call(method, url.replace(team.slug, free.slug), free.admin.headers, body);
    expect(res.statusCode, `${method} ${url}`).toBe(403);
    expect(res.json().message).toContain(feature);
  }
}

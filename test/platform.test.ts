import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installGuards } from '../src/platform/auth/guards.js';
import { createTestApp, type TestApp } from './app.js';
import { makePdv, makeSuperadmin, makeTenant, makeTenantWithTeam, makeUser } from './factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, {
    // Routes that exercise each link of the guard chain.
    beforeReady: (app) =>
      app.register(async (scope) => {
        installGuards(scope, app.deps);
        const ok = async (req: { ctx: unknown }) => ({ ok: true, ctx: req.ctx });
        scope.get('/t/:slug/__guard/inventory', { config: { auth: { permission: 'ManageInventory' } } }, ok);
        scope.get('/t/:slug/__guard/accounting', { config: { auth: { roles: ['admin', 'accountant'], permission: 'manage_accounting' } } }, ok);
        scope.get('/t/:slug/__guard/suppliers', { config: { auth: { roles: ['admin'], feature: 'supplierManagement' } } }, ok);
        scope.get('/t/:slug/__guard/branches/:branchId', { config: { auth: { branchParam: 'branchId' } } }, ok);
        scope.get('/t/:slug/__guard/public', { config: { auth: { public: true } } }, async (req) => ({ tenant: req.tenant?.slug }));
      }),
  });
});
afterAll(() => t.close());

describe('health and readiness', () => {
  it('GET /health and /ready answer without credentials', async () => {
    expect((await t.app.inject({ url: '/health' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().status).toBe('ready');
  });
});

describe('errors and bad input', () => {
  it('answers an unknown route with 404 in the common error body', async () => {
    const res = await t.app.inject({ url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ statusCode: 404, error: 'Not Found', message: expect.stringContaining('/nope') });
  });

  it('answers invalid JSON with 400 and changes nothing', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'application/json' }, payload: '{"email": "a@b.c", ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'Body is not valid JSON' });
  });

  it('answers an unsupported content type with 415 and an oversized body with 413', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'application/xml' }, payload: '<a/>' });
    expect(res.statusCode).toBe(415);
    const big = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'a'.repeat(2 * 1024 * 1024), password: 'x' } });
    expect(big.statusCode).toBe(413);
  });

  it('does not coerce types in bodies', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 123, password: true } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toMatch(/^body\./);
  });

  it('echoes a sane x-request-id and generates one otherwise', async () => {
    const mine = await t.app.inject({ url: '/health', headers: { 'x-request-id': 'req-abc-123' } });
    expect(mine.headers['x-request-id']).toBe('req-abc-123');
    const generated = await t.app.inject({ url: '/health', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const err = await t.app.inject({ url: '/auth/me' });
    expect(err.headers['x-request-id']).toBeTruthy();
  });
});

describe('OpenAPI', () => {
  it('documents every route with its request and response schemas', async () => {
    const res = await t.app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    const expected: [string, string][] = [
      ['post', '/auth/login'],
      ['post', '/auth/refresh'],
      ['post', '/auth/logout'],
      ['get', '/auth/me'],
      ['get', '/api/superadmin/tenants'],
      ['post', '/api/superadmin/tenants'],
      ['put', '/api/superadmin/tenants/{id}'],
      ['put', '/api/superadmin/tenants/{id}/toggle'],
      ['put', '/t/{slug}/tenants'],
      ['get', '/t/{slug}/users'],
      ['post', '/t/{slug}/users'],
      ['put', '/t/{slug}/users/{id}'],
      ['delete', '/t/{slug}/users/{id}'],
      ['get', '/health'],
      ['get', '/ready'],
    ];
    for (const [method, path] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(Object.keys(op.responses).length, `${method} ${path} responses`).toBeGreaterThan(0);
      if (method === 'post' || method === 'put') {
        if (!path.endsWith('/toggle')) expect(op.requestBody, `${method} ${path} body`).toBeDefined();
      }
    }
    expect(doc.paths['/t/{slug}/users'].post.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['email', 'name', 'password', 'role']),
    );
    const docs = await t.app.inject({ url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });
});

describe('guard chain', () => {
  it('checks permissions from the matrix', async () => {
    const a = await makeTenantWithTeam(t.app);
    const manager = await makeUser(t.app, a.tenant, 'branch_manager');
    const sa = await makeSuperadmin(t.app);
    const get = (path: string, headers: object) => t.app.inject({ url: `/t/${a.slug}/__guard/${path}`, headers: headers as Record<string, string> });
    expect((await get('inventory', a.staff.headers)).statusCode).toBe(200);
    expect((await get('inventory', manager.headers)).statusCode).toBe(200);
    const denied = await get('inventory', a.accountant.headers);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('permission');
    // Spec 4.11: manage_accounting is admin (and superadmin) only; the accountant is refused by the permission.
    const accountant = await get('accounting', a.accountant.headers);
    expect(accountant.statusCode).toBe(403);
    expect(accountant.json().code).toBe('permission');
    expect((await get('accounting', a.admin.headers)).statusCode).toBe(200);
    expect((await get('accounting', a.staff.headers)).statusCode).toBe(403);
    expect((await get('accounting', sa.headers)).statusCode).toBe(200);
  });

  it('checks plan features', async () => {
    const free = await makeTenantWithTeam(t.app, { plan: 'free' });
    const basic = await makeTenantWithTeam(t.app, { plan: 'basic' });
    const denied = await t.app.inject({ url: `/t/${free.slug}/__guard/suppliers`, headers: free.admin.headers });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('plan_feature');
    expect((await t.app.inject({ url: `/t/${basic.slug}/__guard/suppliers`, headers: basic.admin.headers })).statusCode).toBe(200);
  });

  it('limits branch managers to their assigned branches', async () => {
    const a = await makeTenantWithTeam(t.app);
    const mine = (await makePdv(t.app, a.tenant)).branchId;
    const other = (await makePdv(t.app, a.tenant)).branchId;
    const manager = await makeUser(t.app, a.tenant, 'branch_manager');
    await t.app.inject({ method: 'PUT', url: `/t/${a.slug}/users/${manager.id}`, headers: a.admin.headers, payload: { assignedBranchIds: [mine] } });
    const get = (branch: string, headers: object) => t.app.inject({ url: `/t/${a.slug}/__guard/branches/${branch}`, headers: headers as Record<string, string> });
    const ok = await get(mine, manager.headers);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().ctx.branchScope).toEqual({ all: false, branchIds: [mine], pdvIds: [] });
    const denied = await get(other, manager.headers);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('branch_scope');
    expect((await get(other, a.admin.headers)).json().ctx.branchScope).toEqual({ all: true });
  });

  it('resolves the tenant on public routes: 404 unknown, 403 inactive', async () => {
    const tenant = await makeTenant(t.app);
    expect((await t.app.inject({ url: `/t/${tenant.slug}/__guard/public` })).json()).toEqual({ tenant: tenant.slug });
    expect((await t.app.inject({ url: `/t/unknown-slug/__guard/public` })).statusCode).toBe(404);
    await t.app.services.tenants.toggle(tenant._id);
    expect((await t.app.inject({ url: `/t/${tenant.slug}/__guard/public` })).statusCode).toBe(403);
  });

  it('answers 403 to a user of another tenant and 401 to a deleted user', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const res = await t.app.inject({ url: `/t/${a.slug}/__guard/inventory`, headers: b.staff.headers });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('not_member');
    await t.app.inject({ method: 'DELETE', url: `/t/${b.slug}/users/${b.staff.id}`, headers: b.admin.headers });
    expect((await t.app.inject({ url: `/t/${b.slug}/__guard/inventory`, headers: b.staff.headers })).statusCode).toBe(401);
  });
});

describe('readiness when the database is gone', () => {
  it('GET /ready answers 503 while /health stays 200', async () => {
    await t.db.database.close();
    const res = await t.app.inject({ url: '/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ statusCode: 503, code: 'not_ready' });
    expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200);
  });
});

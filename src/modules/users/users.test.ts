import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { login, makePdv, makeSuperadmin, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: object, payload?: object) =>
  t.app.inject({ method, url, headers: headers as Record<string, string>, payload: payload as never });

describe('GET /t/:slug/users', () => {
  it('lists the members with their role, never a password', async () => {
    const a = await makeTenantWithTeam(t.app);
    const res = await req('GET', `/t/${a.slug}/users`, a.admin.headers);
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list.map((u: { _id: string }) => u._id).sort()).toEqual([a.admin.id, a.staff.id, a.accountant.id].sort());
    const staff = list.find((u: { _id: string }) => u._id === a.staff.id);
    expect(staff).toEqual({
      _id: a.staff.id,
      email: a.staff.email,
      name: expect.any(String),
      role: 'staff',
      assignedPdvIds: [],
      assignedBranchIds: [],
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(res.body).not.toMatch(/password/i);
  });

  it('needs a token (401), an admin (403) and a known tenant (404)', async () => {
    const a = await makeTenantWithTeam(t.app);
    expect((await req('GET', `/t/${a.slug}/users`, {})).statusCode).toBe(401);
    const staff = await req('GET', `/t/${a.slug}/users`, a.staff.headers);
    expect(staff.statusCode).toBe(403);
    expect(staff.json().code).toBe('role');
    expect((await req('GET', `/t/${a.slug}/users`, a.accountant.headers)).statusCode).toBe(403);
    expect((await req('GET', `/t/no-such-tenant/users`, a.admin.headers)).statusCode).toBe(404);
  });

  it('lets a superadmin list any tenant without a membership', async () => {
    const a = await makeTenantWithTeam(t.app);
    const sa = await makeSuperadmin(t.app);
    const res = await req('GET', `/t/${a.slug}/users`, sa.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(3);
  });
});

describe('POST /t/:slug/users', () => {
  it('creates a user who can log in with the password', async () => {
    const a = await makeTenantWithTeam(t.app);
    const payload = { email: 'Nova.Garcom@Example.com', name: 'Nova', password: 'segredo-123', role: 'staff' };
    // An unknown field is refused, naming it: never silently written (nor dropped).
    const unknown = await req('POST', `/t/${a.slug}/users`, a.admin.headers, { ...payload, isSuperadmin: true });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details[0].field).toBe('body.isSuperadmin');
    const res = await req('POST', `/t/${a.slug}/users`, a.admin.headers, payload);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ email: 'nova.garcom@example.com', role: 'staff' });
    expect(res.body).not.toMatch(/password|segredo/);
    const session = await login(t.app, 'nova.garcom@example.com', 'segredo-123');
    expect(session.statusCode).toBe(200);
    expect(session.json().user.isSuperadmin).toBe(false);
  });

  it('rejects a short password, a bad email and an unknown role, naming the field', async () => {
    const a = await makeTenantWithTeam(t.app);
    const base = { email: 'x@example.com', name: 'X', password: 'long-enough', role: 'staff' };
    const cases: [object, string][] = [
      [{ ...base, password: 'short' }, 'body.password'],
      [{ ...base, email: 'not-an-email' }, 'body.email'],
      [{ ...base, role: 'superadmin' }, 'body.role'],
      [{ ...base, name: 42 }, 'body.name'],
      [{ email: 'x@example.com', name: 'X', role: 'staff' }, 'body.password'],
    ];
    for (const [payload, field] of cases) {
      const res = await req('POST', `/t/${a.slug}/users`, a.admin.headers, payload);
      expect(res.statusCode, field).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
    const list = await req('GET', `/t/${a.slug}/users`, a.admin.headers);
    expect(list.json()).toHaveLength(3);
  });

  it("answers 409 for an email already a member of this tenant (another tenant's person is linked instead)", async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const payload = { email: b.staff.email, name: 'Dup', password: 'long-enough', role: 'staff' };
    const dup = await req('POST', `/t/${b.slug}/users`, b.admin.headers, payload);
    expect(dup.statusCode).toBe(409);
    expect(dup.json().code).toBe('already_member');
    expect((await req('POST', `/t/${a.slug}/users`, a.admin.headers, payload)).statusCode).toBe(201);
    expect((await req('POST', `/t/${a.slug}/users`, a.admin.headers, payload)).statusCode).toBe(409);
  });

  it('lets a superadmin link an existing account to another tenant, keeping its password', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const sa = await makeSuperadmin(t.app);
    const res = await req('POST', `/t/${b.slug}/users`, sa.headers, { email: a.staff.email, name: 'X', password: 'ignored-pass', role: 'accountant' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ _id: a.staff.id, role: 'accountant' });
    expect((await login(t.app, a.staff.email, 'ignored-pass')).statusCode).toBe(401);
    const me = await req('GET', '/auth/me', a.staff.headers);
    expect(me.json().tenants.map((x: { slug: string }) => x.slug).sort()).toEqual([a.slug, b.slug].sort());
  });

  it('creates one user when the same email is posted twice at once', async () => {
    const a = await makeTenantWithTeam(t.app);
    const payload = { email: 'twice@example.com', name: 'T', password: 'long-enough', role: 'staff' };
    const results = await Promise.all([1, 2].map(() => req('POST', `/t/${a.slug}/users`, a.admin.headers, payload)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409]);
  });

  it('is refused to staff (403) and without a token (401)', async () => {
    const a = await makeTenantWithTeam(t.app);
    const payload = { email: 'y@example.com', name: 'Y', password: 'long-enough', role: 'admin' };
    expect((await req('POST', `/t/${a.slug}/users`, a.staff.headers, payload)).statusCode).toBe(403);
    expect((await req('POST', `/t/${a.slug}/users`, {}, payload)).statusCode).toBe(401);
  });
});

describe('PUT /t/:slug/users/:id', () => {
  it('changes name, role, assignments and password', async () => {
    const a = await makeTenantWithTeam(t.app);
    const { pdvId: pdv } = await makePdv(t.app, a.tenant);
    const res = await req('PUT', `/t/${a.slug}/users/${a.staff.id}`, a.admin.headers, {
      name: 'Renamed',
      role: 'branch_manager',
      assignedPdvIds: [pdv],
      password: 'brand-new-pass',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Renamed', role: 'branch_manager', assignedPdvIds: [pdv] });
    expect((await login(t.app, a.staff.email, 'brand-new-pass')).statusCode).toBe(200);
  });

  it("refuses assignments to PDVs and branches the tenant does not have, another tenant's included", async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const theirs = await makePdv(t.app, b.tenant);
    for (const [payload, field] of [
      [{ assignedPdvIds: [theirs.pdvId] }, 'body.assignedPdvIds'],
      [{ assignedPdvIds: ['a'.repeat(24)] }, 'body.assignedPdvIds'],
      [{ assignedBranchIds: [theirs.branchId] }, 'body.assignedBranchIds'],
    ] as const) {
      const res = await req('PUT', `/t/${a.slug}/users/${a.staff.id}`, a.admin.headers, payload);
      expect(res.statusCode, field).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
    const created = await req('POST', `/t/${a.slug}/users`, a.admin.headers, { email: 'z@example.com', name: 'Z', password: 'long-enough', role: 'staff', assignedPdvIds: [theirs.pdvId] });
    expect(created.statusCode).toBe(400);
    const staff = (await req('GET', `/t/${a.slug}/users`, a.admin.headers)).json().find((u: { _id: string }) => u._id === a.staff.id);
    expect(staff.assignedPdvIds).toEqual([]);
  });

  it('takes effect on the next request: a demoted admin loses access at once', async () => {
    const a = await makeTenantWithTeam(t.app);
    const second = await makeUser(t.app, a.tenant, 'admin');
    expect((await req('GET', `/t/${a.slug}/users`, second.headers)).statusCode).toBe(200);
    await req('PUT', `/t/${a.slug}/users/${second.id}`, a.admin.headers, { role: 'staff' });
    expect((await req('GET', `/t/${a.slug}/users`, second.headers)).statusCode).toBe(403);
  });

  it('refuses to leave the tenant without an admin (409)', async () => {
    const a = await makeTenantWithTeam(t.app);
    const res = await req('PUT', `/t/${a.slug}/users/${a.admin.id}`, a.admin.headers, { role: 'staff' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('last_admin');
  });

  it('lets only one of two admins demoting each other at once succeed', async () => {
    const a = await makeTenantWithTeam(t.app);
    const other = await makeUser(t.app, a.tenant, 'admin');
    const results = await Promise.all([
      req('PUT', `/t/${a.slug}/users/${other.id}`, a.admin.headers, { role: 'staff' }),
      req('PUT', `/t/${a.slug}/users/${a.admin.id}`, other.headers, { role: 'staff' }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const admins = (await req('GET', `/t/${a.slug}/users`, (await makeSuperadmin(t.app)).headers)).json().filter((u: { role: string }) => u.role === 'admin');
    expect(admins).toHaveLength(1);
  });

  it('answers 409 when the new email is taken and 400 for bad fields', async () => {
    const a = await makeTenantWithTeam(t.app);
    const taken = await req('PUT', `/t/${a.slug}/users/${a.staff.id}`, a.admin.headers, { email: a.accountant.email });
    expect(taken.statusCode).toBe(409);
    const bad = await req('PUT', `/t/${a.slug}/users/${a.staff.id}`, a.admin.headers, { assignedPdvIds: ['nope'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('body.assignedPdvIds.0');
    expect((await req('PUT', `/t/${a.slug}/users/not-an-id`, a.admin.headers, { name: 'x' })).statusCode).toBe(400);
  });

  it('does not let a tenant admin change the password of someone who also works elsewhere', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    await t.app.services.users.addMember(t.app.deps.tenantDb(b.tenant._id), a.staff.id, 'staff');
    const res = await req('PUT', `/t/${b.slug}/users/${a.staff.id}`, b.admin.headers, { password: 'hijacked-pass' });
    expect(res.statusCode).toBe(403);
    expect((await login(t.app, a.staff.email, 'hijacked-pass')).statusCode).toBe(401);
    // Their role in b is b's business.
    expect((await req('PUT', `/t/${b.slug}/users/${a.staff.id}`, b.admin.headers, { role: 'accountant' })).statusCode).toBe(200);
  });
});

describe('DELETE /t/:slug/users/:id', () => {
  it('removes the membership and the user when no tenant is left', async () => {
    const a = await makeTenantWithTeam(t.app);
    const res = await req('DELETE', `/t/${a.slug}/users/${a.staff.id}`, a.admin.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: true });
    expect((await login(t.app, a.staff.email)).statusCode).toBe(401);
    expect((await req('GET', '/auth/me', a.staff.headers)).statusCode).toBe(401);
    expect((await req('DELETE', `/t/${a.slug}/users/${a.staff.id}`, a.admin.headers)).statusCode).toBe(404);
  });

  it('keeps the user who still belongs to another tenant', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    await t.app.services.users.addMember(t.app.deps.tenantDb(b.tenant._id), a.staff.id, 'staff');
    expect((await req('DELETE', `/t/${b.slug}/users/${a.staff.id}`, b.admin.headers)).statusCode).toBe(200);
    expect((await login(t.app, a.staff.email)).statusCode).toBe(200);
    expect((await req('GET', `/t/${a.slug}/users`, a.admin.headers)).json()).toHaveLength(3);
  });

  it('refuses to delete the last admin, even themself', async () => {
    const a = await makeTenantWithTeam(t.app);
    expect((await req('DELETE', `/t/${a.slug}/users/${a.admin.id}`, a.admin.headers)).statusCode).toBe(409);
  });

  it('is refused to staff and without a token', async () => {
    const a = await makeTenantWithTeam(t.app);
    expect((await req('DELETE', `/t/${a.slug}/users/${a.accountant.id}`, a.staff.headers)).statusCode).toBe(403);
    expect((await req('DELETE', `/t/${a.slug}/users/${a.accountant.id}`, {})).statusCode).toBe(401);
  });
});

describe('tenant isolation', () => {
  it("tenant B's admin cannot read, change or delete tenant A's users", async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: a.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [
        { method: 'PUT', path: `/t/:slug/users/${a.staff.id}`, payload: { name: 'pwned', role: 'admin' } },
        { method: 'DELETE', path: `/t/:slug/users/${a.staff.id}` },
      ],
      snapshot: async () => (await req('GET', `/t/${a.slug}/users`, a.admin.headers)).json(),
    });
    const listA = await req('GET', `/t/${a.slug}/users`, b.admin.headers);
    expect(listA.statusCode).toBe(403);
    const listB = (await req('GET', `/t/${b.slug}/users`, b.admin.headers)).json();
    expect(listB.map((u: { _id: string }) => u._id)).not.toContain(a.staff.id);
  });
});

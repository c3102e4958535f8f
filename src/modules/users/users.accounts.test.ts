import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import {
  login,
  makeLinkedSuperadmin,
  makePdv,
  makeSuperadmin,
  makeTenantWithTeam,
  makeUser,
  PASSWORD,
  session,
} from '../../../test/factories.js';

/** Accounts that belong to a person rather than a tenant: superadmins, people of several tenants, linking. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: object, payload?: object) =>
  t.app.inject({ method, url, headers: headers as Record<string, string>, payload: payload as never });
const me = (headers: object) => req('GET', '/auth/me', headers);
const refresh = (refreshToken: string) => t.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken } });
const memberOf = async (slug: string, headers: object, id: string) =>
  (await req('GET', `/t/${slug}/users`, headers)).json().find((u: { _id: string }) => u._id === id);

const TOO_LONG = 'é'.repeat(37); // 37 characters, 74 bytes
const FITS = 'é'.repeat(36); // 72 bytes

describe("a tenant admin and a superadmin's account", () => {
  it('changes nothing of a superadmin linked to the tenant: 403 on every field and on removal', async () => {
    const a = await makeTenantWithTeam(t.app);
    const sa = await makeLinkedSuperadmin(t.app, a.tenant, 'staff');
    const { pdvId, branchId } = await makePdv(t.app, a.tenant);
    const before = await memberOf(a.slug, a.admin.headers, sa.id);
    for (const payload of [
      { email: 'taken-over@example.com' },
      { password: 'taken-over-pass' },
      { name: 'Renamed' },
      { role: 'accountant' },
      { assignedPdvIds: [pdvId] },
      { assignedBranchIds: [branchId] },
      { role: 'staff' },
    ]) {
      const res = await req('PUT', `/t/${a.slug}/users/${sa.id}`, a.admin.headers, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(403);
      expect(res.json().code).toBe('superadmin_account');
    }
    const del = await req('DELETE', `/t/${a.slug}/users/${sa.id}`, a.admin.headers);
    expect(del.statusCode).toBe(403);
    expect(del.json().code).toBe('superadmin_account');
    // Nothing changed: the superadmin logs in as before, and nobody can log in as them with another password.
    expect(await memberOf(a.slug, a.admin.headers, sa.id)).toEqual(before);
    expect((await login(t.app, sa.email, 'taken-over-pass')).statusCode).toBe(401);
    expect((await login(t.app, 'taken-over@example.com', 'taken-over-pass')).statusCode).toBe(401);
    expect((await login(t.app, sa.email, PASSWORD)).statusCode).toBe(200);
    expect((await me(sa.headers)).statusCode).toBe(200);
  });

  it('leaves a superadmin free to change another superadmin, and ends their sessions on a new password', async () => {
    const a = await makeTenantWithTeam(t.app);
    const target = await makeLinkedSuperadmin(t.app, a.tenant, 'staff');
    const acting = await makeSuperadmin(t.app);
    const old = await session(t.app, target.email);
    const res = await req('PUT', `/t/${a.slug}/users/${target.id}`, acting.headers, { name: 'Operator', password: 'new-operator-pass' });
    expect(res.statusCode).toBe(200);
    expect(res.json().name).toBe('Operator');
    expect((await me(old.headers)).statusCode).toBe(401);
    expect((await refresh(old.refreshToken)).statusCode).toBe(401);
    expect((await login(t.app, target.email, 'new-operator-pass')).statusCode).toBe(200);
  });

  it("ends a superadmin's sessions when their last membership is removed (the account is kept)", async () => {
    const a = await makeTenantWithTeam(t.app);
    const target = await makeLinkedSuperadmin(t.app, a.tenant, 'staff');
    const acting = await makeSuperadmin(t.app);
    const old = await session(t.app, target.email);
    expect((await me(old.headers)).statusCode).toBe(200);
    expect((await req('DELETE', `/t/${a.slug}/users/${target.id}`, acting.headers)).statusCode).toBe(200);
    expect((await me(old.headers)).statusCode).toBe(401);
    expect((await me(target.headers)).statusCode).toBe(401);
    expect((await refresh(old.refreshToken)).statusCode).toBe(401);
    // The account stays: a new login works.
    const again = await session(t.app, target.email);
    expect((await me(again.headers)).statusCode).toBe(200);
  });
});

describe('a person who also belongs to another tenant', () => {
  it("lets this tenant's admin change only role and assignments (403 for name, email, password)", async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    await t.app.services.users.addMember(t.app.deps.tenantDb(b.tenant._id), a.staff.id, 'staff');
    const { pdvId, branchId } = await makePdv(t.app, b.tenant);
    const current = await memberOf(b.slug, b.admin.headers, a.staff.id);
    for (const payload of [{ name: 'Renamed' }, { email: 'moved@example.com' }, { password: 'hijacked-pass' }, { role: 'admin', name: 'X' }]) {
      const res = await req('PUT', `/t/${b.slug}/users/${a.staff.id}`, b.admin.headers, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(403);
      expect(res.json().code).toBe('shared_account');
    }
    expect(await memberOf(b.slug, b.admin.headers, a.staff.id)).toEqual(current);
    expect((await login(t.app, a.staff.email, PASSWORD)).statusCode).toBe(200);
    // Role and assignments in b are b's business; sending the unchanged name and email along is fine.
    const ok = await req('PUT', `/t/${b.slug}/users/${a.staff.id}`, b.admin.headers, {
      name: current.name,
      email: current.email.toUpperCase(),
      role: 'branch_manager',
      assignedBranchIds: [branchId],
      assignedPdvIds: [pdvId],
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ role: 'branch_manager', assignedBranchIds: [branchId], assignedPdvIds: [pdvId] });
    // Removing them from b leaves their account and their place in a.
    expect((await req('DELETE', `/t/${b.slug}/users/${a.staff.id}`, b.admin.headers)).statusCode).toBe(200);
    expect((await login(t.app, a.staff.email, PASSWORD)).statusCode).toBe(200);
    expect(await memberOf(a.slug, a.admin.headers, a.staff.id)).toMatchObject({ role: 'staff' });
  });

  it('lets a superadmin change their password, which ends their sessions everywhere', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    await t.app.services.users.addMember(t.app.deps.tenantDb(b.tenant._id), a.staff.id, 'staff');
    const sa = await makeSuperadmin(t.app);
    const old = await session(t.app, a.staff.email);
    expect((await req('PUT', `/t/${b.slug}/users/${a.staff.id}`, sa.headers, { password: 'set-by-operator' })).statusCode).toBe(200);
    expect((await req('GET', `/t/${a.slug}/tables`, old.headers)).statusCode).toBe(401);
    expect((await refresh(old.refreshToken)).statusCode).toBe(401);
    expect((await login(t.app, a.staff.email, 'set-by-operator')).statusCode).toBe(200);
  });
});

describe('a password set by an admin', () => {
  it("ends the person's sessions at once: access tokens (cached membership too) and refresh tokens", async () => {
    const a = await makeTenantWithTeam(t.app);
    const s = await session(t.app, a.staff.email);
    // Warm the membership cache with the old token.
    expect((await req('GET', `/t/${a.slug}/tables`, s.headers)).statusCode).toBe(200);
    expect((await req('PUT', `/t/${a.slug}/users/${a.staff.id}`, a.admin.headers, { password: 'admin-set-pass' })).statusCode).toBe(200);
    expect((await req('GET', `/t/${a.slug}/tables`, s.headers)).statusCode).toBe(401);
    expect((await req('GET', `/t/${a.slug}/tables`, a.staff.headers)).statusCode).toBe(401);
    expect((await me(s.headers)).statusCode).toBe(401);
    expect((await refresh(s.refreshToken)).statusCode).toBe(401);
    const fresh = await session(t.app, a.staff.email, 'admin-set-pass');
    expect((await req('GET', `/t/${a.slug}/tables`, fresh.headers)).statusCode).toBe(200);
  });

  it('does not end sessions for a change of role, assignments or name', async () => {
    const a = await makeTenantWithTeam(t.app);
    const s = await session(t.app, a.staff.email);
    expect((await req('PUT', `/t/${a.slug}/users/${a.staff.id}`, a.admin.headers, { name: 'Renamed', role: 'accountant' })).statusCode).toBe(200);
    expect((await me(s.headers)).statusCode).toBe(200);
    expect((await refresh(s.refreshToken)).statusCode).toBe(200);
  });

  it('is limited to 72 bytes of UTF-8, not characters, on create and update (400 naming the field)', async () => {
    const a = await makeTenantWithTeam(t.app);
    const base = { name: 'Bytes', role: 'staff' };
    for (const password of [TOO_LONG, 'x'.repeat(73)]) {
      const created = await req('POST', `/t/${a.slug}/users`, a.admin.headers, { ...base, email: 'bytes@example.com', password });
      expect(created.statusCode).toBe(400);
      expect(created.json().details[0].field).toBe('body.password');
      const updated = await req('PUT', `/t/${a.slug}/users/${a.staff.id}`, a.admin.headers, { password });
      expect(updated.statusCode).toBe(400);
      expect(updated.json().details[0].field).toBe('body.password');
    }
    expect((await login(t.app, a.staff.email, PASSWORD)).statusCode).toBe(200);
    const created = await req('POST', `/t/${a.slug}/users`, a.admin.headers, { ...base, email: 'bytes@example.com', password: FITS });
    expect(created.statusCode).toBe(201);
    expect((await login(t.app, 'bytes@example.com', FITS)).statusCode).toBe(200);
  });
});

describe('adding a person who already has an account', () => {
  it('links them, keeps their name and password, and answers exactly as for a new account', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const existing = await req('POST', `/t/${b.slug}/users`, b.admin.headers, {
      email: a.staff.email.toUpperCase(),
      name: 'Someone Else',
      password: 'ignored-password',
      role: 'accountant',
    });
    const created = await req('POST', `/t/${b.slug}/users`, b.admin.headers, {
      email: 'brand-new@example.com',
      name: 'Brand New',
      password: 'chosen-password',
      role: 'accountant',
    });
    for (const res of [existing, created]) {
      expect(res.statusCode).toBe(201);
      expect(Object.keys(res.json()).sort()).toEqual(['_id', 'assignedBranchIds', 'assignedPdvIds', 'createdAt', 'email', 'name', 'role']);
      expect(res.headers['content-type']).toBe(created.headers['content-type']);
    }
    const body = existing.json();
    const original = await memberOf(a.slug, a.admin.headers, a.staff.id);
    // Tenant B sees what it typed and when it added the person, as for a new account: nothing tells it the
    // email existed (not the answer, not its list); tenant A and the person still see their own name.
    expect(body).toMatchObject({ _id: a.staff.id, email: a.staff.email, name: 'Someone Else', role: 'accountant' });
    expect(body.name).not.toBe(original.name);
    // When B added them, not when the account was made: between the account and B's next new user.
    expect(Date.parse(body.createdAt)).toBeGreaterThanOrEqual(Date.parse(original.createdAt));
    expect(Date.parse(body.createdAt)).toBeLessThanOrEqual(Date.parse(created.json().createdAt));
    expect(await memberOf(b.slug, b.admin.headers, a.staff.id)).toEqual(body);
    expect((await memberOf(a.slug, a.admin.headers, a.staff.id)).name).toBe(original.name);
    expect((await me(a.staff.headers)).json().user.name).toBe(original.name);
    // Their password is theirs: the one given is ignored.
    expect((await login(t.app, a.staff.email, 'ignored-password')).statusCode).toBe(401);
    expect((await login(t.app, a.staff.email, PASSWORD)).statusCode).toBe(200);
    expect((await login(t.app, 'brand-new@example.com', 'chosen-password')).statusCode).toBe(200);
    const tenants = (await me(a.staff.headers)).json().tenants.map((x: { slug: string; role: string }) => `${x.slug}:${x.role}`);
    expect(tenants.sort()).toEqual([`${a.slug}:staff`, `${b.slug}:accountant`].sort());
    // Already a member here: 409.
    const again = await req('POST', `/t/${b.slug}/users`, b.admin.headers, { email: a.staff.email, name: 'X', password: 'whatever-pass', role: 'staff' });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('already_member');
  });

  it('checks the given password the same way for an existing account (no shortcut around the hash)', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    for (const email of [a.staff.email, 'no-account-yet@example.com']) {
      const res = await req('POST', `/t/${b.slug}/users`, b.admin.headers, { email, name: 'N', password: TOO_LONG, role: 'staff' });
      expect(res.statusCode, email).toBe(400);
      expect(res.json().details[0].field).toBe('body.password');
    }
    expect((await req('GET', `/t/${b.slug}/users`, b.admin.headers)).json()).toHaveLength(3);
  });

  it('creates one account when two tenants add the same new email at the same moment', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const payload = { email: 'freelance-waiter@example.com', name: 'Freelancer', password: 'freelance-pass', role: 'staff' };
    const [x, y] = await Promise.all([
      req('POST', `/t/${a.slug}/users`, a.admin.headers, payload),
      req('POST', `/t/${b.slug}/users`, b.admin.headers, payload),
    ]);
    expect([x.statusCode, y.statusCode]).toEqual([201, 201]);
    expect(x.json()._id).toBe(y.json()._id);
    const s = await session(t.app, payload.email, payload.password);
    expect((await me(s.headers)).json().tenants).toHaveLength(2);
  });

  it('lets a tenant admin link a superadmin without gaining any power over the account', async () => {
    const a = await makeTenantWithTeam(t.app);
    const sa = await makeSuperadmin(t.app);
    const res = await req('POST', `/t/${a.slug}/users`, a.admin.headers, { email: sa.email, name: 'X', password: 'attacker-pass', role: 'staff' });
    expect(res.statusCode).toBe(201);
    expect((await login(t.app, sa.email, 'attacker-pass')).statusCode).toBe(401);
    expect((await req('PUT', `/t/${a.slug}/users/${sa.id}`, a.admin.headers, { password: 'attacker-pass' })).statusCode).toBe(403);
  });
});

describe('removal, and one\'s own account', () => {
  it('refuses a token whose user was removed with their last membership', async () => {
    const a = await makeTenantWithTeam(t.app);
    const s = await session(t.app, a.accountant.email);
    expect((await req('DELETE', `/t/${a.slug}/users/${a.accountant.id}`, a.admin.headers)).statusCode).toBe(200);
    expect((await me(s.headers)).statusCode).toBe(401);
    expect((await refresh(s.refreshToken)).statusCode).toBe(401);
  });

  it('still lets a plain member change their own name, email and password through the tenant route', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const twoTenantAdmin = await makeUser(t.app, a.tenant, 'admin');
    await t.app.services.users.addMember(t.app.deps.tenantDb(b.tenant._id), twoTenantAdmin.id, 'admin');
    const res = await req('PUT', `/t/${b.slug}/users/${twoTenantAdmin.id}`, twoTenantAdmin.headers, { name: 'Me Myself' });
    expect(res.statusCode).toBe(200);
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { installApp, makePublishedApp } from '../../../test/apps.js';
import { makeMenuItem, makeSuperadmin, makeTenantWithTeam, makeUser, PASSWORD, session, type TestUser } from '../../../test/factories.js';

let t: TestApp;
let superadmin: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  superadmin = await makeSuperadmin(t.app);
});
afterAll(() => t.close());

interface Event {
  _id: string;
  tenant: string | null;
  at: string;
  action: string;
  actor: string | null;
  actorLabel: string | null;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  ip: string | null;
}
interface Page {
  data: Event[];
  total: number;
  page: number;
  totalPages: number;
}

let address = 0;
/** Each call from its own address: the login limit is per address. */
const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, payload, headers, remoteAddress: `10.77.0.${(++address % 250) + 1}` });

const get = (url: string, headers?: Record<string, string>) => t.app.inject({ url, headers });
async function tenantLog(team: { slug: string; admin: TestUser }, query = ''): Promise<Page> {
  const res = await get(`/t/${team.slug}/audit${query}`, team.admin.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
async function platformLog(query = ''): Promise<Page> {
  const res = await get(`/api/superadmin/audit${query}`, superadmin.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('GET /t/:slug/audit', () => {
  it('answers the tenant admin its events, newest first, filtered by action, actor and time, paged', async () => {
    const a = await makeTenantWithTeam(t.app);
    const before = t.clock.now().toISOString();
    for (const role of ['admin', 'accountant', 'staff'] as const) {
      const res = await t.app.inject({ method: 'PUT', url: `/t/${a.slug}/users/${a.staff.id}`, headers: a.admin.headers, payload: { role } });
      expect(res.statusCode, res.body).toBe(200);
    }
    const all = await tenantLog(a, '?action=member.role_changed');
    expect(all.total).toBe(3);
    expect(all.data.map((e) => e.details.to)).toEqual(['staff', 'accountant', 'admin']);
    expect(all.data[0]).toMatchObject({ tenant: a.tenant._id, actor: a.admin.id, actorLabel: a.admin.email, targetType: 'user', targetId: a.staff.id });
    expect(all.data[0].details).toEqual({ email: a.staff.email, from: 'accountant', to: 'staff' });

    const paged = await tenantLog(a, '?action=member.role_changed&limit=2&page=2');
    expect(paged).toMatchObject({ total: 3, page: 2, totalPages: 2 });
    expect(paged.data.map((e) => e.details.to)).toEqual(['admin']);

    expect((await tenantLog(a, `?actor=${a.staff.id}`)).total).toBe(0);
    expect((await tenantLog(a, `?actor=${a.admin.id}&action=member.role_changed`)).total).toBe(3);
    expect((await tenantLog(a, `?to=${encodeURIComponent(before)}`)).total).toBe(0);
    expect((await tenantLog(a, `?from=${encodeURIComponent(before)}&action=member.role_changed`)).total).toBe(3);
  });

  it('never shows another tenant’s events', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const res = await t.app.inject({ method: 'PUT', url: `/t/${b.slug}/users/${b.staff.id}`, headers: b.admin.headers, payload: { role: 'accountant' } });
    expect(res.statusCode, res.body).toBe(200);
    expect((await tenantLog(b)).total).toBe(1);
    expect(await tenantLog(a)).toMatchObject({ total: 0, data: [] });
    // b's admin holds no role in a: refused, nothing of a's shown.
    expect((await get(`/t/${a.slug}/audit`, b.admin.headers)).statusCode).toBe(403);
  });

  it('is 401 without a token, 403 for staff and accountants, 400 for a bad filter', async () => {
    const a = await makeTenantWithTeam(t.app);
    expect((await get(`/t/${a.slug}/audit`)).statusCode).toBe(401);
    expect((await get(`/t/${a.slug}/audit`, a.staff.headers)).statusCode).toBe(403);
    expect((await get(`/t/${a.slug}/audit`, a.accountant.headers)).statusCode).toBe(403);
    for (const query of ['limit=201', 'limit=0', 'page=0', 'action=auth.nope', 'actor=xyz', 'from=yesterday']) {
      const res = await get(`/t/${a.slug}/audit?${query}`, a.admin.headers);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
    }
    expect((await get(`/t/${a.slug}/audit?limit=200`, a.admin.headers)).statusCode).toBe(200);
  });
});

describe('GET /api/superadmin/audit', () => {
  it('answers every tenant’s events and the platform’s, or one tenant’s', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    for (const team of [a, b]) {
      const res = await t.app.inject({ method: 'DELETE', url: `/t/${team.slug}/users/${team.accountant.id}`, headers: team.admin.headers });
      expect(res.statusCode, res.body).toBe(200);
    }
    const removed = await platformLog('?action=member.removed&limit=200');
    const tenantsSeen = removed.data.map((e) => e.tenant);
    expect(tenantsSeen).toEqual(expect.arrayContaining([a.tenant._id, b.tenant._id]));
    const onlyA = await platformLog(`?tenant=${a.tenant._id}`);
    expect(onlyA.data.map((e) => [e.tenant, e.action, e.targetId])).toEqual([[a.tenant._id, 'member.removed', a.accountant.id]]);
    expect(onlyA.data[0].details).toEqual({ email: a.accountant.email, role: 'accountant' });
    // Platform events (no tenant) come with the rest when no tenant is named.
    expect((await post('/auth/login', { email: a.admin.email, password: PASSWORD })).statusCode).toBe(200);
    const logins = await platformLog(`?actor=${a.admin.id}&action=auth.login`);
    expect(logins.data).toHaveLength(1);
    expect(logins.data[0].tenant).toBeNull();
  });

  it('is 401 without a token, 403 for a tenant admin, 400 for a bad filter', async () => {
    const a = await makeTenantWithTeam(t.app);
    expect((await get('/api/superadmin/audit')).statusCode).toBe(401);
    expect((await get('/api/superadmin/audit', a.admin.headers)).statusCode).toBe(403);
    for (const query of ['tenant=nope', 'limit=500', 'to=2026-13-01T00:00:00Z']) {
      expect((await get(`/api/superadmin/audit?${query}`, superadmin.headers)).statusCode, query).toBe(400);
    }
  });
});

describe('the events recorded', () => {
  it('records a login and a failed login (the e-mail tried, never the password)', async () => {
    const user = await makeUser(t.app, null, 'staff');
    const ok = await post('/auth/login', { email: user.email, password: PASSWORD });
    expect(ok.statusCode, ok.body).toBe(200);
    const wrong = await post('/auth/login', { email: user.email.toUpperCase(), password: 'not-the-password-42' });
    expect(wrong.statusCode).toBe(401);
    const unknownEmail = `nobody-${Date.now()}@example.com`;
    expect((await post('/auth/login', { email: unknownEmail, password: 'guessed-password-77' })).statusCode).toBe(401);

    const mine = await platformLog(`?actor=${user.id}`);
    expect(mine.data.map((e) => [e.action, e.actorLabel, e.details])).toEqual([
      ['auth.login_failed', user.email, { reason: 'wrong_password' }],
      ['auth.login', user.email, {}],
    ]);
    expect(mine.data[0].ip).toMatch(/^10\.77\.0\.\d+$/);
    const failed = await platformLog('?action=auth.login_failed&limit=200');
    const stranger = failed.data.find((e) => e.actorLabel === unknownEmail);
    expect(stranger).toMatchObject({ actor: null, tenant: null, details: { reason: 'unknown_email' } });
    const body = JSON.stringify(failed);
    expect(body).not.toContain('not-the-password-42');
    expect(body).not.toContain('guessed-password-77');
  });

  it('records a password change and a reset by link', async () => {
    const user = await makeUser(t.app, null, 'staff');
    const s = await session(t.app, user.email);
    const changed = await post('/auth/password', { currentPassword: PASSWORD, newPassword: 'another-long-password-1' }, s.headers);
    expect(changed.statusCode, changed.body).toBe(200);
    // A wrong current password changes nothing and records nothing.
    const now = { authorization: `Bearer ${changed.json().accessToken}` };
    const refused = await post('/auth/password', { currentPassword: 'wrong-password-000', newPassword: 'another-long-password-2' }, now);
    expect(refused.statusCode).toBe(400);
    expect((await post('/auth/password/forgot', { email: user.email })).statusCode).toBe(202);
    await t.app.jobs.drain();
    const token = /#token=([0-9a-f]{64})/.exec(t.mail.to(user.email).at(-1)!.text)![1];
    expect((await post('/auth/password/reset', { token, newPassword: 'a-third-long-password' })).statusCode).toBe(204);

    const events = await platformLog(`?actor=${user.id}&action=auth.password_changed`);
    expect(events.data.map((e) => [e.action, e.targetId])).toEqual([['auth.password_changed', user.id]]);
    const resets = await platformLog(`?actor=${user.id}&action=auth.password_reset`);
    expect(resets.data.map((e) => [e.action, e.targetType, e.targetId])).toEqual([['auth.password_reset', 'user', user.id]]);
  });

  it('records members added, their role and password changed, and removed; a refused change records nothing', async () => {
    const a = await makeTenantWithTeam(t.app);
    const email = `new-${Date.now()}@example.com`;
    const created = await t.app.inject({
      method: 'POST',
      url: `/t/${a.slug}/users`,
      headers: a.admin.headers,
      payload: { email, name: 'Nova', password: 'a-long-password-1', role: 'staff' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id: string = created.json()._id;
    const put = (userId: string, payload: object) => t.app.inject({ method: 'PUT', url: `/t/${a.slug}/users/${userId}`, headers: a.admin.headers, payload });
    expect((await put(id, { role: 'accountant', password: 'a-long-password-2' })).statusCode).toBe(200);
    // The last admin demoting themself: 409, and the transaction (with its event) rolled back.
    expect((await put(a.admin.id, { role: 'staff' })).statusCode).toBe(409);
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${a.slug}/users/${id}`, headers: a.admin.headers })).statusCode).toBe(200);

    const log = await tenantLog(a);
    expect(log.data.map((e) => [e.action, e.targetId, e.details])).toEqual([
      ['member.removed', id, { email, role: 'accountant' }],
      ['member.password_set', id, { email }],
      ['member.role_changed', id, { email, from: 'staff', to: 'accountant' }],
      ['member.added', id, { email, role: 'staff' }],
    ]);
    expect(JSON.stringify(log)).not.toContain('a-long-password');
  });

  it('records invitations (who invited whom, with which role); their acceptance and revocation are a reset by link and a removal', async () => {
    const a = await makeTenantWithTeam(t.app);
    const elsewhere = await makeTenantWithTeam(t.app);
    const known = await makeUser(t.app, elsewhere.tenant, 'staff');
    const stamp = Date.now();
    const [fresh, dropped] = [`invited-${stamp}@example.com`, `dropped-${stamp}@example.com`];
    const invite = (headers: Record<string, string>, email: string) =>
      t.app.inject({ method: 'POST', url: `/t/${a.slug}/accountant/invite`, headers, payload: { email, name: 'Contadora' } });
    expect((await invite(a.admin.headers, fresh)).statusCode).toBe(201);
    expect((await invite(a.admin.headers, known.email)).statusCode).toBe(201);
    expect((await invite(superadmin.headers, dropped)).statusCode).toBe(201);
    // Refused (a member already; not an admin): nothing recorded.
    expect((await invite(a.admin.headers, fresh)).statusCode).toBe(409);
    expect((await invite(a.staff.headers, `staff-${stamp}@example.com`)).statusCode).toBe(403);

    const idOf = async (email: string) => (await t.app.services.users.findByEmail(email))!.id;
    const [freshId, droppedId] = [await idOf(fresh), await idOf(dropped)];
    const invited = await tenantLog(a, '?action=member.invited');
    expect(invited.data.map((e) => [e.actor, e.actorLabel, e.targetType, e.targetId, e.details])).toEqual([
      [superadmin.id, superadmin.email, 'user', droppedId, { email: dropped, role: 'accountant', newAccount: true }],
      [a.admin.id, a.admin.email, 'user', known.id, { email: known.email, role: 'accountant', newAccount: false }],
      [a.admin.id, a.admin.email, 'user', freshId, { email: fresh, role: 'accountant', newAccount: true }],
    ]);
    expect((await tenantLog(a, `?action=member.invited&actor=${a.admin.id}`)).total).toBe(2);
    expect((await tenantLog(a, '?action=member.added')).total).toBe(0);

    // The links of the two new accounts (an invitation opens the account with a password reset link).
    await t.app.jobs.drain({ names: ['auth.invitation-mail'] });
    const linkOf = (email: string) => /#token=([\w-]+)/.exec(t.mail.to(email)[0].text)![1];
    const accept = (email: string) => t.app.inject({ method: 'POST', url: '/auth/password/reset', payload: { token: linkOf(email), newPassword: 'invited-password-1' } });
    // Revoked: the member removed before accepting (member.removed); the account went with the membership, and its link with it.
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${a.slug}/users/${droppedId}`, headers: a.admin.headers })).statusCode).toBe(200);
    expect((await tenantLog(a, '?action=member.removed')).data.map((e) => [e.actor, e.targetId, e.details])).toEqual([
      [a.admin.id, droppedId, { email: dropped, role: 'accountant' }],
    ]);
    expect((await accept(dropped)).statusCode).toBe(400);
    // Accepted: the password chosen through the link, the platform's password reset of that account.
    expect((await accept(fresh)).statusCode).toBe(204);
    const accepted = await platformLog(`?action=auth.password_reset&actor=${freshId}`);
    expect(accepted.data.map((e) => [e.tenant, e.targetType, e.targetId])).toEqual([[null, 'user', freshId]]);
  });

  it('records which tenant secrets changed, never their values', async () => {
    const a = await makeTenantWithTeam(t.app);
    const put = (url: string, headers: Record<string, string>, payload: object) => t.app.inject({ method: 'PUT', url, headers, payload });
    expect((await put(`/t/${a.slug}/tenants`, a.admin.headers, { fiscalProviderToken: 'fiscal-secret-value-1' })).statusCode).toBe(200);
    // No secret in the change: no event.
    expect((await put(`/t/${a.slug}/tenants`, a.admin.headers, { name: 'Outro nome' })).statusCode).toBe(200);
    const bySuperadmin = await put(`/api/superadmin/tenants/${a.tenant._id}`, superadmin.headers, { walletAccessToken: 'wallet-secret-value-2', fiscalProviderToken: null });
    expect(bySuperadmin.statusCode, bySuperadmin.body).toBe(200);

    const log = await tenantLog(a, '?action=tenant.secrets_changed');
    expect(log.data.map((e) => [e.actor, e.actorLabel, e.details])).toEqual([
      [superadmin.id, superadmin.email, { fields: ['fiscalProviderToken', 'walletAccessToken'], cleared: ['fiscalProviderToken'] }],
      [a.admin.id, a.admin.email, { fields: ['fiscalProviderToken'], cleared: [] }],
    ]);
    expect(log.data[0]).toMatchObject({ targetType: 'tenant', targetId: a.tenant._id });
    expect(JSON.stringify(log)).not.toMatch(/secret-value/);
    expect((await tenantLog(a)).total).toBe(2);
  });

  it('records App installs and revocations', async () => {
    const a = await makeTenantWithTeam(t.app);
    const published = await makePublishedApp(t.app, superadmin, { scopes: ['orders.read', 'menu.read'] });
    const { installation } = await installApp(t.app, a, published.slug, ['orders.read']);
    const revoke = () => t.app.inject({ method: 'DELETE', url: `/t/${a.slug}/admin/marketplace/installations/${installation._id}`, headers: a.admin.headers });
    expect((await revoke()).statusCode).toBe(200);
    // A repeat changes nothing: no second event.
    expect((await revoke()).statusCode).toBe(200);
    const log = await tenantLog(a, `?actor=${a.admin.id}`);
    expect(log.data.map((e) => [e.action, e.targetType, e.targetId, e.details])).toEqual([
      ['app.revoked', 'app_installation', installation._id, { appId: published.id }],
      ['app.installed', 'app_installation', installation._id, { app: published.slug, scopes: ['orders.read'] }],
    ]);
  });
});

describe('the events recorded on the books and the bill', () => {
  type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
  const call = (method: 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, payload: payload as never });
  async function order(team: Team) {
    const dish = await makeMenuItem(t.app, team.tenant, { price: 10000 });
    const res = await call('POST', `/t/${team.slug}/orders`, team.admin.headers, { orderType: 'takeout', items: [{ menuItem: dish._id, quantity: 2 }] });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { _id: string; orderNumber: string };
  }

  it('records discounts above the limit and voids once the kitchen has the order, not the ones any floor role may give', async () => {
    const a = await makeTenantWithTeam(t.app);
    const o = await order(a);
    const url = `/t/${a.slug}/orders/${o._id}`;
    // Within the limit (10%), by staff: not audited. Above it, by staff: refused, nothing recorded.
    expect((await call('PUT', `${url}/discount`, a.staff.headers, { line: 0, kind: 'percent', value: 10, reason: 'cliente fiel' })).statusCode).toBe(200);
    expect((await call('PUT', `${url}/discount`, a.staff.headers, { line: 0, kind: 'percent', value: 30, reason: 'amigo' })).statusCode).toBe(403);
    expect((await call('PUT', `${url}/discount`, a.admin.headers, { line: 0, kind: 'percent', value: 30, reason: 'amigo' })).statusCode).toBe(200);
    // A void on a pending order (any floor role): not audited; once confirmed (a manager's): audited.
    expect((await call('POST', `${url}/void`, a.staff.headers, { line: 0, quantity: 1, reason: 'errado' })).statusCode).toBe(200);
    expect((await call('PUT', `${url}/status`, a.admin.headers, { status: 'confirmed' })).statusCode).toBe(200);
    expect((await call('POST', `${url}/void`, a.admin.headers, { line: 0, quantity: 1, reason: 'devolvido' })).statusCode).toBe(200);

    const log = await tenantLog(a, '?limit=10');
    expect(log.data.map((e) => [e.action, e.actor, e.targetId, e.details])).toEqual([
      ['order.void_after_kitchen', a.admin.id, o._id, { orderNumber: o.orderNumber, line: 0, detail: expect.stringMatching(/^1 x /), status: 'confirmed', reason: 'devolvido' }],
      [
        'order.discount_above_limit',
        a.admin.id,
        o._id,
        { orderNumber: o.orderNumber, line: 0, kind: 'percent', value: 30, baseCents: 20000, limitPercent: 10, reason: 'amigo' },
      ],
    ]);
  });

  it('records the refund of a cancelled order’s payments, with the admin who cancelled it as the actor', async () => {
    const a = await makeTenantWithTeam(t.app);
    const o = await order(a);
    const url = `/t/${a.slug}/orders/${o._id}`;
    expect((await call('POST', `${url}/process-payment`, a.admin.headers, { method: 'cash', gateway: 'mock', amount: 5000 })).statusCode).toBe(200);
    const paid = await call('POST', `${url}/process-payment`, a.admin.headers, { method: 'debit_card', gateway: 'mock' });
    expect(paid.statusCode, paid.body).toBe(200);
    // Staff may not cancel a paid order: refused, no refund recorded.
    expect((await call('PUT', `${url}/status`, a.staff.headers, { status: 'cancelled' })).statusCode).toBe(403);
    expect((await tenantLog(a, '?action=payment.refunded')).total).toBe(0);
    expect((await call('PUT', `${url}/status`, a.admin.headers, { status: 'cancelled' })).statusCode).toBe(200);
    const log = await tenantLog(a, '?action=payment.refunded');
    expect(log.data.map((e) => e.details).sort((x, y) => Number(x.amountCents) - Number(y.amountCents))).toEqual([
      { orderId: o._id, orderNumber: o.orderNumber, amountCents: 5000, method: 'cash', gateway: 'mock', reason: 'order_cancelled' },
      { orderId: o._id, orderNumber: o.orderNumber, amountCents: 15000, method: 'debit_card', gateway: 'mock', reason: 'order_cancelled' },
    ]);
    expect(log.data.map((e) => [e.targetType, e.actor])).toEqual([
      ['payment', a.admin.id],
      ['payment', a.admin.id],
    ]);
    // Filterable by the actor, as every event with one.
    expect((await tenantLog(a, `?action=payment.refunded&actor=${a.admin.id}`)).total).toBe(2);
    expect((await tenantLog(a, `?action=payment.refunded&actor=${a.staff.id}`)).total).toBe(0);
  });

  it('records a fiscal cancellation', async () => {
    const a = await makeTenantWithTeam(t.app);
    const o = await order(a);
    expect((await call('POST', `/t/${a.slug}/orders/${o._id}/process-payment`, a.admin.headers, { method: 'cash', gateway: 'mock' })).statusCode).toBe(200);
    const setup = await call('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { cnpj: '11222333000181', fiscalProviderToken: `token-${a.slug}`, state: 'SP' });
    expect(setup.statusCode, setup.body).toBe(200);
    const doc = await call('POST', `/t/${a.slug}/fiscal/emit`, a.admin.headers, { orderId: o._id, tipo: 'nfce' });
    expect(doc.statusCode, doc.body).toBe(201);
    const id: string = doc.json()._id;
    expect((await call('DELETE', `/t/${a.slug}/fiscal/${id}/cancel`, a.admin.headers)).statusCode).toBe(200);
    // Cancelled already: 400, nothing more recorded.
    expect((await call('DELETE', `/t/${a.slug}/fiscal/${id}/cancel`, a.admin.headers)).statusCode).toBe(400);
    const log = await tenantLog(a, '?action=fiscal.cancelled');
    expect(log.data.map((e) => [e.actor, e.targetType, e.targetId, e.details])).toEqual([
      [a.admin.id, 'fiscal_document', id, { tipo: 'nfce', nfeKey: doc.json().nfeKey, number: Number(doc.json().nfeNumber), orderId: o._id, totalCents: 20000 }],
    ]);
  });

  it('records a period closed and reopened', async () => {
    const a = await makeTenantWithTeam(t.app);
    const period = { year: 2026, month: 1 };
    expect((await call('POST', `/t/${a.slug}/accounting/ledger/close`, a.admin.headers, period)).statusCode).toBe(200);
    // Closed already: 409, nothing more recorded.
    expect((await call('POST', `/t/${a.slug}/accounting/ledger/close`, a.admin.headers, period)).statusCode).toBe(409);
    expect((await call('POST', `/t/${a.slug}/accounting/ledger/reopen`, a.admin.headers, period)).statusCode).toBe(200);
    const log = await tenantLog(a, `?actor=${a.admin.id}`);
    expect(log.data.map((e) => [e.action, e.targetType, e.targetId, e.details])).toEqual([
      ['period.reopened', 'period', '2026-01', period],
      ['period.closed', 'period', '2026-01', period],
    ]);
  });
});

describe('append-only', () => {
  it('refuses UPDATE and DELETE of an event through the app’s connection, in a tenant and on the shared handle', async () => {
    const a = await makeTenantWithTeam(t.app);
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${a.slug}/users/${a.staff.id}`, headers: a.admin.headers })).statusCode).toBe(200);
    expect((await post('/auth/login', { email: a.admin.email, password: PASSWORD })).statusCode).toBe(200);
    // (drizzle wraps the database's error in its own, with the original as the cause)
    const denied = (e: Error & { cause?: Error }) => /permission denied/.test(`${e.message} ${e.cause?.message ?? ''}`);
    const inTenant = (statement: ReturnType<typeof sql>) => t.app.deps.tenantDb(a.tenant._id).run((tx) => tx.db.execute(statement));
    for (const statement of [sql`update audit_events set action = 'member.added'`, sql`delete from audit_events`, sql`truncate audit_events`]) {
      await expect(inTenant(statement)).rejects.toSatisfy(denied);
    }
    for (const statement of [sql`update platform_audit_events set actor_label = 'x'`, sql`delete from platform_audit_events`]) {
      await expect(t.app.deps.db.execute(statement)).rejects.toSatisfy(denied);
    }
    // The events are still there, unchanged.
    const log = await tenantLog(a);
    expect(log.data.map((e) => [e.action, e.targetId])).toEqual([['member.removed', a.staff.id]]);
    expect((await platformLog(`?actor=${a.admin.id}&action=auth.login`)).total).toBe(1);
  });
});

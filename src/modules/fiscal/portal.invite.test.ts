import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { login, makeSuperadmin, makeTenantWithTeam, makeUser } from '../../../test/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const INVITATION_MAIL_JOB = 'auth.invitation-mail';

async function mailTo(email: string) {
  await t.app.jobs.drain({ names: [INVITATION_MAIL_JOB] });
  return t.mail.to(email);
}

/** Choose a password with the mailed link, log in, and read the accountant dashboard. */
async function acceptInvitation(slug: string, text: string) {
  const token = /#token=([\w-]+)/.exec(text)![1];
  const reset = await t.app.inject({ method: 'POST', url: '/auth/password/reset', payload: { token, newPassword: 'invited-password-1' } });
  expect(reset.statusCode, reset.body).toBe(204);
}

describe('inviting an accountant (the auth service, as the invite route calls it)', () => {
  it('a new email: an account without a usable password, an accountant membership and a mail with a link to choose it', async () => {
    const team = await makeTenantWithTeam(t.app);
    const email = `contadora-${Date.now()}@example.com`;
    const out = await t.app.services.auth.invite(t.app.deps.tenantDb(team.tenant._id), { email: email.toUpperCase(), name: 'Contadora', role: 'accountant', tenantName: 'Bar do Zé' });
    expect(out).toMatchObject({ email, created: true });
    const [mail] = await mailTo(email);
    expect(mail.subject).toBe('Invitation to Bar do Zé');
    expect(mail.text).toContain('as accountant');
    expect(mail.text).toMatch(/reset-password#token=/);
    expect((await login(t.app, email, 'invited-password-1')).statusCode).toBe(401);
    await acceptInvitation(team.slug, mail.text);
    const session = await login(t.app, email, 'invited-password-1');
    expect(session.statusCode).toBe(200);
    const headers = { authorization: `Bearer ${session.json().accessToken}` };
    expect((await t.app.inject({ method: 'GET', url: `/t/${team.slug}/accountant/dashboard`, headers })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/t/${team.slug}/fiscal/ncm?q=cerveja`, headers })).statusCode).toBe(403);
  });

  it('a known email is linked and told (no link, its password stays); a member already is a 409 already_member', async () => {
    const team = await makeTenantWithTeam(t.app);
    const elsewhere = await makeTenantWithTeam(t.app);
    const known = await makeUser(t.app, elsewhere.tenant, 'accountant');
    const out = await t.app.services.auth.invite(t.app.deps.tenantDb(team.tenant._id), { email: known.email, role: 'accountant', tenantName: 'Bar' });
    expect(out.created).toBe(false);
    const [mail] = await mailTo(known.email);
    expect(mail.text).not.toContain('token=');
    await expect(t.app.services.auth.invite(t.app.deps.tenantDb(team.tenant._id), { email: known.email, role: 'accountant', tenantName: 'Bar' }))
      .rejects.toMatchObject({ code: 'already_member' });
  });
});

describe('POST /t/:slug/accountant/invite', () => {
  it('201 { message } for the admin and the superadmin; the mail goes out', async () => {
    const team = await makeTenantWithTeam(t.app);
    const email = `inv-${Date.now()}@example.com`;
    const res = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/accountant/invite`, headers: team.admin.headers, payload: { email, name: 'Contador' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({ message: `Invitation sent to ${email}` });
    expect(await mailTo(email)).toHaveLength(1);
    const sa = await makeSuperadmin(t.app);
    const again = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/accountant/invite`, headers: sa.headers, payload: { email: `sa-${email}` } });
    expect(again.statusCode, again.body).toBe(201);
    const twice = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/accountant/invite`, headers: team.admin.headers, payload: { email } });
    expect(twice.statusCode).toBe(409);
  });

  it('400 on a bad body, 401 without a token, 403 to the accountant, staff and another tenant’s admin; nothing is created', async () => {
    const team = await makeTenantWithTeam(t.app);
    const other = await makeTenantWithTeam(t.app);
    const url = `/t/${team.slug}/accountant/invite`;
    for (const payload of [{}, { email: 'not-an-email' }, { email: 'a@example.com', name: '' }, { email: 'a@example.com', role: 'admin' }]) {
      expect((await t.app.inject({ method: 'POST', url, headers: team.admin.headers, payload })).statusCode, JSON.stringify(payload)).toBe(400);
    }
    const payload = { email: `nobody-${Date.now()}@example.com` };
    expect((await t.app.inject({ method: 'POST', url, payload })).statusCode).toBe(401);
    for (const who of [team.accountant, team.staff, other.admin]) {
      expect((await t.app.inject({ method: 'POST', url, headers: who.headers, payload })).statusCode).toBe(403);
    }
    expect(await t.app.services.users.findByEmail(payload.email)).toBeFalsy();
  });
});

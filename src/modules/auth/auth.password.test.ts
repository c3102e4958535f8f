import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { login, makeTenantWithTeam, makeUser, PASSWORD, session } from '../../../test/factories.js';
import { PASSWORD_RESET_MAIL_JOB } from './auth.service.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ publicUrl: 'https://panel.example.com/' });
});
afterAll(() => t.close());

/** 36 two-byte characters: 72 bytes, the most bcrypt reads. One more is 74 bytes but only 37 characters. */
const FITS = 'é'.repeat(36);
const TOO_LONG = 'é'.repeat(37);

let ip = 0;
const post = (url: string, payload: object, headers: Record<string, string> = {}, remoteAddress = `10.88.0.${++ip % 250}`) =>
  t.app.inject({ method: 'POST', url, payload, headers, remoteAddress });
const refresh = (refreshToken: string) => post('/auth/refresh', { refreshToken });
const me = (headers: Record<string, string>) => t.app.inject({ url: '/auth/me', headers });
const changePassword = (headers: Record<string, string>, currentPassword: string, newPassword: string) =>
  post('/auth/password', { currentPassword, newPassword }, headers);

/** Runs the queued reset mails and returns the token of the newest link sent to `email`. */
async function resetTokenFor(email: string): Promise<string> {
  await t.app.jobs.drain({ names: [PASSWORD_RESET_MAIL_JOB] });
  const mails = t.mail.to(email);
  expect(mails.length).toBeGreaterThan(0);
  const match = /#token=([0-9a-f]{64})/.exec(mails[mails.length - 1].text);
  expect(match).not.toBeNull();
  return match![1];
}

describe('POST /auth/password (self-service)', () => {
  it('changes the password, ends every other session at once and keeps this device logged in', async () => {
    const a = await makeTenantWithTeam(t.app);
    const here = await session(t.app, a.staff.email);
    const elsewhere = await session(t.app, a.staff.email);
    // Warm the membership cache of the other device, so the check below proves the cache is dropped.
    expect((await t.app.inject({ url: `/t/${a.slug}/tables`, headers: elsewhere.headers })).statusCode).toBe(200);

    const res = await changePassword(here.headers, PASSWORD, 'a-new-password-1');
    expect(res.statusCode).toBe(200);
    const pair = res.json();
    expect(pair).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.stringMatching(/^[0-9a-f]{64}$/), expiresIn: 900 });

    // Every token issued before the change is dead: both devices' access and refresh tokens.
    for (const old of [here, elsewhere]) {
      expect((await me(old.headers)).statusCode).toBe(401);
      expect((await t.app.inject({ url: `/t/${a.slug}/tables`, headers: old.headers })).statusCode).toBe(401);
      expect((await refresh(old.refreshToken)).statusCode).toBe(401);
    }
    // The new pair works and rotates.
    const fresh = { authorization: `Bearer ${pair.accessToken}` };
    expect((await me(fresh)).statusCode).toBe(200);
    expect((await t.app.inject({ url: `/t/${a.slug}/tables`, headers: fresh })).statusCode).toBe(200);
    expect((await refresh(pair.refreshToken)).statusCode).toBe(200);
    expect((await login(t.app, a.staff.email, PASSWORD)).statusCode).toBe(401);
    expect((await login(t.app, a.staff.email, 'a-new-password-1')).statusCode).toBe(200);
  });

  it('answers 400 naming currentPassword when it is wrong, and changes nothing', async () => {
    const u = await makeUser(t.app, null, 'admin');
    const s = await session(t.app, u.email);
    const res = await changePassword(s.headers, 'not-my-password', 'a-new-password-2');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_current_password', details: [{ field: 'body.currentPassword' }] });
    expect((await me(s.headers)).statusCode).toBe(200);
    expect((await refresh(s.refreshToken)).statusCode).toBe(200);
    expect((await login(t.app, u.email, PASSWORD)).statusCode).toBe(200);
  });

  it('limits the new password by bytes: more than 72 bytes of UTF-8 is a 400 naming newPassword', async () => {
    const u = await makeUser(t.app, null, 'admin');
    const s = await session(t.app, u.email);
    for (const newPassword of [TOO_LONG, 'x'.repeat(73), 'short']) {
      const res = await changePassword(s.headers, PASSWORD, newPassword);
      expect(res.statusCode, newPassword).toBe(400);
      expect(res.json().details[0].field).toBe('body.newPassword');
    }
    expect((await me(s.headers)).statusCode).toBe(200);
    const ok = await changePassword(s.headers, PASSWORD, FITS);
    expect(ok.statusCode).toBe(200);
    expect((await login(t.app, u.email, FITS)).statusCode).toBe(200);
  });

  it('needs a token and both fields', async () => {
    expect((await changePassword({}, PASSWORD, 'a-new-password-3')).statusCode).toBe(401);
    const u = await makeUser(t.app, null, 'admin');
    const res = await post('/auth/password', { currentPassword: PASSWORD }, u.headers);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('body.newPassword');
  });

  it('limits guesses of the current password per user (429)', async () => {
    const u = await makeUser(t.app, null, 'admin');
    for (let i = 0; i < 10; i++) expect((await changePassword(u.headers, 'wrong-guess', 'a-new-password-4')).statusCode).toBe(400);
    const blocked = await changePassword(u.headers, PASSWORD, 'a-new-password-4');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['retry-after']).toBeDefined();
    expect(blocked.json()).toEqual({ statusCode: 429, message: expect.any(String) });
  });
});

describe('forgotten password', () => {
  it('answers the same 202 for a known and an unknown address, and mails only the known one', async () => {
    const u = await makeUser(t.app, null, 'staff');
    const known = await post('/auth/password/forgot', { email: u.email.toUpperCase() });
    const unknown = await post('/auth/password/forgot', { email: 'nobody-here@example.com' });
    for (const res of [known, unknown]) {
      expect(res.statusCode).toBe(202);
      expect(res.body).toBe('');
    }
    // Nothing was looked up or sent while answering: the job does it afterwards.
    expect(t.mail.to(u.email)).toHaveLength(0);
    await t.app.jobs.drain({ names: [PASSWORD_RESET_MAIL_JOB] });
    expect(t.mail.to('nobody-here@example.com')).toHaveLength(0);
    const [mail] = t.mail.to(u.email);
    expect(mail.subject).toMatch(/reset/i);
    expect(mail.text).toMatch(/^https:\/\/panel\.example\.com\/reset-password#token=[0-9a-f]{64}$/m);
  });

  it('serves the page the link opens: a form that posts the fragment token to the reset route, never cached', async () => {
    const u = await makeUser(t.app, null, 'staff');
    await post('/auth/password/forgot', { email: u.email });
    await t.app.jobs.drain({ names: [PASSWORD_RESET_MAIL_JOB] });
    const link = new URL(/^https:\/\/\S+$/m.exec(t.mail.to(u.email)[0].text)![0]);
    const page = await t.app.inject({ url: link.pathname });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<form id="reset">');
    expect(page.body).toContain("fetch('/auth/password/reset'");
    expect(page.body).toContain('location.hash');
    // A web page, not an API route.
    expect(Object.keys((await t.app.inject({ url: '/openapi.json' })).json().paths)).not.toContain(link.pathname);
  });

  it('resets once: the link sets the password, ends every session and is then spent', async () => {
    const a = await makeTenantWithTeam(t.app);
    const before = await session(t.app, a.staff.email);
    expect((await post('/auth/password/forgot', { email: a.staff.email })).statusCode).toBe(202);
    const token = await resetTokenFor(a.staff.email);

    const res = await post('/auth/password/reset', { token, newPassword: 'reset-password-1' });
    expect(res.statusCode).toBe(204);
    expect((await me(before.headers)).statusCode).toBe(401);
    expect((await me(a.staff.headers)).statusCode).toBe(401);
    expect((await refresh(before.refreshToken)).statusCode).toBe(401);
    expect((await login(t.app, a.staff.email, PASSWORD)).statusCode).toBe(401);
    expect((await login(t.app, a.staff.email, 'reset-password-1')).statusCode).toBe(200);

    const again = await post('/auth/password/reset', { token, newPassword: 'reset-password-2' });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('invalid_reset_token');
    expect((await login(t.app, a.staff.email, 'reset-password-1')).statusCode).toBe(200);
  });

  it('lets exactly one of two resets with one token at the same moment succeed', async () => {
    const u = await makeUser(t.app, null, 'staff');
    await post('/auth/password/forgot', { email: u.email });
    const token = await resetTokenFor(u.email);
    const results = await Promise.all([
      post('/auth/password/reset', { token, newPassword: 'concurrent-one' }),
      post('/auth/password/reset', { token, newPassword: 'concurrent-two' }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([204, 400]);
    const winner = results[0].statusCode === 204 ? 'concurrent-one' : 'concurrent-two';
    const loser = winner === 'concurrent-one' ? 'concurrent-two' : 'concurrent-one';
    expect((await login(t.app, u.email, winner)).statusCode).toBe(200);
    expect((await login(t.app, u.email, loser)).statusCode).toBe(401);
  });

  it('expires a link after 30 minutes, and voids older links once one is used', async () => {
    const u = await makeUser(t.app, null, 'staff');
    await post('/auth/password/forgot', { email: u.email });
    const old = await resetTokenFor(u.email);
    t.clock.advance(31 * 60_000);
    try {
      expect((await post('/auth/password/reset', { token: old, newPassword: 'too-late-pass' })).statusCode).toBe(400);
    } finally {
      t.clock.advance(-31 * 60_000);
    }
    await post('/auth/password/forgot', { email: u.email });
    const first = await resetTokenFor(u.email);
    await post('/auth/password/forgot', { email: u.email });
    const second = await resetTokenFor(u.email);
    expect(second).not.toBe(first);
    expect((await post('/auth/password/reset', { token: second, newPassword: 'second-link-pass' })).statusCode).toBe(204);
    expect((await post('/auth/password/reset', { token: first, newPassword: 'first-link-pass' })).statusCode).toBe(400);
    expect((await post('/auth/password/reset', { token: 'f'.repeat(64), newPassword: 'unknown-link' })).statusCode).toBe(400);
  });

  it('refuses a new password over 72 bytes (400 naming newPassword) without spending the link', async () => {
    const u = await makeUser(t.app, null, 'staff');
    await post('/auth/password/forgot', { email: u.email });
    const token = await resetTokenFor(u.email);
    const res = await post('/auth/password/reset', { token, newPassword: TOO_LONG });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('body.newPassword');
    expect((await post('/auth/password/reset', { token, newPassword: FITS })).statusCode).toBe(204);
    expect((await login(t.app, u.email, FITS)).statusCode).toBe(200);
  });

  it('limits requests per address (429), whatever the client, and per client', async () => {
    const u = await makeUser(t.app, null, 'staff');
    for (let i = 0; i < 3; i++) expect((await post('/auth/password/forgot', { email: u.email })).statusCode).toBe(202);
    const blocked = await post('/auth/password/forgot', { email: u.email.toUpperCase() });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['retry-after']).toBeDefined();
    expect(blocked.json()).toEqual({ statusCode: 429, message: expect.any(String) });
    // The same limit for an address without an account: the answer tells nothing.
    for (let i = 0; i < 3; i++) expect((await post('/auth/password/forgot', { email: 'ghost@example.com' })).statusCode).toBe(202);
    expect((await post('/auth/password/forgot', { email: 'ghost@example.com' })).statusCode).toBe(429);
    // One client asking for many addresses.
    const codes = [];
    for (let i = 0; i < 11; i++) codes.push((await post('/auth/password/forgot', { email: `many-${i}@example.com` }, {}, '10.99.0.1')).statusCode);
    expect(codes.slice(0, 10).every((c) => c === 202)).toBe(true);
    expect(codes[10]).toBe(429);
  });
});

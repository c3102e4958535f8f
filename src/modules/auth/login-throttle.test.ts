import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeUser, PASSWORD } from '../../../test/factories.js';
import { LOGIN_ACCOUNT_LIMIT } from './auth.service.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

let lastAddress = 0;
/** A client address never used before in this file, so the per-address limit never answers. */
const freshAddress = () => `10.20.${Math.floor(++lastAddress / 250)}.${(lastAddress % 250) + 1}`;

const attempt = (email: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/auth/login', remoteAddress: freshAddress(), payload: { email, password } });

async function failFrom10Addresses(email: string, n = LOGIN_ACCOUNT_LIMIT.limit) {
  for (let i = 0; i < n; i++) {
    const res = await attempt(email, `wrong-password-${i}`);
    expect(res.statusCode, `failure ${i + 1}: ${res.body}`).toBe(401);
  }
}

async function failedLoginsAudited(email: string) {
  // A new token each time: the tests move the clock past an access token's life.
  const superadmin = await makeSuperadmin(t.app);
  const res = await t.app.inject({ url: '/api/superadmin/audit?action=auth.login_failed&limit=200', headers: superadmin.headers });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as { actorLabel: string }[]).filter((e) => e.actorLabel === email).length;
}

function expectThrottled(res: Awaited<ReturnType<typeof attempt>>) {
  expect(res.statusCode, res.body).toBe(429);
  expect(res.json()).toEqual({ statusCode: 429, message: LOGIN_ACCOUNT_LIMIT.message });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(LOGIN_ACCOUNT_LIMIT.windowMs / 1000);
}

describe('failed logins per account', () => {
  it('counts only failures, from any address, then refuses even the right password until the window passes', async () => {
    expect(LOGIN_ACCOUNT_LIMIT).toMatchObject({ limit: 10, windowMs: 15 * 60_000 });
    const user = await makeUser(t.app, null, 'staff');
    const other = await makeUser(t.app, null, 'staff');

    await failFrom10Addresses(user.email, LOGIN_ACCOUNT_LIMIT.limit - 1);
    // A success is not counted, and resets nothing: one more failure fills the window.
    expect((await attempt(user.email, PASSWORD)).statusCode).toBe(200);
    expect((await attempt(user.email, 'wrong-password-last')).statusCode).toBe(401);

    expectThrottled(await attempt(user.email, PASSWORD));
    // The e-mail is normalized: another spelling of it is the same account.
    expectThrottled(await attempt(user.email.toUpperCase(), PASSWORD));
    expectThrottled(await attempt(user.email, 'wrong-password-more'));
    // A throttled attempt is not a failed login: the audit log holds the 10 real ones only.
    expect(await failedLoginsAudited(user.email)).toBe(LOGIN_ACCOUNT_LIMIT.limit);

    // Another account is unaffected.
    expect((await attempt(other.email, PASSWORD)).statusCode).toBe(200);

    // Just before the window passes: still throttled; after it: the right password works.
    t.clock.advance(LOGIN_ACCOUNT_LIMIT.windowMs - 60_000);
    expectThrottled(await attempt(user.email, PASSWORD));
    t.clock.advance(61_000);
    const ok = await attempt(user.email, PASSWORD);
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('throttles an unknown e-mail exactly like a known one', async () => {
    const known = await makeUser(t.app, null, 'staff');
    const unknown = `nobody-${lastAddress}@example.com`;
    await failFrom10Addresses(known.email);
    await failFrom10Addresses(unknown);
    const a = await attempt(known.email, PASSWORD);
    const b = await attempt(unknown, PASSWORD);
    expectThrottled(a);
    expectThrottled(b);
    expect(b.body).toBe(a.body);
    expect(Object.keys(b.headers).sort()).toEqual(Object.keys(a.headers).sort());
    expect(await failedLoginsAudited(unknown)).toBe(LOGIN_ACCOUNT_LIMIT.limit);
  });
});

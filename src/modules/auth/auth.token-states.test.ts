import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.js';
import { createRestartableApp, type RestartableApp } from '../../../test/app.js';
import { makeUser, PASSWORD } from '../../../test/factories.js';
import { PASSWORD_RESET_MAIL_JOB, REFRESH_REUSE_GRACE_MS, RESET_TOKEN_MINUTES } from './auth.service.js';

/**
 * Tokens are invariants: for a refresh token and a reset link in each of their states, every operation
 * the API offers on them, twice, at once, and after a restart of the service on the same database
 * (new process state: caches, member cache, in-memory simulators; same rows and same keys).
 */
let r: RestartableApp;
let app: App;
let clock: RestartableApp['clock'];
let mail: RestartableApp['mail'];

/** Stops the app and closes the database connection, then opens both again, as a new process would. */
async function restart() {
  await r.restart();
  app = r.app;
}

beforeAll(async () => {
  r = await createRestartableApp();
  ({ app, clock, mail } = r);
});
afterAll(() => r.close());

const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });
const refresh = (refreshToken: string) => post('/auth/refresh', { refreshToken });
const logout = (refreshToken: string) => post('/auth/logout', { refreshToken });
const twiceAtOnce = <T>(op: () => Promise<T>) => Promise.all([op(), op()]);
const codes = (results: { statusCode: number }[]) => results.map((r) => r.statusCode);

async function newSession(email: string): Promise<string> {
  const res = await post('/auth/login', { email, password: PASSWORD });
  expect(res.statusCode).toBe(200);
  return res.json().refreshToken;
}

describe('a refresh token in each state', () => {
  it('live: refreshed twice at once, both get the same successor; the same after a restart, within the grace', async () => {
    const u = await makeUser(app, null, 'staff');
    const token = await newSession(u.email);
    const both = await twiceAtOnce(() => refresh(token));
    expect(codes(both)).toEqual([200, 200]);
    const successor = both[0].json().refreshToken;
    expect(both[1].json().refreshToken).toBe(successor);

    await restart();
    const again = await refresh(token);
    expect(again.statusCode).toBe(200);
    expect(again.json().refreshToken).toBe(successor);
    expect((await refresh(successor)).statusCode).toBe(200);
  });

  it('spent, after the grace: refused twice at once, and its whole family is revoked (also across a restart)', async () => {
    const u = await makeUser(app, null, 'staff');
    const token = await newSession(u.email);
    const successor = (await refresh(token)).json().refreshToken;
    clock.advance(REFRESH_REUSE_GRACE_MS + 1_000);
    expect(codes(await twiceAtOnce(() => refresh(token)))).toEqual([401, 401]);
    await restart();
    expect(codes(await twiceAtOnce(() => refresh(successor)))).toEqual([401, 401]);
    expect(codes(await twiceAtOnce(() => refresh(token)))).toEqual([401, 401]);
  });

  it('logged out: logout is idempotent (twice at once, and after a restart) and refresh is refused', async () => {
    const u = await makeUser(app, null, 'staff');
    const token = await newSession(u.email);
    expect(codes(await twiceAtOnce(() => logout(token)))).toEqual([204, 204]);
    expect(codes(await twiceAtOnce(() => refresh(token)))).toEqual([401, 401]);
    await restart();
    expect((await logout(token)).statusCode).toBe(204);
    expect((await refresh(token)).statusCode).toBe(401);
  });

  it('expired: refused twice at once, before and after a restart', async () => {
    const u = await makeUser(app, null, 'staff');
    const token = await newSession(u.email);
    clock.advance(31 * 86_400_000);
    expect(codes(await twiceAtOnce(() => refresh(token)))).toEqual([401, 401]);
    await restart();
    expect((await refresh(token)).statusCode).toBe(401);
  });

  it('stale after a password change: refused twice at once, before and after a restart', async () => {
    const u = await makeUser(app, null, 'staff');
    const token = await newSession(u.email);
    const session = (await post('/auth/login', { email: u.email, password: PASSWORD })).json();
    const changed = await app.inject({
      method: 'POST',
      url: '/auth/password',
      headers: { authorization: `Bearer ${session.accessToken}` },
      payload: { currentPassword: PASSWORD, newPassword: 'a-brand-new-password' },
    });
    expect(changed.statusCode).toBe(200);
    expect(codes(await twiceAtOnce(() => refresh(token)))).toEqual([401, 401]);
    await restart();
    expect((await refresh(token)).statusCode).toBe(401);
    // The pair the change returned is the live session, also after the restart.
    expect((await refresh(changed.json().refreshToken)).statusCode).toBe(200);
  });
});

describe('a reset link in each state', () => {
  async function linkFor(email: string): Promise<string> {
    expect((await post('/auth/password/forgot', { email })).statusCode).toBe(202);
    await app.jobs.drain({ names: [PASSWORD_RESET_MAIL_JOB] });
    const mails = mail.to(email);
    return /#token=([0-9a-f]{64})/.exec(mails[mails.length - 1].text)![1];
  }
  const reset = (token: string, newPassword: string) => post('/auth/password/reset', { token, newPassword });
  const loginCode = async (email: string, password: string) => (await post('/auth/login', { email, password })).statusCode;

  it('live, across a restart: spent by exactly one of two resets at once, then refused', async () => {
    const u = await makeUser(app, null, 'staff');
    const token = await linkFor(u.email);
    await restart();
    const both = await Promise.all([reset(token, 'first-new-password'), reset(token, 'second-new-password')]);
    expect(codes(both).sort()).toEqual([204, 400]);
    const winner = both[0].statusCode === 204 ? 'first-new-password' : 'second-new-password';
    expect(await loginCode(u.email, winner)).toBe(200);
    expect(codes(await twiceAtOnce(() => reset(token, 'third-new-password')))).toEqual([400, 400]);
    await restart();
    expect((await reset(token, 'third-new-password')).statusCode).toBe(400);
    expect(await loginCode(u.email, winner)).toBe(200);
  });

  it('expired: refused twice at once and after a restart; the password stays', async () => {
    const u = await makeUser(app, null, 'staff');
    const token = await linkFor(u.email);
    clock.advance((RESET_TOKEN_MINUTES + 1) * 60_000);
    expect(codes(await twiceAtOnce(() => reset(token, 'never-set-password')))).toEqual([400, 400]);
    await restart();
    expect((await reset(token, 'never-set-password')).statusCode).toBe(400);
    expect(await loginCode(u.email, PASSWORD)).toBe(200);
  });

  it('voided by a later reset: an older link is refused once a newer one was used', async () => {
    const u = await makeUser(app, null, 'staff');
    const older = await linkFor(u.email);
    const newer = await linkFor(u.email);
    expect((await reset(newer, 'from-the-newer-link')).statusCode).toBe(204);
    await restart();
    expect(codes(await twiceAtOnce(() => reset(older, 'from-the-older-link')))).toEqual([400, 400]);
    expect(await loginCode(u.email, 'from-the-newer-link')).toBe(200);
  });
});

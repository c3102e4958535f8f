import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { login, makeTenant, makeUser, PASSWORD, session } from '../../../test/factories.js';
import { REFRESH_REUSE_GRACE_MS } from './auth.service.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('POST /auth/login', () => {
  it('returns a token pair and the user, never the password', async () => {
    const tenant = await makeTenant(t.app);
    const u = await makeUser(t.app, tenant, 'staff');
    const res = await login(t.app, u.email.toUpperCase());
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.accessToken.split('.')).toHaveLength(3);
    expect(body.refreshToken).toMatch(/^[0-9a-f]{64}$/);
    expect(body.expiresIn).toBe(900);
    expect(body.user).toEqual({ _id: u.id, email: u.email, name: expect.any(String), isSuperadmin: false });
    expect(res.body).not.toContain('password');
    const me = await t.app.inject({ url: '/auth/me', headers: { authorization: `Bearer ${body.accessToken}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json().tenants).toEqual([{ _id: tenant._id, slug: tenant.slug, name: tenant.name, isActive: true, role: 'staff' }]);
  });

  it('gives the same 401 for an unknown email and a wrong password', async () => {
    const u = await makeUser(t.app, null, 'admin');
    const wrong = await login(t.app, u.email, 'not-the-password');
    const unknown = await login(t.app, 'nobody@example.com', PASSWORD);
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json().message).toBe(unknown.json().message);
  });

  it('rejects a body without password, with the field named', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'a@b.c' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ field: 'body.password', message: expect.any(String) }]);
  });
});

describe('login rate limit', () => {
  it('answers 429 with Retry-After after 20 attempts a minute from one address', async () => {
    const fresh = await createTestApp();
    try {
      const u = await makeUser(fresh.app, null, 'admin');
      const attempts = [];
      // Other e-mails each time: 10 failures for one e-mail would throttle it (LOGIN_ACCOUNT_LIMIT, login-throttle.test.ts).
      for (let i = 0; i < 20; i++) attempts.push((await login(fresh.app, `guess-${i}@example.com`, 'wrong-password')).statusCode);
      expect(attempts.every((s) => s === 401)).toBe(true);
      const blocked = await login(fresh.app, u.email);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.headers['retry-after']).toBeDefined();
      expect(blocked.json()).toEqual({ statusCode: 429, message: expect.any(String) });
      // Another address is not affected.
      const other = await fresh.app.inject({ method: 'POST', url: '/auth/login', remoteAddress: '10.1.2.3', payload: { email: u.email, password: PASSWORD } });
      expect(other.statusCode).toBe(200);
      fresh.clock.advance(61_000);
      expect((await login(fresh.app, u.email)).statusCode).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});

describe('refresh token rotation', () => {
  const refresh = (token: string) => t.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: token } });
  const me = (accessToken: string) => t.app.inject({ url: '/auth/me', headers: { authorization: `Bearer ${accessToken}` } });

  it('rotates, and an old token reused after the grace revokes the whole family', async () => {
    const u = await makeUser(t.app, null, 'admin');
    const first = await session(t.app, u.email);

    const second = await refresh(first.refreshToken);
    expect(second.statusCode).toBe(200);
    const pair2 = second.json();
    expect(pair2.refreshToken).not.toBe(first.refreshToken);

    t.clock.advance(REFRESH_REUSE_GRACE_MS + 1_000);
    try {
      // The first token is spent and the grace is over: using it again is treated as theft.
      const reuse = await refresh(first.refreshToken);
      expect(reuse.statusCode).toBe(401);
      // ... so the legitimately rotated token dies with its family.
      expect((await refresh(pair2.refreshToken)).statusCode).toBe(401);
      // A new login starts a new family and works.
      const again = await session(t.app, u.email);
      expect((await refresh(again.refreshToken)).statusCode).toBe(200);
    } finally {
      t.clock.advance(-(REFRESH_REUSE_GRACE_MS + 1_000));
    }
  });

  it('gives concurrent refreshes of one token the same new refresh token, and logs nobody out', async () => {
    const u = await makeUser(t.app, null, 'admin');
    const pair = await session(t.app, u.email);
    const results = await Promise.all([1, 2, 3].map(() => refresh(pair.refreshToken)));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    const tokens = new Set(results.map((r) => r.json().refreshToken));
    expect(tokens.size).toBe(1);
    const [next] = tokens;
    expect(next).not.toBe(pair.refreshToken);
    for (const r of results) expect((await me(r.json().accessToken)).statusCode).toBe(200);
    // The shared successor is live and rotates on as usual.
    expect((await refresh(next)).statusCode).toBe(200);
  });

  it('answers a repeat within the grace with the same pair, and after the grace revokes tokens issued meanwhile', async () => {
    const u = await makeUser(t.app, null, 'admin');
    const pair = await session(t.app, u.email);
    const a = (await refresh(pair.refreshToken)).json();
    t.clock.advance(5_000);
    const b = await refresh(pair.refreshToken);
    expect(b.statusCode).toBe(200);
    expect(b.json().refreshToken).toBe(a.refreshToken);
    t.clock.advance(REFRESH_REUSE_GRACE_MS);
    try {
      // Past the grace the spent token is a theft signal: the family goes, including the successor.
      expect((await refresh(pair.refreshToken)).statusCode).toBe(401);
      expect((await refresh(a.refreshToken)).statusCode).toBe(401);
    } finally {
      t.clock.advance(-(REFRESH_REUSE_GRACE_MS + 5_000));
    }
  });

  it('refuses, without revoking, a repeat within the grace once the successor has rotated on', async () => {
    const u = await makeUser(t.app, null, 'admin');
    const pair = await session(t.app, u.email);
    const a = (await refresh(pair.refreshToken)).json();
    const b = (await refresh(a.refreshToken)).json();
    expect((await refresh(pair.refreshToken)).statusCode).toBe(401);
    // The live end of the family still works.
    expect((await refresh(b.refreshToken)).statusCode).toBe(200);
  });

  it('leaves no live token in a family revoked at the moment it rotates', async () => {
    for (let round = 0; round < 5; round++) {
      const u = await makeUser(t.app, null, 'admin');
      const pair = await session(t.app, u.email);
      const a = (await refresh(pair.refreshToken)).json();
      t.clock.advance(REFRESH_REUSE_GRACE_MS + 1_000);
      try {
        // A thief replays the spent token while the owner rotates the live one, and a logout races a rotation.
        const [, owner] = await Promise.all([refresh(pair.refreshToken), refresh(a.refreshToken)]);
        if (owner.statusCode === 200) expect((await refresh(owner.json().refreshToken)).statusCode).toBe(401);
        const other = await session(t.app, u.email);
        const [rotated] = await Promise.all([
          refresh(other.refreshToken),
          t.app.inject({ method: 'POST', url: '/auth/logout', payload: { refreshToken: other.refreshToken } }),
        ]);
        if (rotated.statusCode === 200) expect((await refresh(rotated.json().refreshToken)).statusCode).toBe(401);
      } finally {
        t.clock.advance(-(REFRESH_REUSE_GRACE_MS + 1_000));
      }
    }
  });

  it('expires refresh tokens after 30 days', async () => {
    const u = await makeUser(t.app, null, 'admin');
    const pair = (await login(t.app, u.email)).json();
    t.clock.advance(31 * 86_400_000);
    try {
      const res = await t.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: pair.refreshToken } });
      expect(res.statusCode).toBe(401);
    } finally {
      t.clock.advance(-31 * 86_400_000);
    }
  });

  it('logout revokes the refresh token', async () => {
    const u = await makeUser(t.app, null, 'admin');
    const pair = (await login(t.app, u.email)).json();
    const out = await t.app.inject({ method: 'POST', url: '/auth/logout', payload: { refreshToken: pair.refreshToken } });
    expect(out.statusCode).toBe(204);
    const res = await t.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: pair.refreshToken } });
    expect(res.statusCode).toBe(401);
  });

  it('rejects a malformed refresh body', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: 42 } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('body.refreshToken');
  });
});

describe('access token', () => {
  it('expires after 15 minutes', async () => {
    const u = await makeUser(t.app, null, 'admin');
    const { accessToken } = (await login(t.app, u.email)).json();
    const me = () => t.app.inject({ url: '/auth/me', headers: { authorization: `Bearer ${accessToken}` } });
    t.clock.advance(14 * 60_000);
    try {
      expect((await me()).statusCode).toBe(200);
      t.clock.advance(2 * 60_000);
      expect((await me()).statusCode).toBe(401);
    } finally {
      t.clock.advance(-16 * 60_000);
    }
  });

  it('answers 401 to missing, malformed and forged tokens', async () => {
    expect((await t.app.inject({ url: '/auth/me' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/auth/me', headers: { authorization: 'Bearer nope' } })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/auth/me', headers: { authorization: 'Basic abc' } })).statusCode).toBe(401);
    const u = await makeUser(t.app, null, 'admin');
    const [h, p] = u.token.split('.');
    const forged = `${h}.${p}.${Buffer.from('x'.repeat(32)).toString('base64url')}`;
    const res = await t.app.inject({ url: '/auth/me', headers: { authorization: `Bearer ${forged}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
  });
});

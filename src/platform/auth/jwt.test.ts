import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../clock.js';
import { ACCESS_TOKEN_SECONDS, jwtSigner } from './jwt.js';

const SECRET = 'unit-test-secret-that-is-long-enough-000';
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const signRaw = (header: unknown, payload: unknown, secret = SECRET) => {
  const data = `${b64(header)}.${b64(payload)}`;
  return `${data}.${createHmac('sha256', secret).update(data).digest('base64url')}`;
};

describe('access tokens', () => {
  const clock = manualClock(new Date('2026-11-21T12:00:00Z'));
  const jwt = jwtSigner(SECRET, clock);
  const now = Math.floor(clock.now().getTime() / 1000);

  it('round-trips a token until it expires', async () => {
    const token = await jwt.sign('a'.repeat(24));
    expect(await jwt.verify(token)).toEqual({ sub: 'a'.repeat(24), iat: now, exp: now + ACCESS_TOKEN_SECONDS, sv: 0 });
    // The session version travels in the token (raising it in the database ends the token).
    expect((await jwt.verify(await jwt.sign('a'.repeat(24), 7)))?.sv).toBe(7);
    const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    clock.advance(ACCESS_TOKEN_SECONDS * 1000);
    expect(await jwt.verify(token)).toBeNull();
    clock.advance(-ACCESS_TOKEN_SECONDS * 1000);
  });

  it('refuses forged, tampered, unsigned and foreign tokens', async () => {
    const claims = { typ: 'access', sub: 'b'.repeat(24), iat: now, exp: now + 60 };
    expect(await jwt.verify(signRaw({ alg: 'HS256' }, claims))).not.toBeNull();
    expect(await jwt.verify(signRaw({ alg: 'HS256' }, claims, 'another-secret-another-secret-000'))).toBeNull();
    expect(await jwt.verify(signRaw({ alg: 'none' }, claims))).toBeNull();
    expect(await jwt.verify(`${b64({ alg: 'none' })}.${b64(claims)}.`)).toBeNull();
    const token = signRaw({ alg: 'HS256' }, claims);
    const [h, , s] = token.split('.');
    expect(await jwt.verify(`${h}.${b64({ ...claims, sub: 'c'.repeat(24) })}.${s}`)).toBeNull();
    expect(await jwt.verify(signRaw({ alg: 'HS256' }, { ...claims, typ: 'refresh' }))).toBeNull();
    expect(await jwt.verify(signRaw({ alg: 'HS256' }, { ...claims, exp: 'never' }))).toBeNull();
    expect(await jwt.verify(signRaw({ alg: 'HS256' }, 'not an object'))).toBeNull();
    for (const junk of ['', 'a.b', 'a.b.c', '...', 'x'.repeat(500)]) expect(await jwt.verify(junk)).toBeNull();
  });
});

import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../platform/clock.js';
import type { FetchLike } from '../http.js';
import { ProviderCJwksCache, providerCBodyHash, signProviderCJwt, verifyProviderCJwt, type VerifyProviderCJwtOptions } from './signature.js';
import { keyRing } from './simulator/keys.js';

const JWKS_URL = 'https://provider-c.test/.well-known/jwks.json';
const STORE = 'store-1';
const ISSUER = 'https://provider-c.test';
const body = JSON.stringify({ event_type: 'orders.notification', event_id: 'e1', meta: { resource_id: 'o1', user_id: STORE } });

/** A platform with rotating keys behind a JWKS URL, a counted fetch, and a verifier with its own cache. */
function platform() {
  const clock = manualClock();
  const ring = keyRing(() => clock.now());
  let down = false;
  const urls: string[] = [];
  const fetch: FetchLike = async (url) => {
    urls.push(url);
    if (down) return Response.json({ message: 'down' }, { status: 503 });
    return url === JWKS_URL ? Response.json(ring.jwks()) : new Response('not found', { status: 404 });
  };
  const cache = new ProviderCJwksCache({ fetch, clock });
  const sign = (o: { raw?: string; aud?: string; key?: ReturnType<typeof ring.stranger>; kid?: string; at?: Date; ttlSec?: number } = {}) =>
    signProviderCJwt({
      rawBody: o.raw ?? body,
      privateKey: (o.key ?? ring.current).privateKey,
      kid: o.kid ?? (o.key ?? ring.current).kid,
      issuer: ISSUER,
      audience: o.aud ?? STORE,
      now: o.at ?? clock.now(),
      ttlSec: o.ttlSec,
    });
  const verify = async (jwt: string | string[] | undefined, opts: VerifyProviderCJwtOptions = {}, raw = body) =>
    verifyProviderCJwt(raw, typeof jwt === 'string' ? `Bearer ${jwt}` : jwt, JWKS_URL, { cache, clock, audience: STORE, ...opts });
  return { clock, ring, cache, sign, verify, urls, setDown: (v: boolean) => (down = v) };
}

describe('provider_c webhook JWT', () => {
  it('accepts a token signed by a published key, bound to the raw body, for this store', async () => {
    const p = platform();
    const jwt = await p.sign();
    const check = await p.verify(jwt, { issuer: ISSUER });
    expect(check).toMatchObject({ valid: true, kid: p.ring.current.kid, claims: { iss: ISSUER, aud: STORE, body_sha256: providerCBodyHash(body) } });
    expect(providerCBodyHash(body)).toBe(createHash('sha256').update(body).digest('base64url'));
    expect(await verifyProviderCJwt(Buffer.from(body), [`Bearer ${jwt}`], JWKS_URL, { cache: p.cache, clock: p.clock })).toMatchObject({ valid: true });
    expect(p.urls).toEqual([JWKS_URL]); // one fetch, then the cache
  });

  it('refuses another body, another store, another issuer', async () => {
    const p = platform();
    const jwt = await p.sign();
    expect(await p.verify(jwt, {}, body.replace('o1', 'o2'))).toMatchObject({ valid: false, reason: 'body_mismatch' });
    expect(await p.verify(jwt, {}, JSON.stringify(JSON.parse(body), null, 2))).toMatchObject({ valid: false, reason: 'body_mismatch' });
    expect(await p.verify(jwt, { audience: 'store-2' })).toMatchObject({ valid: false, reason: 'bad_audience' });
    expect(await p.verify(jwt, { issuer: 'https://elsewhere' })).toMatchObject({ valid: false, reason: 'bad_issuer' });
  });

  it('checks exp and iat', async () => {
    const p = platform();
    const jwt = await p.sign({ ttlSec: 300 });
    p.clock.advance(301_000 + 60_000); // past exp and the 60 s tolerance
    expect(await p.verify(jwt)).toMatchObject({ valid: false, reason: 'expired' });
    const future = await p.sign({ at: new Date(p.clock.now().getTime() + 5 * 60_000) });
    expect(await p.verify(future)).toMatchObject({ valid: false, reason: 'not_yet_valid' });
    const long = await p.sign({ ttlSec: 86_400 });
    p.clock.advance(12 * 60_000); // valid by exp, but older than 10 minutes (and the 60 s tolerance)
    expect(await p.verify(long)).toMatchObject({ valid: false, reason: 'too_old' });
  });

  it('accepts RS256 only, with a kid', async () => {
    const p = platform();
    const hs = await new SignJWT({ body_sha256: providerCBodyHash(body) })
      .setProtectedHeader({ alg: 'HS256', kid: p.ring.current.kid })
      .setIssuedAt()
      .setExpirationTime('5m')
      .setAudience(STORE)
      .sign(new TextEncoder().encode('x'.repeat(32)));
    expect(await p.verify(hs)).toMatchObject({ valid: false, reason: 'bad_alg' });
    const none = `${Buffer.from('{"alg":"none","kid":"k"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.x`;
    expect(await p.verify(none)).toMatchObject({ valid: false, reason: 'bad_alg' });
    const noKid = await new SignJWT({}).setProtectedHeader({ alg: 'RS256' }).sign(p.ring.current.privateKey);
    expect(await p.verify(noKid)).toMatchObject({ valid: false, reason: 'malformed' });
    const forged = await p.sign({ key: p.ring.stranger(), kid: p.ring.current.kid });
    expect(await p.verify(forged)).toMatchObject({ valid: false, reason: 'bad_signature' });
  });

  it('reads the header strictly and reports a missing JWKS URL apart (sandbox)', async () => {
    const p = platform();
    const jwt = await p.sign();
    expect(await p.verify(undefined)).toMatchObject({ valid: false, reason: 'missing_header' });
    expect(await p.verify([`Bearer ${jwt}`, `Bearer ${jwt}`])).toMatchObject({ valid: false, reason: 'missing_header' });
    expect(await p.verify(['Basic abc'])).toMatchObject({ valid: false, reason: 'malformed' });
    expect(await p.verify('not.a.jwt')).toMatchObject({ valid: false, reason: 'malformed' });
    expect(await verifyProviderCJwt(body, `Bearer ${jwt}`, undefined)).toMatchObject({ valid: false, reason: 'missing_jwks_url' });
    expect(p.urls).toEqual([]); // nothing is fetched for a header that cannot be a token
  });

  it('JWKS rotation: a new kid verifies after one refresh; a kid the JWKS does not have fails, without hammering it', async () => {
    const p = platform();
    const old = p.ring.current;
    expect(await p.verify(await p.sign())).toMatchObject({ valid: true });
    p.ring.rotate(); // keeps the old key published
    expect(await p.verify(await p.sign())).toMatchObject({ valid: true, kid: p.ring.current.kid });
    expect(p.urls).toHaveLength(2); // one refresh for the new kid
    expect(p.cache.kids(JWKS_URL).sort()).toEqual([old.kid, p.ring.current.kid].sort());
    expect(await p.verify(await p.sign({ key: old }))).toMatchObject({ valid: true, kid: old.kid });
    expect(p.urls).toHaveLength(2);

    const stranger = await p.sign({ key: p.ring.stranger() });
    expect(await p.verify(stranger)).toMatchObject({ valid: false, reason: 'unknown_kid' });
    expect(p.urls).toHaveLength(3); // one refresh, and the kid is still not there
    expect(await p.verify(stranger)).toMatchObject({ valid: false, reason: 'unknown_kid' });
    expect(p.urls).toHaveLength(3); // then unknown kids are answered from the cache for 30 s

    p.ring.rotate(false); // a new key, every old one dropped
    const newest = await p.sign({ ttlSec: 3_600 });
    expect(await p.verify(newest)).toMatchObject({ valid: false, reason: 'unknown_kid' }); // inside the cooldown
    p.clock.advance(30_001);
    expect(await p.verify(newest)).toMatchObject({ valid: true });
    expect(p.urls).toHaveLength(4);
    expect(p.cache.kids(JWKS_URL)).toEqual([p.ring.current.kid]);
    expect(await p.verify(await p.sign({ key: old }))).toMatchObject({ valid: false, reason: 'unknown_kid' });
  });

  it('keeps using cached keys when the JWKS is down, and reports a JWKS it never read as unavailable', async () => {
    const p = platform();
    const jwt = await p.sign({ ttlSec: 3_600 });
    p.setDown(true);
    expect(await p.verify(jwt)).toMatchObject({ valid: false, reason: 'jwks_unavailable' });
    p.setDown(false);
    expect(await p.verify(jwt)).toMatchObject({ valid: true });
    p.setDown(true);
    p.clock.advance(600_001); // the set is stale: refreshed on use, the old copy kept when that fails
    expect(await p.verify(jwt, { maxTokenAgeSec: 3_600 })).toMatchObject({ valid: true });
    expect(p.urls).toHaveLength(3);
  });

  it('shares one JWKS fetch among concurrent webhooks, and caches per fetch function by default', async () => {
    const p = platform();
    const jwt = await p.sign();
    const all = await Promise.all(Array.from({ length: 20 }, () => p.verify(jwt)));
    expect(all.every((c) => c.valid)).toBe(true);
    expect(p.urls).toHaveLength(1);

    let fetches = 0;
    const fetch: FetchLike = async () => {
      fetches++;
      return Response.json(p.ring.jwks());
    };
    for (let i = 0; i < 3; i++) expect(await verifyProviderCJwt(body, `Bearer ${jwt}`, JWKS_URL, { fetch, clock: p.clock })).toMatchObject({ valid: true });
    expect(fetches).toBe(1);
  });
});

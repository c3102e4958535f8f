import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../platform/clock.js';
import { isRefused, isUnavailable } from './errors.js';
import { GatewayAError } from './gateway-a/errors.js';
import type { FetchLike } from './http.js';
import { ClientCredentialsToken } from './oauth.js';

/** A token endpoint that counts requests; each answer can be held back until released. */
function tokenEndpoint(opts: { expiresIn?: number; status?: number; hold?: boolean } = {}) {
  const calls: URLSearchParams[] = [];
  const releases: (() => void)[] = [];
  const state = { status: opts.status ?? 200, expiresIn: opts.expiresIn ?? 3600, hold: opts.hold ?? false };
  const fetch: FetchLike = async (_url, init) => {
    calls.push(new URLSearchParams(String(init?.body)));
    const n = calls.length;
    if (state.hold) await new Promise<void>((r) => releases.push(r));
    if (state.status !== 200) return Response.json({ error: 'invalid_client', error_description: 'bad secret' }, { status: state.status });
    return Response.json({ access_token: `token-${n}`, token_type: 'bearer', expires_in: state.expiresIn });
  };
  return { fetch, calls, state, release: () => releases.splice(0).forEach((r) => r()) };
}

function source(fetch: FetchLike, clock = manualClock()) {
  return new ClientCredentialsToken({
    errors: GatewayAError,
    tokenUrl: 'http://gateway.test/oauth/token',
    clientId: 'cid',
    clientSecret: 'csecret',
    fetch,
    clock,
    timeoutMs: 1000,
  });
}

describe('OAuth client-credentials token', () => {
  it('sends the client-credentials grant and caches the token until 60 s before expiry', async () => {
    const ep = tokenEndpoint({ expiresIn: 3600 });
    const clock = manualClock();
    const tokens = source(ep.fetch, clock);

    expect(await tokens.get()).toBe('token-1');
    expect(Object.fromEntries(ep.calls[0])).toEqual({ grant_type: 'client_credentials', client_id: 'cid', client_secret: 'csecret' });

    clock.advance(3600_000 - 61_000); // 61 s before expiry: still cached
    expect(await tokens.get()).toBe('token-1');
    expect(ep.calls).toHaveLength(1);

    clock.advance(2_000); // 59 s before expiry: renewed
    expect(await tokens.get()).toBe('token-2');
    expect(ep.calls).toHaveLength(2);

    // manualClock follows real time too: keep a margin of a second around the boundary.
    clock.advance(3600_000 - 60_000 - 1_000);
    expect(await tokens.get()).toBe('token-2');
    clock.advance(1_000);
    expect(await tokens.get()).toBe('token-3');
  });

  it('renews short-lived tokens at half their lifetime', async () => {
    const ep = tokenEndpoint({ expiresIn: 60 });
    const clock = manualClock();
    const tokens = source(ep.fetch, clock);
    expect(await tokens.get()).toBe('token-1');
    clock.advance(29_000);
    expect(await tokens.get()).toBe('token-1');
    clock.advance(1_500);
    expect(await tokens.get()).toBe('token-2');
  });

  it('makes one token request for concurrent callers', async () => {
    const ep = tokenEndpoint({ hold: true });
    const tokens = source(ep.fetch);
    const waiting = Array.from({ length: 20 }, () => tokens.get());
    // The first request has reached the endpoint (and is held there) before the others are counted.
    await vi.waitFor(() => expect(ep.calls).toHaveLength(1));
    ep.release();
    expect(new Set(await Promise.all(waiting))).toEqual(new Set(['token-1']));
    expect(ep.calls).toHaveLength(1);
  });

  it('shares a failure among concurrent callers, then tries again on the next call', async () => {
    const ep = tokenEndpoint({ hold: true, status: 503 });
    const tokens = source(ep.fetch);
    const waiting = Array.from({ length: 5 }, () => tokens.get());
    await vi.waitFor(() => expect(ep.calls).toHaveLength(1));
    ep.release();
    const results = await Promise.allSettled(waiting);
    expect(results.every((r) => r.status === 'rejected' && isUnavailable(r.reason))).toBe(true);
    expect(ep.calls).toHaveLength(1);

    ep.state.hold = false;
    ep.state.status = 200;
    expect(await tokens.get()).toBe('token-2');
  });

  it('keeps using a still-valid token when its renewal fails, and fails once it has expired', async () => {
    const ep = tokenEndpoint({ expiresIn: 3600 });
    const clock = manualClock();
    const tokens = source(ep.fetch, clock);
    expect(await tokens.get()).toBe('token-1');
    ep.state.status = 500;
    clock.advance(3600_000 - 30_000);
    expect(await tokens.get()).toBe('token-1');
    clock.advance(30_000);
    await expect(tokens.get()).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('maps rejected client credentials to a refused error with the OAuth error code', async () => {
    const ep = tokenEndpoint({ status: 401 });
    const err = await source(ep.fetch).get().catch((e) => e);
    expect(err).toBeInstanceOf(GatewayAError);
    expect(isRefused(err)).toBe(true);
    expect(err).toMatchObject({ provider: 'gateway_a', status: 401, code: 'invalid_client' });
  });

  it('treats an answer without access_token or expires_in as a bad response', async () => {
    const fetch: FetchLike = async () => Response.json({ access_token: 'x' });
    await expect(source(fetch).get()).rejects.toMatchObject({ kind: 'unavailable', reason: 'bad_response' });
    const html: FetchLike = async () => new Response('<html>proxy error</html>', { status: 200 });
    await expect(source(html).get()).rejects.toMatchObject({ kind: 'unavailable', reason: 'bad_response' });
  });

  it('forgets a token the gateway rejected', async () => {
    const ep = tokenEndpoint();
    const tokens = source(ep.fetch);
    expect(await tokens.get()).toBe('token-1');
    tokens.invalidate('some-other-token');
    expect(await tokens.get()).toBe('token-1');
    tokens.invalidate('token-1');
    expect(await tokens.get()).toBe('token-2');
  });

  it('authenticates by HTTP Basic (each part form-encoded) and asks for scopes when told', async () => {
    const seen: { headers: Headers; body: string }[] = [];
    const fetch: FetchLike = async (_url, init) => {
      seen.push({ headers: new Headers(init?.headers), body: String(init?.body) });
      return Response.json({ access_token: 't', token_type: 'Bearer', expires_in: 60 });
    };
    const opts = { errors: GatewayAError, tokenUrl: 'http://psp.test/oauth/token', clientId: 'id:1', clientSecret: 's&2', fetch, clock: manualClock(), timeoutMs: 1000 };
    expect(await new ClientCredentialsToken({ ...opts, clientAuth: 'basic', scope: 'cob.read cob.write' }).get()).toBe('t');
    expect(seen[0].headers.get('authorization')).toBe(`Basic ${Buffer.from('id%3A1:s%262').toString('base64')}`);
    expect(Object.fromEntries(new URLSearchParams(seen[0].body))).toEqual({ grant_type: 'client_credentials', scope: 'cob.read cob.write' });
  });
});

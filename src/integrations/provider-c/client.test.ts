import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../platform/clock.js';
import { STATUS_MAP } from '../delivery.js';
import { injectFetch, type FetchLike } from '../http.js';
import { closedPortUrl, silentServer } from '../simulator/test-servers.js';
import { HttpProviderCClient, PROVIDER_C_PRODUCTION_AUTH_URL, PROVIDER_C_PRODUCTION_URL } from './client.js';
import { ProviderCError } from './errors.js';
import { createProviderCSimulator, PROVIDER_C_SIM_CLIENT_ID, PROVIDER_C_SIM_CLIENT_SECRET } from './simulator/index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const creds = { clientId: PROVIDER_C_SIM_CLIENT_ID, clientSecret: PROVIDER_C_SIM_CLIENT_SECRET, merchantId: 'store-1' };

function setup() {
  const clock = manualClock();
  const sim = createProviderCSimulator({ clock });
  cleanups.push(() => sim.close());
  const requests: { method: string; url: string; headers: Headers; body?: string }[] = [];
  const inner = injectFetch(sim.buildServer());
  const fetch: FetchLike = (url, init) => {
    requests.push({ method: init?.method ?? 'GET', url, headers: new Headers(init?.headers), body: init?.body as string | undefined });
    return inner(url, init);
  };
  const client = new HttpProviderCClient({ baseUrl: 'http://provider-c.sim/', fetch, clock });
  return { sim, client, clock, requests };
}

describe('HttpProviderCClient', () => {
  it('gets a client-credentials token with the eats scopes', async () => {
    const { client, clock, requests } = setup();
    const before = clock.now().getTime();
    const token = await client.token(creds);
    expect(token.accessToken).toMatch(/^IA\.sim-/);
    // Counted from when the request was sent (30 days, as the platform said).
    expect(token.expiresAt.getTime() - 2_592_000_000).toBeGreaterThanOrEqual(before);
    expect(token.expiresAt.getTime() - 2_592_000_000).toBeLessThanOrEqual(clock.now().getTime());
    const req = requests[0];
    expect(req).toMatchObject({ method: 'POST', url: 'http://provider-c.sim/oauth/v2/token' });
    expect(req.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(req.body))).toEqual({ client_id: creds.clientId, client_secret: creds.clientSecret, grant_type: 'client_credentials', scope: 'eats.order eats.store' });
    await expect(client.token({ ...creds, clientSecret: 'wrong' })).rejects.toMatchObject({ kind: 'refused', status: 401, code: 'invalid_client' });
    await expect(client.token({ ...creds, clientId: '' })).rejects.toMatchObject({ kind: 'refused', code: 'invalid_request' });
  });

  it('fetches an order by id and reads it; refuses an order of another store', async () => {
    const { client, sim } = setup();
    const { order } = await sim.createOrder({ storeId: 'store-1', notes: 'tocar campainha' });
    const { accessToken } = await client.token(creds);
    const got = await client.getOrder(accessToken, 'store-1', order.id);
    expect(got).toMatchObject({ provider: 'provider_c', externalId: order.id, displayId: order.display_id, fulfilment: 'delivery', notes: 'tocar campainha' });
    expect(got.totals.totalCents).toBe(order.payment.charges.total!.amount);
    await expect(client.getOrder(accessToken, 'store-2', order.id)).rejects.toMatchObject({ kind: 'refused', code: 'store_mismatch' });
    await expect(client.getOrder(accessToken, 'store-1', 'nope')).rejects.toMatchObject({ kind: 'refused', status: 404 });
    sim.revokeTokens();
    // The caller keeps the token: a 401 is refused, and it asks for a new one.
    await expect(client.getOrder(accessToken, 'store-1', order.id)).rejects.toMatchObject({ kind: 'refused', status: 401 });
  });

  it('pushes the two statuses provider_c takes and refuses the others without a call', async () => {
    const { client, sim, requests } = setup();
    const { accessToken } = await client.token(creds);
    const a = (await sim.createOrder({ storeId: 'store-1' })).order;
    await client.pushStatus(accessToken, 'store-1', a.id, STATUS_MAP.provider_c.confirmed!);
    expect(sim.getOrder(a.id)!.current_state).toBe('ACCEPTED');
    expect(requests.at(-1)!.url).toBe(`http://provider-c.sim/v1/eats/orders/${a.id}/accept_pos_order`);
    await client.pushStatus(accessToken, 'store-1', a.id, STATUS_MAP.provider_c.cancelled!);
    expect(sim.getOrder(a.id)!.current_state).toBe('CANCELED');
    expect(sim.statuses.map((s) => [s.action, s.status])).toEqual([
      ['accept_pos_order', 204],
      ['cancel', 204],
    ]);
    await expect(client.pushStatus(accessToken, 'store-1', a.id, 'accept_pos_order')).rejects.toMatchObject({ kind: 'refused', status: 409 });

    const before = requests.length;
    for (const s of ['IN_PREPARATION', 'ready', '']) {
      await expect(client.pushStatus(accessToken, 'store-1', a.id, s)).rejects.toMatchObject({ kind: 'refused', code: 'invalid_request' });
    }
    expect(requests.length).toBe(before);
    expect([STATUS_MAP.provider_c.preparing, STATUS_MAP.provider_c.ready, STATUS_MAP.provider_c.delivered]).toEqual([null, null, null]);
  });

  it('puts one catalog item in the store', async () => {
    const { client, sim, requests } = setup();
    const { accessToken } = await client.token(creds);
    await client.syncItem(accessToken, 'store-1', { externalCode: 'X-BURGER', name: 'X-Burger', description: null, priceCents: 2590, available: false, category: 'Lanches' });
    expect(requests.at(-1)).toMatchObject({ method: 'PUT', url: 'http://provider-c.sim/v2/eats/stores/store-1/menus/items/X-BURGER' });
    const [item] = sim.catalogItems();
    expect(item).toMatchObject({
      storeId: 'store-1',
      itemId: 'X-BURGER',
      body: {
        title: { translations: { pt_br: 'X-Burger' } },
        price_info: { price: 2590 },
        suspension_info: { suspension: { suspend_until: 4_102_444_800 } },
        category: { title: { translations: { pt_br: 'Lanches' } } },
      },
    });
    await expect(client.syncItem(accessToken, 'store-1', { externalCode: 'A', name: 'A', description: null, available: true, category: null, priceCents: 1.5 })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(client.syncItem(accessToken, 'store-1', { externalCode: 'A', name: '', description: null, priceCents: 100, available: true, category: null })).rejects.toMatchObject({
      kind: 'refused',
      status: 400,
    });
  });

  it('defaults to the real hosts (API and login) and to the base URL for the token when one is given', () => {
    expect(new HttpProviderCClient()).toMatchObject({ baseUrl: PROVIDER_C_PRODUCTION_URL, authUrl: PROVIDER_C_PRODUCTION_AUTH_URL });
    expect(new HttpProviderCClient({ baseUrl: 'http://sim' })).toMatchObject({ baseUrl: 'http://sim', authUrl: 'http://sim' });
  });

  it('maps 5xx and 429 to unavailable', async () => {
    for (const [status, reason] of [
      [500, 'server_error'],
      [503, 'server_error'],
      [429, 'rate_limited'],
    ] as const) {
      const client = new HttpProviderCClient({ baseUrl: 'http://x', fetch: async () => Response.json({ message: 'down' }, { status }) });
      const err = await client.getOrder('t', 'store-1', 'o1').catch((e) => e);
      expect(err).toBeInstanceOf(ProviderCError);
      expect(err).toMatchObject({ provider: 'provider_c', kind: 'unavailable', retryable: true, reason, status });
      await expect(client.token(creds)).rejects.toMatchObject({ kind: 'unavailable', status });
    }
    const garbled = new HttpProviderCClient({ baseUrl: 'http://x', fetch: async () => Response.json({ id: 'o1' }) });
    await expect(garbled.getOrder('t', 'store-1', 'o1')).rejects.toMatchObject({ kind: 'unavailable', reason: 'bad_response' });
    await expect(garbled.token(creds)).rejects.toMatchObject({ kind: 'unavailable', reason: 'bad_response' });
  });

  it('gives up after the timeout when the platform does not answer (real HTTP on 127.0.0.1)', async () => {
    const server = await silentServer();
    cleanups.push(server.close);
    const client = new HttpProviderCClient({ baseUrl: server.url, timeoutMs: 150 });
    const started = Date.now();
    const err = await client.pushStatus('t', 'store-1', 'o1', 'accept_pos_order').catch((e) => e);
    expect(err).toMatchObject({ provider: 'provider_c', kind: 'unavailable', retryable: true, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports an unreachable platform as unavailable', async () => {
    const client = new HttpProviderCClient({ baseUrl: await closedPortUrl(), timeoutMs: 2_000 });
    await expect(client.token(creds)).rejects.toMatchObject({ kind: 'unavailable', reason: 'network' });
  });
});

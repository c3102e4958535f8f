import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../platform/clock.js';
import { STATUS_MAP, type CatalogItem } from '../delivery.js';
import { injectFetch, type FetchLike } from '../http.js';
import { closedPortUrl, silentServer } from '../simulator/test-servers.js';
import { HttpProviderBClient, PROVIDER_B_API } from './client.js';
import { ProviderBError } from './errors.js';
import { createProviderBSimulator, PROVIDER_B_SIM_CLIENT_ID, PROVIDER_B_SIM_CLIENT_SECRET, PROVIDER_B_SIM_STORE_ID } from './simulator/index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const creds = { clientId: PROVIDER_B_SIM_CLIENT_ID, clientSecret: PROVIDER_B_SIM_CLIENT_SECRET, merchantId: PROVIDER_B_SIM_STORE_ID };

function setup(opts: { audience?: string } = {}) {
  const clock = manualClock(new Date('2025-06-01T12:00:00Z'));
  const sim = createProviderBSimulator({ clock, webhookUrl: 'http://service.test/t/demo/webhooks/provider_b', deliver: async () => ({ status: 200 }) });
  cleanups.push(() => sim.close());
  const requests: { method: string; url: string; headers: Headers; body?: string }[] = [];
  const inner = injectFetch(sim.buildServer());
  const fetch: FetchLike = (url, init) => {
    requests.push({ method: init?.method ?? 'GET', url, headers: new Headers(init?.headers), body: init?.body as string | undefined });
    return inner(url, init);
  };
  const client = new HttpProviderBClient({ baseUrl: 'http://provider-b.sim/', fetch, clock, audience: opts.audience });
  return { sim, client, clock, requests };
}

describe('HttpProviderBClient', () => {
  it('gets a token by JSON client credentials with the audience', async () => {
    const { client, requests, clock } = setup();
    const before = clock.now().getTime();
    const token = await client.token(creds);
    expect(token.accessToken).toMatch(/^sim-pb-/);
    expect(token.expiresAt.getTime() - before - 86_400_000).toBeGreaterThanOrEqual(0);
    expect(token.expiresAt.getTime() - clock.now().getTime() - 86_400_000).toBeLessThanOrEqual(0);
    expect(requests[0].url).toBe('http://provider-b.sim/oauth/token');
    expect(requests[0].headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(requests[0].body!)).toEqual({
      client_id: PROVIDER_B_SIM_CLIENT_ID,
      client_secret: PROVIDER_B_SIM_CLIENT_SECRET,
      audience: 'https://int-public-api-v2/api',
      grant_type: 'client_credentials',
    });
    await expect(client.token({ ...creds, clientSecret: 'wrong' })).rejects.toMatchObject({ kind: 'refused', status: 401, code: 'access_denied' });
    await expect(setup({ audience: 'https://other' }).client.token(creds)).rejects.toMatchObject({ kind: 'refused', status: 403 });
  });

  it('fetches one order by id and lists the store open orders, normalised', async () => {
    const { client, sim, requests } = setup();
    const { order } = await sim.createOrder({ items: [{ sku: 'PIZZA-M', name: 'Pizza média', price: 49.9, quantity: 1, toppings: [{ sku: 'BORDA', name: 'Borda recheada', price: 8 }] }] });
    const { accessToken } = await client.token(creds);
    const got = await client.getOrder(accessToken, PROVIDER_B_SIM_STORE_ID, order.id);
    expect(requests.at(-1)!.url).toBe(`http://provider-b.sim${PROVIDER_B_API}/orders/${order.id}?storeId=${PROVIDER_B_SIM_STORE_ID}`);
    expect(requests.at(-1)!.headers.get('x-authorization')).toBe(`Bearer ${accessToken}`);
    expect(got).toMatchObject({
      provider: 'provider_b',
      externalId: order.id,
      items: [{ externalCode: 'PIZZA-M', unitPriceCents: 4990, totalCents: 5790, options: [{ externalCode: 'BORDA', unitPriceCents: 800, quantity: 1 }] }],
      totals: { itemsCents: 5790, deliveryFeeCents: 799, serviceFeeCents: 199, totalCents: 6788 },
    });
    expect(await client.listOrders(accessToken, PROVIDER_B_SIM_STORE_ID)).toEqual([got]);
    expect(await client.listOrders(accessToken, 'another-store')).toEqual([]);
    await expect(client.getOrder(accessToken, 'another-store', order.id)).rejects.toMatchObject({ kind: 'refused', status: 404, code: 'order_not_found' });
    await expect(client.getOrder(accessToken, PROVIDER_B_SIM_STORE_ID, 'nope')).rejects.toMatchObject({ kind: 'refused', status: 404 });
  });

  it('pushes every mapped status with its action, and is refused once the order is closed', async () => {
    const { client, sim, requests } = setup();
    const { order } = await sim.createOrder();
    const { accessToken } = await client.token(creds);
    const map = STATUS_MAP.provider_b;
    for (const status of [map.confirmed, map.preparing, map.ready, map.delivered]) await client.pushStatus(accessToken, creds.merchantId, order.id, status!);
    const paths = requests.filter((r) => r.method === 'PUT').map((r) => new URL(r.url).pathname.replace(`${PROVIDER_B_API}/orders/${order.id}`, ''));
    expect(paths).toEqual(['/take/10', '/cooking', '/ready-for-pickup', '/delivered']);
    expect(sim.statuses.map((s) => s.status)).toEqual(['TAKEN', 'COOKING', 'READY_TO_PICK', 'DELIVERED']);
    expect(sim.statuses[0]).toMatchObject({ orderId: order.id, storeId: PROVIDER_B_SIM_STORE_ID, cookingTime: 10 });
    await expect(client.pushStatus(accessToken, creds.merchantId, order.id, map.cancelled!)).rejects.toMatchObject({ kind: 'refused', status: 409 });

    const second = await sim.createOrder();
    await client.pushStatus(accessToken, creds.merchantId, second.order.id, 'REJECTED');
    expect(sim.statuses.at(-1)).toMatchObject({ orderId: second.order.id, status: 'REJECTED', reason: expect.any(String) });
    expect(sim.getOrder(second.order.id)!.state).toBe('REJECTED');

    const before = requests.length;
    await expect(client.pushStatus(accessToken, creds.merchantId, order.id, 'IN_PREPARATION')).rejects.toMatchObject({ kind: 'refused', code: 'invalid_request' });
    expect(requests.length).toBe(before);
  });

  it('upserts one catalog item by sku, price in reais', async () => {
    const { client, sim, requests } = setup();
    const { accessToken } = await client.token(creds);
    const item: CatalogItem = { externalCode: 'X-BURGER', name: 'X-Burger', description: null, priceCents: 3290, available: true, category: 'Lanches' };
    await client.syncItem(accessToken, creds.merchantId, item);
    expect(JSON.parse(requests.at(-1)!.body!)).toMatchObject({ storeId: creds.merchantId, items: [{ sku: 'X-BURGER', price: 32.9, category: { name: 'Lanches' } }] });
    await client.syncItem(accessToken, creds.merchantId, { ...item, priceCents: 3490, available: false });
    expect(sim.catalog()).toEqual([expect.objectContaining({ storeId: creds.merchantId, sku: 'X-BURGER', price: 34.9, available: false, updates: 2 })]);
    await expect(client.syncItem(accessToken, creds.merchantId, { ...item, priceCents: 1.5 })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('is refused with an expired or revoked token (the caller renews it)', async () => {
    const { client, sim, clock } = setup();
    const { order } = await sim.createOrder();
    const { accessToken } = await client.token(creds);
    sim.revokeTokens();
    await expect(client.getOrder(accessToken, creds.merchantId, order.id)).rejects.toMatchObject({ kind: 'refused', status: 401 });
    const fresh = await client.token(creds);
    clock.advance(86_401_000);
    await expect(client.pushStatus(fresh.accessToken, creds.merchantId, order.id, 'TAKEN')).rejects.toMatchObject({ status: 401 });
  });

  it('maps 5xx and 429 to unavailable, and an unreadable order to bad_response', async () => {
    for (const [status, reason] of [[500, 'server_error'], [503, 'server_error'], [429, 'rate_limited']] as const) {
      const client = new HttpProviderBClient({ baseUrl: 'http://x', fetch: async () => Response.json({ message: 'down' }, { status }) });
      const err = await client.getOrder('t', 's', '1').catch((e) => e);
      expect(err).toBeInstanceOf(ProviderBError);
      expect(err).toMatchObject({ provider: 'provider_b', kind: 'unavailable', retryable: true, reason, status });
      await expect(client.token(creds)).rejects.toMatchObject({ kind: 'unavailable', status });
    }
    const odd = new HttpProviderBClient({ baseUrl: 'http://x', fetch: async () => Response.json({ order_detail: { order_id: '1' } }) });
    await expect(odd.getOrder('t', 's', '1')).rejects.toMatchObject({ kind: 'unavailable', reason: 'bad_response' });
    const noToken = new HttpProviderBClient({ baseUrl: 'http://x', fetch: async () => Response.json({ token_type: 'Bearer' }) });
    await expect(noToken.token(creds)).rejects.toMatchObject({ kind: 'unavailable', reason: 'bad_response' });
  });

  it('gives up after the timeout when the platform does not answer (real HTTP on 127.0.0.1)', async () => {
    const server = await silentServer();
    cleanups.push(server.close);
    const client = new HttpProviderBClient({ baseUrl: server.url, timeoutMs: 150 });
    const started = Date.now();
    const err = await client.pushStatus('t', 's', '1', 'TAKEN').catch((e) => e);
    expect(err).toMatchObject({ provider: 'provider_b', kind: 'unavailable', retryable: true, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports an unreachable platform as unavailable', async () => {
    const client = new HttpProviderBClient({ baseUrl: await closedPortUrl(), timeoutMs: 2_000 });
    await expect(client.token(creds)).rejects.toMatchObject({ kind: 'unavailable', reason: 'network' });
  });
});

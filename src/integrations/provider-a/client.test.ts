import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../platform/clock.js';
import { STATUS_MAP } from '../delivery.js';
import { injectFetch, type FetchLike } from '../http.js';
import { closedPortUrl, silentServer } from '../simulator/test-servers.js';
import { HttpProviderAClient, PROVIDER_A_PRODUCTION_URL, PROVIDER_A_STATUS_ACTIONS } from './client.js';
import { ProviderAError } from './errors.js';
import { createProviderASimulator, PROVIDER_A_SIM_CLIENT_ID, PROVIDER_A_SIM_CLIENT_SECRET, PROVIDER_A_SIM_MERCHANT_ID } from './simulator/index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const credentials = { clientId: PROVIDER_A_SIM_CLIENT_ID, clientSecret: PROVIDER_A_SIM_CLIENT_SECRET, merchantId: PROVIDER_A_SIM_MERCHANT_ID };

/** A client talking to an in-process simulator through inject (the real protocol, no socket). */
function setup() {
  const clock = manualClock();
  const sim = createProviderASimulator({ clock });
  cleanups.push(() => sim.close());
  const requests: { method: string; url: string; headers: Headers; body: unknown }[] = [];
  const inner = injectFetch(sim.buildServer());
  const fetch: FetchLike = (url, init) => {
    requests.push({ method: init?.method ?? 'GET', url, headers: new Headers(init?.headers), body: init?.body });
    return inner(url, init);
  };
  const client = new HttpProviderAClient({ baseUrl: 'http://provider-a.sim/', fetch, clock });
  return { sim, client, clock, requests };
}

describe('HttpProviderAClient', () => {
  it('gets a token with iFood field names (form body, accessToken / expiresIn)', async () => {
    const { client, clock, requests, sim } = setup();
    const before = clock.now().getTime();
    const token = await client.token(credentials);
    expect(token.accessToken).toMatch(/^provider-a-sim-/);
    // Counted from when the request left (the clock follows real time).
    expect(token.expiresAt.getTime() - before).toBeGreaterThanOrEqual(21_600_000);
    expect(token.expiresAt.getTime() - clock.now().getTime()).toBeLessThanOrEqual(21_600_000);
    expect(requests[0]).toMatchObject({ method: 'POST', url: 'http://provider-a.sim/authentication/v1.0/oauth/token' });
    expect(requests[0].headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(String(requests[0].body)))).toEqual({ grantType: 'client_credentials', ...credentials, merchantId: undefined });
    expect(sim.tokenRequests).toBe(1);
    expect(new HttpProviderAClient()).toMatchObject({ baseUrl: PROVIDER_A_PRODUCTION_URL });
  });

  it('fetches and normalises an order the platform placed', async () => {
    const { client, sim, requests } = setup();
    const { order } = await sim.placeOrder({ customer: { name: 'Ana' }, deliveryFeeCents: 599 });
    const { accessToken } = await client.token(credentials);
    const got = await client.getOrder(accessToken, PROVIDER_A_SIM_MERCHANT_ID, order.id as string);
    expect(requests.at(-1)!.url).toBe(`http://provider-a.sim/order/v1.0/orders/${order.id}`);
    expect(requests.at(-1)!.headers.get('authorization')).toBe(`Bearer ${accessToken}`);
    // Sample order: 2 x X-Burger 25.90 with bacon 4.00 each, 1 x Coca-Cola 7.50, delivery 5.99.
    expect(got).toMatchObject({
      provider: 'provider_a',
      externalId: order.id,
      fulfilment: 'delivery',
      customer: { name: 'Ana' },
      items: [
        { externalCode: 'XBURGER', quantity: 2, unitPriceCents: 2590, totalCents: 5980, notes: 'sem cebola', options: [{ externalCode: 'BACON', quantity: 2, unitPriceCents: 400 }] },
        { externalCode: 'COCA-350', quantity: 1, unitPriceCents: 750, totalCents: 750, options: [] },
      ],
      totals: { itemsCents: 6730, deliveryFeeCents: 599, discountCents: 0, totalCents: 7329 },
      payment: { method: 'CREDIT', prepaid: true },
    });
    expect(await client.getOrderDetails(accessToken, order.id as string)).toEqual(order);
    await expect(client.getOrder(accessToken, 'another-merchant', order.id as string)).rejects.toMatchObject({ kind: 'refused', code: 'merchant_mismatch' });
  });

  it('pushes every status of STATUS_MAP.provider_a with its action', async () => {
    const { client, sim, requests } = setup();
    const { order } = await sim.placeOrder();
    const id = order.id as string;
    const { accessToken } = await client.token(credentials);
    const statuses = ['confirmed', 'preparing', 'ready', 'delivered', 'cancelled'] as const;
    for (const s of statuses) await client.pushStatus(accessToken, PROVIDER_A_SIM_MERCHANT_ID, id, STATUS_MAP.provider_a[s]!);
    expect(requests.slice(-5).map((r) => r.url.replace(`http://provider-a.sim/order/v1.0/orders/${id}/`, ''))).toEqual([
      'confirm',
      'startPreparation',
      'readyToPickup',
      'dispatch',
      'requestCancellation',
    ]);
    expect(sim.statusPushes().map((p) => [p.status, p.action, p.orderStatus])).toEqual([
      ['CONFIRMED', 'confirm', 'CONFIRMED'],
      ['IN_PREPARATION', 'startPreparation', 'IN_PREPARATION'],
      ['READY_TO_PICKUP', 'readyToPickup', 'READY_TO_PICKUP'],
      ['CONCLUDED', 'dispatch', 'DISPATCHED'],
      ['CANCELLED', 'requestCancellation', 'CANCELLED'],
    ]);
    expect(sim.statusPushes()[4].body).toEqual({ reason: 'Pedido cancelado pelo restaurante', cancellationCode: '509' });
    expect(Object.keys(PROVIDER_A_STATUS_ACTIONS).sort()).toEqual(Object.values(STATUS_MAP.provider_a).sort());
    // A cancelled order takes no more actions; an unknown status is refused without a call.
    await expect(client.pushStatus(accessToken, PROVIDER_A_SIM_MERCHANT_ID, id, 'CONFIRMED')).rejects.toMatchObject({ kind: 'refused', status: 409, code: 'OrderCancelled' });
    const before = requests.length;
    await expect(client.pushStatus(accessToken, PROVIDER_A_SIM_MERCHANT_ID, id, 'TAKEN')).rejects.toMatchObject({ kind: 'refused', code: 'unsupported_status' });
    expect(requests.length).toBe(before);
  });

  it('refuses actions before the order is confirmed, as the platform does', async () => {
    const { client, sim } = setup();
    const { order } = await sim.placeOrder();
    const { accessToken } = await client.token(credentials);
    await expect(client.pushStatus(accessToken, PROVIDER_A_SIM_MERCHANT_ID, order.id as string, 'IN_PREPARATION')).rejects.toMatchObject({
      status: 409,
      code: 'OrderNotConfirmed',
    });
  });

  it('upserts a catalog item (decimal price, AVAILABLE / UNAVAILABLE)', async () => {
    const { client, sim, requests } = setup();
    const { accessToken } = await client.token(credentials);
    const item = { externalCode: 'XBURGER', name: 'X-Burger', description: 'Pão, carne, queijo', priceCents: 2590, available: true, category: 'Lanches' };
    await client.syncItem(accessToken, 'm-1', item);
    await client.syncItem(accessToken, 'm-1', { ...item, priceCents: 2790, available: false, description: null, category: null });
    expect(requests.at(-1)).toMatchObject({ method: 'PUT', url: 'http://provider-a.sim/catalog/v2.0/merchants/m-1/items' });
    expect(JSON.parse(String(requests.at(-1)!.body))).toEqual({ externalCode: 'XBURGER', name: 'X-Burger', description: '', price: { value: 27.9 }, status: 'UNAVAILABLE' });
    expect(sim.catalogItems('m-1')).toEqual([
      expect.objectContaining({ externalCode: 'XBURGER', price: { value: 27.9 }, status: 'UNAVAILABLE', categoryName: null, version: 2 }),
    ]);
    await expect(client.syncItem(accessToken, 'm-1', { ...item, priceCents: 10.5 })).rejects.toMatchObject({ code: 'invalid_item' });
  });

  it('maps refusals: bad credentials, expired token, unknown order', async () => {
    const { client, sim, clock } = setup();
    const bad = await client.token({ ...credentials, clientSecret: 'wrong' }).catch((e) => e);
    expect(bad).toBeInstanceOf(ProviderAError);
    expect(bad).toMatchObject({ provider: 'provider_a', kind: 'refused', retryable: false, status: 401, code: 'Unauthorized' });
    sim.addClient('tenant-2', 's2');
    const { accessToken } = await client.token({ clientId: 'tenant-2', clientSecret: 's2', merchantId: 'm-2' });
    await expect(client.getOrder(accessToken, 'm-2', 'nope')).rejects.toMatchObject({ kind: 'refused', status: 404, code: 'NotFound' });
    clock.advance(21_600_001);
    await expect(client.getOrder(accessToken, 'm-2', 'nope')).rejects.toMatchObject({ kind: 'refused', status: 401, code: 'Unauthorized' });
  });

  it('maps 5xx and 429 to unavailable, and an unreadable order to bad_response', async () => {
    const { client, sim } = setup();
    const { accessToken } = await client.token(credentials);
    for (const [status, reason] of [[500, 'server_error'], [503, 'server_error'], [429, 'rate_limited']] as const) {
      sim.failNext(1, status);
      const err = await client.getOrder(accessToken, PROVIDER_A_SIM_MERCHANT_ID, 'x').catch((e) => e);
      expect(err).toBeInstanceOf(ProviderAError);
      expect(err).toMatchObject({ kind: 'unavailable', retryable: true, reason, status });
    }
    const odd: FetchLike = async () => Response.json({ id: 'o-1', orderType: 'DELIVERY' });
    const oddClient = new HttpProviderAClient({ baseUrl: 'http://x', fetch: odd });
    await expect(oddClient.getOrder('t', 'm', 'o-1')).rejects.toMatchObject({ kind: 'unavailable', reason: 'bad_response' });
    const noToken = new HttpProviderAClient({ baseUrl: 'http://x', fetch: async () => Response.json({ type: 'bearer' }) });
    await expect(noToken.token(credentials)).rejects.toMatchObject({ kind: 'unavailable', reason: 'bad_response' });
  });

  it('gives up after the timeout when the platform does not answer (real HTTP on 127.0.0.1)', async () => {
    const server = await silentServer();
    cleanups.push(server.close);
    const client = new HttpProviderAClient({ baseUrl: server.url, timeoutMs: 150 });
    const err = await client.token(credentials).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderAError);
    expect(err).toMatchObject({ provider: 'provider_a', kind: 'unavailable', retryable: true, reason: 'timeout' });
    expect(err.message).toContain('within 150 ms');
  });

  it('reports an unreachable platform as unavailable', async () => {
    const client = new HttpProviderAClient({ baseUrl: await closedPortUrl(), timeoutMs: 2_000 });
    await expect(client.pushStatus('t', 'm', 'o', 'CONFIRMED')).rejects.toMatchObject({ kind: 'unavailable', reason: 'network' });
  });
});

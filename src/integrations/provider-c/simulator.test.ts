import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startStandalone } from '../../../test/standalone.js';
import { HttpProviderCClient } from './client.js';
import { ProviderCJwksCache, verifyProviderCJwt } from './signature.js';
import { createProviderCSimulator, PROVIDER_C_SIM_CLIENT_ID, PROVIDER_C_SIM_CLIENT_SECRET, PROVIDER_C_SIM_ISSUER, type ProviderCSimulatorOptions } from './simulator/index.js';
import { parseProviderCWebhook } from './webhook.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  raw: string;
}

/** A webhook receiver on 127.0.0.1; answers `statuses` in turn, then 200. */
async function receiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, url: `${base}/t/demo/webhooks/provider_c`, received };
}

const STORE = 'store-demo';

async function start(opts: ProviderCSimulatorOptions = {}) {
  const hook = await receiver();
  const sim = createProviderCSimulator({ webhookRetryDelaysMs: [20, 20], webhookUrl: hook.url, webhookBaseUrl: hook.base, ...opts });
  cleanups.push(() => sim.close());
  const url = await sim.listen();
  const client = new HttpProviderCClient({ baseUrl: url, timeoutMs: 5_000 });
  const jwksUrl = `${url}/.well-known/jwks.json`;
  const cache = new ProviderCJwksCache({ unknownKidCooldownMs: 0 });
  const verify = (r: Received) => verifyProviderCJwt(r.raw, r.headers.authorization, jwksUrl, { cache, audience: STORE, issuer: PROVIDER_C_SIM_ISSUER });
  const control = async (path: string, body?: unknown) => {
    const res = await fetch(`${url}/__sim${path}`, {
      method: 'POST',
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  const token = () => client.token({ clientId: PROVIDER_C_SIM_CLIENT_ID, clientSecret: PROVIDER_C_SIM_CLIENT_SECRET, merchantId: STORE });
  return { sim, url, client, hook, jwksUrl, cache, verify, control, token };
}

describe('provider_c simulator over HTTP', () => {
  it('control: creates an order and sends its signed notification; the service fetches the order', async () => {
    const { hook, verify, control, client, token } = await start();
    const created = await control('/orders', {
      storeId: STORE,
      webhookUrl: '/t/demo/webhooks/provider_c',
      items: [{ code: 'PIZZA-M', name: 'Pizza média', quantity: 1, unitPriceCents: 4500, notes: 'bem passada', options: [{ code: 'BORDA', name: 'Borda recheada', unitPriceCents: 800 }] }],
      notes: 'sem talheres',
      customer: { firstName: 'Ana', lastName: 'Souza', phone: '+55 11 98888-7777' },
      address: { street: 'Av. Paulista', number: '1000', complement: 'Sala 5', reference: 'perto do metrô' },
      deliveryFeeCents: 700,
    });
    expect(created.status).toBe(201);
    expect(created.body.webhook).toMatchObject({ status: 200, attempt: 1, eventType: 'orders.notification', bad: null });
    const [r] = hook.received;
    expect(r.url).toBe('/t/demo/webhooks/provider_c');
    expect(r.headers.authorization).toMatch(/^Bearer ey/);
    expect(await verify(r)).toMatchObject({ valid: true, claims: { aud: STORE, iss: PROVIDER_C_SIM_ISSUER } });
    const event = parseProviderCWebhook(JSON.parse(r.raw));
    expect(event).toMatchObject({ kind: 'new_order', externalOrderId: created.body.order.id, order: null });

    const order = await client.getOrder((await token()).accessToken, STORE, event.externalOrderId!);
    expect(order).toMatchObject({ notes: 'sem talheres', customer: { name: 'Ana Souza' }, deliveryAddress: { street: 'Av. Paulista', number: '1000', reference: 'perto do metrô' } });
    expect(order.items).toEqual([
      { externalCode: 'PIZZA-M', name: 'Pizza média', quantity: 1, unitPriceCents: 4500, totalCents: 5300, notes: 'bem passada', options: [{ externalCode: 'BORDA', name: 'Borda recheada', quantity: 1, unitPriceCents: 800 }] },
    ]);
    expect(order.totals).toMatchObject({ itemsCents: 5300, deliveryFeeCents: 700, totalCents: 6000 });
  });

  it('sends the same event again (duplicate) and badly signed ones on request', async () => {
    const { hook, verify, control } = await start();
    const { body } = await control('/orders', { storeId: STORE, webhookUrl: '/t/demo/webhooks/provider_c' });
    const id = body.order.id;
    expect((await control(`/orders/${id}/resend`)).status).toBe(200);
    expect(hook.received[1].raw).toBe(hook.received[0].raw);
    expect(await verify(hook.received[1])).toMatchObject({ valid: true });
    const reasons: Record<string, string> = { signature: 'bad_signature', unknown_kid: 'unknown_kid', body: 'body_mismatch', expired: 'expired', audience: 'bad_audience' };
    for (const [bad, reason] of Object.entries(reasons)) {
      expect((await control(`/orders/${id}/bad-webhook`, { bad })).body.webhook).toMatchObject({ bad, status: 200 });
      expect(await verify(hook.received.at(-1)!)).toMatchObject({ valid: false, reason });
    }
    expect((await control(`/orders/${id}/bad-webhook`, { bad: 'nope' })).status).toBe(400);
  });

  it('rotates its key: the next webhook carries a new kid, published at its JWKS (old one kept or dropped)', async () => {
    const { hook, verify, control, jwksUrl, cache } = await start();
    const first = (await control('/orders', { storeId: STORE })).body.order.id;
    await verify(hook.received[0]);
    const rotated = await control('/keys/rotate');
    expect(rotated.body.kids).toHaveLength(2);
    await control('/orders', { storeId: STORE });
    expect(await verify(hook.received[1])).toMatchObject({ valid: true, kid: rotated.body.kid });
    expect(cache.fetches).toBe(2);
    const dropped = await control('/keys/rotate', { keepOld: false });
    expect(dropped.body.kids).toEqual([dropped.body.kid]);
    const jwks = await (await fetch(jwksUrl)).json();
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toEqual([dropped.body.kid]);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
    expect(jwks.keys[0].d).toBeUndefined();
    await control(`/orders/${first}/resend`);
    expect(await verify(hook.received[2])).toMatchObject({ valid: true, kid: dropped.body.kid });
  });

  it('cancels an order for the platform and records status pushes and catalog items', async () => {
    const { hook, control, client, token, url } = await start();
    const { accessToken } = await token();
    const a = (await control('/orders', { storeId: STORE })).body.order.id;
    await client.pushStatus(accessToken, STORE, a, 'accept_pos_order');
    const cancelled = await control(`/orders/${a}/cancel`);
    expect(cancelled.body.order.current_state).toBe('CANCELED');
    expect(parseProviderCWebhook(JSON.parse(hook.received.at(-1)!.raw))).toMatchObject({ kind: 'cancelled', externalOrderId: a });
    await client.syncItem(accessToken, STORE, { externalCode: 'COCA', name: 'Coca', description: 'lata', priceCents: 750, available: true, category: null });
    const statuses = await (await fetch(`${url}/__sim/statuses`)).json();
    expect(statuses).toMatchObject([{ orderId: a, action: 'accept_pos_order', status: 204 }]);
    const catalog = await (await fetch(`${url}/__sim/catalog`)).json();
    expect(catalog.items).toMatchObject([{ storeId: STORE, itemId: 'COCA', body: { price_info: { price: 750 }, suspension_info: { suspension: null } } }]);
    expect(await (await fetch(`${url}/__sim`)).json()).toMatchObject({ simulator: 'provider_c', orders: 1, statusPushes: 1, catalogItems: 1 });
  });

  it('validates control requests', async () => {
    const { control, sim } = await start();
    expect((await control('/orders', {})).body).toMatchObject({ code: 'bad_request', message: 'storeId is required' });
    expect((await control('/orders', { storeId: STORE, webhookUrl: 'ftp://x' })).status).toBe(400);
    expect((await control('/orders', { storeId: STORE, items: [{ code: 'A', name: 'A', unitPriceCents: 1.5 }] })).status).toBe(400);
    expect((await control('/orders', { storeId: STORE, type: 'DRONE' })).status).toBe(400);
    expect((await control('/orders/nope/resend')).status).toBe(404);
    expect((await control('/keys/rotate', { keepOld: 'yes' })).status).toBe(400);
    expect(sim.listOrders()).toHaveLength(0);
  });

  it('OAuth: only known clients, the eats scopes, tokens that expire; the API needs the right scope', async () => {
    const { url, control } = await start({ tokenTtlSeconds: 1 });
    const form = (p: Record<string, string>) =>
      fetch(`${url}/oauth/v2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(p).toString() });
    const good = { grant_type: 'client_credentials', client_id: PROVIDER_C_SIM_CLIENT_ID, client_secret: PROVIDER_C_SIM_CLIENT_SECRET };
    expect((await form({ ...good, client_secret: 'x' })).status).toBe(401);
    expect((await form({ ...good, grant_type: 'password' })).status).toBe(400);
    expect(await (await form({ ...good, scope: 'eats.report' })).json()).toMatchObject({ error: 'invalid_scope' });
    expect((await control('/clients', { clientId: 'tenant-app', clientSecret: 's3cret' })).status).toBe(201);
    expect((await form({ ...good, client_id: 'tenant-app', client_secret: 's3cret' })).status).toBe(200);

    const storeOnly = await (await form({ ...good, scope: 'eats.store' })).json();
    expect(storeOnly).toMatchObject({ token_type: 'Bearer', expires_in: 1, scope: 'eats.store' });
    const order = (await control('/orders', { storeId: STORE })).body.order.id;
    const get = (t?: string) => fetch(`${url}/v2/eats/order/${order}`, { headers: t ? { authorization: `Bearer ${t}` } : {} });
    expect((await get(storeOnly.access_token)).status).toBe(403);
    expect((await get()).status).toBe(401);
    const full = await (await form(good)).json();
    expect((await get(full.access_token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await get(full.access_token)).status).toBe(401);
    expect((await fetch(`${url}/.well-known/jwks.json`)).status).toBe(200); // public
  });

  it('retries a webhook the receiver did not accept, and closes promptly with retries pending', async () => {
    const hook = await receiver([500, 503]);
    const sim = createProviderCSimulator({ webhookUrl: hook.url, webhookRetryDelaysMs: [10, 10] });
    cleanups.push(() => sim.close());
    const { webhook } = await sim.createOrder({ storeId: STORE });
    expect(webhook).toMatchObject({ attempt: 1, status: 500 });
    await sim.idle();
    expect(sim.deliveries.map((d) => d.status)).toEqual([500, 503, 200]);
    expect(new Set(hook.received.map((r) => r.headers.authorization)).size).toBe(1);

    const slow = await receiver([500]);
    const sim2 = createProviderCSimulator({ webhookUrl: slow.url, webhookRetryDelaysMs: [60_000] });
    await sim2.createOrder({ storeId: STORE });
    const started = Date.now();
    await sim2.close();
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('serves no control API when told so', async () => {
    const sim = createProviderCSimulator();
    cleanups.push(() => sim.close());
    const server = sim.buildServer({ control: false });
    expect((await server.inject({ method: 'POST', url: '/__sim/orders', payload: { storeId: STORE } })).statusCode).toBe(404);
    expect((await server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).statusCode).toBe(200);
  });

  it('runs standalone and prints its URL', async () => {
    const { url, stop } = await startStandalone('src/integrations/provider-c/simulator/standalone.ts', { PROVIDER_C_SIM_PORT: '0' });
    cleanups.push(stop);
    expect(await (await fetch(`${url}/__sim`)).json()).toMatchObject({ simulator: 'provider_c', clients: [PROVIDER_C_SIM_CLIENT_ID] });
    expect((await (await fetch(`${url}/.well-known/jwks.json`)).json()).keys).toHaveLength(1);
  }, 30_000);
});

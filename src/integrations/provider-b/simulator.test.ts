import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { startStandalone } from '../../../test/standalone.js';
import { systemClock } from '../../platform/clock.js';
import { envReader } from '../../platform/env.js';
import { silentLogger } from '../http.js';
import { HttpProviderBClient, PROVIDER_B_API } from './client.js';
import { providerB, PROVIDER_B_SIM_PREFIX } from './index.js';
import { checkProviderBSignature } from './signature.js';
import { createProviderBSimulator, PROVIDER_B_SIM_CLIENT_ID, PROVIDER_B_SIM_CLIENT_SECRET, PROVIDER_B_SIM_STORE_ID, type ProviderBSimulatorOptions } from './simulator/index.js';
import { parseProviderBWebhook } from './webhook.js';

const SECRET = 'pb_whsec_sim_test';
const creds = { clientId: PROVIDER_B_SIM_CLIENT_ID, clientSecret: PROVIDER_B_SIM_CLIENT_SECRET, merchantId: PROVIDER_B_SIM_STORE_ID };
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

interface Received {
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
      received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/t/demo/webhooks/provider_b`, received };
}

async function start(opts: ProviderBSimulatorOptions = {}, statuses: number[] = []) {
  const hook = await receiver(statuses);
  const sim = createProviderBSimulator({ webhookRetryDelaysMs: [20, 20], ...opts });
  cleanups.push(() => sim.close());
  const url = await sim.listen();
  const client = new HttpProviderBClient({ baseUrl: url, timeoutMs: 5_000 });
  const control = async (path: string, body: unknown = {}) => {
    const res = await fetch(`${url}/__sim${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const get = async (path: string) => (await fetch(`${url}/__sim${path}`)).json();
  return { sim, url, client, hook, control, get };
}

const valid = (r: Received, secret = SECRET) => checkProviderBSignature(r.raw, r.headers['x-provider-b-signature'], secret);

describe('provider_b simulator over HTTP', () => {
  it('creates an order and sends its signed NEW_ORDER webhook carrying the whole order', async () => {
    const { hook, control, client } = await start();
    const res = await control('/orders', {
      webhookUrl: hook.url,
      webhookSecret: SECRET,
      items: [{ sku: 'X-SALADA', name: 'X-Salada', price: 29.9, quantity: 2, comments: 'sem tomate', toppings: [{ sku: 'OVO', name: 'Ovo', price: 2.5, quantity: 2 }] }],
      customer: { firstName: 'Ana', lastName: 'Souza', phone: '11999990000', document: '52998224725', email: 'ana@example.com' },
      address: { street: 'Av. Paulista', number: '1000', complement: 'Sala 2', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', postalCode: '01310-100', reference: 'Portaria' },
      notes: 'Entregar na portaria',
      shipping: 5,
      serviceFee: 0.99,
      tip: 3,
      discount: 10,
    });
    expect(res.status).toBe(201);
    expect(res.body.webhook).toMatchObject({ status: 200, attempt: 1, type: 'NEW_ORDER' });
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0].headers['content-type']).toBe('application/json');
    expect(valid(hook.received[0])).toEqual({ valid: true });
    const event = parseProviderBWebhook(JSON.parse(hook.received[0].raw));
    expect(event).toMatchObject({ eventId: expect.any(String), type: 'NEW_ORDER', kind: 'new_order' });
    expect(event.order).toMatchObject({
      notes: 'Entregar na portaria',
      customer: { name: 'Ana Souza', phone: '11999990000', email: 'ana@example.com', document: '52998224725' },
      deliveryAddress: { street: 'Av. Paulista', number: '1000', city: 'São Paulo', state: 'SP', postalCode: '01310-100', reference: 'Portaria' },
      items: [{ externalCode: 'X-SALADA', quantity: 2, unitPriceCents: 2990, totalCents: 6980, notes: 'sem tomate', options: [{ externalCode: 'OVO', quantity: 2, unitPriceCents: 250 }] }],
      totals: { itemsCents: 6980, discountCents: 1000, deliveryFeeCents: 500, serviceFeeCents: 99, tipCents: 300, totalCents: 6879 },
    });
    // The API serves the same order.
    const { accessToken } = await client.token(creds);
    expect(await client.getOrder(accessToken, creds.merchantId, event.externalOrderId!)).toEqual(event.order);
  });

  it('sends a duplicate (same bytes, same event id) and one with a bad signature, which is not retried', async () => {
    const { hook, control } = await start({}, [200, 200, 401]);
    const created = await control('/orders', { webhookUrl: hook.url, webhookSecret: SECRET });
    const id = (created.body.order as { order_detail: { order_id: string } }).order_detail.order_id;
    expect((await control(`/orders/${id}/resend`)).body.webhook).toMatchObject({ status: 200 });
    expect(hook.received[1].raw).toBe(hook.received[0].raw);
    expect(valid(hook.received[1])).toEqual({ valid: true });

    const bad = await control(`/orders/${id}/resend`, { badSignature: true });
    expect(bad.body.webhook).toMatchObject({ status: 401, badSignature: true });
    expect(valid(hook.received[2])).toEqual({ valid: false, reason: 'mismatch' });
    await new Promise((r) => setTimeout(r, 80));
    expect(hook.received).toHaveLength(3);
  });

  it('sends a NEW_ORDER by reference, then a cancellation', async () => {
    const { hook, control, client } = await start({ webhookSecret: SECRET });
    const created = await control('/orders', { webhookUrl: hook.url, reference: true, orderId: 'ref-1', deliveryMethod: 'pickup', paymentMethod: 'cash' });
    expect(created.status).toBe(201);
    const event = parseProviderBWebhook(JSON.parse(hook.received[0].raw));
    expect(event).toMatchObject({ kind: 'new_order', externalOrderId: 'ref-1', order: null });
    const { accessToken } = await client.token(creds);
    expect(await client.getOrder(accessToken, creds.merchantId, 'ref-1')).toMatchObject({ fulfilment: 'takeout', deliveryAddress: null, payment: { prepaid: false } });

    expect((await control('/orders/ref-1/cancel', { event: 'canceled_without_charge' })).status).toBe(200);
    expect(valid(hook.received[1])).toEqual({ valid: true });
    expect(parseProviderBWebhook(JSON.parse(hook.received[1].raw))).toMatchObject({ kind: 'cancelled', type: 'canceled_without_charge', externalOrderId: 'ref-1', eventId: expect.any(String) });
    expect((await control('/orders/ref-1/cancel')).status).toBe(409);
    await expect(client.pushStatus(accessToken, creds.merchantId, 'ref-1', 'TAKEN')).rejects.toMatchObject({ status: 409 });
  });

  it('retries a webhook the receiver did not accept', async () => {
    const { hook, control, sim } = await start({ webhookSecret: SECRET }, [500, 503]);
    await control('/orders', { webhookUrl: hook.url });
    await sim.idle();
    expect(sim.deliveries.map((d) => d.status)).toEqual([500, 503, 200]);
    expect(new Set(hook.received.map((r) => r.raw)).size).toBe(1);
    expect(hook.received.every((r) => valid(r).valid)).toBe(true);
  });

  it('lists orders, status pushes and catalog items; validates control calls', async () => {
    const { hook, control, client, get } = await start({ webhookUrl: undefined });
    expect((await control('/orders', {})).status).toBe(400); // no webhook URL anywhere
    expect((await control('/orders', { webhookUrl: hook.url, items: [{ name: 'x' }] })).status).toBe(400);
    expect((await control('/orders', { webhookUrl: hook.url, items: [{ name: 'x', price: 1.234 }] })).status).toBe(400);
    expect((await control('/orders/none/resend', {})).status).toBe(404);
    const created = await control('/orders', { webhookUrl: hook.url, orderId: 'o-1' });
    expect(created.status).toBe(201);
    expect(hook.received[0].headers['x-provider-b-signature']).toBeUndefined(); // no secret: unsigned
    expect((await control('/orders', { webhookUrl: hook.url, orderId: 'o-1' })).status).toBe(409);

    const { accessToken } = await client.token(creds);
    await client.pushStatus(accessToken, creds.merchantId, 'o-1', 'TAKEN');
    await client.syncItem(accessToken, creds.merchantId, { externalCode: 'S1', name: 'Suco', description: 'Laranja', priceCents: 900, available: true, category: null });
    expect(await get('/orders')).toMatchObject([{ id: 'o-1', state: 'TAKEN', cookingTime: 10 }]);
    expect(await get('/statuses')).toMatchObject([{ orderId: 'o-1', status: 'TAKEN', cookingTime: 10 }]);
    expect(await get('/catalog')).toMatchObject([{ sku: 'S1', name: 'Suco', price: 9, category: 'Menu', available: true, updates: 1 }]);
    expect(await get('')).toMatchObject({ simulator: 'provider_b', orders: 1, statuses: 1, catalogItems: 1 });
  });

  it('speaks the protocol: token grant, audience, x-authorization, validation', async () => {
    const { url } = await start();
    const token = (b: Record<string, unknown>) => fetch(`${url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
    const good = { client_id: PROVIDER_B_SIM_CLIENT_ID, client_secret: PROVIDER_B_SIM_CLIENT_SECRET, audience: 'https://int-public-api-v2/api', grant_type: 'client_credentials' };
    expect((await token({ ...good, grant_type: 'password' })).status).toBe(400);
    expect((await token({ ...good, client_secret: 'x' })).status).toBe(401);
    expect((await token({ ...good, audience: undefined })).status).toBe(403);
    const { access_token } = (await (await token(good)).json()) as { access_token: string };
    const orders = `${url}${PROVIDER_B_API}/orders?storeId=${PROVIDER_B_SIM_STORE_ID}`;
    expect((await fetch(orders, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(401);
    expect((await fetch(orders, { headers: { 'x-authorization': `Bearer ${access_token}` } })).status).toBe(200);
    expect((await fetch(`${url}${PROVIDER_B_API}/orders`, { headers: { 'x-authorization': `Bearer ${access_token}` } })).status).toBe(400);
    const put = (path: string, body?: unknown) =>
      fetch(`${url}${PROVIDER_B_API}${path}`, {
        method: path === '/menu' ? 'POST' : 'PUT',
        headers: { 'x-authorization': `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
    expect((await put('/orders/none/take/0')).status).toBe(400);
    expect((await put('/orders/none/cooking')).status).toBe(404);
    expect((await put('/orders/none/reject', {})).status).toBe(400);
    expect((await put('/menu', { storeId: 's', items: [{ sku: 'a', name: 'A', price: -1 }] })).status).toBe(400);
    expect((await put('/menu', { storeId: 's', items: [] })).status).toBe(400);
  });

  it('runs standalone and prints its URL', async () => {
    const { url, stop } = await startStandalone('src/integrations/provider-b/simulator/standalone.ts', { PROVIDER_B_SIM_PORT: '0' });
    cleanups.push(stop);
    expect(await (await fetch(`${url}/__sim`)).json()).toMatchObject({ simulator: 'provider_b' });
  }, 30_000);
});

describe('providerB integration entry', () => {
  const deps = { publicUrl: 'http://localhost:3000', clock: systemClock, log: silentLogger, simulatorControl: true };
  const env = (vars: Record<string, string>) => envReader(vars, { keptSecret: () => 'kept-secret' });

  it('reads PROVIDER_B_* with defaults and refuses bad values', () => {
    expect(providerB.parseConfig(env({}))).toMatchObject({ mode: 'simulator', baseUrl: undefined, timeoutMs: 15_000, cookingTimeMinutes: 10, simWebhookSecret: 'kept-secret' });
    expect(providerB.parseConfig(env({ PROVIDER_B_MODE: 'live', PROVIDER_B_BASE_URL: 'https://api.example' }))).toMatchObject({ mode: 'live', simWebhookSecret: undefined });
    expect(() => providerB.parseConfig(env({ PROVIDER_B_MODE: 'live' }))).toThrow(/PROVIDER_B_BASE_URL/);
    expect(() => providerB.parseConfig(env({ PROVIDER_B_MODE: 'maybe' }))).toThrow(/PROVIDER_B_MODE/);
    expect(() => providerB.parseConfig(env({ PROVIDER_B_TIMEOUT_MS: '5' }))).toThrow(/PROVIDER_B_TIMEOUT_MS/);
    expect(() => providerB.parseConfig(env({ NODE_ENV: 'production' }))).toThrow(/PROVIDER_B_MODE/);
  });

  it('runs the in-process simulator, mounted under /__sim/provider-b; webhooks through deps.deliverWebhook', async () => {
    const delivered: { url: string; headers: Record<string, string>; body: string }[] = [];
    const config = providerB.defaultConfig();
    const handle = providerB.create(config, { ...deps, deliverWebhook: async (req) => (delivered.push(req), { status: 200 }) });
    cleanups.push(() => handle.close());
    const { accessToken } = await handle.client!.token(handle.simCredentials!);
    const app = Fastify();
    cleanups.push(() => app.close());
    await handle.mount!(app);
    const res = await app.inject({ method: 'POST', url: `${PROVIDER_B_SIM_PREFIX}/__sim/orders`, payload: { webhookUrl: `http://localhost:3000${handle.webhookPath('demo')}` }, remoteAddress: '127.0.0.1' });
    expect(res.statusCode).toBe(201);
    expect(delivered[0].url).toBe('http://localhost:3000/t/demo/webhooks/provider_b');
    expect(handle.checkSignature(delivered[0].body, delivered[0].headers['x-provider-b-signature'], handle.simWebhookSecret)).toEqual({ valid: true });
    const event = handle.parseWebhook(JSON.parse(delivered[0].body));
    expect(await handle.client!.getOrder(accessToken, handle.simCredentials!.merchantId, event.externalOrderId!)).toEqual(event.order);
    expect(handle.describe('http://localhost:3000')[0]).toContain('in-process simulator at http://localhost:3000/__sim/provider-b');

    const off = providerB.create({ ...config, mode: 'off' }, deps);
    expect(off.client).toBeNull();
    expect(off.describe('x')).toEqual(['off (provider_b integrations are unavailable)']);
  });
});

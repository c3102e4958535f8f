import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startStandalone } from '../../../test/standalone.js';
import { manualClock } from '../../platform/clock.js';
import { HttpProviderAClient } from './client.js';
import { PROVIDER_A_SIGNATURE_HEADER, verifyProviderASignature } from './signature.js';
import { createProviderASimulator, PROVIDER_A_SIM_CLIENT_ID, PROVIDER_A_SIM_CLIENT_SECRET, type ProviderASimulatorOptions } from './simulator/index.js';
import { parseProviderAWebhook } from './webhook.js';

const SECRET = 'whsec_provider_a_test';
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
      received.push({ url: req.url!, headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, received };
}

async function start(opts: ProviderASimulatorOptions = {}) {
  const hook = await receiver();
  const sim = createProviderASimulator({ webhookSecret: SECRET, webhookRetryDelaysMs: [20, 20], ...opts });
  cleanups.push(() => sim.close());
  const url = await sim.listen();
  const client = new HttpProviderAClient({ baseUrl: url, timeoutMs: 5_000 });
  const control = async (path: string, body?: unknown) => {
    const res = await fetch(`${url}/__sim${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  return { sim, url, client, hook, control, webhookUrl: `${hook.base}/t/pizzaria/webhooks/provider_a` };
}

const credentials = { clientId: PROVIDER_A_SIM_CLIENT_ID, clientSecret: PROVIDER_A_SIM_CLIENT_SECRET, merchantId: 'm-42' };

describe('provider_a simulator over HTTP', () => {
  it('places an order and sends its signed PLACED event (reference shape) to the URL given', async () => {
    const { control, hook, webhookUrl, client } = await start();
    const order = {
      merchantId: 'm-42',
      orderType: 'DELIVERY',
      customer: { name: 'Bruna', phone: '11988887777', document: '12345678909' },
      address: { street: 'Rua A', number: '7', complement: 'casa 2', neighborhood: 'Vila B', city: 'Campinas', state: 'SP', postalCode: '13000000', reference: 'portão azul' },
      items: [{ externalCode: 'ACAI', name: 'Açaí', quantity: 3, unitPriceCents: 1990, notes: 'sem granola', options: [{ externalCode: 'LEITE-PO', name: 'Leite em pó', unitPriceCents: 250 }] }],
      notes: 'troco para 100',
      deliveryFeeCents: 800,
      discountCents: 500,
      serviceFeeCents: 99,
      payment: { method: 'CASH', prepaid: false },
    };
    const res = await control('/orders', { webhookUrl, order });
    expect(res.status).toBe(201);
    expect(res.body.webhook).toMatchObject({ attempt: 1, status: 200, signed: 'valid', event: 'PLACED', shape: 'reference' });
    expect(hook.received).toHaveLength(1);
    const got = hook.received[0];
    expect(got.url).toBe('/t/pizzaria/webhooks/provider_a');
    expect(got.headers['content-type']).toBe('application/json');
    expect(verifyProviderASignature(got.raw, got.headers[PROVIDER_A_SIGNATURE_HEADER], SECRET)).toBe(true);
    const event = parseProviderAWebhook(JSON.parse(got.raw));
    expect(event).toEqual({ eventId: res.body.event.id, type: 'PLACED', kind: 'new_order', externalOrderId: res.body.order.id, order: null });
    expect(Object.keys(JSON.parse(got.raw)).sort()).toEqual(['code', 'createdAt', 'fullCode', 'id', 'merchantId', 'orderId']);

    // The job fetches it: every field the control call gave comes back normalised, in cents.
    const { accessToken } = await client.token(credentials);
    expect(await client.getOrder(accessToken, 'm-42', event.externalOrderId!)).toMatchObject({
      customer: { name: 'Bruna', phone: '11988887777 ID 12345678', document: '12345678909' },
      deliveryAddress: { street: 'Rua A', number: '7', complement: 'casa 2', neighborhood: 'Vila B', city: 'Campinas', postalCode: '13000000', reference: 'portão azul' },
      items: [{ externalCode: 'ACAI', quantity: 3, unitPriceCents: 1990, totalCents: 6720, notes: 'sem granola', options: [{ externalCode: 'LEITE-PO', quantity: 3, unitPriceCents: 250 }] }],
      notes: 'troco para 100',
      totals: { itemsCents: 6720, discountCents: 500, deliveryFeeCents: 800, serviceFeeCents: 99, tipCents: 0, totalCents: 7119 },
      payment: { method: 'CASH', prepaid: false },
    });
  });

  it('sends the full variant (the order embedded), duplicates and a badly signed copy on request', async () => {
    const { control, hook, webhookUrl } = await start();
    const placed = await control('/orders', { webhookUrl, shape: 'full', order: { orderType: 'TAKEOUT' } });
    const first = JSON.parse(hook.received[0].raw);
    expect(parseProviderAWebhook(first)).toMatchObject({ kind: 'new_order', order: { externalId: placed.body.order.id, fulfilment: 'takeout', deliveryAddress: null } });

    const dup = await control(`/orders/${placed.body.order.id}/resend`, {});
    expect(dup.body.webhook).toMatchObject({ status: 200, eventId: first.id });
    expect(hook.received[1].raw).toBe(hook.received[0].raw);
    expect(hook.received[1].headers[PROVIDER_A_SIGNATURE_HEADER]).toBe(hook.received[0].headers[PROVIDER_A_SIGNATURE_HEADER]);

    const badSig = await control(`/orders/${placed.body.order.id}/resend`, { signature: 'bad' });
    expect(badSig.body.webhook).toMatchObject({ signed: 'bad' });
    const bad = hook.received[2];
    expect(bad.raw).toBe(hook.received[0].raw);
    expect(bad.headers[PROVIDER_A_SIGNATURE_HEADER]).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyProviderASignature(bad.raw, bad.headers[PROVIDER_A_SIGNATURE_HEADER], SECRET)).toBe(false);

    await control(`/orders/${placed.body.order.id}/resend`, { signature: 'none' });
    expect(hook.received[3].headers[PROVIDER_A_SIGNATURE_HEADER]).toBeUndefined();
    // A new order signed with the tenant's own secret.
    await control('/orders', { webhookUrl, webhookSecret: 'tenant-secret' });
    expect(verifyProviderASignature(hook.received[4].raw, hook.received[4].headers[PROVIDER_A_SIGNATURE_HEADER], 'tenant-secret')).toBe(true);
  });

  it('cancels an order as the platform (CANCELLED event); the order then refuses actions', async () => {
    const { control, hook, webhookUrl, client, sim } = await start();
    const placed = await control('/orders', { webhookUrl });
    const id = placed.body.order.id;
    const cancelled = await control(`/orders/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(parseProviderAWebhook(JSON.parse(hook.received[1].raw))).toMatchObject({ kind: 'cancelled', type: 'CANCELLED', externalOrderId: id });
    expect(sim.getOrder(id)!.status).toBe('CANCELLED');
    expect((await control(`/orders/${id}/cancel`, {})).status).toBe(409);
    const { accessToken } = await client.token(credentials);
    await expect(client.pushStatus(accessToken, 'm', id, 'CONFIRMED')).rejects.toMatchObject({ status: 409 });
  });

  it('lists the statuses pushed, the catalog items received and the deliveries', async () => {
    const { control, client, webhookUrl } = await start();
    const placed = await control('/orders', { webhookUrl });
    const { accessToken } = await client.token(credentials);
    await client.pushStatus(accessToken, 'm', placed.body.order.id, 'CONFIRMED');
    await client.syncItem(accessToken, 'm-42', { externalCode: 'X', name: 'X', description: null, priceCents: 1000, available: true, category: null });
    expect((await control('/statuses')).body).toEqual([expect.objectContaining({ orderId: placed.body.order.id, action: 'confirm', status: 'CONFIRMED' })]);
    expect((await control('/catalog')).body).toEqual([expect.objectContaining({ merchantId: 'm-42', externalCode: 'X', price: { value: 10 }, status: 'AVAILABLE' })]);
    expect((await control('/deliveries')).body).toHaveLength(1);
    expect((await control('/orders')).body).toHaveLength(1);
    expect((await control(`/orders/${placed.body.order.id}`)).body).toMatchObject({ status: 'CONFIRMED' });
    expect((await control('')).body).toMatchObject({ simulator: 'provider_a', orders: 1, statusPushes: 1, catalogItems: 1, webhookSigned: true });
  });

  it('validates control calls and catalog bodies', async () => {
    const { control, url, client } = await start();
    expect((await control('/orders', { order: { items: [] } })).status).toBe(400);
    expect((await control('/orders', { order: { items: [{ name: 'x', quantity: 1, unitPriceCents: 1.5 }] } })).status).toBe(400);
    expect((await control('/orders', { shape: 'xml' })).status).toBe(400);
    expect((await control('/orders/nope/resend', {})).status).toBe(404);
    // No URL given nor configured: the order exists, nothing was sent.
    const quiet = await control('/orders', {});
    expect(quiet).toMatchObject({ status: 201, body: { webhook: null } });
    expect((await control(`/orders/${quiet.body.order.id}/resend`, {})).status).toBe(409);
    const { accessToken } = await client.token(credentials);
    const put = (body: unknown) =>
      fetch(`${url}/catalog/v2.0/merchants/m/items`, { method: 'PUT', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ok = { externalCode: 'A', name: 'A', price: { value: 1.5 }, status: 'AVAILABLE' };
    expect((await put(ok)).status).toBe(200);
    for (const patch of [{ externalCode: '' }, { price: { value: 1.555 } }, { price: { value: -1 } }, { status: 'ON' }, { name: undefined }]) {
      const res = await put({ ...ok, ...patch });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'BadRequest' } });
    }
    expect((await fetch(`${url}/order/v1.0/orders/x`)).status).toBe(401);
  });

  it('retries a webhook the receiver did not accept', async () => {
    const hook = await receiver([500, 503]);
    const sim = createProviderASimulator({ webhookSecret: SECRET, webhookRetryDelaysMs: [10, 10] });
    cleanups.push(() => sim.close());
    const { webhook } = await sim.placeOrder({}, { url: `${hook.base}/t/x/webhooks/provider_a` });
    expect(webhook).toMatchObject({ attempt: 1, status: 500 });
    await sim.idle();
    expect(sim.deliveries.map((d) => d.status)).toEqual([500, 503, 200]);
    expect(new Set(hook.received.map((r) => r.raw)).size).toBe(1);
  });

  it('issues tokens only to its clients (form body, iFood field names); tokens expire', async () => {
    const clock = manualClock();
    const { url, control } = await start({ clock, tokenTtlSeconds: 600 });
    const form = (p: Record<string, string>) =>
      fetch(`${url}/authentication/v1.0/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(p).toString() });
    const good = { grantType: 'client_credentials', clientId: PROVIDER_A_SIM_CLIENT_ID, clientSecret: PROVIDER_A_SIM_CLIENT_SECRET };
    const refused = await form({ ...good, clientSecret: 'nope' });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: { code: 'Unauthorized', message: 'invalid clientId or clientSecret' } });
    expect((await form({ ...good, grantType: 'password' })).status).toBe(400);
    expect((await form({ ...good, clientId: 'tenant-9', clientSecret: 's9' })).status).toBe(401);
    expect((await control('/clients', { clientId: 'tenant-9', clientSecret: 's9' })).status).toBe(201);
    expect((await form({ ...good, clientId: 'tenant-9', clientSecret: 's9' })).status).toBe(200);

    const token = await (await form(good)).json();
    expect(token).toEqual({ accessToken: expect.stringMatching(/^provider-a-sim-/), type: 'bearer', expiresIn: 600 });
    const order = () => fetch(`${url}/order/v1.0/orders/none`, { headers: { authorization: `Bearer ${token.accessToken}` } });
    expect((await order()).status).toBe(404);
    expect((await control('/failures', { count: 1, status: 503 })).status).toBe(200);
    expect((await order()).status).toBe(503);
    expect((await order()).status).toBe(404);
    clock.advance(601_000);
    expect((await order()).status).toBe(401);
  });

  it('runs standalone and prints its URL', async () => {
    const { url, stop } = await startStandalone('src/integrations/provider-a/simulator/standalone.ts', { PROVIDER_A_SIM_PORT: '0', PROVIDER_A_WEBHOOK_SECRET: 'x' });
    cleanups.push(stop);
    const res = await fetch(`${url}/__sim`);
    expect(await res.json()).toMatchObject({ simulator: 'provider_a', webhookSigned: true, webhookShape: 'reference' });
  }, 30_000);
});

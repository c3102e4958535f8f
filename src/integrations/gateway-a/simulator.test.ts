import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStandalone } from '../../../test/standalone.js';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../platform/clock.js';
import { HttpGatewayAClient } from './client.js';
import { verifyGatewayASignature } from './signature.js';
import { createGatewayASimulator, GATEWAY_A_SIM_CLIENT_ID, GATEWAY_A_SIM_CLIENT_SECRET, type GatewayASimulatorOptions } from './simulator/index.js';
import { parseGatewayAWebhook } from './webhook.js';

const SECRET = 'whsec_sim_test';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
}

/** A tiny webhook receiver on 127.0.0.1; answers `statuses` in turn, then 200. */
async function receiver(statuses: number[] = []) {
  const received: Received[] = [];
  const waiters: ((r: Received) => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' }).end('{"received":true}');
      waiters.splice(0).forEach((w) => w(r));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/gateway-a/webhook`,
    received,
    next: (timeoutMs = 5_000) =>
      new Promise<Received>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no webhook received')), timeoutMs);
        waiters.push((r) => {
          clearTimeout(t);
          resolve(r);
        });
      }),
  };
}

async function start(opts: GatewayASimulatorOptions = {}) {
  const hook = await receiver();
  const sim = createGatewayASimulator({ webhookUrl: hook.url, webhookSecret: SECRET, webhookRetryDelaysMs: [20, 20], ...opts });
  cleanups.push(() => sim.close());
  const url = await sim.listen();
  const client = new HttpGatewayAClient({ baseUrl: url, clientId: GATEWAY_A_SIM_CLIENT_ID, clientSecret: GATEWAY_A_SIM_CLIENT_SECRET, timeoutMs: 5_000 });
  const control = (path: string, body?: unknown) =>
    fetch(`${url}/__sim${path}`, {
      method: 'POST',
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  return { sim, url, client, hook, control };
}

const input = { terminalSerial: 'T-CAIXA-01', amountCents: 12_345, externalId: 'order-abc', description: 'Mesa 4' };

describe('gateway_a simulator over HTTP', () => {
  it('intent -> approve -> signed webhook ({ event, data } shape)', async () => {
    const { client, hook, control } = await start();
    const { intentId } = await client.createPaymentIntent(input);
    const got = hook.next();
    const res = await control(`/intents/${intentId}/approve`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ intent: { id: intentId, state: 'FINISHED', payment: { state: 'approved' } }, webhook: { status: 200 } });

    const webhook = await got;
    expect(webhook.headers['content-type']).toBe('application/json');
    expect(verifyGatewayASignature(webhook.raw, webhook.headers['x-gatewaya-signature'], SECRET)).toBe(true);
    const body = JSON.parse(webhook.raw);
    expect(body).toMatchObject({ event: 'payment_intent.approved', data: { id: intentId, status: 'approved' } });
    const parsed = parseGatewayAWebhook(body)!;
    expect(parsed).toMatchObject({ intentId, externalId: 'order-abc', outcome: 'approved' });

    const intent = await client.getPaymentIntent(intentId);
    expect(intent).toMatchObject({ status: 'approved', paymentId: parsed.transactionId });
  });

  it('intent -> decline -> signed webhook ({ external_id, status, id } shape)', async () => {
    const { client, hook, control } = await start();
    const { intentId } = await client.createPaymentIntent(input);
    const got = hook.next();
    expect((await control(`/intents/${intentId}/decline`, { shape: 'external', reason: 'cc_rejected_insufficient_amount' })).status).toBe(200);
    const webhook = await got;
    expect(verifyGatewayASignature(webhook.raw, webhook.headers['x-gatewaya-signature'], SECRET)).toBe(true);
    expect(JSON.parse(webhook.raw)).toMatchObject({ external_id: 'order-abc', status: 'declined', id: intentId });
    expect((await client.getPaymentIntent(intentId)).status).toBe('declined');
    // Deciding twice is refused.
    expect((await control(`/intents/${intentId}/approve`)).status).toBe(409);
  });

  it('the service cancels an open intent; the gateway reports it declined and it can no longer be approved', async () => {
    const { client, hook, control } = await start({ webhookShape: 'external' });
    const { intentId } = await client.createPaymentIntent(input);
    const got = hook.next();
    await client.cancelPaymentIntent(input.terminalSerial, intentId);
    expect(JSON.parse((await got).raw)).toMatchObject({ external_id: 'order-abc', status: 'declined', id: intentId });
    expect((await client.getPaymentIntent(intentId)).status).toBe('canceled');
    const late = await control(`/intents/${intentId}/approve`);
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ error: 'not_pending' });
    // The terminal is free again.
    await expect(client.createPaymentIntent(input)).resolves.toMatchObject({ status: 'open' });
  });

  it('never answers in manual mode until someone decides', async () => {
    const { client, hook, sim, control } = await start();
    const { intentId } = await client.createPaymentIntent(input);
    // Marker: a later intent on another terminal, decided by itself after 100 ms, sends its webhook. Any
    // timer the first intent had of 100 ms or less would have fired before it.
    expect((await control('/outcome', { mode: 'approve', delayMs: 100 })).status).toBe(200);
    const marker = await client.createPaymentIntent({ ...input, terminalSerial: 'T-CAIXA-02', externalId: 'order-marker' });
    const got = await hook.next();
    expect(JSON.parse(got.raw)).toMatchObject({ data: { id: marker.intentId } });
    expect(hook.received).toHaveLength(1);
    expect(sim.getIntent(intentId)!.state).toBe('OPEN');
    expect((await client.getPaymentIntent(intentId)).status).toBe('open');
  });

  it('decides by itself in auto mode (the demo)', async () => {
    const { client, hook, control } = await start();
    expect((await control('/outcome', { mode: 'approve', delayMs: 30 })).status).toBe(200);
    const got = hook.next();
    const { intentId } = await client.createPaymentIntent(input);
    expect(parseGatewayAWebhook(JSON.parse((await got).raw))).toMatchObject({ intentId, outcome: 'approved' });

    expect((await control('/outcome', { mode: 'decline', delayMs: 10 })).status).toBe(200);
    const got2 = hook.next();
    const second = await client.createPaymentIntent({ ...input, externalId: 'order-2' });
    expect(parseGatewayAWebhook(JSON.parse((await got2).raw))).toMatchObject({ intentId: second.intentId, outcome: 'declined' });
    expect((await control('/outcome', { mode: 'sometimes' })).status).toBe(400);
  });

  it('retries a webhook the receiver did not accept, and can send a duplicate on request', async () => {
    const hook = await receiver([500, 503]);
    const sim = createGatewayASimulator({ webhookUrl: hook.url, webhookSecret: SECRET, webhookRetryDelaysMs: [10, 10] });
    cleanups.push(() => sim.close());
    const url = await sim.listen();
    const client = new HttpGatewayAClient({ baseUrl: url, clientId: GATEWAY_A_SIM_CLIENT_ID, clientSecret: GATEWAY_A_SIM_CLIENT_SECRET });
    const { intentId } = await client.createPaymentIntent(input);
    const { webhook } = await sim.approve(intentId);
    expect(webhook).toMatchObject({ attempt: 1, status: 500 });
    await sim.idle();
    expect(sim.deliveries.map((d) => d.status)).toEqual([500, 503, 200]);
    expect(new Set(hook.received.map((r) => r.raw)).size).toBe(1);

    const dup = await fetch(`${url}/__sim/intents/${intentId}/resend`, { method: 'POST' });
    expect(await dup.json()).toMatchObject({ webhook: { status: 200 } });
    expect(hook.received).toHaveLength(4);
    expect(hook.received[3].raw).toBe(hook.received[0].raw);
  });

  it('closes promptly while webhook retries are pending', async () => {
    const hook = await receiver([500]);
    const sim = createGatewayASimulator({ webhookUrl: hook.url, webhookRetryDelaysMs: [60_000] });
    const url = await sim.listen();
    const client = new HttpGatewayAClient({ baseUrl: url, clientId: GATEWAY_A_SIM_CLIENT_ID, clientSecret: GATEWAY_A_SIM_CLIENT_SECRET });
    const { intentId } = await client.createPaymentIntent(input);
    await sim.approve(intentId);
    const started = Date.now();
    await sim.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(hook.received).toHaveLength(1);
  });

  it('sends unsigned webhooks when it has no secret', async () => {
    const { client, hook, sim } = await start({ webhookSecret: undefined });
    const { intentId } = await client.createPaymentIntent(input);
    await sim.approve(intentId);
    expect(hook.received[0].headers['x-gatewaya-signature']).toBeUndefined();
  });

  it('issues OAuth tokens only to its client, by form, JSON or HTTP Basic; tokens expire', async () => {
    const clock = manualClock();
    const { url } = await start({ clock, tokenTtlSeconds: 600 });
    const form = (p: Record<string, string>) =>
      fetch(`${url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(p).toString() });
    const good = { grant_type: 'client_credentials', client_id: GATEWAY_A_SIM_CLIENT_ID, client_secret: GATEWAY_A_SIM_CLIENT_SECRET };

    const bad = await form({ ...good, client_secret: 'nope' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
    expect((await form({ ...good, grant_type: 'password' })).status).toBe(400);

    const json = await fetch(`${url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(good) });
    expect(json.status).toBe(200);
    const basic = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${GATEWAY_A_SIM_CLIENT_ID}:${GATEWAY_A_SIM_CLIENT_SECRET}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(basic.status).toBe(200);

    const token = await (await form(good)).json();
    expect(token).toMatchObject({ token_type: 'bearer', expires_in: 600, access_token: expect.any(String) });
    const devices = () => fetch(`${url}/point/integration-api/devices`, { headers: { authorization: `Bearer ${token.access_token}` } });
    expect((await devices()).status).toBe(200);
    clock.advance(601_000);
    expect((await devices()).status).toBe(401);
    expect((await fetch(`${url}/point/integration-api/devices`)).status).toBe(401);
  });

  it('accepts intents only for known terminals and lists them', async () => {
    const { url, client, control } = await start({ terminals: ['T-0001'] });
    await expect(client.createPaymentIntent({ ...input, terminalSerial: 'T-0002' })).rejects.toMatchObject({ status: 404 });
    expect((await control('/terminals', { serial: 'T-0002' })).status).toBe(201);
    expect((await control('/terminals', { serial: 'X-1' })).status).toBe(400);
    await expect(client.createPaymentIntent({ ...input, terminalSerial: 'T-0002' })).resolves.toMatchObject({ status: 'open' });
    const overview = await (await fetch(`${url}/__sim`)).json();
    expect(overview).toMatchObject({ simulator: 'gateway_a', terminals: ['T-0001', 'T-0002'], intents: 1 });
    const list = await (await fetch(`${url}/__sim/intents`)).json();
    expect(list).toHaveLength(1);
  });

  it('runs standalone and prints its URL', async () => {
    const { url, stop } = await startStandalone('src/integrations/gateway-a/simulator/standalone.ts', { GATEWAY_A_SIM_PORT: '0', GATEWAY_A_WEBHOOK_SECRET: 'x' });
    cleanups.push(stop);
    const res = await fetch(`${url}/__sim`);
    expect(await res.json()).toMatchObject({ simulator: 'gateway_a', webhookSigned: true, outcome: 'manual' });
  }, 30_000);
});

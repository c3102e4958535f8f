import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../platform/clock.js';
import { injectFetch, type FetchLike } from '../http.js';
import { closedPortUrl, silentServer } from '../simulator/test-servers.js';
import { GATEWAY_A_PRODUCTION_URL, GATEWAY_A_SANDBOX_URL, GATEWAY_A_TIMEOUT_MS, HttpGatewayAClient } from './client.js';
import { GatewayAError } from './errors.js';
import { createGatewayASimulator, GATEWAY_A_SIM_CLIENT_ID, GATEWAY_A_SIM_CLIENT_SECRET, type GatewayASimulatorOptions } from './simulator/index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A client talking to an in-process simulator through inject (the real protocol, no socket). */
function setup(simOpts: GatewayASimulatorOptions = {}, clientOpts: { sandbox?: boolean; clientSecret?: string } = {}) {
  const clock = manualClock();
  const sim = createGatewayASimulator({ clock, ...simOpts });
  cleanups.push(() => sim.close());
  const requests: { method: string; url: string; headers: Headers }[] = [];
  const inner = injectFetch(sim.buildServer());
  const fetch: FetchLike = (url, init) => {
    requests.push({ method: init?.method ?? 'GET', url, headers: new Headers(init?.headers) });
    return inner(url, init);
  };
  const client = new HttpGatewayAClient({
    baseUrl: 'http://gateway-a.sim/',
    clientId: GATEWAY_A_SIM_CLIENT_ID,
    clientSecret: clientOpts.clientSecret ?? GATEWAY_A_SIM_CLIENT_SECRET,
    sandbox: clientOpts.sandbox,
    fetch,
    clock,
  });
  return { sim, client, clock, requests };
}

const intentInput = { terminalSerial: 'T-0001', amountCents: 4590, externalId: 'order-1', description: 'Order 20250101-0001' };

describe('HttpGatewayAClient', () => {
  it('creates, reads and cancels a payment intent', async () => {
    const { client, requests } = setup();
    const created = await client.createPaymentIntent(intentInput);
    expect(created).toEqual({ intentId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'open' });

    const post = requests.find((r) => r.method === 'POST' && r.url.includes('payment-intents'))!;
    expect(post.url).toBe('http://gateway-a.sim/point/integration-api/devices/T-0001/payment-intents');
    expect(post.headers.get('authorization')).toMatch(/^Bearer APP_USR-sim-/);

    expect(await client.getPaymentIntent(created.intentId)).toEqual({
      intentId: created.intentId,
      terminalSerial: 'T-0001',
      amountCents: 4590,
      externalId: 'order-1',
      description: 'Order 20250101-0001',
      status: 'open',
      paymentId: null,
    });
    expect(await client.cancelPaymentIntent('T-0001', created.intentId)).toEqual({ intentId: created.intentId, status: 'canceled' });
    expect((await client.getPaymentIntent(created.intentId)).status).toBe('canceled');
    // Cancelling twice is harmless (the service's timeout job may race a person at the terminal).
    await expect(client.cancelPaymentIntent('T-0001', created.intentId)).resolves.toMatchObject({ status: 'canceled' });
  });

  it('reads the result decided at the terminal', async () => {
    const { client, sim } = setup();
    const a = await client.createPaymentIntent(intentInput);
    await sim.approve(a.intentId);
    const approved = await client.getPaymentIntent(a.intentId);
    expect(approved).toMatchObject({ status: 'approved', paymentId: expect.stringMatching(/^\d+$/) });

    const d = await client.createPaymentIntent({ ...intentInput, externalId: 'order-2' });
    await sim.decline(d.intentId);
    expect(await client.getPaymentIntent(d.intentId)).toMatchObject({ status: 'declined', externalId: 'order-2' });
    await expect(client.cancelPaymentIntent('T-0001', a.intentId)).rejects.toMatchObject({ kind: 'refused', status: 409, code: 'not_cancelable' });
  });

  it('sends x-test-scope: sandbox by default and not in production', async () => {
    const sandbox = setup();
    await sandbox.client.createPaymentIntent(intentInput);
    expect(sandbox.requests.at(-1)!.headers.get('x-test-scope')).toBe('sandbox');

    const prod = setup({}, { sandbox: false });
    await prod.client.createPaymentIntent(intentInput);
    expect(prod.requests.at(-1)!.headers.get('x-test-scope')).toBeNull();

    expect(new HttpGatewayAClient({ clientId: 'a', clientSecret: 'b' })).toMatchObject({ sandbox: true, baseUrl: GATEWAY_A_SANDBOX_URL });
    expect(new HttpGatewayAClient({ clientId: 'a', clientSecret: 'b', sandbox: false })).toMatchObject({ baseUrl: GATEWAY_A_PRODUCTION_URL });
    expect(GATEWAY_A_TIMEOUT_MS).toBe(60_000);
  });

  it('reuses one token across calls and renews it 60 s before it expires at the gateway', async () => {
    const { client, sim, clock } = setup({ tokenTtlSeconds: 3600 });
    const { intentId } = await client.createPaymentIntent(intentInput);
    await client.getPaymentIntent(intentId);
    await client.getPaymentIntent(intentId);
    expect(sim.tokenRequests).toBe(1);

    clock.advance(3600_000 - 62_000);
    await client.getPaymentIntent(intentId);
    expect(sim.tokenRequests).toBe(1);

    clock.advance(4_000); // inside the last minute: renewed before the gateway would refuse it
    await client.getPaymentIntent(intentId);
    expect(sim.tokenRequests).toBe(2);
  });

  it('gets a new token and retries once when the gateway revoked the current one', async () => {
    const { client, sim } = setup();
    const { intentId } = await client.createPaymentIntent(intentInput);
    sim.revokeTokens();
    expect((await client.getPaymentIntent(intentId)).intentId).toBe(intentId);
    expect(sim.tokenRequests).toBe(2);
  });

  it('maps refusals: bad credentials, unknown or busy terminal, malformed input', async () => {
    const bad = setup({}, { clientSecret: 'wrong' });
    await expect(bad.client.createPaymentIntent(intentInput)).rejects.toMatchObject({ kind: 'refused', status: 401, code: 'invalid_client' });

    const { client, requests } = setup({ terminals: ['T-0001'] });
    await expect(client.createPaymentIntent({ ...intentInput, terminalSerial: 'T-9999' })).rejects.toMatchObject({
      kind: 'refused',
      status: 404,
      code: 'device_not_found',
    });
    await client.createPaymentIntent(intentInput);
    const busy = await client.createPaymentIntent({ ...intentInput, externalId: 'order-2' }).catch((e) => e);
    expect(busy).toBeInstanceOf(GatewayAError);
    expect(busy).toMatchObject({ kind: 'refused', retryable: false });
    expect(busy).toMatchObject({ status: 409, code: 'terminal_busy' });

    const before = requests.length;
    await expect(client.createPaymentIntent({ ...intentInput, terminalSerial: 'POS-1' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(client.createPaymentIntent({ ...intentInput, amountCents: 10.5 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(client.createPaymentIntent({ ...intentInput, amountCents: 0 })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(requests.length).toBe(before);
    await expect(client.getPaymentIntent('nope')).rejects.toMatchObject({ kind: 'refused', status: 404 });
  });

  it('maps 5xx and 429 to unavailable', async () => {
    for (const [status, reason] of [
      [500, 'server_error'],
      [503, 'server_error'],
      [429, 'rate_limited'],
    ] as const) {
      const fetch: FetchLike = async (url) =>
        url.endsWith('/oauth/token')
          ? Response.json({ access_token: 't', token_type: 'bearer', expires_in: 3600 })
          : Response.json({ message: 'down' }, { status });
      const client = new HttpGatewayAClient({ baseUrl: 'http://x', clientId: 'a', clientSecret: 'b', fetch });
      const err = await client.createPaymentIntent(intentInput).catch((e) => e);
      expect(err).toBeInstanceOf(GatewayAError);
      expect(err).toMatchObject({ kind: 'unavailable', retryable: true });
      expect(err).toMatchObject({ reason, status });
    }
  });

  it('gives up after the timeout when the gateway does not answer (real HTTP on 127.0.0.1)', async () => {
    const server = await silentServer();
    cleanups.push(server.close);
    const client = new HttpGatewayAClient({ baseUrl: server.url, clientId: 'a', clientSecret: 'b', timeoutMs: 150 });
    const started = Date.now();
    const err = await client.createPaymentIntent(intentInput).catch((e) => e);
    expect(err).toBeInstanceOf(GatewayAError);
    expect(err).toMatchObject({ provider: 'gateway_a', kind: 'unavailable', retryable: true, reason: 'timeout' });
    expect(err.message).toContain('within 150 ms');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports an unreachable gateway as unavailable', async () => {
    const client = new HttpGatewayAClient({ baseUrl: await closedPortUrl(), clientId: 'a', clientSecret: 'b', timeoutMs: 2_000 });
    await expect(client.createPaymentIntent(intentInput)).rejects.toMatchObject({ kind: 'unavailable', reason: 'network' });
  });
});

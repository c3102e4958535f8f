import { afterEach, describe, expect, it } from 'vitest';
import { injectFetch, type FetchLike } from '../http.js';
import { HttpGatewayAClient } from './client.js';
import { createGatewayASimulator, GATEWAY_A_SIM_CLIENT_ID, GATEWAY_A_SIM_CLIENT_SECRET, type GatewayASimulatorOptions } from './simulator/index.js';
import { parseGatewayAWebhook } from './webhook.js';

/** What refunds of gateway_a add to the contract of `../refunds.test.ts`: which id they address, and its OAuth. */

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

function setup(opts: GatewayASimulatorOptions = {}) {
  const sim = createGatewayASimulator(opts);
  cleanups.push(() => sim.close());
  const server = sim.buildServer();
  const headers: Headers[] = [];
  const inner = injectFetch(server);
  const fetch: FetchLike = (url, init) => {
    headers.push(new Headers(init?.headers));
    return inner(url, init);
  };
  const client = new HttpGatewayAClient({ baseUrl: 'http://gateway-a.sim', clientId: GATEWAY_A_SIM_CLIENT_ID, clientSecret: GATEWAY_A_SIM_CLIENT_SECRET, fetch });
  return { sim, server, client, headers };
}

const input = { terminalSerial: 'T-0001', amountCents: 14_900, externalId: 'order-9', description: 'Mesa 9' };

describe('gateway_a refunds', () => {
  for (const shape of ['event', 'external'] as const) {
    it(`refunds address the payment id the webhook (${shape} shape) and the intent report`, async () => {
      const { sim, client } = setup({ webhookShape: shape });
      const { intentId } = await client.createPaymentIntent(input);
      const decided = await sim.approve(intentId);
      const fromWebhook = parseGatewayAWebhook(JSON.parse(decided.webhook!.body))!.transactionId!;
      const { paymentId } = await client.getPaymentIntent(intentId);
      expect(paymentId).toBe(fromWebhook);
      expect(String(decided.intent.payment!.id)).toBe(paymentId);

      expect(await client.refundPayment({ paymentId: paymentId!, amountCents: 4_900, idempotencyKey: 'k' })).toMatchObject({ paymentId, amountCents: 4_900 });
      expect(sim.refundsOf(paymentId!)).toHaveLength(1);
      expect(sim.captured()).toBe(10_000);
      // The intent id is not a payment id.
      await expect(client.refundPayment({ paymentId: intentId, idempotencyKey: 'k2' })).rejects.toMatchObject({ kind: 'refused', status: 404 });
    });
  }

  it('has nothing to refund for an open or cancelled intent', async () => {
    const { sim, client } = setup();
    const { intentId } = await client.createPaymentIntent(input);
    expect((await client.getPaymentIntent(intentId)).paymentId).toBeNull();
    await client.cancelPaymentIntent(input.terminalSerial, intentId);
    expect(sim.captured()).toBe(0);
    expect(sim.listRefunds()).toEqual([]);
  });

  it('needs the bearer token, like the rest of the API; a revoked token is renewed and the refund made once', async () => {
    const { sim, server, client, headers } = setup();
    const { intentId } = await client.createPaymentIntent(input);
    await sim.approve(intentId);
    const paymentId = (await client.getPaymentIntent(intentId)).paymentId!;

    const anonymous = await server.inject({ method: 'POST', url: `/v1/payments/${paymentId}/refunds`, headers: { 'x-idempotency-key': 'k' }, payload: {} });
    expect(anonymous.statusCode).toBe(401);
    expect(sim.listRefunds()).toEqual([]);

    sim.revokeTokens();
    await client.refundPayment({ paymentId, idempotencyKey: 'after-revoke' });
    expect(sim.tokenRequests).toBe(2);
    expect(sim.refundsOf(paymentId)).toHaveLength(1);
    expect(headers.at(-1)!.get('x-test-scope')).toBe('sandbox');
  });

  it('shows refunds and the money held in the control API', async () => {
    const { sim, server, client } = setup();
    const { intentId } = await client.createPaymentIntent(input);
    await sim.approve(intentId);
    const paymentId = (await client.getPaymentIntent(intentId)).paymentId!;
    await client.refundPayment({ paymentId, amountCents: 900, idempotencyKey: 'k' });
    expect((await server.inject({ url: '/__sim' })).json()).toMatchObject({ refunds: 1, capturedCents: 14_000 });
    expect((await server.inject({ url: '/__sim/refunds' })).json()).toEqual([
      { id: expect.any(Number), paymentId, amountCents: 900, status: 'approved', idempotencyKey: 'k', createdAt: expect.any(String) },
    ]);
  });
});

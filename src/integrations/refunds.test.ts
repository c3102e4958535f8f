import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../platform/clock.js';
import { HttpGatewayAClient } from './gateway-a/client.js';
import { createGatewayASimulator, GATEWAY_A_SIM_CLIENT_ID, GATEWAY_A_SIM_CLIENT_SECRET } from './gateway-a/simulator/index.js';
import { injectFetch, type FetchLike } from './http.js';
import type { Refund, RefundInput } from './refunds.js';
import type { SimRefund } from './simulator/refunds.js';
import { HttpWalletClient } from './wallet/client.js';
import { createWalletSimulator, WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS } from './wallet/simulator/index.js';

/**
 * The refund contract both payment integrations keep (client and simulator over the real protocol):
 * `POST /v1/payments/{id}/refunds`, whole or partial, idempotent by key, refused beyond what is left.
 */

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body: unknown;
}

interface Harness {
  /** An approved payment of `amountCents`; its id as the provider reports it. */
  pay(amountCents: number): Promise<string>;
  /** A payment the card issuer refused. */
  declined(): Promise<string>;
  refund(input: RefundInput): Promise<Refund>;
  /** The same client over another fetch (failures, timeouts). */
  over(fetch: FetchLike, timeoutMs?: number): (input: RefundInput) => Promise<Refund>;
  sim: { captured(): number; refundsOf(paymentId: string): SimRefund[]; buildServer(): { inject(o: { url: string }): Promise<{ json(): unknown }> } };
  sent: Sent[];
}

/** Records every request, then hands it to the simulator through inject. */
function recording(server: Parameters<typeof injectFetch>[0], sent: Sent[]): FetchLike {
  const inner = injectFetch(server);
  return (url, init) => {
    const headers = new Headers(init?.headers);
    const json = headers.get('content-type') === 'application/json' && typeof init?.body === 'string';
    sent.push({ method: init?.method ?? 'GET', url, headers, body: json ? JSON.parse(init.body as string) : init?.body });
    return inner(url, init);
  };
}

function gatewayA(): Harness {
  const clock = manualClock();
  const sim = createGatewayASimulator({ clock });
  cleanups.push(() => sim.close());
  const sent: Sent[] = [];
  const make = (fetch: FetchLike, timeoutMs = 5_000) =>
    new HttpGatewayAClient({ baseUrl: 'http://gateway-a.sim', clientId: GATEWAY_A_SIM_CLIENT_ID, clientSecret: GATEWAY_A_SIM_CLIENT_SECRET, fetch, clock, timeoutMs });
  const client = make(recording(sim.buildServer(), sent));
  let terminal = 0;
  const decided = async (amountCents: number, approve: boolean) => {
    const { intentId } = await client.createPaymentIntent({ terminalSerial: `T-${++terminal}`, amountCents, externalId: 'order-1', description: 'Mesa 1' });
    await (approve ? sim.approve(intentId) : sim.decline(intentId));
    return (await client.getPaymentIntent(intentId)).paymentId!;
  };
  return {
    pay: (cents) => decided(cents, true),
    declined: () => decided(999, false),
    refund: (input) => client.refundPayment(input),
    over: (fetch, timeoutMs) => (input) => make(fetch, timeoutMs).refundPayment(input),
    sim,
    sent,
  };
}

function wallet(): Harness {
  const sim = createWalletSimulator();
  cleanups.push(() => sim.close());
  const sent: Sent[] = [];
  const make = (fetch: FetchLike, timeoutMs = 5_000) => new HttpWalletClient({ baseUrl: 'http://wallet.sim', fetch, timeoutMs });
  const client = make(recording(sim.buildServer(), sent));
  const accessToken = WALLET_SIM_ACCOUNT.accessToken;
  let key = 0;
  const charge = async (amountCents: number, cardToken: string) =>
    (await client.charge({ accessToken, cardToken, amountCents, description: 'Pedido', payer: { email: 'a@example.com' }, idempotencyKey: `charge-${++key}` })).id;
  return {
    pay: (cents) => charge(cents, WALLET_TEST_CARDS.approved),
    declined: () => charge(999, WALLET_TEST_CARDS.insufficientFunds),
    refund: (input) => client.refund({ accessToken, ...input }),
    over: (fetch, timeoutMs) => (input) => make(fetch, timeoutMs).refund({ accessToken, ...input }),
    sim,
    sent,
  };
}

const refusedWith = (status: number, code: string) => ({ kind: 'refused', retryable: false, status, code });

describe.each([
  ['gateway_a', gatewayA],
  ['wallet', wallet],
] as const)('%s refunds', (provider, harness) => {
  it('refunds a whole payment: POST /v1/payments/{id}/refunds with the key and no amount', async () => {
    const h = harness();
    const before = h.sim.captured();
    const paymentId = await h.pay(4590);
    expect(h.sim.captured() - before).toBe(4590);

    const refund = await h.refund({ paymentId, idempotencyKey: 'order-1-cancel' });
    expect(refund).toEqual({ refundId: expect.stringMatching(/^\d+$/), paymentId, amountCents: 4590, status: 'approved' });
    const req = h.sent.at(-1)!;
    expect(req).toMatchObject({ method: 'POST', body: {} });
    expect(new URL(req.url).pathname).toBe(`/v1/payments/${paymentId}/refunds`);
    expect(req.headers.get('x-idempotency-key')).toBe('order-1-cancel');
    expect(req.headers.get('authorization')).toMatch(/^Bearer /);

    expect(h.sim.captured()).toBe(before);
    expect(h.sim.refundsOf(paymentId)).toEqual([
      { id: Number(refund.refundId), paymentId, amountCents: 4590, status: 'approved', idempotencyKey: 'order-1-cancel', createdAt: expect.any(String) },
    ]);
  });

  it('refunds in parts (decimal reais on the wire), then the rest; nothing is left after', async () => {
    const h = harness();
    const paymentId = await h.pay(4590);
    expect(await h.refund({ paymentId, amountCents: 1050, idempotencyKey: 'part-1' })).toMatchObject({ amountCents: 1050 });
    expect(h.sent.at(-1)!.body).toEqual({ amount: 10.5 });
    expect(h.sim.captured()).toBe(3540);
    expect(await h.refund({ paymentId, idempotencyKey: 'rest' })).toMatchObject({ amountCents: 3540 });
    expect(h.sim.captured()).toBe(0);
    await expect(h.refund({ paymentId, idempotencyKey: 'again' })).rejects.toMatchObject(refusedWith(400, 'already_refunded'));
    await expect(h.refund({ paymentId, amountCents: 1, idempotencyKey: 'one-more' })).rejects.toMatchObject(refusedWith(400, 'already_refunded'));
    expect(h.sim.refundsOf(paymentId).map((r) => r.amountCents)).toEqual([1050, 3540]);
  });

  it('refuses more than what is left (400), and refunds nothing for it', async () => {
    const h = harness();
    const paymentId = await h.pay(4590);
    const err = await h.refund({ paymentId, amountCents: 4591, idempotencyKey: 'too-much' }).catch((e) => e);
    expect(err).toMatchObject({ provider, ...refusedWith(400, 'amount_exceeds_refundable') });
    await h.refund({ paymentId, amountCents: 4000, idempotencyKey: 'most' });
    await expect(h.refund({ paymentId, amountCents: 591, idempotencyKey: 'over' })).rejects.toMatchObject(refusedWith(400, 'amount_exceeds_refundable'));
    expect(await h.refund({ paymentId, amountCents: 590, idempotencyKey: 'exact' })).toMatchObject({ amountCents: 590 });
    expect(h.sim.refundsOf(paymentId).map((r) => r.amountCents)).toEqual([4000, 590]);
  });

  it('gives the same refund for the same key, never a second one', async () => {
    const h = harness();
    const paymentId = await h.pay(2000);
    const input = { paymentId, amountCents: 500, idempotencyKey: 'refund-p1' };
    const first = await h.refund(input);
    const again = await Promise.all([h.refund(input), h.refund(input), h.refund(input)]);
    expect(again).toEqual([first, first, first]);
    expect(h.sim.refundsOf(paymentId)).toHaveLength(1);
    expect(h.sim.captured()).toBe(1500);
    // The key names one refund: another amount or another payment under it is a conflict.
    await expect(h.refund({ ...input, amountCents: 600 })).rejects.toMatchObject(refusedWith(409, 'idempotency_key_reused'));
    await expect(h.refund({ ...input, paymentId: await h.pay(700) })).rejects.toMatchObject(refusedWith(409, 'idempotency_key_reused'));
    // A whole refund retried after it went through: still one.
    const whole = { paymentId, idempotencyKey: 'refund-p1-rest' };
    expect(await h.refund(whole)).toEqual(await h.refund(whole));
    expect(h.sim.refundsOf(paymentId).map((r) => r.amountCents)).toEqual([500, 1500]);
  });

  it('refuses an unknown payment (404) and a declined one (400)', async () => {
    const h = harness();
    await expect(h.refund({ paymentId: '123456789', idempotencyKey: 'k1' })).rejects.toMatchObject(refusedWith(404, 'not_found'));
    await expect(h.refund({ paymentId: 'not-a-payment', idempotencyKey: 'k2' })).rejects.toMatchObject(refusedWith(404, 'not_found'));
    const declined = await h.declined();
    await expect(h.refund({ paymentId: declined, idempotencyKey: 'k3' })).rejects.toMatchObject(refusedWith(400, 'payment_not_refundable'));
    expect(h.sim.refundsOf(declined)).toEqual([]);
  });

  it('checks the input before sending anything', async () => {
    const h = harness();
    const before = h.sent.length;
    for (const bad of [{ amountCents: 0 }, { amountCents: 10.5 }, { amountCents: -100 }, { idempotencyKey: '' }, { paymentId: '' }]) {
      await expect(h.refund({ paymentId: '1', idempotencyKey: 'k', ...bad }), JSON.stringify(bad)).rejects.toMatchObject({ kind: 'refused', code: 'invalid_request' });
    }
    expect(h.sent.length).toBe(before);
  });

  it('keeps the money right: approved payments minus refunds', async () => {
    const h = harness();
    const [a, b] = [await h.pay(1000), await h.pay(2500)];
    await h.declined();
    expect(h.sim.captured()).toBe(3500);
    await h.refund({ paymentId: a, amountCents: 300, idempotencyKey: 'a-1' });
    await h.refund({ paymentId: b, idempotencyKey: 'b-all' });
    await h.refund({ paymentId: a, amountCents: 300, idempotencyKey: 'a-1' }); // a retry
    await h.refund({ paymentId: b, idempotencyKey: 'b-again' }).catch(() => {});
    expect(h.sim.captured()).toBe(700);
    const listed = (await h.sim.buildServer().inject({ url: '/__sim/refunds' })).json();
    expect(listed).toMatchObject([{ paymentId: b, amountCents: 2500 }, { paymentId: a, amountCents: 300, idempotencyKey: 'a-1' }]);
  });

  it('reports 5xx and 429 as unavailable, and an answer that is not a refund', async () => {
    const token = () => Response.json({ access_token: 't', token_type: 'bearer', expires_in: 3600 });
    const answering = (res: () => Response): FetchLike => async (url) => (url.endsWith('/oauth/token') ? token() : res());
    for (const [status, reason] of [[500, 'server_error'], [503, 'server_error'], [429, 'rate_limited']] as const) {
      const err = await harness().over(answering(() => Response.json({ message: 'down' }, { status })))({ paymentId: '1', idempotencyKey: 'k' }).catch((e) => e);
      expect(err).toMatchObject({ provider, kind: 'unavailable', retryable: true, reason, status });
    }
    const pending = answering(() => Response.json({ id: 1, payment_id: 1, amount: 10, status: 'in_process' }, { status: 201 }));
    await expect(harness().over(pending)({ paymentId: '1', idempotencyKey: 'k' })).rejects.toMatchObject({ kind: 'unavailable', reason: 'bad_response' });
    const other = answering(() => Response.json({ id: 1, payment_id: 2, amount: 10, status: 'approved' }, { status: 201 }));
    await expect(harness().over(other)({ paymentId: '1', idempotencyKey: 'k' })).rejects.toMatchObject({ kind: 'unavailable', reason: 'bad_response' });
  });

  it('gives up after the timeout when the provider does not answer', async () => {
    const hanging: FetchLike = (url, init) =>
      url.endsWith('/oauth/token')
        ? Promise.resolve(Response.json({ access_token: 't', token_type: 'bearer', expires_in: 3600 }))
        : new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    const err = await harness().over(hanging, 100)({ paymentId: '1', idempotencyKey: 'k' }).catch((e) => e);
    expect(err).toMatchObject({ provider, kind: 'unavailable', retryable: true, reason: 'timeout' });
    expect(err.message).toContain('within 100 ms');
  });
});

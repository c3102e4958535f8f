import { afterEach, describe, expect, it } from 'vitest';
import { injectFetch } from '../http.js';
import { HttpWalletClient, type WalletChargeInput } from './client.js';
import { createWalletSimulator, WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS } from './simulator/index.js';

/** What refunds of the wallet add to the contract of `../refunds.test.ts`: the access token and its account. */

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

function setup() {
  const sim = createWalletSimulator();
  cleanups.push(() => sim.close());
  const server = sim.buildServer();
  return { sim, server, client: new HttpWalletClient({ baseUrl: 'http://wallet.sim', fetch: injectFetch(server), timeoutMs: 5_000 }) };
}

let n = 0;
const charge = (accessToken: string = WALLET_SIM_ACCOUNT.accessToken): WalletChargeInput => ({
  accessToken,
  cardToken: WALLET_TEST_CARDS.approved,
  amountCents: 7450,
  description: 'Pedido online',
  payer: { email: 'cliente@example.com' },
  idempotencyKey: `charge-${++n}`,
});

describe('wallet refunds', () => {
  it('refuses an unknown access token (401) and refunds nothing', async () => {
    const { client, sim } = setup();
    const { id } = await client.charge(charge());
    const err = await client.refund({ accessToken: 'TEST-not-a-token', paymentId: id, idempotencyKey: 'k' }).catch((e) => e);
    expect(err).toMatchObject({ provider: 'wallet', kind: 'refused', status: 401, code: 'invalid_access_token' });
    await expect(client.refund({ accessToken: '', paymentId: id, idempotencyKey: 'k' })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(sim.refundsOf(id)).toEqual([]);
    expect(sim.captured()).toBe(7450);
  });

  it("does not show one account's payment to another; each account has its own keys", async () => {
    const { client, sim } = setup();
    const other = sim.createAccount();
    const mine = await client.charge(charge());
    const theirs = await client.charge(charge(other.accessToken));
    await expect(client.refund({ accessToken: other.accessToken, paymentId: mine.id, idempotencyKey: 'k' })).rejects.toMatchObject({
      kind: 'refused',
      status: 404,
      code: 'not_found',
    });
    const a = await client.refund({ accessToken: WALLET_SIM_ACCOUNT.accessToken, paymentId: mine.id, idempotencyKey: 'same-key' });
    const b = await client.refund({ accessToken: other.accessToken, paymentId: theirs.id, idempotencyKey: 'same-key' });
    expect(a.refundId).not.toBe(b.refundId);
    expect(sim.listRefunds().map((r) => r.paymentId)).toEqual([mine.id, theirs.id]);
    expect(sim.captured()).toBe(0);
  });

  it('answers the protocol as the real gateway: key required, decimal amount, replay marked', async () => {
    const { client, server } = setup();
    const { id } = await client.charge(charge());
    const post = (headers: Record<string, string>, payload: unknown) =>
      server.inject({ method: 'POST', url: `/v1/payments/${id}/refunds`, headers: { authorization: `Bearer ${WALLET_SIM_ACCOUNT.accessToken}`, ...headers }, payload: payload as object });
    expect((await post({}, {})).statusCode).toBe(400);
    for (const amount of [10.555, -1, 0, '10']) {
      const res = await post({ 'x-idempotency-key': 'k' }, { amount });
      expect([res.statusCode, res.json().error], String(amount)).toEqual([400, 'bad_request']);
    }
    const first = await post({ 'x-idempotency-key': 'k' }, { amount: 10.5 });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ payment_id: Number(id), amount: 10.5, status: 'approved' });
    const replay = await post({ 'x-idempotency-key': 'k' }, { amount: 10.5 });
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
  });

  it('refunds over a real socket, and lists refunds in the control API', async () => {
    const { sim } = setup();
    const url = await sim.listen();
    const client = new HttpWalletClient({ baseUrl: url, timeoutMs: 5_000 });
    const { id } = await client.charge(charge());
    expect(await client.refund({ accessToken: WALLET_SIM_ACCOUNT.accessToken, paymentId: id, amountCents: 450, idempotencyKey: 'k' })).toEqual({
      refundId: expect.any(String),
      paymentId: id,
      amountCents: 450,
      status: 'approved',
    });
    expect(await (await fetch(`${url}/__sim`)).json()).toMatchObject({ refunds: 1, capturedCents: 7000 });
    expect(await (await fetch(`${url}/__sim/refunds`)).json()).toMatchObject([{ paymentId: id, amountCents: 450, idempotencyKey: 'k' }]);
  });
});

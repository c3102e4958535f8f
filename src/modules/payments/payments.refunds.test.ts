import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS } from '../../integrations/wallet/index.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeTenantWithTeam } from '../../../test/factories.js';
import { paymentJobs } from './payments.jobs.js';
import { PAYMENT_EXPIRY_JOB } from './payments.service.js';

/**
 * Money given back: cancelling an order with approved payments refunds each through what took it (by
 * hand: recorded at once; a gateway: a job retried until it confirms); a late approval of a payment given
 * up on is refunded; a wallet checkout charges nothing for an order that would be refused, and gives the
 * money back when the order still fails. Each app of its own: the gateways' captured sums are checked.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, payload: payload as never });

async function bill() {
  const team = await makeTenantWithTeam(t.app);
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 7450 });
  const terminal = `T-${team.slug.slice(2).toUpperCase()}`;
  const pdv = await makePdv(t.app, team.tenant, { terminal });
  await call('PUT', `/t/${team.slug}/users/${team.staff.id}`, team.admin.headers, { assignedPdvIds: [pdv.pdvId] });
  const order = (await call('POST', `/t/${team.slug}/orders`, team.admin.headers, { orderType: 'takeout', pdv: pdv.pdvId, items: [{ menuItem: dish._id, quantity: 2 }] })).json();
  const base = `/t/${team.slug}/orders/${order._id}`;
  return {
    ...team,
    dish,
    pdv,
    terminal,
    order,
    pay: (body: object) => call('POST', `${base}/process-payment`, team.admin.headers, body),
    cancel: (headers: H) => call('PUT', `${base}/status`, headers, { status: 'cancelled' }),
    ledger: async () => (await call('GET', `${base}/payments`, team.admin.headers)).json() as { status: string; amount: number; refundReason: string | null }[],
    get: async () => (await call('GET', `/t/${team.slug}/orders`, team.admin.headers)).json().find((o: { _id: string }) => o._id === order._id),
  };
}

const drainRefunds = () => t.app.jobs.drain({ names: [paymentJobs.refund], includeDelayed: true });

describe('cancelling an order with money taken', () => {
  it('is for an admin or branch manager (403 for staff), and records cash given back at once', async () => {
    const b = await bill();
    await b.pay({ method: 'cash', gateway: 'mock', amount: 5000 });
    await b.pay({ method: 'debit_card', gateway: 'mock' });
    const refused = await b.cancel(b.staff.headers);
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'refund_role']);
    expect(await b.get()).toMatchObject({ status: 'pending', amountPaid: 14900 });

    const res = await b.cancel(b.admin.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'cancelled', amountPaid: 0, paymentStatus: null });
    expect(await b.ledger()).toMatchObject([
      { status: 'refunded', amount: 5000, refundReason: 'order_cancelled' },
      { status: 'refunded', amount: 9900, refundReason: 'order_cancelled' },
    ]);
    // Twice: nothing more to give back, nothing changes.
    expect((await b.cancel(b.admin.headers)).json()).toMatchObject({ status: 'cancelled', amountPaid: 0 });
  });

  it('refunds a card terminal payment through the gateway, by a job retried until it confirms', async () => {
    const b = await bill();
    const sim = t.app.integrations.gatewayA.simulator!;
    const before = sim.captured();
    const { intentId } = (await b.pay({ method: 'credit_card', gateway: 'gateway_a' })).json();
    await sim.approve(intentId);
    expect(sim.captured() - before).toBe(14900);
    expect((await b.get()).paymentStatus).toBe('approved');

    const res = await b.cancel(b.admin.headers);
    // The refund is decided: the payment no longer pays the bill, and stays approved until the gateway confirms.
    expect(res.json()).toMatchObject({ status: 'cancelled', amountPaid: 0 });
    expect(await b.ledger()).toMatchObject([{ status: 'approved', refundReason: 'order_cancelled' }]);
    expect(await drainRefunds()).toMatchObject({ completed: 1, failed: 0 });
    expect(await b.ledger()).toMatchObject([{ status: 'refunded', refundReason: 'order_cancelled' }]);
    expect(await b.get()).toMatchObject({ amountPaid: 0, status: 'cancelled' });
    expect(sim.captured() - before).toBe(0);
    // The job again (a retry after a lost answer): the gateway refunds once.
    await t.app.jobs.send(paymentJobs.refund, { tenantId: b.tenant._id, paymentId: (await call('GET', `/t/${b.slug}/orders/${b.order._id}/payments`, b.admin.headers)).json()[0]._id });
    await drainRefunds();
    expect(sim.captured() - before).toBe(0);
  });
});

describe('a late approval', () => {
  it('of a terminal payment that expired is recorded and refunded', async () => {
    const b = await bill();
    const sim = t.app.integrations.gatewayA.simulator!;
    const before = sim.captured();
    const { intentId } = (await b.pay({ method: 'credit_card', gateway: 'gateway_a' })).json();
    t.clock.advance(61_000);
    try {
      await t.app.jobs.drain({ names: [PAYMENT_EXPIRY_JOB], includeDelayed: true });
    } finally {
      t.clock.advance(-61_000);
    }
    expect(await b.get()).toMatchObject({ paymentStatus: 'declined' });
    // The cashier took cash instead; then the terminal's approval arrives after all.
    await b.pay({ method: 'cash', gateway: 'mock' });
    await sim.approve(intentId, { afterCancel: true });
    const ledger = await b.ledger();
    expect(ledger[0]).toMatchObject({ status: 'approved', refundReason: 'late_approval' });
    expect(await drainRefunds()).toMatchObject({ failed: 0 });
    expect((await b.ledger())[0]).toMatchObject({ status: 'refunded', refundReason: 'late_approval' });
    expect(await b.get()).toMatchObject({ paymentStatus: 'approved', amountPaid: 14900 });
    expect(sim.captured() - before).toBe(0);
    // Nobody decided this refund: the audit event has no actor, and says what made it.
    const [terminalPayment] = (await call('GET', `/t/${b.slug}/orders/${b.order._id}/payments`, b.admin.headers)).json() as { _id: string }[];
    const audit = await call('GET', `/t/${b.slug}/audit?action=payment.refunded`, b.admin.headers);
    expect(audit.statusCode, audit.body).toBe(200);
    expect(audit.json().data.map((e: { actor: string | null; targetId: string; details: object }) => [e.actor, e.targetId, e.details])).toEqual([
      [null, terminalPayment._id, expect.objectContaining({ reason: 'late_approval', gateway: 'gateway_a', by: 'gateway:gateway_a', amountCents: 14900 })],
    ]);
  });
});

describe('the wallet checkout', () => {
  async function walletTenant() {
    const b = await bill();
    await call('PUT', `/t/${b.slug}/tenants`, b.admin.headers, { walletAccessToken: WALLET_SIM_ACCOUNT.accessToken, walletPublicKey: WALLET_SIM_ACCOUNT.publicKey });
    return b;
  }
  const checkout = (b: Awaited<ReturnType<typeof bill>>, extra: object = {}) =>
    call('POST', `/t/${b.slug}/checkout/wallet-payment`, {}, {
      pdv: b.pdv.slug,
      orderType: 'takeout',
      customerName: 'Carla',
      customerEmail: 'carla@example.com',
      items: [{ menuItemId: b.dish._id, quantity: 1 }],
      cardToken: WALLET_TEST_CARDS.approved,
      ...extra,
    });

  it('charges nothing for an order that would be refused', async () => {
    const b = await walletTenant();
    const wallet = t.app.integrations.wallet.simulator!;
    const before = wallet.captured();
    for (const extra of [{ pdv: 'no-such-pdv' }, { items: [{ menuItemId: 'a'.repeat(24), quantity: 1 }] }, { orderType: 'dine_in', table: 999 }]) {
      const res = await checkout(b, extra);
      expect(res.statusCode, res.body).toBe(400);
    }
    expect(wallet.captured()).toBe(before);
  });

  it('gives the money back when the order still fails after the charge', async () => {
    const b = await walletTenant();
    const wallet = t.app.integrations.wallet.simulator!;
    const before = wallet.captured();
    const orders = t.app.services.orders;
    const insert = orders.insert;
    orders.insert = () => Promise.reject(new Error('the database failed after the charge'));
    try {
      expect((await checkout(b)).statusCode).toBe(500);
    } finally {
      orders.insert = insert;
    }
    expect(wallet.captured()).toBe(before);
    const ok = await checkout(b);
    expect(ok.statusCode).toBe(201);
    expect(wallet.captured() - before).toBe(7450);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.js';
import { createRestartableApp, type RestartableApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeTenantWithTeam } from '../../../test/factories.js';
import { PAYMENT_EXPIRY_JOB } from './payments.service.js';

/**
 * The payment ledger: one row per attempt, the order's payment fields derived from it. Partial
 * payments, change, overpayment, the states in which a bill cannot be touched, splits, terminals of
 * the tenant only, and a payment in flight across a restart.
 */
let r: RestartableApp;
let app: App;

/** A new process on the same database: the card gateway's simulator forgets its intents. */
async function restart() {
  await r.restart();
  app = r.app;
}

beforeAll(async () => {
  r = await createRestartableApp();
  app = r.app;
});
afterAll(() => r.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, headers: H, payload?: object) => app.inject({ method, url, headers, payload: payload as never });

/** A tenant with a 149.00 order (2 x 74.50) on a PDV with a card terminal. */
async function bill() {
  const team = await makeTenantWithTeam(app);
  const dish = await makeMenuItem(app, team.tenant, { name: 'Moqueca', price: 7450 });
  const dessert = await makeMenuItem(app, team.tenant, { name: 'Pudim', price: 1500 });
  const terminal = `T-${team.slug.slice(2).toUpperCase()}`;
  const pdv = await makePdv(app, team.tenant, { terminal });
  const res = await call('POST', `/t/${team.slug}/orders`, team.admin.headers, { orderType: 'takeout', pdv: pdv.pdvId, items: [{ menuItem: dish._id, quantity: 2 }] });
  expect(res.statusCode, res.body).toBe(201);
  const order = res.json() as { _id: string; orderNumber: string };
  const base = `/t/${team.slug}/orders/${order._id}`;
  return {
    ...team,
    dish,
    dessert,
    terminal,
    order,
    pay: (body: object) => call('POST', `${base}/process-payment`, team.admin.headers, body),
    addItems: (items: object[]) => call('PATCH', `${base}/add-items`, team.admin.headers, { items }),
    split: (body: object) => call('POST', `${base}/split`, team.admin.headers, body),
    setStatus: (status: string) => call('PUT', `${base}/status`, team.admin.headers, { status }),
    get: async () => (await call('GET', `/t/${team.slug}/orders`, team.admin.headers)).json().find((o: { _id: string }) => o._id === order._id),
  };
}

describe('several payments on one bill', () => {
  it('takes part in cash and the rest by card; approved only when nothing is due, with a mixed method', async () => {
    const b = await bill();
    const cash = await b.pay({ method: 'cash', gateway: 'mock', amount: 5000 });
    expect(cash.statusCode, cash.body).toBe(200);
    expect(cash.json()).toMatchObject({ status: 'approved', amount: 5000, change: 0, amountDue: 9900 });
    expect(await b.get()).toMatchObject({ amountPaid: 5000, amountDue: 9900, paymentStatus: null, paymentMethod: 'cash', paymentAttempts: 1, receiptToken: null });

    const card = await b.pay({ method: 'credit_card', gateway: 'mock' });
    expect(card.json()).toMatchObject({ status: 'approved', amount: 9900, amountDue: 0 });
    const paid = await b.get();
    expect(paid).toMatchObject({ amountPaid: 14900, amountDue: 0, paymentStatus: 'approved', paymentMethod: 'mixed', paymentAttempts: 2 });
    expect(paid.receiptToken).toMatch(/^[0-9a-f]{32}$/);
    expect((await b.pay({ method: 'cash', gateway: 'mock' })).json()).toMatchObject({ code: 'already_paid' });
  });

  it('gives change for cash handed over above what is due, and refuses a card or PIX above it', async () => {
    const b = await bill();
    const card = await b.pay({ method: 'credit_card', gateway: 'mock', amount: 15000 });
    expect(card.statusCode).toBe(400);
    expect(card.json().details[0]).toMatchObject({ field: 'body.amount' });
    expect((await b.pay({ method: 'pix', gateway: 'mock', amount: 14901 })).statusCode).toBe(400);
    expect((await b.pay({ method: 'cash', gateway: 'mock', amount: 0 })).statusCode).toBe(400);
    expect((await b.pay({ method: 'cash', gateway: 'mock', tip: -1 })).statusCode).toBe(400);
    // Nothing was recorded by the refusals.
    expect(await b.get()).toMatchObject({ amountPaid: 0, paymentAttempts: 0, paymentStatus: null });

    const cash = await b.pay({ method: 'cash', gateway: 'mock', amount: 20000, tip: 500 });
    expect(cash.json()).toMatchObject({ status: 'approved', amount: 14900, tip: 500, change: 5100, amountDue: 0 });
    expect(await b.get()).toMatchObject({ amountPaid: 14900, paymentStatus: 'approved' });
  });

  it('lets exactly one of two payments of the whole bill at the same moment through', async () => {
    const b = await bill();
    const results = await Promise.all([b.pay({ method: 'cash', gateway: 'mock' }), b.pay({ method: 'debit_card', gateway: 'mock' })]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(await b.get()).toMatchObject({ amountPaid: 14900, amountDue: 0, paymentAttempts: 1 });
  });

  it('reopens an amount due when a paid bill gets more items, and takes it', async () => {
    const b = await bill();
    expect((await b.pay({ method: 'cash', gateway: 'mock' })).statusCode).toBe(200);
    const more = await b.addItems([{ menuItem: b.dessert._id, quantity: 1 }]);
    expect(more.statusCode, more.body).toBe(200);
    expect(more.json()).toMatchObject({ total: 16400, amountPaid: 14900, amountDue: 1500, paymentStatus: null });
    expect((await b.pay({ method: 'pix', gateway: 'mock' })).json()).toMatchObject({ amount: 1500, amountDue: 0 });
    expect(await b.get()).toMatchObject({ paymentStatus: 'approved', paymentMethod: 'mixed', amountPaid: 16400 });
  });
});

describe('a bill while its card payment is processing', () => {
  it('refuses more items, a split, a cancel and a second payment (409), and changes nothing', async () => {
    const b = await bill();
    const started = await b.pay({ method: 'credit_card', gateway: 'gateway_a' });
    expect(started.json()).toMatchObject({ status: 'processing', amount: 14900 });
    const refusals = await Promise.all([
      b.addItems([{ menuItem: b.dessert._id, quantity: 1 }]),
      b.split({ parts: 2 }),
      b.setStatus('cancelled'),
      b.pay({ method: 'cash', gateway: 'mock' }),
      b.pay({ method: 'credit_card', gateway: 'gateway_a' }),
    ]);
    expect(refusals.map((r) => [r.statusCode, r.json().code])).toEqual(Array(5).fill([409, 'payment_in_progress']));
    expect(await b.get()).toMatchObject({ total: 14900, status: 'pending', paymentStatus: 'processing', paymentAttempts: 1, amountPaid: 0, isSplit: false });

    // Declined: the bill is payable again, and the items can be added.
    await app.integrations.gatewayA.simulator!.decline(started.json().intentId);
    expect(await b.get()).toMatchObject({ paymentStatus: 'declined', amountDue: 14900 });
    expect((await b.addItems([{ menuItem: b.dessert._id, quantity: 1 }])).statusCode).toBe(200);
    expect((await b.pay({ method: 'cash', gateway: 'mock' })).json()).toMatchObject({ amount: 16400, amountDue: 0 });
  });
});

describe('a split bill', () => {
  it('cannot be split once a payment was approved', async () => {
    const b = await bill();
    await b.pay({ method: 'cash', gateway: 'mock', amount: 100 });
    const res = await b.split({ parts: 2 });
    expect([res.statusCode, res.json().code]).toEqual([409, 'already_paid']);
  });

  it('is paid through its parts, which add up to it; the parent takes no payment and no edit', async () => {
    const b = await bill();
    const res = await b.split({ parts: 3 });
    expect(res.statusCode, res.body).toBe(201);
    const { parent, parts } = res.json() as { parent: { isSplit: boolean; total: number }; parts: { _id: string; total: number }[] };
    expect(parent.isSplit).toBe(true);
    expect(parts.reduce((sum, p) => sum + p.total, 0)).toBe(parent.total);
    expect([(await b.pay({ method: 'cash', gateway: 'mock' })).json().code, (await b.addItems([{ menuItem: b.dessert._id, quantity: 1 }])).json().code]).toEqual([
      'order_split',
      'order_split',
    ]);
    for (const part of parts) {
      const paid = await call('POST', `/t/${b.slug}/orders/${part._id}/process-payment`, b.admin.headers, { method: 'pix', gateway: 'mock' });
      expect(paid.json()).toMatchObject({ amount: part.total, amountDue: 0 });
    }
    expect(await b.get()).toMatchObject({ amountPaid: 0, paymentStatus: null, isSplit: true });
  });
});

describe('card terminals', () => {
  it("charges only on one of the tenant's own terminals (400 for another tenant's or an unknown serial)", async () => {
    const mine = await bill();
    const other = await bill();
    for (const serial of [other.terminal, 'T-NOBODY']) {
      const res = await mine.pay({ method: 'credit_card', gateway: 'gateway_a', gatewayATerminalSerial: serial });
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0]).toMatchObject({ field: 'body.gatewayATerminalSerial' });
    }
    expect(await mine.get()).toMatchObject({ paymentAttempts: 0, paymentStatus: null });
    const own = await mine.pay({ method: 'credit_card', gateway: 'gateway_a', gatewayATerminalSerial: mine.terminal });
    expect(own.json()).toMatchObject({ status: 'processing' });
  });

  it('declines a payment in flight across a restart when the gateway no longer knows its intent (404), so the bill is payable again', async () => {
    const b = await bill();
    const started = (await b.pay({ method: 'credit_card', gateway: 'gateway_a' })).json();
    expect(started).toMatchObject({ status: 'processing' });
    // A new process: same database and queue, a gateway (simulator) that never heard of the intent.
    await restart();
    expect(app.integrations.gatewayA.simulator!.getIntent(started.intentId)).toBeUndefined();
    expect(await b.get()).toMatchObject({ paymentStatus: 'processing' });
    r.clock.advance(61_000);
    // (Other tests of this file left terminal payments in flight too: every expiry job completes.)
    expect(await app.jobs.drain({ names: [PAYMENT_EXPIRY_JOB], includeDelayed: true })).toMatchObject({ failed: 0 });
    expect(await b.get()).toMatchObject({ paymentStatus: 'declined', amountPaid: 0, amountDue: 14900 });
    const again = await b.pay({ method: 'cash', gateway: 'mock' });
    expect(again.json()).toMatchObject({ status: 'approved', amountDue: 0 });
  });
});

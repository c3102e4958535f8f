import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { defaultIntegrationsConfig } from '../../integrations/registry.js';
import { signGatewayAPayload } from '../../integrations/gateway-a/index.js';
import { WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS } from '../../integrations/wallet/index.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeTenantWithTeam } from '../../../test/factories.js';
import { jobIdForKey } from '../../platform/jobs-sql.js';
import { PAYMENT_EXPIRY_JOB, PAYMENT_SWEEP_JOB } from './payments.service.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (app: TestApp, method: 'GET' | 'POST' | 'PUT', url: string, headers: H = {}, payload?: object) =>
  app.app.inject({ method, url, headers, payload: payload as never });

async function setup(app: TestApp = t) {
  const team = await makeTenantWithTeam(app.app);
  const dish = await makeMenuItem(app.app, team.tenant, { name: 'Moqueca', price: 7450 });
  const terminal = `T-${team.slug.slice(2).toUpperCase()}`;
  const pdv = await makePdv(app.app, team.tenant, { terminal });
  await call(app, 'PUT', `/t/${team.slug}/users/${team.staff.id}`, team.admin.headers, { assignedPdvIds: [pdv.pdvId] });
  const order = (
    await call(app, 'POST', `/t/${team.slug}/orders`, team.staff.headers, { orderType: 'takeout', pdv: pdv.pdvId, items: [{ menuItem: dish._id, quantity: 2 }] })
  ).json();
  expect(order.orderNumber, JSON.stringify(order)).toBeDefined();
  return { ...team, dish, pdv, terminal, order };
}

/** A test app and database of its own for `fn`, closed afterwards. */
async function withOwnApp(fn: (app: TestApp) => Promise<void>) {
  const own = await createTestApp();
  try {
    await fn(own);
  } finally {
    await own.close();
  }
}

const getOrder = async (s: Awaited<ReturnType<typeof setup>>, app: TestApp = t) =>
  (await call(app, 'GET', `/t/${s.slug}/orders`, s.admin.headers)).json().find((o: { _id: string }) => o._id === s.order._id);

describe('process-payment with mock', () => {
  it('approves at once, issues a receipt valid for 10 minutes, and refuses a second charge', async () => {
    const s = await setup();
    const res = await call(t, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'cash', gateway: 'mock' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'approved',
      transactionId: expect.stringMatching(/^mock-/),
      paymentId: expect.stringMatching(/^[0-9a-f]{24}$/),
      amount: 14900,
      tip: 0,
      change: 0,
      amountDue: 0,
    });
    const order = await getOrder(s);
    expect(order).toMatchObject({ paymentStatus: 'approved', paymentGateway: 'mock', paymentAttempts: 1, paymentMethod: 'cash' });
    expect(order.receiptToken).toMatch(/^[0-9a-f]{32}$/);
    const receipt = await call(t, 'GET', `/t/${s.slug}/receipts/${order.receiptToken}`);
    expect(receipt.statusCode).toBe(200);
    expect(receipt.json()).toMatchObject({ orderNumber: s.order.orderNumber, total: 14900, paymentMethod: 'cash' });
    expect((await call(t, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'cash', gateway: 'mock' })).statusCode).toBe(409);
    t.clock.advance(11 * 60_000);
    try {
      expect((await call(t, 'GET', `/t/${s.slug}/receipts/${order.receiptToken}`)).statusCode).toBe(404);
    } finally {
      t.clock.advance(-11 * 60_000);
    }
    expect((await call(t, 'GET', `/t/${s.slug}/receipts/${'0'.repeat(32)}`)).statusCode).toBe(404);
  });

  it('records one payment for a part payment retried with the same Idempotency-Key, at once or after a lost answer', async () => {
    const s = await setup();
    const url = `/t/${s.slug}/orders/${s.order._id}/process-payment`;
    const headers = { ...s.staff.headers, 'idempotency-key': `part-${s.slug}` };
    const body = { method: 'card', gateway: 'mock', amount: 5000 };
    const twins = await Promise.all(Array.from({ length: 5 }, () => call(t, 'POST', url, headers, body)));
    expect(twins.map((r) => r.statusCode)).toEqual(Array(5).fill(200));
    expect(new Set(twins.map((r) => r.json().paymentId)).size).toBe(1);
    expect(twins[0].json()).toMatchObject({ status: 'approved', amount: 5000, amountDue: 9900 });
    // A process killed after its commit, before storing the answer: the retry is answered from the payment.
    await t.db.database.db.execute(sql`update idempotency_keys set state = 'running', response_body = null where key = ${`part-${s.slug}`}`);
    const retry = await call(t, 'POST', url, headers, body);
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toMatchObject({ status: 'approved', paymentId: twins[0].json().paymentId, amount: 5000 });
    const ledger = (await call(t, 'GET', `/t/${s.slug}/orders/${s.order._id}/payments`, s.admin.headers)).json();
    expect(ledger).toHaveLength(1);
    expect((await call(t, 'POST', url, headers, { ...body, amount: 4000 })).statusCode).toBe(422);
    expect((await getOrder(s)).paymentStatus).not.toBe('approved');
  });

  it('validates the body and the roles', async () => {
    const s = await setup();
    const url = `/t/${s.slug}/orders/${s.order._id}/process-payment`;
    expect((await call(t, 'POST', url, s.staff.headers, { method: 'cash', gateway: 'paypal' })).statusCode).toBe(400);
    expect((await call(t, 'POST', url, s.staff.headers, { method: 'gold', gateway: 'mock' })).statusCode).toBe(400);
    expect((await call(t, 'POST', url, s.staff.headers, { method: 'credit_card', gateway: 'gateway_a', gatewayATerminalSerial: 'X1' })).statusCode).toBe(400);
    expect((await call(t, 'POST', url, {}, { method: 'cash', gateway: 'mock' })).statusCode).toBe(401);
    expect((await call(t, 'POST', url, s.accountant.headers, { method: 'cash', gateway: 'mock' })).statusCode).toBe(403);
    expect((await call(t, 'POST', `/t/${s.slug}/orders/${'a'.repeat(24)}/process-payment`, s.staff.headers, { method: 'cash', gateway: 'mock' })).statusCode).toBe(404);
    expect((await getOrder(s)).paymentAttempts).toBe(0);
  });
});

describe('process-payment with gateway_a (card terminal)', () => {
  it('answers processing, and the signed webhook approves the order', async () => {
    const s = await setup();
    const res = await call(t, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'credit_card', gateway: 'gateway_a' });
    expect(res.statusCode).toBe(200);
    const { intentId } = res.json();
    expect(res.json()).toMatchObject({ status: 'processing', intentId: expect.any(String), message: expect.stringContaining(s.terminal) });
    expect(await getOrder(s)).toMatchObject({ paymentStatus: 'processing', paymentAttempts: 1, paymentGateway: 'gateway_a', status: 'pending' });
    expect((await call(t, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'credit_card', gateway: 'gateway_a' })).statusCode).toBe(409);

    const { webhook } = await t.app.integrations.gatewayA.simulator!.approve(intentId);
    expect(webhook?.status).toBe(200);
    const paid = await getOrder(s);
    expect(paid).toMatchObject({ paymentStatus: 'approved', paymentTransactionId: expect.any(String) });
    expect(paid.receiptToken).toMatch(/^[0-9a-f]{32}$/);
    // The same webhook again changes nothing.
    await t.app.integrations.gatewayA.simulator!.resend(intentId);
    expect(await getOrder(s)).toEqual(paid);
  });

  it('records a refusal (second body shape) and lets the cashier try again', async () => {
    const s = await setup();
    const sim = t.app.integrations.gatewayA.simulator!;
    const first = (await call(t, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'debit_card', gateway: 'gateway_a' })).json();
    await sim.decline(first.intentId, { shape: 'external' });
    expect(await getOrder(s)).toMatchObject({ paymentStatus: 'declined', receiptToken: null });
    const second = await call(t, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'debit_card', gateway: 'gateway_a' });
    expect(second.statusCode).toBe(200);
    expect((await getOrder(s)).paymentAttempts).toBe(2);
    // A late webhook of the first attempt does not touch the second.
    await sim.resend(first.intentId);
    expect((await getOrder(s)).paymentStatus).toBe('processing');
  });

  it('answers 401 to a bad or missing signature and changes nothing', async () => {
    const s = await setup();
    const { intentId } = (await call(t, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'credit_card', gateway: 'gateway_a' })).json();
    const body = JSON.stringify({ event: 'payment_intent.approved', data: { id: intentId, status: 'approved', external_reference: s.order._id } });
    const post = (headers: H) => t.app.inject({ method: 'POST', url: '/api/gateway-a/webhook', headers: { 'content-type': 'application/json', ...headers }, payload: body });
    expect((await post({})).statusCode).toBe(401);
    expect((await post({ 'x-gatewaya-signature': signGatewayAPayload(body, 'wrong-secret') })).statusCode).toBe(401);
    expect((await post({ 'x-gatewaya-signature': signGatewayAPayload(body + ' ', t.app.integrations.gatewayA.webhookSecret!) })).statusCode).toBe(401);
    expect((await getOrder(s)).paymentStatus).toBe('processing');
    const good = await post({ 'x-gatewaya-signature': signGatewayAPayload(body, t.app.integrations.gatewayA.webhookSecret!) });
    expect(good.statusCode).toBe(200);
    expect(good.json()).toEqual({ received: true });
    expect((await getOrder(s)).paymentStatus).toBe('approved');
    const junk = '{"hello": 1}';
    const unknown = await t.app.inject({ method: 'POST', url: '/api/gateway-a/webhook', headers: { 'content-type': 'application/json', 'x-gatewaya-signature': signGatewayAPayload(junk, t.app.integrations.gatewayA.webhookSecret!) }, payload: junk });
    // A correctly signed event we do not handle is acknowledged (a gateway disables endpoints that keep failing).
    expect([unknown.statusCode, unknown.json()]).toEqual([200, { received: true }]);
  });

  it('cancels a payment still processing after 60 s and marks it declined', async () => {
    // An app of its own: its queue holds only the jobs this test makes, so every run counted below is this payment's.
    await withOwnApp(async (own) => {
      const s = await setup(own);
      const { intentId, paymentId } = (await call(own, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'credit_card', gateway: 'gateway_a' })).json();
      // The payment left its expiry job, due in 60 s.
      const jobId = jobIdForKey(PAYMENT_EXPIRY_JOB, paymentId);
      expect(await own.app.jobs.job(PAYMENT_EXPIRY_JOB, jobId)).toMatchObject({ state: 'created', data: { paymentId, terminalSerial: s.terminal, intentId } });
      expect(await own.app.jobs.stats(PAYMENT_EXPIRY_JOB)).toMatchObject({ waiting: 0, delayed: 1, active: 0, completed: 0, failed: 0 });

      // Run early (by the service's clock only 0 s have passed): nothing happens, the job is retried.
      const early = await own.app.jobs.drain({ names: [PAYMENT_EXPIRY_JOB], includeDelayed: true, limit: 1 });
      expect(early).toEqual({ runs: 1, completed: 0, failed: 1 });
      expect(await own.app.jobs.job(PAYMENT_EXPIRY_JOB, jobId)).toMatchObject({ state: 'retry', output: { message: expect.stringContaining('not reached yet') } });
      expect((await getOrder(s, own)).paymentStatus).toBe('processing');
      expect(own.app.integrations.gatewayA.simulator!.getIntent(intentId)!.state).not.toBe('CANCELED');
      expect((await call(own, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'credit_card', gateway: 'gateway_a' })).statusCode).toBe(409);

      own.clock.advance(61_000);
      const due = await own.app.jobs.drain({ names: [PAYMENT_EXPIRY_JOB], includeDelayed: true });
      expect(due).toEqual({ runs: 1, completed: 1, failed: 0 });
      expect((await own.app.jobs.job(PAYMENT_EXPIRY_JOB, jobId))!.state).toBe('completed');
      expect((await getOrder(s, own)).paymentStatus).toBe('declined');
      expect(own.app.integrations.gatewayA.simulator!.getIntent(intentId)!.state).toBe('CANCELED');
    });
  });
});

describe('payment sweep', () => {
  it('expires an overdue terminal payment whose own expiry job was lost', async () => {
    // An app of its own: the sweep looks at every tenant's payments, and only this test's may be there.
    await withOwnApp(async (own) => {
      const s = await setup(own);
      const { intentId, paymentId } = (await call(own, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'credit_card', gateway: 'gateway_a' })).json();
      const expiryJob = jobIdForKey(PAYMENT_EXPIRY_JOB, paymentId);

      // The sweep runs before the 60 s: it finds nothing overdue.
      await own.app.jobs.send(PAYMENT_SWEEP_JOB, {});
      expect(await own.app.jobs.drain({ names: [PAYMENT_SWEEP_JOB] })).toEqual({ runs: 1, completed: 1, failed: 0 });
      expect((await getOrder(s, own)).paymentStatus).toBe('processing');

      own.clock.advance(61_000);
      await own.app.jobs.send(PAYMENT_SWEEP_JOB, {});
      expect(await own.app.jobs.drain({ names: [PAYMENT_SWEEP_JOB] })).toEqual({ runs: 1, completed: 1, failed: 0 });
      expect((await getOrder(s, own)).paymentStatus).toBe('declined');
      expect(own.app.integrations.gatewayA.simulator!.getIntent(intentId)!.state).toBe('CANCELED');
      // The sweep did it: the payment's own expiry job (standing in for a lost one) never ran.
      expect((await own.app.jobs.job(PAYMENT_EXPIRY_JOB, expiryJob))!.state).toBe('created');
    });
  });
});

describe('gateway webhook without a configured secret', () => {
  it('is accepted (sandbox mode, spec 5.6)', async () => {
    const base = defaultIntegrationsConfig();
    const open = await createTestApp({ integrations: { ...base, gatewayA: { ...base.gatewayA, webhookSecret: undefined } } });
    try {
      const s = await setup(open);
      const { intentId } = (await call(open, 'POST', `/t/${s.slug}/orders/${s.order._id}/process-payment`, s.staff.headers, { method: 'credit_card', gateway: 'gateway_a' })).json();
      const body = JSON.stringify({ external_id: s.order._id, status: 'authorized', id: intentId });
      const res = await open.app.inject({ method: 'POST', url: '/api/gateway-a/webhook', headers: { 'content-type': 'application/json' }, payload: body });
      expect(res.statusCode).toBe(200);
      expect((await getOrder(s, open)).paymentStatus).toBe('approved');
    } finally {
      await open.close();
    }
  });
});

describe('online wallet checkout', () => {
  async function walletTenant() {
    const s = await setup();
    await call(t, 'PUT', `/t/${s.slug}/tenants`, s.admin.headers, { walletAccessToken: WALLET_SIM_ACCOUNT.accessToken, walletPublicKey: WALLET_SIM_ACCOUNT.publicKey });
    return s;
  }
  const checkout = (s: Awaited<ReturnType<typeof setup>>, cardToken: string, headers: H = {}) =>
    call(t, 'POST', `/t/${s.slug}/checkout/wallet-payment`, headers, {
      pdv: s.pdv.slug,
      orderType: 'takeout',
      customerName: 'Carla',
      customerEmail: 'carla@example.com',
      items: [{ menuItemId: s.dish._id, quantity: 1 }],
      cardToken,
    });

  it('exposes the public key, creates a paid order when approved and none when declined', async () => {
    const s = await walletTenant();
    expect((await call(t, 'GET', `/t/${s.slug}/checkout/config`)).json()).toEqual({ walletPublicKey: WALLET_SIM_ACCOUNT.publicKey });
    const ok = await checkout(s, WALLET_TEST_CARDS.approved);
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({ paymentStatus: 'approved', paymentGateway: 'wallet', total: 7450, paymentMethod: 'card' });
    expect(ok.json().orderNumber).toMatch(/^\d{8}-[0-9a-f]{10}$/);
    // The checkout answer is the one place the customer gets the receipt; never their e-mail or the payment id.
    const { receiptToken, receiptUrl } = ok.json();
    expect(receiptToken).toMatch(/^[0-9a-f]{32}$/);
    expect(receiptUrl).toBe(`${t.app.deps.config.publicUrl}/t/${s.slug}/receipts/${receiptToken}`);
    expect((await call(t, 'GET', new URL(receiptUrl).pathname)).json()).toMatchObject({ orderNumber: ok.json().orderNumber, total: 7450 });
    for (const field of ['customerEmail', 'customerPhone', 'paymentTransactionId']) expect(ok.json()).not.toHaveProperty(field);
    expect(ok.body).not.toContain('carla@example.com');
    const before = (await call(t, 'GET', `/t/${s.slug}/orders`, s.admin.headers)).json().length;
    const declined = await checkout(s, WALLET_TEST_CARDS.insufficientFunds);
    expect(declined.statusCode).toBe(402);
    expect(declined.json()).toMatchObject({ statusCode: 402, code: 'payment_declined', message: expect.stringContaining('insufficient') });
    expect((await call(t, 'GET', `/t/${s.slug}/orders`, s.admin.headers)).json()).toHaveLength(before);
  });

  it('charges once for a retried request with the same Idempotency-Key', async () => {
    const s = await walletTenant();
    const headers = { 'idempotency-key': `checkout-${s.slug}` };
    const a = await checkout(s, WALLET_TEST_CARDS.approved, headers);
    const b = await checkout(s, WALLET_TEST_CARDS.approved, headers);
    expect(b.json()._id).toBe(a.json()._id);
    expect((await call(t, 'GET', `/t/${s.slug}/orders`, s.admin.headers)).json().filter((o: { paymentGateway: string }) => o.paymentGateway === 'wallet')).toHaveLength(1);
  });

  it('refuses when the tenant has no wallet and validates the body', async () => {
    const s = await setup();
    expect((await call(t, 'GET', `/t/${s.slug}/checkout/config`)).json()).toEqual({ walletPublicKey: null });
    const res = await checkout(s, WALLET_TEST_CARDS.approved);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('wallet_not_configured');
    const bad = await call(t, 'POST', `/t/${s.slug}/checkout/wallet-payment`, {}, { orderType: 'takeout', items: [] });
    expect(bad.statusCode).toBe(400);
  });
});

describe('POST /t/:slug/walletgateway/test-credentials', () => {
  it('lists the devices, checks a device id, and rejects bad credentials', async () => {
    const s = await setup();
    const url = `/t/${s.slug}/walletgateway/test-credentials`;
    const ok = await call(t, 'POST', url, s.admin.headers, { accessToken: WALLET_SIM_ACCOUNT.accessToken, deviceId: WALLET_SIM_ACCOUNT.devices[0] });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ success: true, deviceCount: 1, device: { id: WALLET_SIM_ACCOUNT.devices[0] } });
    expect((await call(t, 'POST', url, s.admin.headers, { accessToken: WALLET_SIM_ACCOUNT.accessToken, deviceId: 'NOPE' })).statusCode).toBe(422);
    expect((await call(t, 'POST', url, s.admin.headers, { accessToken: 'TEST-not-an-account' })).statusCode).toBe(422);
    expect((await call(t, 'POST', url, s.admin.headers, {})).statusCode).toBe(400);
    expect((await call(t, 'POST', url, s.staff.headers, { accessToken: WALLET_SIM_ACCOUNT.accessToken })).statusCode).toBe(403);
    expect((await call(t, 'POST', url, {}, { accessToken: WALLET_SIM_ACCOUNT.accessToken })).statusCode).toBe(401);
  });
});

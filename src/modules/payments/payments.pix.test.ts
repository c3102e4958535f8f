import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPixPspPayload } from '../../integrations/pix-psp/index.js';
import { parsePixPayload } from '../../platform/pix/brcode.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeTenantWithTeam } from '../../../test/factories.js';
import { paymentJobs } from './payments.jobs.js';
import { PAYMENT_EXPIRY_JOB, PIX_CHARGE_TTL_S } from './payments.service.js';

/** Dynamic PIX charges at the PSP (pix_psp): created for what is due, confirmed by its webhook, removed unpaid, refunded. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, payload: payload as never });
const psp = () => t.app.integrations.pixPsp.simulator!;

async function bill(pixKey: string | null = 'caixa@cantina.com.br') {
  const team = await makeTenantWithTeam(t.app);
  if (pixKey) await call('PUT', `/t/${team.slug}/tenants`, team.admin.headers, { pixKey, city: 'Recife' });
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 7450 });
  const pdv = await makePdv(t.app, team.tenant);
  const order = (await call('POST', `/t/${team.slug}/orders`, team.admin.headers, { orderType: 'takeout', pdv: pdv.pdvId, items: [{ menuItem: dish._id, quantity: 2 }] })).json();
  const base = `/t/${team.slug}/orders/${order._id}`;
  return {
    ...team,
    order,
    pay: (body: object) => call('POST', `${base}/process-payment`, team.admin.headers, body),
    get: async () => (await call('GET', `/t/${team.slug}/orders`, team.admin.headers)).json().find((o: { _id: string }) => o._id === order._id),
    ledger: async () => (await call('GET', `${base}/payments`, team.admin.headers)).json(),
  };
}

describe('a dynamic PIX charge', () => {
  it('is created for the amount asked, shown as a BR Code on the order, and confirmed by the PSP webhook', async () => {
    const b = await bill();
    const before = psp().captured();
    const res = await b.pay({ method: 'pix', gateway: 'pix_psp', amount: 4900 });
    expect(res.statusCode, res.body).toBe(200);
    const started = res.json();
    expect(started).toMatchObject({ status: 'processing', amount: 4900, amountDue: 14900, intentId: expect.stringMatching(/^pix[0-9a-f]{24}$/) });
    expect(parsePixPayload(started.pixPayload)).toMatchObject({ key: 'caixa@cantina.com.br', amountCents: 4900 });
    expect(Buffer.from(started.pixQrCodeBase64, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(await b.get()).toMatchObject({ paymentStatus: 'processing', pixPayload: started.pixPayload });
    // Paid from the payer's bank: the PSP's signed webhook settles it.
    await psp().pay(started.intentId);
    await psp().idle();
    expect(await b.get()).toMatchObject({ paymentStatus: null, amountPaid: 4900, amountDue: 10000, paymentMethod: 'pix', paymentGateway: 'pix_psp' });
    expect(psp().captured() - before).toBe(4900);
    // The rest, and then cancelling the order gives both back through the PSP (a devolução).
    await psp().pay((await b.pay({ method: 'pix', gateway: 'pix_psp' })).json().intentId);
    await psp().idle();
    expect(await b.get()).toMatchObject({ paymentStatus: 'approved', amountDue: 0 });
    expect((await call('PUT', `/t/${b.slug}/orders/${b.order._id}/status`, b.admin.headers, { status: 'cancelled' })).statusCode).toBe(200);
    await t.app.jobs.drain({ names: [paymentJobs.refund], includeDelayed: true });
    expect((await b.ledger()).map((p: { status: string }) => p.status)).toEqual(['refunded', 'refunded']);
    expect(psp().captured() - before).toBe(0);
  });

  it('is removed at the PSP when unpaid after its time, and the bill is payable again', async () => {
    const b = await bill();
    const { intentId } = (await b.pay({ method: 'pix', gateway: 'pix_psp' })).json();
    t.clock.advance(PIX_CHARGE_TTL_S * 1000 + 1_000);
    try {
      expect(await t.app.jobs.drain({ names: [PAYMENT_EXPIRY_JOB], includeDelayed: true })).toMatchObject({ failed: 0 });
    } finally {
      t.clock.advance(-(PIX_CHARGE_TTL_S * 1000 + 1_000));
    }
    expect(await b.get()).toMatchObject({ paymentStatus: 'declined', amountDue: 14900 });
    expect(psp().getCharge(intentId)?.status).not.toBe('ATIVA');
  });

  it('needs method pix and a PIX key; a webhook needs the signature and is acknowledged when it names nothing of ours', async () => {
    const b = await bill(null);
    expect((await b.pay({ method: 'credit_card', gateway: 'pix_psp' })).json().details[0].field).toBe('body.method');
    const none = await b.pay({ method: 'pix', gateway: 'pix_psp' });
    expect([none.statusCode, none.json().code]).toEqual([400, 'pix_not_configured']);
    expect(await b.get()).toMatchObject({ paymentAttempts: 0 });

    const body = JSON.stringify({ pix: [{ endToEndId: 'E'.padEnd(32, '1'), txid: 'pix'.padEnd(27, '0'), valor: '1.00', horario: new Date().toISOString() }] });
    const post = (headers: H) => t.app.inject({ method: 'POST', url: '/api/pix-psp/webhook/pix', headers: { 'content-type': 'application/json', ...headers }, payload: body });
    expect((await post({})).statusCode).toBe(401);
    expect((await post({ 'x-pix-psp-signature': signPixPspPayload(body, 'wrong') })).statusCode).toBe(401);
    const ok = await post({ 'x-pix-psp-signature': signPixPspPayload(body, t.app.integrations.pixPsp.webhookSecret!) });
    expect([ok.statusCode, ok.json()]).toEqual([200, { received: true }]);
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import type { DeliveryProvider } from '../../db/schema/delivery.js';
import { signProviderAPayload } from '../../integrations/provider-a/index.js';
import { signProviderBPayload } from '../../integrations/provider-b/index.js';
import { claimOnce, releaseClaim } from '../../platform/idempotency.js';
import { deliveryJobs } from './delivery.jobs.js';
import type { DeliveryEventView } from './ingest.schemas.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
interface OrderBody {
  _id: string;
  status: string;
  externalProvider: string | null;
  externalId: string | null;
  total: number;
  amountPaid: number;
  customerName: string | null;
  customerPhone: string | null;
  items: Array<{
    menuItem: string;
    name: string;
    price: number;
    quantity: number;
    notes?: string;
    modifiers?: Array<{ groupId: string; options: Array<{ name: string; priceAdjustment: number }> }>;
  }>;
}
interface Page { items: DeliveryEventView[]; total: number; page: number; limit: number; pages: number }

const sims = () => t.app.integrations;
const drain = () => t.app.jobs.drain({ names: [deliveryJobs.order], includeDelayed: true });
const tdb = (team: Team) => t.app.deps.tenantDb(team.tenant._id);
const hookUrl = (team: Team, provider: DeliveryProvider) => `http://localhost/t/${team.slug}/webhooks/${provider}`;

async function integrate(team: Team, provider: DeliveryProvider, opts: { webhookSecret?: string | null; jwksUrl?: string | null; merchantId?: string } = {}) {
  const credentials =
    provider === 'provider_a'
      ? sims().providerA.simulatorAccount!.credentials
      : provider === 'provider_b'
        ? sims().providerB.simCredentials!
        : { clientId: 'sim-provider-c-client', clientSecret: 'sim-provider-c-secret', merchantId: opts.merchantId ?? `store-${randomUUID()}` };
  const webhookSecret =
    opts.webhookSecret !== undefined
      ? opts.webhookSecret
      : provider === 'provider_a'
        ? sims().providerA.simulatorAccount!.webhookSecret!
        : provider === 'provider_b'
          ? sims().providerB.simWebhookSecret!
          : null;
  const jwksUrl = opts.jwksUrl !== undefined ? opts.jwksUrl : provider === 'provider_c' ? sims().providerC.simulatorJwksUrl : null;
  await t.app.services.deliveryIntegrations.create(tdb(team), { provider, credentials, webhookSecret, jwksUrl, active: true }, { skipCheck: true });
  return credentials;
}

/** The sample orders' items on the menu, under each platform's code. */
async function sampleMenu(team: Team) {
  const burger = await makeMenuItem(t.app, team.tenant, { name: 'X-Burger da casa', price: 2800, externalCodes: { provider_a: 'XBURGER', provider_b: 'X-BURGER', provider_c: 'X-BURGER' } });
  const coke = await makeMenuItem(t.app, team.tenant, { name: 'Coca-Cola 350', price: 700, category: burger.category, externalCodes: { provider_a: 'COCA-350', provider_b: 'COCA-350', provider_c: 'COCA-350' } });
  return { burger, coke };
}

async function events(team: Team, query = '') {
  const res = await t.app.inject({ method: 'GET', url: `/t/${team.slug}/marketplace/events${query}`, headers: team.admin.headers });
  expect(res.statusCode).toBe(200);
  return res.json<Page>();
}

async function order(team: Team, id: string) {
  const res = await t.app.inject({ method: 'GET', url: `/t/${team.slug}/orders?limit=500`, headers: team.admin.headers });
  expect(res.statusCode).toBe(200);
  const found = res.json<OrderBody[]>().find((o) => o._id === id);
  expect(found).toBeDefined();
  return found!;
}

/** A provider_a event body (full shape when `order` is given), signed unless told otherwise. */
function providerAEvent(orderId: string, extra: Record<string, unknown> = {}) {
  return { id: randomUUID(), code: 'PLC', fullCode: 'PLACED', orderId, merchantId: sims().providerA.simulatorAccount!.credentials.merchantId, createdAt: new Date().toISOString(), ...extra };
}
function postA(team: Team, body: string, headers: Record<string, string> = {}, secret = sims().providerA.simulatorAccount!.webhookSecret!) {
  return t.app.inject({
    method: 'POST',
    url: `/t/${team.slug}/webhooks/provider_a`,
    headers: { 'content-type': 'application/json', 'x-provider-a-hmac-sha256': signProviderAPayload(body, secret), ...headers },
    payload: body,
  });
}

type Menu = Awaited<ReturnType<typeof sampleMenu>>;
function expectSampleLines(o: OrderBody, menu: Menu, burgerUnit: number, cokeUnit: number, option: { name: string; price: number }) {
  expect(o.items).toHaveLength(2);
  const [b, c] = o.items;
  expect(b).toMatchObject({ menuItem: menu.burger._id, name: menu.burger.name, price: burgerUnit, quantity: 2 });
  expect(b.modifiers).toEqual([{ groupId: 'marketplace', groupName: 'Opções', options: [{ name: `1x ${option.name}`, priceAdjustment: option.price }] }]);
  expect(c).toMatchObject({ menuItem: menu.coke._id, name: menu.coke.name, price: cokeUnit, quantity: 1 });
  expect(o.total).toBe(2 * burgerUnit + cokeUnit);
}

describe('provider_a webhooks', () => {
  let team: Team;
  let menu: Awaited<ReturnType<typeof sampleMenu>>;
  beforeAll(async () => {
    team = await makeTenantWithTeam(t.app);
    menu = await sampleMenu(team);
    await integrate(team, 'provider_a');
  });

  it('a signed PLACED event (reference shape) becomes an order after the job, prepaid and paid', async () => {
    const sim = sims().providerA.simulator!;
    const sent = await sim.placeOrder({ customer: { name: 'Maria Souza', phone: '11999990000' }, payment: { method: 'CREDIT', prepaid: true } }, { url: hookUrl(team, 'provider_a') });
    expect(sent.webhook?.status).toBe(200);
    const queued = await events(team);
    expect(queued.items[0]).toMatchObject({ provider: 'provider_a', status: 'queued', type: 'PLACED', externalOrderId: sent.order.id });
    await drain();
    const [ev] = (await events(team)).items;
    expect(ev).toMatchObject({ status: 'created', attempts: 1, error: null });
    expect(ev.orderId).toBeTruthy();
    expect(ev.ackLatencyMs).toBeGreaterThanOrEqual(0);
    const o = await order(team, ev.orderId!);
    // The order view shows neither source nor external id (see the report): the event links the two.
    expect(o.customerName).toBe('Maria Souza');
    expect(o.customerPhone).toContain('11999990000');
    expectSampleLines(o, menu, 2590 + 400, 750, { name: 'Bacon extra', price: 400 });
    expect(o.items[0].notes).toBe('sem cebola');
    expect(o.amountPaid).toBe(o.total);
  });

  it('the full shape needs no fetch; a resend of the same event is deduplicated; one order', async () => {
    const sim = sims().providerA.simulator!;
    const sent = await sim.placeOrder({}, { url: hookUrl(team, 'provider_a'), shape: 'full' });
    expect(sent.webhook?.status).toBe(200);
    const again = await sim.resend(String(sent.order.id));
    expect(again.webhook.status).toBe(200);
    const mine = (await events(team)).items.filter((e) => e.externalOrderId === sent.order.id);
    expect(mine).toHaveLength(1);
    // By body id, directly: the answer says so.
    const body = JSON.stringify(providerAEvent(String(sent.order.id), { id: sent.event.id }));
    expect((await postA(team, body)).json()).toEqual({ deduplicated: true });
    await drain();
    expect((await events(team)).items.find((e) => e.externalOrderId === sent.order.id)).toMatchObject({ status: 'created' });
  });

  it('deduplicates by the idempotency-key header, whatever the body', async () => {
    const key = `hdr-${randomUUID()}`;
    const first = await postA(team, JSON.stringify(providerAEvent(`ext-${randomUUID()}`)), { 'idempotency-key': key });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ received: true });
    const second = await postA(team, JSON.stringify(providerAEvent(`ext-${randomUUID()}`)), { 'idempotency-key': key });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual({ deduplicated: true });
    expect((await events(team)).items.filter((e) => e.idempotencyKey === key)).toHaveLength(1);
  });

  it('100 concurrent deliveries of one event make one event and one order', async () => {
    const sim = sims().providerA.simulator!;
    const placed = await sim.placeOrder({}); // no URL: readable by id only
    const body = JSON.stringify(providerAEvent(String(placed.order.id)));
    const answers = await Promise.all(Array.from({ length: 100 }, () => postA(team, body)));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(answers.filter((a) => a.json().received === true)).toHaveLength(1);
    expect(answers.filter((a) => a.json().deduplicated === true)).toHaveLength(99);
    await drain();
    const mine = (await events(team, '?limit=100')).items.filter((e) => e.externalOrderId === placed.order.id);
    expect(mine).toHaveLength(1);
    expect(mine[0].status).toBe('created');
  });

  it('an invalid signature is 401 with nothing written and no job', async () => {
    const before = (await events(team)).total;
    const stats = await t.app.jobs.stats(deliveryJobs.order);
    const sent = await sims().providerA.simulator!.placeOrder({}, { url: hookUrl(team, 'provider_a'), signature: 'bad' });
    expect(sent.webhook?.status).toBe(401);
    const unsigned = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/webhooks/provider_a`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(providerAEvent('x')) });
    expect(unsigned.statusCode).toBe(401);
    // Signed with another secret, the body changed after signing:
    const forged = await postA(team, JSON.stringify(providerAEvent('y')), {}, 'not-the-secret');
    expect(forged.statusCode).toBe(401);
    expect((await events(team)).total).toBe(before);
    expect(await t.app.jobs.stats(deliveryJobs.order)).toEqual(stats);
  });

  it('an unreadable body is 400; an event of another kind is recorded as ignored without a job', async () => {
    expect((await postA(team, '{"not": "an event"')).statusCode).toBe(400);
    expect((await postA(team, JSON.stringify({ hello: 'world' }))).statusCode).toBe(400);
    const res = await postA(team, JSON.stringify({ ...providerAEvent('z'), code: 'CFM', fullCode: 'CONFIRMED' }));
    expect(res.statusCode).toBe(200);
    const ev = (await events(team, '?status=ignored')).items[0];
    expect(ev).toMatchObject({ type: 'CONFIRMED', status: 'ignored' });
  });

  it('an unmatched item keeps the order for review; the code set and a retry create it', async () => {
    const sim = sims().providerA.simulator!;
    const sent = await sim.placeOrder(
      { items: [{ externalCode: 'PUDIM', name: 'Pudim de leite', quantity: 1, unitPriceCents: 1200 }] },
      { url: hookUrl(team, 'provider_a'), shape: 'full' },
    );
    expect(sent.webhook?.status).toBe(200);
    await drain();
    const review = (await events(team, '?status=needs_review')).items;
    expect(review).toHaveLength(1);
    expect(review[0].reviewReason).toContain('Pudim de leite');
    expect(review[0].reviewReason).toContain('PUDIM');
    expect(review[0].orderId).toBeNull();

    // Only an admin retries; a needs_review event only.
    const url = `/t/${team.slug}/marketplace/events/${review[0]._id}/retry`;
    expect((await t.app.inject({ method: 'POST', url, headers: team.staff.headers })).statusCode).toBe(403);
    const pudim = await makeMenuItem(t.app, team.tenant, { name: 'Pudim', price: 1100 });
    await t.app.services.menu.updateItem(tdb(team), pudim._id, { externalCodes: { provider_a: 'PUDIM' } });
    const retried = await t.app.inject({ method: 'POST', url, headers: team.admin.headers });
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toMatchObject({ status: 'queued', reviewReason: null });
    expect((await t.app.inject({ method: 'POST', url, headers: team.admin.headers })).statusCode).toBe(409);
    await drain();
    const done = (await events(team)).items.find((e) => e._id === review[0]._id)!;
    expect(done.status).toBe('created');
    const o = await order(team, done.orderId!);
    expect(o.items).toMatchObject([{ menuItem: pudim._id, name: 'Pudim', price: 1200, quantity: 1 }]);
  });

  it('retries a platform failure, then records the failure after 3 attempts; a refusal fails at once', async () => {
    const sim = sims().providerA.simulator!;
    // One failure, then success: created on the second attempt.
    const once = await sim.placeOrder({}, { url: hookUrl(team, 'provider_a') });
    sim.failNext(1, 503);
    await drain();
    expect((await events(team)).items.find((e) => e.externalOrderId === once.order.id)).toMatchObject({ status: 'created', attempts: 2 });

    const down = await sim.placeOrder({}, { url: hookUrl(team, 'provider_a') });
    sim.failNext(3, 500);
    const run = await drain();
    expect(run.failed).toBe(3);
    const failed = (await events(team)).items.find((e) => e.externalOrderId === down.order.id)!;
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, orderId: null });
    expect(failed.error).toBeTruthy();

    const refused = await sim.placeOrder({}, { url: hookUrl(team, 'provider_a') });
    sim.failNext(1, 404);
    const r = await drain();
    expect(r.runs).toBe(1);
    expect((await events(team)).items.find((e) => e.externalOrderId === refused.order.id)).toMatchObject({ status: 'failed', attempts: 1 });

    // A failed event goes back to the queue on retry.
    const res = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/events/${failed._id}/retry`, headers: team.admin.headers });
    expect(res.statusCode).toBe(200);
    await drain();
    expect((await events(team)).items.find((e) => e._id === failed._id)).toMatchObject({ status: 'created', attempts: 1 });
  });

  it('a platform cancellation cancels our open order', async () => {
    const sim = sims().providerA.simulator!;
    const sent = await sim.placeOrder({}, { url: hookUrl(team, 'provider_a'), shape: 'full' });
    await drain();
    const created = (await events(team)).items.find((e) => e.externalOrderId === sent.order.id)!;
    const cancel = await sim.cancelOrder(String(sent.order.id));
    expect(cancel.webhook?.status).toBe(200);
    await drain();
    const ev = (await events(team)).items.find((e) => e.type === 'CANCELLED' && e.externalOrderId === sent.order.id)!;
    expect(ev).toMatchObject({ status: 'ignored', orderId: created.orderId });
    expect((await order(team, created.orderId!)).status).toBe('cancelled');
  });
});

describe('sandbox, tenants and the review routes', () => {
  it('no webhook secret: accepted unsigned (sandbox) and processed', async () => {
    const team = await makeTenantWithTeam(t.app);
    await sampleMenu(team);
    await integrate(team, 'provider_a', { webhookSecret: null });
    const placed = await sims().providerA.simulator!.placeOrder({}, { shape: 'full' });
    const body = JSON.stringify(providerAEvent(String(placed.order.id), { order: placed.order }));
    const res = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/webhooks/provider_a`, headers: { 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ received: true, sandbox: true });
    await drain();
    expect((await events(team)).items[0]).toMatchObject({ status: 'created' });
  });

  it("a tenant without an active integration answers 404; another tenant's event is 404", async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    await integrate(a, 'provider_a', { webhookSecret: null });
    const body = JSON.stringify(providerAEvent('ext-1'));
    expect((await postA(b, body)).statusCode).toBe(404);
    expect((await postA(a, body)).statusCode).toBe(200);
    const [ev] = (await events(a)).items;
    await drain();
    const url = (team: Team) => `/t/${team.slug}/marketplace/events/${ev._id}/retry`;
    expect((await t.app.inject({ method: 'POST', url: url(b), headers: b.admin.headers })).statusCode).toBe(404);
    expect((await events(b)).total).toBe(0);
    // An inactive integration is no integration.
    const c = await makeTenantWithTeam(t.app);
    await t.app.services.deliveryIntegrations.create(tdb(c), { provider: 'provider_a', credentials: sims().providerA.simulatorAccount!.credentials });
    expect((await postA(c, body)).statusCode).toBe(404);
  });

  it('the events list: roles, validation, paging', async () => {
    const team = await makeTenantWithTeam(t.app);
    await integrate(team, 'provider_a', { webhookSecret: null });
    for (let i = 0; i < 3; i++) expect((await postA(team, JSON.stringify({ ...providerAEvent(`o${i}`), code: 'CFM', fullCode: 'CONFIRMED' }))).statusCode).toBe(200);
    const page = await events(team, '?limit=2&page=2');
    expect(page).toMatchObject({ total: 3, page: 2, limit: 2, pages: 2 });
    expect(page.items).toHaveLength(1);
    const manager = await makeUser(t.app, team.tenant, 'branch_manager');
    const get = (headers: Record<string, string>, q = '') => t.app.inject({ method: 'GET', url: `/t/${team.slug}/marketplace/events${q}`, headers });
    expect((await get(manager.headers)).statusCode).toBe(200);
    expect((await get(team.staff.headers)).statusCode).toBe(403);
    expect((await get(team.accountant.headers)).statusCode).toBe(403);
    expect((await get({})).statusCode).toBe(401);
    expect((await get(team.admin.headers, '?limit=101')).statusCode).toBe(400);
    expect((await get(team.admin.headers, '?status=nope')).statusCode).toBe(400);
    const retry = (id: string, headers: Record<string, string>) => t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/events/${id}/retry`, headers });
    expect((await retry('not-an-id', team.admin.headers)).statusCode).toBe(400);
    expect((await retry(page.items[0]._id, {})).statusCode).toBe(401);
    expect((await retry(page.items[0]._id, team.accountant.headers)).statusCode).toBe(403);
    expect((await retry(page.items[0]._id, team.admin.headers)).statusCode).toBe(409);
  });
});

describe('provider_b webhooks', () => {
  it('signed NEW_ORDER (whole order and by reference) -> orders; bad signature 401; duplicate deduplicated', async () => {
    const team = await makeTenantWithTeam(t.app);
    const menu = await sampleMenu(team);
    await integrate(team, 'provider_b');
    const sim = sims().providerB.simulator!;
    const full = await sim.createOrder({ customer: { firstName: 'João', lastName: 'Lima', phone: '11988887777' } }, { webhookUrl: hookUrl(team, 'provider_b') });
    expect(full.webhook.status).toBe(200);
    const ref = await sim.createOrder({}, { webhookUrl: hookUrl(team, 'provider_b'), reference: true });
    expect(ref.webhook.status).toBe(200);
    expect((await sim.resend(full.order.id)).status).toBe(200);
    const bad = await sim.createOrder({}, { webhookUrl: hookUrl(team, 'provider_b'), badSignature: true });
    expect(bad.webhook.status).toBe(401);
    expect((await events(team)).total).toBe(2);
    await drain();
    const evs = (await events(team)).items;
    expect(evs.map((e) => e.status)).toEqual(['created', 'created']);
    const o = await order(team, evs.find((e) => e.externalOrderId === full.order.id)!.orderId!);
    expect(o.customerName).toBe('João Lima');
    expectSampleLines(o, menu, 3290 + 450, 600, { name: 'Bacon extra', price: 450 });
    // Signed by hand with a timestamp too old: 401.
    const body = JSON.stringify({ event: { id: randomUUID(), type: 'NEW_ORDER' }, order_id: 'x', store_id: 'y' });
    const old = signProviderBPayload(body, sims().providerB.simWebhookSecret!, new Date(t.clock.now().getTime() - 3_600_000));
    const res = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/webhooks/provider_b`, headers: { 'content-type': 'application/json', 'x-provider-b-signature': old }, payload: body });
    expect(res.statusCode).toBe(401);
  });
});

describe('provider_c webhooks', () => {
  it('JWT-signed notifications -> orders fetched from the platform; bad JWT 401; key rotation verifies', async () => {
    const team = await makeTenantWithTeam(t.app);
    const menu = await sampleMenu(team);
    const { merchantId } = await integrate(team, 'provider_c');
    const sim = sims().providerC.simulator!;
    const url = `/t/${team.slug}/webhooks/provider_c`;
    const first = await sim.createOrder({ storeId: merchantId }, { webhookUrl: url });
    expect(first.webhook.status).toBe(200);
    // The platform rotates its key: the next webhook names a kid we have not seen; the set is read again.
    sim.rotateKeys(false);
    const rotated = await sim.createOrder({ storeId: merchantId }, { webhookUrl: url });
    expect(rotated.webhook.status).toBe(200);
    for (const bad of ['signature', 'body', 'audience', 'unknown_kid'] as const) {
      expect((await sim.createOrder({ storeId: merchantId }, { webhookUrl: url, bad })).webhook.status).toBe(401);
    }
    expect((await sim.resend(first.order.id, { webhookUrl: url })).status).toBe(200);
    expect((await events(team)).total).toBe(2);
    await drain();
    const evs = (await events(team)).items;
    expect(evs.map((e) => e.status)).toEqual(['created', 'created']);
    const o = await order(team, evs.find((e) => e.externalOrderId === first.order.id)!.orderId!);
    expectSampleLines(o, menu, 2590 + 400, 750, { name: 'Bacon extra', price: 400 });
    expect(o.amountPaid).toBe(o.total);
  });

  it('no jwksUrl: accepted as sandbox', async () => {
    const team = await makeTenantWithTeam(t.app);
    await sampleMenu(team);
    const { merchantId } = await integrate(team, 'provider_c', { jwksUrl: null });
    const sent = await sims().providerC.simulator!.createOrder({ storeId: merchantId }, { webhookUrl: `/t/${team.slug}/webhooks/provider_c` });
    expect(sent.webhook.status).toBe(200);
    await drain();
    expect((await events(team)).items[0].status).toBe('created');
  });
});

describe('claimOnce (platform idempotency)', () => {
  it('is true once per key until the claim expires; a released key is free again', async () => {
    const scope = `test:${randomUUID()}`;
    const db = t.app.deps.db;
    const claims = await Promise.all(Array.from({ length: 20 }, () => claimOnce(db, t.clock, scope, 'k', 60_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimOnce(db, t.clock, scope, 'other', 60_000)).toBe(true);
    t.clock.advance(61_000);
    try {
      expect(await claimOnce(db, t.clock, scope, 'k', 60_000)).toBe(true);
      expect(await claimOnce(db, t.clock, scope, 'k', 60_000)).toBe(false);
    } finally {
      t.clock.advance(-61_000);
    }
    await releaseClaim(db, scope, 'other');
    expect(await claimOnce(db, t.clock, scope, 'other', 60_000)).toBe(true);
  });
});

describe('cleanup', () => {
  it('trims the delivery queues to the newest completed / failed jobs', async () => {
    for (let i = 0; i < 4; i++) await t.app.jobs.send(deliveryJobs.order, { tenantId: randomUUID(), eventId: randomUUID() });
    await drain();
    const deleted = await t.app.jobs.trim('delivery.', { completed: 2, failed: 100 });
    expect(deleted).toBeGreaterThanOrEqual(2);
    expect((await t.app.jobs.stats(deliveryJobs.order)).completed).toBeLessThanOrEqual(2);
    expect(await t.app.jobs.trim('delivery.', { completed: 2, failed: 100 })).toBe(0);
    await expect(t.app.services.deliveryIngest.cleanup()).resolves.toMatchObject({ deleted: expect.any(Number) });
  });

  it('deletes finished events after 30 days and keeps the review queue', async () => {
    const team = await makeTenantWithTeam(t.app);
    await integrate(team, 'provider_a', { webhookSecret: null });
    await postA(team, JSON.stringify({ ...providerAEvent('old'), code: 'CFM', fullCode: 'CONFIRMED' }));
    const placed = await sims().providerA.simulator!.placeOrder({ items: [{ externalCode: 'NOPE', name: 'Nope', quantity: 1, unitPriceCents: 100 }] }, { shape: 'full' });
    await postA(team, JSON.stringify(providerAEvent(String(placed.order.id), { order: placed.order })));
    await drain();
    expect((await events(team)).items.map((e) => e.status).sort()).toEqual(['ignored', 'needs_review']);
    t.clock.advance(31 * 86_400_000);
    try {
      await t.app.services.deliveryIngest.pruneEvents(tdb(team));
    } finally {
      t.clock.advance(-31 * 86_400_000);
    }
    expect((await events(team)).items.map((e) => e.status)).toEqual(['needs_review']);
  });
});

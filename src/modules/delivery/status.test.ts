import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import type { DeliveryProvider } from '../../db/schema/delivery.js';
import { deliveryJobs } from './delivery.jobs.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  // The simulators' order webhooks are not what these tests are about: accepted and dropped.
  const drop = async () => ({ status: 200 });
  t.app.integrations.providerA.simulator!.setWebhook({ deliver: drop });
  t.app.integrations.providerB.simulator!.setWebhook({ deliver: drop, url: 'http://localhost/nowhere' });
  t.app.integrations.providerC.simulator!.setWebhook({ deliver: drop, url: 'http://localhost/nowhere' });
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
interface Push {
  _id: string; order: string; integration: string; provider: DeliveryProvider; externalOrderId: string; status: string;
  providerStatus: string | null; result: string; attempts: number; error: string | null; createdAt: string; updatedAt: string;
}

const uniq = () => randomBytes(4).toString('hex');
const SIM = { provider_a: '/__sim/provider-a', provider_b: '/__sim/provider-b', provider_c: '/__sim/provider-c' } as const;
const drain = () => t.app.jobs.drain({ names: [deliveryJobs.status], includeDelayed: true });

async function control<T>(provider: DeliveryProvider, path: string, payload?: unknown): Promise<T> {
  const res = await t.app.inject({ method: payload === undefined ? 'GET' : 'POST', url: `${SIM[provider]}/__sim/${path}`, payload: payload as never });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json() as T;
}

async function connect(team: Team, provider: DeliveryProvider) {
  const merchantId = `m-${uniq()}`;
  let credentials;
  if (provider === 'provider_b') credentials = { ...t.app.integrations.providerB.simCredentials!, merchantId };
  else {
    credentials = { clientId: `client-${uniq()}`, clientSecret: `secret-${uniq()}`, merchantId };
    await control(provider, 'clients', { clientId: credentials.clientId, clientSecret: credentials.clientSecret });
  }
  const res = await t.app.inject({
    method: 'POST',
    url: `/t/${team.slug}/marketplace/integrations`,
    headers: team.admin.headers,
    payload: { provider, credentials, active: true },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { _id: string };
}

/** An order placed at the platform's simulator: its id there. */
async function platformOrder(provider: DeliveryProvider): Promise<string> {
  if (provider === 'provider_a') return ((await t.app.integrations.providerA.simulator!.placeOrder()).order as { id: string }).id;
  if (provider === 'provider_b') return (await t.app.integrations.providerB.simulator!.createOrder()).order.id;
  return (await t.app.integrations.providerC.simulator!.createOrder({ storeId: 'store' })).order.id;
}

/** The platform's order as the ingestion makes it (`orders.insertMarketplace`). */
async function marketplaceOrder(team: Team, provider: DeliveryProvider, externalId?: string) {
  const item = await makeMenuItem(t.app, team.tenant, { name: `Prato ${uniq()}`, price: 3000 });
  const tenant = (await t.app.deps.tenants.bySlug(team.slug))!;
  const { order } = await t.app.services.orders.insertMarketplace(tenant, {
    provider,
    externalId: externalId ?? (await platformOrder(provider)),
    lines: [{ menuItem: item._id, name: item.name, price: 3000, quantity: 1 }],
    customerName: 'Ana',
    customerPhone: null,
    customerEmail: null,
    details: {
      displayId: null,
      fulfilment: 'delivery',
      placedAt: new Date().toISOString(),
      deliveryAddress: null,
      notes: null,
      totals: { itemsCents: 3000, discountCents: 0, deliveryFeeCents: 0, serviceFeeCents: 0, tipCents: 0, totalCents: 3000 },
      payment: { method: 'CREDIT', prepaid: false },
    },
  });
  return order;
}

async function setStatus(team: Team, orderId: string, status: string) {
  const res = await t.app.inject({ method: 'PUT', url: `/t/${team.slug}/orders/${orderId}/status`, headers: team.admin.headers, payload: { status } });
  expect(res.statusCode, res.body).toBe(200);
}

async function pushes(team: Team, orderId: string, headers = team.admin.headers): Promise<Push[]> {
  const res = await t.app.inject({ url: `/t/${team.slug}/marketplace/orders/${orderId}/pushes`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Push[];
}

const summary = (list: Push[]) => list.map((p) => [p.status, p.providerStatus, p.result]);

describe('status push', () => {
  it('provider_a: every status, in order, as its actions (a later push waits for an earlier one being retried)', async () => {
    const team = await makeTenantWithTeam(t.app);
    const integration = await connect(team, 'provider_a');
    const order = await marketplaceOrder(team, 'provider_a');
    // The first push meets an unavailable platform once: the next ones must wait (the simulator refuses them before CONFIRMED).
    await control('provider_a', 'failures', { count: 1, status: 503 });
    for (const status of ['confirmed', 'preparing', 'ready', 'delivered']) await setStatus(team, order.id, status);
    expect(summary(await pushes(team, order.id))).toEqual([
      ['confirmed', 'CONFIRMED', 'pending'],
      ['preparing', 'IN_PREPARATION', 'pending'],
      ['ready', 'READY_TO_PICKUP', 'pending'],
      ['delivered', 'CONCLUDED', 'pending'],
    ]);
    await drain();
    const list = await pushes(team, order.id);
    expect(summary(list)).toEqual([
      ['confirmed', 'CONFIRMED', 'pushed'],
      ['preparing', 'IN_PREPARATION', 'pushed'],
      ['ready', 'READY_TO_PICKUP', 'pushed'],
      ['delivered', 'CONCLUDED', 'pushed'],
    ]);
    expect(list.map((p) => p.attempts)).toEqual([2, 1, 1, 1]);
    expect(list[0]).toMatchObject({ integration: integration._id, provider: 'provider_a', externalOrderId: order.externalId, order: order.id, error: null });
    const received = (await control<{ orderId: string; status: string; action: string }[]>('provider_a', 'statuses')).filter((s) => s.orderId === order.externalId);
    expect(received.map((s) => [s.status, s.action])).toEqual([
      ['CONFIRMED', 'confirm'],
      ['IN_PREPARATION', 'startPreparation'],
      ['READY_TO_PICKUP', 'readyToPickup'],
      ['CONCLUDED', 'dispatch'],
    ]);
  });

  it('provider_a: an order taken from pending straight to preparing is confirmed first', async () => {
    const team = await makeTenantWithTeam(t.app);
    await connect(team, 'provider_a');
    const order = await marketplaceOrder(team, 'provider_a');
    await setStatus(team, order.id, 'preparing');
    await drain();
    expect(summary(await pushes(team, order.id))).toEqual([
      ['confirmed', 'CONFIRMED', 'pushed'],
      ['preparing', 'IN_PREPARATION', 'pushed'],
    ]);
  });

  it('provider_b: confirmed and cancelled as TAKEN and REJECTED', async () => {
    const team = await makeTenantWithTeam(t.app);
    await connect(team, 'provider_b');
    const order = await marketplaceOrder(team, 'provider_b');
    await setStatus(team, order.id, 'confirmed');
    await setStatus(team, order.id, 'cancelled');
    await drain();
    expect(summary(await pushes(team, order.id))).toEqual([
      ['confirmed', 'TAKEN', 'pushed'],
      ['cancelled', 'REJECTED', 'pushed'],
    ]);
    const received = (await control<{ orderId: string; status: string; cookingTime: number | null; reason: string | null }[]>('provider_b', 'statuses')).filter(
      (s) => s.orderId === order.externalId,
    );
    expect(received.map((s) => s.status)).toEqual(['TAKEN', 'REJECTED']);
    expect(received[0].cookingTime).toEqual(expect.any(Number));
    expect(received[1].reason).toEqual(expect.any(String));
  });

  it('provider_c: confirmed -> accept_pos_order; preparing, ready and delivered are skipped (no job); cancelled -> cancel', async () => {
    const team = await makeTenantWithTeam(t.app);
    await connect(team, 'provider_c');
    const order = await marketplaceOrder(team, 'provider_c');
    for (const status of ['confirmed', 'preparing', 'ready', 'delivered']) await setStatus(team, order.id, status);
    expect((await t.app.jobs.stats(deliveryJobs.status)).waiting).toBe(1);
    await drain();
    expect(summary(await pushes(team, order.id))).toEqual([
      ['confirmed', 'accept_pos_order', 'pushed'],
      ['preparing', null, 'skipped'],
      ['ready', null, 'skipped'],
      ['delivered', null, 'skipped'],
    ]);
    const cancelled = await marketplaceOrder(team, 'provider_c');
    await setStatus(team, cancelled.id, 'cancelled');
    await drain();
    expect(summary(await pushes(team, cancelled.id))).toEqual([['cancelled', 'cancel', 'pushed']]);
    const received = (await control<{ orderId: string; action: string; status: number }[]>('provider_c', 'statuses'))
      .filter((s) => s.orderId === order.externalId || s.orderId === cancelled.externalId)
      .map((s) => [s.orderId, s.action, s.status]);
    expect(received.sort()).toEqual([[order.externalId, 'accept_pos_order', 204], [cancelled.externalId, 'cancel', 204]].sort());
  });

  it('a refusal is failed at once with the platform\'s error; an unreachable platform is failed after the last attempt', async () => {
    const team = await makeTenantWithTeam(t.app);
    await connect(team, 'provider_a');
    const unknown = await marketplaceOrder(team, 'provider_a', `unknown-${uniq()}`); // not at the platform: 404
    await setStatus(team, unknown.id, 'confirmed');
    expect(await drain()).toMatchObject({ runs: 1, completed: 1 });
    const [refused] = await pushes(team, unknown.id);
    expect(refused).toMatchObject({ result: 'failed', attempts: 1, error: expect.any(String) });

    const order = await marketplaceOrder(team, 'provider_a');
    await control('provider_a', 'failures', { count: 5, status: 503 });
    await setStatus(team, order.id, 'confirmed');
    expect(await drain()).toMatchObject({ runs: 5, completed: 1, failed: 4 });
    const [gaveUp] = await pushes(team, order.id);
    expect(gaveUp).toMatchObject({ result: 'failed', attempts: 5, error: expect.any(String) });
  });

  it('nothing is recorded for a staff order, nor for a platform whose integration is inactive', async () => {
    const team = await makeTenantWithTeam(t.app);
    const integration = await connect(team, 'provider_b');
    const dish = await makeMenuItem(t.app, team.tenant, { name: 'Baião', price: 2000 });
    const res = await t.app.inject({
      method: 'POST',
      url: `/t/${team.slug}/orders`,
      headers: team.admin.headers,
      payload: { orderType: 'takeout', paymentMethod: 'pix', customerName: 'Ana', items: [{ menuItem: dish._id, quantity: 1 }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const staffOrder = res.json() as { _id: string };
    await setStatus(team, staffOrder._id, 'confirmed');
    expect(await pushes(team, staffOrder._id)).toEqual([]);

    const order = await marketplaceOrder(team, 'provider_b');
    await setStatus(team, order.id, 'confirmed');
    const off = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/integrations/${integration._id}/deactivate`, headers: team.admin.headers });
    expect(off.statusCode, off.body).toBe(200);
    await setStatus(team, order.id, 'preparing');
    expect(summary(await pushes(team, order.id))).toEqual([['confirmed', 'TAKEN', 'pending']]);
    // The queued push finds the integration inactive: failed, the platform not called.
    await drain();
    expect(await pushes(team, order.id)).toEqual([expect.objectContaining({ result: 'failed', attempts: 1, error: 'the integration is inactive' })]);
  });
});

describe('GET /t/:slug/marketplace/orders/:orderId/pushes', () => {
  it('admin and branch manager read it; 401 without a token; 403 for staff and accountant; 400 on a bad id; 404 for an unknown order', async () => {
    const team = await makeTenantWithTeam(t.app);
    await connect(team, 'provider_c');
    const order = await marketplaceOrder(team, 'provider_c');
    await setStatus(team, order.id, 'preparing');
    expect(summary(await pushes(team, order.id))).toEqual([
      ['confirmed', 'accept_pos_order', 'pending'],
      ['preparing', null, 'skipped'],
    ]);
    const manager = await makeUser(t.app, team.tenant, 'branch_manager');
    expect(await pushes(team, order.id, manager.headers)).toHaveLength(2);
    const url = `/t/${team.slug}/marketplace/orders/${order.id}/pushes`;
    expect((await t.app.inject({ url })).statusCode).toBe(401);
    for (const who of [team.staff, team.accountant]) expect((await t.app.inject({ url, headers: who.headers })).statusCode).toBe(403);
    expect((await t.app.inject({ url: `/t/${team.slug}/marketplace/orders/x1/pushes`, headers: team.admin.headers })).statusCode).toBe(400);
    expect((await t.app.inject({ url: `/t/${team.slug}/marketplace/orders/${'a'.repeat(24)}/pushes`, headers: team.admin.headers })).statusCode).toBe(404);
    await drain();
  });

  it('another tenant\'s order is a 404 through the outsider\'s slug, 403 through the owner\'s', async () => {
    const owner = await makeTenantWithTeam(t.app);
    const outsider = await makeTenantWithTeam(t.app);
    await connect(owner, 'provider_b');
    const order = await marketplaceOrder(owner, 'provider_b');
    await setStatus(owner, order.id, 'confirmed');
    await drain();
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [{ method: 'GET', path: `/t/:slug/marketplace/orders/${order.id}/pushes` }],
      snapshot: () => pushes(owner, order.id),
    });
  });
});

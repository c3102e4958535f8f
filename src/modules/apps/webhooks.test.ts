import { eq } from 'drizzle-orm';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicApiClient } from '../../../examples/webhook-app/api-client.js';
import { createWebhookReceiver, type WebhookReceiver } from '../../../examples/webhook-app/receiver.js';
import { installApp, makePublishedApp } from '../../../test/apps.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeSuperadmin, makeTenantWithTeam, type TestUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { appWebhookDeliveries, type AppScope } from '../../db/schema/apps.js';
import { appsJobs } from './apps.jobs.js';

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp({ webhooksAllowPrivateTargets: true });
  sa = await makeSuperadmin(t.app);
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
interface Attempt { at: string; statusCode: number | null; error: string | null; durationMs: number }
interface Delivery {
  _id: string; eventId: string; eventType: string; status: string; attemptCount: number; attempts: Attempt[];
  nextAttemptAt: string | null; deliveredAt: string | null; createdAt: string;
}
interface DeliveryPage { items: Delivery[]; total: number; page: number; limit: number; pages: number }
interface Received { headers: IncomingHttpHeaders; body: string }

const drain = (limit?: number) => t.app.jobs.drain({ names: [appsJobs.deliver], includeDelayed: true, limit });

/** A receiver that answers from a script (the last step repeats) and records every request. */
async function scripted(script: Array<{ status: number; headers?: Record<string, string> }>) {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const step = script[Math.min(requests.length, script.length - 1)];
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(step.status, step.headers ?? {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, requests, close: () => new Promise((r) => server.close(r)) };
}

/** An App with webhooks at `url`, installed in the team's tenant with `scopes`; its secret as the operator hands it over. */
async function installed(team: Team, url: string, scopes: AppScope[] = ['orders.read', 'menu.read', 'webhooks.subscribe']) {
  const app = await makePublishedApp(t.app, sa, { scopes: ['orders.read', 'menu.read', 'webhooks.subscribe'], webhookUrl: url });
  const inst = await installApp(t.app, team, app.slug, scopes);
  const secret = await t.app.services.webhooks.signingSecretOf(inst.installation._id);
  return { ...inst, app, secret, id: inst.installation._id };
}

async function placeOrder(team: Team) {
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 7450 });
  const res = await t.app.inject({
    method: 'POST',
    url: `/t/${team.slug}/orders`,
    headers: team.admin.headers,
    payload: { orderType: 'takeout', paymentMethod: 'pix', customerName: 'Ana', items: [{ menuItem: dish._id, quantity: 1 }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { order: res.json() as { _id: string; orderNumber: string; status: string }, dish };
}

async function setStatus(team: Team, orderId: string, status: string) {
  const res = await t.app.inject({ method: 'PUT', url: `/t/${team.slug}/orders/${orderId}/status`, headers: team.admin.headers, payload: { status } });
  expect(res.statusCode, res.body).toBe(200);
}

async function deliveries(team: Team, installationId: string, query = ''): Promise<DeliveryPage> {
  const res = await t.app.inject({ url: `/t/${team.slug}/admin/marketplace/installations/${installationId}/deliveries${query}`, headers: team.admin.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as DeliveryPage;
}

/** Verifies a request with the `standardwebhooks` package (not our signing code); answers the parsed body. */
function independentlyVerified(secret: string, r: Received) {
  const pick = (name: string) => String(r.headers[name]);
  return new Webhook(secret).verify(r.body, {
    'webhook-id': pick('webhook-id'),
    'webhook-timestamp': pick('webhook-timestamp'),
    'webhook-signature': pick('webhook-signature'),
  }) as { id: string; type: string; tenant: { _id: string; slug: string }; data: { order: { _id: string; status: string }; previousStatus?: string } };
}

describe('webhooks to Apps', () => {
  let team: Team;
  let receiver: WebhookReceiver;
  const secrets = new Map<string, string>();
  beforeAll(async () => {
    team = await makeTenantWithTeam(t.app);
    // The example App, as the receiver: it picks the tenant's secret and verifies with its own code.
    receiver = createWebhookReceiver({ secret: (tenantId) => secrets.get(tenantId) });
  });
  afterAll(() => receiver.close());

  it('delivers order.created then order.statusChanged, signed so that an independent verifier and the example App accept them', async () => {
    const url = await receiver.listen(0, '127.0.0.1');
    const inst = await installed(team, url);
    expect(inst.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    secrets.set(team.tenant._id, inst.secret);

    const { order, dish } = await placeOrder(team);
    await drain();
    expect(receiver.events.map((e) => e.type)).toEqual(['order.created']);
    await setStatus(team, order._id, 'confirmed');
    await drain();

    expect(receiver.rejected).toEqual([]);
    expect(receiver.events.map((e) => [e.type, e.data.order._id, e.data.order.status, e.data.previousStatus])).toEqual([
      ['order.created', order._id, 'pending', undefined],
      ['order.statusChanged', order._id, 'confirmed', 'pending'],
    ]);
    expect(receiver.requests).toHaveLength(2);
    for (const r of receiver.requests) {
      const body = independentlyVerified(inst.secret, r);
      expect(r.headers['content-type']).toBe('application/json');
      expect(body.id).toBe(r.headers['webhook-id']);
      expect(body.id).toMatch(/^evt_[0-9a-f]{24}$/);
      expect(body.tenant).toEqual({ _id: team.tenant._id, slug: team.slug });
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      // Another key fails.
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(r.body, {
        'webhook-id': String(r.headers['webhook-id']),
        'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      })).toThrow();
    }

    // The delivery log, newest first.
    const log = await deliveries(team, inst.id);
    expect(log).toMatchObject({ total: 2, page: 1, limit: 20, pages: 1 });
    expect(log.items.map((d) => [d.eventType, d.status, d.attemptCount, d.attempts.map((a) => a.statusCode)])).toEqual([
      ['order.statusChanged', 'delivered', 1, [200]],
      ['order.created', 'delivered', 1, [200]],
    ]);
    expect(log.items.map((d) => d.eventId)).toEqual(receiver.requests.map((r) => r.headers['webhook-id']).reverse());
    expect(log.items[0].deliveredAt).not.toBeNull();
    expect(log.items[0].nextAttemptAt).toBeNull();

    // The example App's other half: the public API with its installation token.
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const api = createPublicApiClient({ baseUrl: base, token: inst.token });
    expect((await api.orders()).map((o) => o._id)).toContain(order._id);
    expect((await api.menuItems()).map((i) => i._id)).toContain(dish._id);
    expect(api.rateLimit.limit).toBe(200);
  });

  it('the handler is idempotent: a delivered delivery, or a job for a past attempt, sends nothing', async () => {
    const before = receiver.requests.length;
    expect(before).toBeGreaterThan(0);
    const inst = (await t.app.inject({ url: `/t/${team.slug}/admin/marketplace/installations`, headers: team.admin.headers })).json()[0] as { _id: string };
    const [last] = (await deliveries(team, inst._id)).items;
    expect(await t.app.services.webhooks.deliver({ tenantId: team.tenant._id, deliveryId: last._id })).toBe('already delivered');
    expect(receiver.requests).toHaveLength(before);
  });

  it('the example App refuses a bad signature, a stale timestamp and a replayed id is not handled twice', async () => {
    const url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/webhooks`;
    const [first] = receiver.requests;
    const headers = (over: Record<string, string>) => ({
      'content-type': 'application/json',
      'webhook-id': String(first.headers['webhook-id']),
      'webhook-timestamp': String(first.headers['webhook-timestamp']),
      'webhook-signature': String(first.headers['webhook-signature']),
      ...over,
    });
    const post = (h: Record<string, string>, body = first.body) => fetch(url, { method: 'POST', headers: h, body });
    expect((await post(headers({}), first.body.replace('Ana', 'Bia'))).status).toBe(401);
    expect((await post(headers({ 'webhook-signature': 'v1,AAAA' }))).status).toBe(401);
    expect((await post(headers({ 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 600) }))).status).toBe(401);
    const events = receiver.events.length;
    expect((await post(headers({}))).status).toBe(200);
    expect(receiver.events).toHaveLength(events);
    expect(receiver.duplicates).toContain(first.headers['webhook-id']);
  });
});

describe('retries', () => {
  it('a receiver that fails twice then succeeds gets the same bytes three times; the log shows every attempt', async () => {
    const team = await makeTenantWithTeam(t.app);
    const rx = await scripted([{ status: 500 }, { status: 500 }, { status: 200 }]);
    const inst = await installed(team, rx.url);
    await placeOrder(team);

    await drain(1);
    let [d] = (await deliveries(team, inst.id)).items;
    expect(d).toMatchObject({ status: 'pending', attemptCount: 1, deliveredAt: null });
    expect(d.attempts).toEqual([{ at: expect.any(String), statusCode: 500, error: 'HTTP 500', durationMs: expect.any(Number) }]);
    // The first retry is due 5 s after the first attempt.
    const wait = Date.parse(d.nextAttemptAt!) - Date.parse(d.attempts[0].at);
    expect(wait).toBeGreaterThanOrEqual(4_000);
    expect(wait).toBeLessThan(7_000);
    // A second run of the first attempt's job (at least once delivery) sends nothing.
    expect(await t.app.services.webhooks.deliver({ tenantId: team.tenant._id, deliveryId: d._id, attempt: 1 })).toBe('attempt 1 is past (next is 2)');
    expect(rx.requests).toHaveLength(1);

    await drain();
    [d] = (await deliveries(team, inst.id)).items;
    expect(d).toMatchObject({ status: 'delivered', attemptCount: 3, nextAttemptAt: null });
    expect(d.attempts.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    expect(rx.requests).toHaveLength(3);
    expect(new Set(rx.requests.map((r) => r.body)).size).toBe(1);
    expect(new Set(rx.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([d.eventId]));
    for (const r of rx.requests) independentlyVerified(inst.secret, r);
    await rx.close();
  });

  it('takes an attempt again when the run that claimed it died before recording it (the queue retries that run)', async () => {
    const team = await makeTenantWithTeam(t.app);
    const rx = await scripted([{ status: 200 }]);
    const inst = await installed(team, rx.url);
    await placeOrder(team);
    const [queued] = (await deliveries(team, inst.id)).items;
    expect(queued).toMatchObject({ status: 'pending', attemptCount: 0 });
    // The state a process leaves when it stops after claiming attempt 1: counted, in flight, not recorded.
    await t.app.deps.tenantDb(team.tenant._id).run((tx) =>
      tx.db.update(appWebhookDeliveries).set({ attemptCount: 1, nextAttemptAt: null }).where(eq(appWebhookDeliveries.id, queued._id)),
    );
    expect(await t.app.services.webhooks.deliver({ tenantId: team.tenant._id, deliveryId: queued._id, attempt: 1 })).toBe('delivered');
    expect(rx.requests).toHaveLength(1);
    const [d] = (await deliveries(team, inst.id)).items;
    expect(d).toMatchObject({ status: 'delivered', attemptCount: 1 });
    expect(d.attempts.map((a) => a.statusCode)).toEqual([200]);
    await drain();
    expect(rx.requests).toHaveLength(1);
    await rx.close();
  });

  it('honours a Retry-After longer than the schedule', async () => {
    const team = await makeTenantWithTeam(t.app);
    const rx = await scripted([{ status: 503, headers: { 'retry-after': '120' } }, { status: 200 }]);
    const inst = await installed(team, rx.url);
    await placeOrder(team);
    await drain(1);
    let [d] = (await deliveries(team, inst.id)).items;
    expect(d).toMatchObject({ status: 'pending', attemptCount: 1 });
    const wait = Date.parse(d.nextAttemptAt!) - Date.parse(d.attempts[0].at);
    expect(wait).toBeGreaterThanOrEqual(119_000);
    expect(wait).toBeLessThan(125_000);
    await drain();
    [d] = (await deliveries(team, inst.id)).items;
    expect(d).toMatchObject({ status: 'delivered', attemptCount: 2 });
    await rx.close();
  });

  it('a network error is an attempt like a 5xx', async () => {
    const team = await makeTenantWithTeam(t.app);
    const rx = await scripted([{ status: 200 }]);
    const inst = await installed(team, rx.url);
    await rx.close();
    await placeOrder(team);
    await drain(1);
    const [d] = (await deliveries(team, inst.id)).items;
    expect(d).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(d.attempts[0].statusCode).toBeNull();
    expect(d.attempts[0].error).toMatch(/ECONNREFUSED/);
    // Leave nothing behind for the other tests' drains: mark it done through the revoke path.
    await t.app.inject({ method: 'DELETE', url: `/t/${team.slug}/admin/marketplace/installations/${inst.id}`, headers: team.admin.headers });
    await drain();
    expect((await deliveries(team, inst.id)).items[0].status).toBe('cancelled');
  });
});

describe('410 Gone, revoke and scopes', () => {
  it('410 disables the installation\'s webhooks until the admin enables them again', async () => {
    const team = await makeTenantWithTeam(t.app);
    const rx = await scripted([{ status: 410 }, { status: 200 }]);
    const inst = await installed(team, rx.url);
    const { order } = await placeOrder(team);
    await drain();
    expect(rx.requests).toHaveLength(1);
    let log = await deliveries(team, inst.id);
    expect(log.items.map((d) => [d.status, d.attemptCount])).toEqual([['failed', 1]]);
    const list = () => t.app.inject({ url: `/t/${team.slug}/admin/marketplace/installations`, headers: team.admin.headers });
    expect((await list()).json()[0].webhooksDisabledAt).not.toBeNull();

    // Disabled: the next event makes no delivery.
    await setStatus(team, order._id, 'confirmed');
    await drain();
    expect(rx.requests).toHaveLength(1);
    expect((await deliveries(team, inst.id)).total).toBe(1);

    const enable = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/admin/marketplace/installations/${inst.id}/webhooks/enable`, headers: team.admin.headers });
    expect(enable.statusCode, enable.body).toBe(200);
    expect(enable.json()).toMatchObject({ _id: inst.id, status: 'active', webhooksDisabledAt: null });
    await setStatus(team, order._id, 'preparing');
    await drain();
    expect(rx.requests).toHaveLength(2);
    log = await deliveries(team, inst.id);
    expect(log.items.map((d) => [d.eventType, d.status])).toEqual([['order.statusChanged', 'delivered'], ['order.created', 'failed']]);
    expect(JSON.parse(rx.requests[1].body)).toMatchObject({ type: 'order.statusChanged', data: { previousStatus: 'confirmed' } });
    await rx.close();
  });

  it('nothing is sent after revoke: a queued delivery is cancelled, later events make none', async () => {
    const team = await makeTenantWithTeam(t.app);
    const rx = await scripted([{ status: 200 }]);
    const inst = await installed(team, rx.url);
    const { order } = await placeOrder(team);
    await drain();
    expect(rx.requests).toHaveLength(1); // presence first

    await setStatus(team, order._id, 'confirmed'); // queued, not yet sent
    const revoke = await t.app.inject({ method: 'DELETE', url: `/t/${team.slug}/admin/marketplace/installations/${inst.id}`, headers: team.admin.headers });
    expect(revoke.statusCode, revoke.body).toBe(200);
    await drain();
    await setStatus(team, order._id, 'preparing');
    await drain();

    expect(rx.requests).toHaveLength(1);
    const log = await deliveries(team, inst.id);
    expect(log.items.map((d) => [d.eventType, d.status, d.attemptCount])).toEqual([
      ['order.statusChanged', 'cancelled', 0],
      ['order.created', 'delivered', 1],
    ]);
    // Enabling a revoked installation is a conflict.
    const enable = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/admin/marketplace/installations/${inst.id}/webhooks/enable`, headers: team.admin.headers });
    expect(enable.statusCode).toBe(409);
    expect(enable.json().code).toBe('installation_revoked');
    await rx.close();
  });

  it('an installation without webhooks.subscribe gets nothing, beside one with it', async () => {
    const team = await makeTenantWithTeam(t.app);
    const [withScope, without] = await Promise.all([scripted([{ status: 200 }]), scripted([{ status: 200 }])]);
    const subscribed = await installed(team, withScope.url);
    const readOnly = await installed(team, without.url, ['orders.read']);
    await placeOrder(team);
    await drain();
    expect(withScope.requests).toHaveLength(1);
    expect(without.requests).toHaveLength(0);
    expect((await deliveries(team, subscribed.id)).total).toBe(1);
    expect((await deliveries(team, readOnly.id)).total).toBe(0);
    await Promise.all([withScope.close(), without.close()]);
  });
});

describe('the delivery log and enable routes', () => {
  let team: Team;
  let other: Team;
  let inst: Awaited<ReturnType<typeof installed>>;
  let rx: Awaited<ReturnType<typeof scripted>>;
  beforeAll(async () => {
    [team, other] = await Promise.all([makeTenantWithTeam(t.app), makeTenantWithTeam(t.app)]);
    rx = await scripted([{ status: 200 }]);
    inst = await installed(team, rx.url);
    const { order } = await placeOrder(team);
    await setStatus(team, order._id, 'confirmed');
    await setStatus(team, order._id, 'preparing');
    await drain();
  });
  afterAll(() => rx.close());

  const logUrl = (slug: string, id: string, q = '') => `/t/${slug}/admin/marketplace/installations/${id}/deliveries${q}`;
  const enableUrl = (slug: string, id: string) => `/t/${slug}/admin/marketplace/installations/${id}/webhooks/enable`;

  it('pages newest first', async () => {
    const all = await deliveries(team, inst.id);
    expect(all.items.map((d) => d.eventType)).toEqual(['order.statusChanged', 'order.statusChanged', 'order.created']);
    const second = await deliveries(team, inst.id, '?page=2&limit=1');
    expect(second).toMatchObject({ total: 3, page: 2, limit: 1, pages: 3 });
    expect(second.items.map((d) => d._id)).toEqual([all.items[1]._id]);
    expect((await t.app.inject({ url: logUrl(team.slug, inst.id, '?limit=101'), headers: team.admin.headers })).statusCode).toBe(400);
    expect((await t.app.inject({ url: logUrl(team.slug, inst.id, '?page=0'), headers: team.admin.headers })).statusCode).toBe(400);
  });

  it('401 without a token, 403 for staff, 404 for an unknown installation', async () => {
    expect((await t.app.inject({ url: logUrl(team.slug, inst.id) })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: enableUrl(team.slug, inst.id) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: logUrl(team.slug, inst.id), headers: team.staff.headers })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: enableUrl(team.slug, inst.id), headers: team.staff.headers })).statusCode).toBe(403);
    const unknown = 'f'.repeat(24);
    expect((await t.app.inject({ url: logUrl(team.slug, unknown), headers: team.admin.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: enableUrl(team.slug, unknown), headers: team.admin.headers })).statusCode).toBe(404);
  });

  it('enable is a no-op on an enabled installation', async () => {
    const res = await t.app.inject({ method: 'POST', url: enableUrl(team.slug, inst.id), headers: team.admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ _id: inst.id, webhooksDisabledAt: null });
  });

  it('another tenant\'s admin cannot read or change the installation (404 through their slug, 403 through ours)', async () => {
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: team.slug,
      outsider: { slug: other.slug, headers: other.admin.headers },
      requests: [
        { method: 'GET', path: logUrl(':slug', inst.id) },
        { method: 'POST', path: enableUrl(':slug', inst.id) },
      ],
      snapshot: () => deliveries(team, inst.id),
    });
  });
});

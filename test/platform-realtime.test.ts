import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { buildApp, type App } from '../src/app.js';
import { openPostgres, type Database } from '../src/db/client.js';
import { users } from '../src/db/schema/users.js';
import { createRealtime, type JoinAck } from '../src/platform/realtime.js';
import { createTestApp, testConfig, type TestApp } from './app.js';
import { makePdv, makeSuperadmin, makeTenantWithTeam, makeUser, type TestUser } from './factories.js';

const fastHeartbeat = { heartbeatIntervalMs: 200, heartbeatTimeoutMs: 3000 };
/** Where an order without a PDV goes: every kitchen socket of the tenant. */
const tenantWide = { pdvId: null, branchId: null };

let t: TestApp;
let url: string;
let a: Awaited<ReturnType<typeof makeTenantWithTeam>>;
let b: Awaited<ReturnType<typeof makeTenantWithTeam>>;

beforeAll(async () => {
  t = await createTestApp({}, { realtime: fastHeartbeat });
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  [a, b] = await Promise.all([makeTenantWithTeam(t.app), makeTenantWithTeam(t.app)]);
});
afterAll(() => t.close());

const clients: ClientSocket[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
});

function client(base: string, nsp = '/', token?: string): ClientSocket {
  const socket = connect(base + nsp, { transports: ['websocket'], forceNew: true, reconnection: false, auth: token ? { token } : {} });
  clients.push(socket);
  return socket;
}

function connected(socket: ClientSocket): Promise<void> {
  if (socket.connected) return Promise.resolve();
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
}

const ask = (socket: ClientSocket, event: string, payload?: unknown): Promise<JoinAck> => socket.timeout(5000).emitWithAck(event, payload);

function next(socket: ClientSocket, event: string, ms = 5000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    socket.once(event, (payload: unknown) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
}

/** Collects every `event` a socket receives, to check later that some never arrived. */
function record(socket: ClientSocket, event: string): unknown[] {
  const got: unknown[] = [];
  socket.on(event, (p: unknown) => got.push(p));
  return got;
}

/**
 * Resolves once `socket` has received a marker sent by `app` after everything `app` emitted so far: one
 * process writes to one socket in order, so an event emitted before it that has not arrived never will.
 */
async function flushed(app: App, socket: ClientSocket, nsp = '/') {
  const marker = next(socket, 'marker');
  app.realtime.io.of(nsp).to(socket.id!).emit('marker', 1);
  await marker;
}

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
/** Changes a member through the users routes (as an admin would): role, assignments. */
async function changeMember(team: Team, user: TestUser, payload: object) {
  const res = await t.app.inject({ method: 'PUT', url: `/t/${team.slug}/users/${user.id}`, headers: team.admin.headers, payload });
  expect(res.statusCode).toBe(200);
}

describe('kitchen room', () => {
  it('lets the tenant staff, branch managers, admin and a superadmin join, with the token in the handshake or in the payload', async () => {
    const staff = client(url, '/', a.staff.token);
    expect(await ask(staff, 'joinKitchen', a.tenant._id)).toEqual({ ok: true, room: `kitchen-${a.tenant._id}` });

    const admin = client(url);
    expect(await ask(admin, 'joinKitchen', { tenantId: a.tenant._id, token: a.admin.token })).toMatchObject({ ok: true });
    const manager = await makeUser(t.app, a.tenant, 'branch_manager');
    expect(await ask(client(url, '/', manager.token), 'joinKitchen', a.tenant._id)).toMatchObject({ ok: true });

    const sa = await makeSuperadmin(t.app);
    expect(await ask(client(url, '/', sa.token), 'joinKitchen', b.tenant._id)).toMatchObject({ ok: true });
  });

  it('refuses another tenant admin, other roles, and missing or invalid tokens', async () => {
    const outsider = client(url, '/', b.admin.token);
    expect(await ask(outsider, 'joinKitchen', a.tenant._id)).toMatchObject({ ok: false, error: 'forbidden' });
    expect(await ask(client(url, '/', a.accountant.token), 'joinKitchen', a.tenant._id)).toMatchObject({ ok: false, error: 'forbidden' });
    const anonymous = client(url);
    expect(await ask(anonymous, 'joinKitchen', a.tenant._id)).toMatchObject({ ok: false, error: 'unauthorized' });
    expect(await ask(anonymous, 'joinKitchen', { tenantId: a.tenant._id, token: 'not.a.jwt' })).toMatchObject({ ok: false, error: 'unauthorized' });
    const forged = a.staff.token.slice(0, -4) + 'AAAA';
    expect(await ask(anonymous, 'joinKitchen', { tenantId: a.tenant._id, token: forged })).toMatchObject({ ok: false, error: 'unauthorized' });
    t.clock.advance(16 * 60_000); // past the access token's 15 minutes
    try {
      expect(await ask(client(url, '/', a.staff.token), 'joinKitchen', a.tenant._id)).toMatchObject({ ok: false, error: 'unauthorized' });
    } finally {
      t.clock.advance(-16 * 60_000);
    }
    expect(await ask(anonymous, 'joinKitchen', 'not-an-id')).toMatchObject({ ok: false, error: 'bad_request' });
    const sa = await makeSuperadmin(t.app);
    expect(await ask(client(url, '/', sa.token), 'joinKitchen', '0'.repeat(24))).toMatchObject({ ok: false, error: 'not_found' });
  });

  it("delivers a kitchen event to the tenant's room only", async () => {
    const kitchenA = client(url, '/', a.staff.token);
    const kitchenB = client(url, '/', b.staff.token);
    const bystander = client(url, '/', a.staff.token); // connected, not joined
    await ask(kitchenA, 'joinKitchen', a.tenant._id);
    await ask(kitchenB, 'joinKitchen', b.tenant._id);
    await connected(bystander);
    const gotB = record(kitchenB, 'newOrder');
    const gotBystander = record(bystander, 'newOrder');

    const arriving = next(kitchenA, 'newOrder');
    t.app.realtime.toKitchen(a.tenant._id, 'newOrder', { orderNumber: '20260101-0001', total: 4200 }, tenantWide);
    expect(await arriving).toEqual({ orderNumber: '20260101-0001', total: 4200 });
    await Promise.all([flushed(t.app, kitchenB), flushed(t.app, bystander)]);
    expect(gotB).toEqual([]);
    expect(gotBystander).toEqual([]);

    // Leaving stops the events.
    await ask(kitchenA, 'leaveKitchen', a.tenant._id);
    const gotA = record(kitchenA, 'paymentUpdate');
    t.app.realtime.toKitchen(a.tenant._id, 'paymentUpdate', { status: 'approved' }, tenantWide);
    await flushed(t.app, kitchenA);
    expect(gotA).toEqual([]);
  });
});

describe('inventory namespace', () => {
  it('refuses a connection without a valid token', async () => {
    await expect(connected(client(url, '/inventory'))).rejects.toThrow('unauthorized');
    await expect(connected(client(url, '/inventory', 'not.a.jwt'))).rejects.toThrow('unauthorized');
  });

  it('lets staff and admin join their own tenant only, and a superadmin any tenant', async () => {
    const staffA = client(url, '/inventory', a.staff.token);
    expect(await ask(staffA, 'joinInventory', a.tenant._id)).toEqual({ ok: true, room: `inventory-${a.tenant._id}` });
    expect(await ask(staffA, 'joinInventory', b.tenant._id)).toMatchObject({ ok: false, error: 'forbidden' });
    expect(await ask(client(url, '/inventory', a.accountant.token), 'joinInventory', a.tenant._id)).toMatchObject({ ok: false, error: 'forbidden' });
    const sa = await makeSuperadmin(t.app);
    const superadmin = client(url, '/inventory', sa.token);
    expect(await ask(superadmin, 'joinInventory', { tenantId: b.tenant._id })).toMatchObject({ ok: true });

    const gotStaffA = record(staffA, 'stockUpdate');
    const arriving = next(superadmin, 'stockUpdate');
    const update = { itemId: 'x', itemName: 'Farinha', physicalQuantity: 3, availableQuantity: 2 };
    t.app.realtime.toInventory(b.tenant._id, 'stockUpdate', update);
    expect(await arriving).toEqual(update);
    await flushed(t.app, staffA, '/inventory');
    expect(gotStaffA).toEqual([]);
  });

  it('keeps inventory events out of the kitchen namespace', async () => {
    const kitchen = client(url, '/', a.staff.token);
    await ask(kitchen, 'joinKitchen', a.tenant._id);
    const got = record(kitchen, 'lowStockAlert');
    t.app.realtime.toInventory(a.tenant._id, 'lowStockAlert', { itemId: 'x' });
    await flushed(t.app, kitchen);
    expect(got).toEqual([]);
  });
});

describe('order tracking', () => {
  const orders = new Map<string, { tenantId: string; orderNumber: string }>();

  beforeAll(() => {
    // Stands in for the orders module's lookup (app.ts wires the real one).
    t.app.realtime.setOrderLookup(async (slug, orderNumber) => orders.get(`${slug}/${orderNumber}`) ?? null);
  });

  it('answers unavailable while no lookup is provided', async () => {
    const server = createServer();
    const bare = createRealtime({ database: t.db.database, db: t.app.deps.db, jwt: t.app.deps.jwt, log: t.app.log });
    bare.attach(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const customer = client(`http://127.0.0.1:${port}`);
    try {
      expect(await ask(customer, 'trackOrder', { slug: a.slug, orderNumber: '20260101-0001' })).toMatchObject({ ok: false, error: 'unavailable' });
    } finally {
      // Hang up first: closing the server waits for its open connections.
      customer.disconnect();
      await bare.close();
      server.closeAllConnections();
    }
  });

  it("gives a public client its order's events and nothing else", async () => {
    orders.set(`${a.slug}/20260101-0001`, { tenantId: a.tenant._id, orderNumber: '20260101-0001' });
    orders.set(`${a.slug}/20260101-0002`, { tenantId: a.tenant._id, orderNumber: '20260101-0002' });
    const customer = client(url);
    expect(await ask(customer, 'trackOrder', { slug: a.slug, orderNumber: '20260101-0001' })).toEqual({
      ok: true,
      room: `order-${a.tenant._id}-20260101-0001`,
    });
    const got = record(customer, 'orderUpdate');
    const gotKitchen = record(customer, 'newOrder');

    const arriving = next(customer, 'orderUpdate');
    t.app.realtime.toOrder(a.tenant._id, '20260101-0001', 'orderUpdate', { status: 'preparing' });
    expect(await arriving).toEqual({ status: 'preparing' });
    t.app.realtime.toOrder(a.tenant._id, '20260101-0002', 'orderUpdate', { status: 'ready' });
    t.app.realtime.toKitchen(a.tenant._id, 'newOrder', { orderNumber: '20260101-0002' }, tenantWide);
    await flushed(t.app, customer);
    expect(got).toEqual([{ status: 'preparing' }]);
    expect(gotKitchen).toEqual([]);

    // Untracking stops the events.
    await ask(customer, 'untrackOrder', { slug: a.slug, orderNumber: '20260101-0001' });
    t.app.realtime.toOrder(a.tenant._id, '20260101-0001', 'orderUpdate', { status: 'ready' });
    await flushed(t.app, customer);
    expect(got).toHaveLength(1);
  });

  it('refuses unknown orders, another tenant slug, bad payloads and too many orders on one connection', async () => {
    const customer = client(url);
    expect(await ask(customer, 'trackOrder', { slug: a.slug, orderNumber: '20260101-9999' })).toMatchObject({ ok: false, error: 'not_found' });
    expect(await ask(customer, 'trackOrder', { slug: b.slug, orderNumber: '20260101-0001' })).toMatchObject({ ok: false, error: 'not_found' });
    expect(await ask(customer, 'trackOrder', { slug: 'A B', orderNumber: '1' })).toMatchObject({ ok: false, error: 'bad_request' });
    expect(await ask(customer, 'trackOrder')).toMatchObject({ ok: false, error: 'bad_request' });

    for (let i = 0; i < 11; i++) orders.set(`${b.slug}/N-${i}`, { tenantId: b.tenant._id, orderNumber: `N-${i}` });
    for (let i = 0; i < 10; i++) expect(await ask(customer, 'trackOrder', { slug: b.slug, orderNumber: `N-${i}` })).toMatchObject({ ok: true });
    expect(await ask(customer, 'trackOrder', { slug: b.slug, orderNumber: 'N-10' })).toMatchObject({ ok: false, error: 'too_many' });
  });

  it('limits join attempts per connection', async () => {
    const spammer = client(url);
    const answers = [];
    for (let i = 0; i < 31; i++) answers.push(await ask(spammer, 'joinKitchen', a.tenant._id));
    expect(answers[29]).toMatchObject({ error: 'unauthorized' });
    expect(answers[30]).toMatchObject({ error: 'too_many' });
  });
});

describe('several processes', () => {
  /** Another process of the service on the same database. */
  async function secondApp(role: 'all' | 'worker' = 'all'): Promise<{ app: App; url: string; close(): Promise<void> }> {
    const own: Database | null = t.db.url ? await openPostgres(t.db.url, { migrate: false, poolSize: 3 }) : null;
    const app = await buildApp({
      database: own ?? t.db.database,
      config: testConfig({ role }),
      logger: false,
      jobs: { workers: false, poolSize: 2 },
      realtime: fastHeartbeat,
    });
    // A worker serves no HTTP: it only emits, through the adapter.
    const base = role === 'worker' ? (await app.ready(), '') : await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      app,
      url: base,
      async close() {
        await app.close();
        await own?.close();
      },
    };
  }

  it.runIf(process.env.DATABASE_URL)('fans an event out from one instance to a client of another (PostgreSQL adapter)', async () => {
    const other = await secondApp();
    try {
      // Both adapters listen once each has heard the other's heartbeat.
      await expect.poll(async () => [await t.app.realtime.serverCount(), await other.app.realtime.serverCount()], { timeout: 10_000 }).toEqual([2, 2]);
      const kitchen = client(other.url, '/', a.staff.token);
      expect(await ask(kitchen, 'joinKitchen', a.tenant._id)).toMatchObject({ ok: true });
      const kitchenB = client(url, '/', b.staff.token);
      await ask(kitchenB, 'joinKitchen', b.tenant._id);
      const gotB = record(kitchenB, 'newOrder');

      const arriving = next(kitchen, 'newOrder');
      t.app.realtime.toKitchen(a.tenant._id, 'newOrder', { orderNumber: '20260101-0042' }, tenantWide);
      expect(await arriving).toEqual({ orderNumber: '20260101-0042' });

      // Over NOTIFY's 8000-byte limit the adapter goes through its attachments table.
      const big = { orderNumber: '20260101-0043', note: 'x'.repeat(20_000) };
      const bigArriving = next(kitchen, 'newOrder');
      t.app.realtime.toKitchen(a.tenant._id, 'newOrder', big, tenantWide);
      expect(await bigArriving).toEqual(big);

      // Inventory namespace across processes too.
      const inv = client(other.url, '/inventory', a.admin.token);
      expect(await ask(inv, 'joinInventory', a.tenant._id)).toMatchObject({ ok: true });
      const stock = next(inv, 'stockUpdate');
      t.app.realtime.toInventory(a.tenant._id, 'stockUpdate', { itemId: 'y' });
      expect(await stock).toEqual({ itemId: 'y' });
      await flushed(t.app, kitchenB);
      expect(gotB).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it.runIf(process.env.DATABASE_URL)('lets a worker process (no HTTP server) emit to clients of an api process', async () => {
    const worker = await secondApp('worker');
    try {
      await expect.poll(async () => [await t.app.realtime.serverCount(), await worker.app.realtime.serverCount()], { timeout: 10_000 }).toEqual([2, 2]);
      const customer = client(url);
      t.app.realtime.setOrderLookup(async (_slug, orderNumber) => ({ tenantId: a.tenant._id, orderNumber }));
      expect(await ask(customer, 'trackOrder', { slug: a.slug, orderNumber: '20260101-0077' })).toMatchObject({ ok: true });
      const arriving = next(customer, 'paymentUpdate');
      worker.app.realtime.toOrder(a.tenant._id, '20260101-0077', 'paymentUpdate', { status: 'declined' });
      expect(await arriving).toEqual({ status: 'declined' });
    } finally {
      await worker.close();
    }
  });

  it.runIf(process.env.DATABASE_URL)('keeps the order of one process\'s events (the adapter delivers locally after its NOTIFY)', async () => {
    const kitchen = client(url, '/', a.admin.token);
    expect(await ask(kitchen, 'joinKitchen', a.tenant._id)).toMatchObject({ ok: true });
    const got = record(kitchen, 'orderUpdate');
    const sent = Array.from({ length: 60 }, (_, n) => ({ n }));
    for (const payload of sent) t.app.realtime.toKitchen(a.tenant._id, 'orderUpdate', payload, tenantWide);
    await flushed(t.app, kitchen);
    expect(got).toEqual(sent);
  });

  it.runIf(process.env.DATABASE_URL)("drops a removed member's sockets on another process at once (serverSideEmit)", async () => {
    const other = await secondApp();
    try {
      await expect.poll(async () => [await t.app.realtime.serverCount(), await other.app.realtime.serverCount()], { timeout: 10_000 }).toEqual([2, 2]);
      const c = await makeTenantWithTeam(t.app);
      const removed = await makeUser(t.app, c.tenant, 'staff');
      const demoted = await makeUser(t.app, c.tenant, 'staff');
      const kitchen = client(other.url, '/', removed.token);
      const stock = client(other.url, '/inventory', removed.token);
      const demotedKitchen = client(other.url, '/', demoted.token);
      expect(await ask(kitchen, 'joinKitchen', c.tenant._id)).toMatchObject({ ok: true });
      expect(await ask(stock, 'joinInventory', c.tenant._id)).toMatchObject({ ok: true });
      expect(await ask(demotedKitchen, 'joinKitchen', c.tenant._id)).toMatchObject({ ok: true });
      const expired = [next(kitchen, 'sessionExpired'), next(stock, 'sessionExpired'), next(demotedKitchen, 'sessionExpired')];
      // Both changes are made through the first process; the sockets live on the second.
      expect((await t.app.inject({ method: 'DELETE', url: `/t/${c.slug}/users/${removed.id}`, headers: c.admin.headers })).statusCode).toBe(200);
      await changeMember(c, demoted, { role: 'accountant' });
      expect(await Promise.all(expired)).toEqual([
        { room: `kitchen-${c.tenant._id}`, reason: 'access_revoked' },
        { room: `inventory-${c.tenant._id}`, reason: 'access_revoked' },
        { room: `kitchen-${c.tenant._id}`, reason: 'access_revoked' },
      ]);
      const lost = record(kitchen, 'newOrder');
      other.app.realtime.toKitchen(c.tenant._id, 'newOrder', { n: 1 }, tenantWide);
      await flushed(other.app, kitchen);
      expect(lost).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it.runIf(process.env.DATABASE_URL)('closes promptly even while the adapter is still connecting its LISTEN client', async () => {
    // The adapter acquires its client in the background; closing right away used to leave that client
    // checked out, and pool.end() waited for it forever.
    for (let i = 0; i < 3; i++) {
      const server = createServer();
      const quick = createRealtime({ database: t.db.database, db: t.app.deps.db, jwt: t.app.deps.jwt, log: t.app.log });
      quick.attach(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const closed = await Promise.race([quick.close().then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
      expect(closed).toBe(true);
    }
  });

  it.skipIf(process.env.DATABASE_URL)('runs a single in-memory adapter on PGlite', async () => {
    expect(await t.app.realtime.serverCount()).toBe(1);
  });

  it('disconnects its clients and closes promptly on shutdown', async () => {
    const other = await secondApp();
    const kitchen = client(other.url, '/', a.staff.token);
    expect(await ask(kitchen, 'joinKitchen', a.tenant._id)).toMatchObject({ ok: true });
    const disconnected = new Promise((resolve) => kitchen.once('disconnect', resolve));
    const started = Date.now();
    await other.close();
    expect(await disconnected).toBe('io server disconnect');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('staff rooms are re-checked', () => {
  it('drops a kitchen socket whose joining token has expired, with sessionExpired', async () => {
    const c = await makeTenantWithTeam(t.app);
    const staff = client(url, '/', c.staff.token);
    expect(await ask(staff, 'joinKitchen', c.tenant._id)).toMatchObject({ ok: true });
    const events = record(staff, 'newOrder');
    expect(await t.app.realtime.revalidate()).toBe(0);
    t.clock.advance(16 * 60_000);
    let dropped: number;
    const expired = next(staff, 'sessionExpired');
    try {
      dropped = await t.app.realtime.revalidate();
    } finally {
      t.clock.advance(-16 * 60_000);
    }
    expect(dropped).toBeGreaterThanOrEqual(1);
    expect(await expired).toEqual({ room: `kitchen-${c.tenant._id}`, reason: 'token_expired' });
    t.app.realtime.toKitchen(c.tenant._id, 'newOrder', { n: 1 }, tenantWide);
    await flushed(t.app, staff);
    expect(events).toEqual([]);
  });

  it('drops a demoted member\'s socket at once, without waiting for the minute, and keeps the others', async () => {
    const c = await makeTenantWithTeam(t.app);
    const demoted = await makeUser(t.app, c.tenant, 'staff');
    const leaving = client(url, '/', demoted.token);
    const staying = client(url, '/', c.staff.token);
    expect(await ask(leaving, 'joinKitchen', c.tenant._id)).toMatchObject({ ok: true });
    expect(await ask(staying, 'joinKitchen', c.tenant._id)).toMatchObject({ ok: true });
    const revoked = next(leaving, 'sessionExpired');
    const keptToo = record(staying, 'sessionExpired');
    await changeMember(c, demoted, { role: 'accountant' });
    expect(await revoked).toEqual({ room: `kitchen-${c.tenant._id}`, reason: 'access_revoked' });
    const kept = next(staying, 'newOrder');
    const lost = record(leaving, 'newOrder');
    t.app.realtime.toKitchen(c.tenant._id, 'newOrder', { n: 2 }, tenantWide);
    expect(await kept).toEqual({ n: 2 });
    await flushed(t.app, leaving);
    expect(lost).toEqual([]);
    expect(keptToo).toEqual([]);
  });

  it('drops the kitchen and inventory sockets of a removed member at once', async () => {
    const c = await makeTenantWithTeam(t.app);
    const removed = await makeUser(t.app, c.tenant, 'staff');
    const kitchen = client(url, '/', removed.token);
    const stock = client(url, '/inventory', removed.token);
    expect(await ask(kitchen, 'joinKitchen', c.tenant._id)).toMatchObject({ ok: true });
    expect(await ask(stock, 'joinInventory', c.tenant._id)).toMatchObject({ ok: true });
    const kitchenExpired = next(kitchen, 'sessionExpired');
    const stockExpired = next(stock, 'sessionExpired');
    const res = await t.app.inject({ method: 'DELETE', url: `/t/${c.slug}/users/${removed.id}`, headers: c.admin.headers });
    expect(res.statusCode).toBe(200);
    expect(await kitchenExpired).toEqual({ room: `kitchen-${c.tenant._id}`, reason: 'access_revoked' });
    expect(await stockExpired).toEqual({ room: `inventory-${c.tenant._id}`, reason: 'access_revoked' });
    const lost = record(stock, 'stockUpdate');
    t.app.realtime.toInventory(c.tenant._id, 'stockUpdate', { itemId: 'x' });
    await flushed(t.app, stock, '/inventory');
    expect(lost).toEqual([]);
  });

  it("drops a user's sockets when their session version is raised (password change), and refuses the old token", async () => {
    const c = await makeTenantWithTeam(t.app);
    const kitchen = client(url, '/', c.staff.token);
    expect(await ask(kitchen, 'joinKitchen', c.tenant._id)).toMatchObject({ ok: true });
    const ended = next(kitchen, 'sessionExpired');
    // What the accounts service does on a password change: raise the version, then forget the user.
    await t.app.deps.db.update(users).set({ sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, c.staff.id));
    t.app.deps.members.forget(c.staff.id);
    expect(await ended).toEqual({ room: `kitchen-${c.tenant._id}`, reason: 'token_expired' });
    expect(await ask(kitchen, 'joinKitchen', c.tenant._id)).toMatchObject({ ok: false, error: 'unauthorized' });
    expect(await ask(client(url, '/inventory', c.staff.token), 'joinInventory', c.tenant._id)).toMatchObject({ ok: false, error: 'unauthorized' });
    const [{ sessionVersion }] = await t.app.deps.db.select({ sessionVersion: users.sessionVersion }).from(users).where(eq(users.id, c.staff.id));
    const fresh = await t.app.deps.jwt.sign(c.staff.id, sessionVersion);
    expect(await ask(kitchen, 'joinKitchen', { tenantId: c.tenant._id, token: fresh })).toMatchObject({ ok: true });
  });

  it('tells a socket whose assignments changed to join again, and the new join follows the new scope', async () => {
    const c = await makeTenantWithTeam(t.app);
    const [first, second] = [await makePdv(t.app, c.tenant), await makePdv(t.app, c.tenant)];
    await changeMember(c, c.staff, { assignedPdvIds: [first.pdvId] });
    const kitchen = client(url, '/', c.staff.token);
    expect(await ask(kitchen, 'joinKitchen', c.tenant._id)).toMatchObject({ ok: true });
    const changed = next(kitchen, 'sessionExpired');
    await changeMember(c, c.staff, { assignedPdvIds: [second.pdvId] });
    expect(await changed).toEqual({ room: `kitchen-${c.tenant._id}`, reason: 'scope_changed' });
    expect(await ask(kitchen, 'joinKitchen', c.tenant._id)).toMatchObject({ ok: true });
    const got = record(kitchen, 'newOrder');
    t.app.realtime.toKitchen(c.tenant._id, 'newOrder', { at: 'first' }, { pdvId: first.pdvId, branchId: first.branchId });
    t.app.realtime.toKitchen(c.tenant._id, 'newOrder', { at: 'second' }, { pdvId: second.pdvId, branchId: second.branchId });
    await flushed(t.app, kitchen);
    expect(got).toEqual([{ at: 'second' }]);
  });
});

describe('kitchen branch scope', () => {
  it("sends an order's events to admins, staff of its PDV and managers of its branch; tenant-wide orders to every kitchen", async () => {
    const c = await makeTenantWithTeam(t.app);
    const one = await makePdv(t.app, c.tenant);
    const sibling = await t.app.services.branches.createPdv(t.app.deps.tenantDb(c.tenant._id), { branchId: one.branchId, name: 'Caixa 2', slug: `${one.slug}-2` });
    const two = await makePdv(t.app, c.tenant);
    const manager = await makeUser(t.app, c.tenant, 'branch_manager');
    await changeMember(c, c.staff, { assignedPdvIds: [one.pdvId] });
    await changeMember(c, manager, { assignedBranchIds: [one.branchId] });
    const sa = await makeSuperadmin(t.app);
    const displays = { staff: c.staff.token, manager: manager.token, admin: c.admin.token, superadmin: sa.token };
    const sockets: Record<string, ClientSocket> = {};
    const got: Record<string, unknown[]> = {};
    for (const [who, token] of Object.entries(displays)) {
      sockets[who] = client(url, '/', token);
      expect(await ask(sockets[who], 'joinKitchen', c.tenant._id)).toEqual({ ok: true, room: `kitchen-${c.tenant._id}` });
      got[who] = record(sockets[who], 'newOrder');
    }

    t.app.realtime.toKitchen(c.tenant._id, 'newOrder', { at: 'other branch' }, { pdvId: two.pdvId, branchId: two.branchId });
    t.app.realtime.toKitchen(c.tenant._id, 'newOrder', { at: 'sibling PDV' }, { pdvId: sibling.id, branchId: one.branchId });
    t.app.realtime.toKitchen(c.tenant._id, 'newOrder', { at: 'own PDV' }, { pdvId: one.pdvId, branchId: one.branchId });
    t.app.realtime.toKitchen(c.tenant._id, 'newOrder', { at: 'no PDV' }, tenantWide);
    for (const socket of Object.values(sockets)) await flushed(t.app, socket);

    const all = [{ at: 'other branch' }, { at: 'sibling PDV' }, { at: 'own PDV' }, { at: 'no PDV' }];
    expect(got.admin).toEqual(all);
    expect(got.superadmin).toEqual(all);
    expect(got.manager).toEqual([{ at: 'sibling PDV' }, { at: 'own PDV' }, { at: 'no PDV' }]);
    expect(got.staff).toEqual([{ at: 'own PDV' }, { at: 'no PDV' }]);
  });

  it('has no kitchen room for a mercado or a padaria', async () => {
    const sa = await makeSuperadmin(t.app);
    for (const businessType of ['mercado', 'padaria'] as const) {
      const m = await makeTenantWithTeam(t.app, { businessType });
      for (const token of [m.admin.token, m.staff.token, sa.token]) {
        expect(await ask(client(url, '/', token), 'joinKitchen', m.tenant._id)).toMatchObject({
          ok: false,
          error: 'feature_unavailable',
          message: expect.stringContaining(businessType),
        });
      }
      // Stock is theirs as much as a restaurant's.
      expect(await ask(client(url, '/inventory', m.staff.token), 'joinInventory', m.tenant._id)).toMatchObject({ ok: true });
    }
  });
});

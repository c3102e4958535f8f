import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeTenantWithTeam, type TestUser } from '../../../test/factories.js';
import { salesSnapshots } from '../../db/schema/purchasing.js';
import { predictionJobs } from './predictions.jobs.js';

/**
 * The daily sales snapshot from real orders, paid with the mock gateway, in São Paulo (UTC-3 all year).
 * Day D = 2030-03-14. Dishes X and Y.
 * - 12:00 D: #1 X x2 + Y x1 paid in cash -> D
 * - 12:00 D: #2 X x3 paid at 23:30 D (02:30 UTC of D+1) -> D
 * - 12:00 D: #3 X x1 delivered at 13:00 D, never paid -> D
 * - 12:00 D: #4 X x5 paid, then cancelled -> nowhere
 * - 12:00 D: #5 X x4 left open and unpaid -> nowhere
 * - 12:00 D: #6 Y x2 split by lines into two parts, both paid: the parent counts (at the split), never the parts
 * - 00:10 D+1: #7 X x1 paid -> D+1
 * So D: X 6 units in 3 orders, Y 3 units in 2 orders; D+1: X 1 in 1.
 */
const D = '2030-03-14';
const D1 = '2030-03-15';
const at = (iso: string) => new Date(iso);

let t: TestApp;
let slug: string;
let tenantId: string;
let admin: TestUser;
let x: string;
let y: string;
let cancelLater: string;

beforeAll(async () => {
  t = await createTestApp();
  t.clock.set(at(`${D}T15:00:00Z`));
  const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
  ({ slug, admin } = team);
  tenantId = team.tenant._id;
  x = (await makeMenuItem(t.app, team.tenant, { name: 'X Picanha', price: 1000 }))._id;
  y = (await makeMenuItem(t.app, team.tenant, { name: 'Y Moqueca', price: 2000 }))._id;

  const one = await order([{ menuItem: x, quantity: 2 }, { menuItem: y, quantity: 1 }]);
  await pay(one);
  const two = await order([{ menuItem: x, quantity: 3 }]);
  const three = await order([{ menuItem: x, quantity: 1 }]);
  const four = await order([{ menuItem: x, quantity: 5 }]);
  await pay(four);
  cancelLater = two;
  await order([{ menuItem: x, quantity: 4 }]);
  const six = await order([{ menuItem: y, quantity: 2 }]);
  const split = await call('POST', `/t/${slug}/orders/${six}/split`, { lines: [[{ line: 0, quantity: 1 }], [{ line: 0, quantity: 1 }]] });
  expect(split.statusCode, split.body).toBe(201);
  for (const part of split.json().parts) await pay(part._id);
  expect((await call('PUT', `/t/${slug}/orders/${four}/status`, { status: 'cancelled' })).statusCode).toBe(200);

  t.clock.set(at(`${D}T16:00:00Z`));
  expect((await call('PUT', `/t/${slug}/orders/${three}/status`, { status: 'delivered' })).statusCode).toBe(200);
  t.clock.set(at(`${D1}T02:30:00Z`));
  await pay(two);
  t.clock.set(at(`${D1}T03:10:00Z`));
  await pay(await order([{ menuItem: x, quantity: 1 }]));
});
afterAll(() => t.close());

/** A request with a token signed at the test clock's time (tokens live 15 minutes; the clock jumps hours). */
async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const headers = { authorization: `Bearer ${await t.app.deps.jwt.sign(admin.id)}` };
  return t.app.inject({ method, url, headers, payload: payload as never });
}

async function order(items: { menuItem: string; quantity: number }[]): Promise<string> {
  const res = await call('POST', `/t/${slug}/orders`, { orderType: 'takeout', items });
  expect(res.statusCode, res.body).toBe(201);
  return res.json()._id;
}

async function pay(orderId: string) {
  const res = await call('POST', `/t/${slug}/orders/${orderId}/process-payment`, { method: 'cash', gateway: 'mock' });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().status).toBe('approved');
}

const rowsOf = (day: string) =>
  t.app.deps.tenantDb(tenantId).run((tx) =>
    tx.db
      .select({ menuItemId: salesSnapshots.menuItemId, quantityMilli: salesSnapshots.quantityMilli, orders: salesSnapshots.orders })
      .from(salesSnapshots)
      .where(and(eq(salesSnapshots.tenantId, tenantId), eq(salesSnapshots.day, day)))
      .orderBy(asc(salesSnapshots.menuItemId)),
  );
const sorted = <T extends { menuItemId: string }>(rows: T[]) => [...rows].sort((a, b) => a.menuItemId.localeCompare(b.menuItemId));

describe('the daily snapshot job', () => {
  it('builds each tenant’s yesterday in the hour its clock passes 02:00, from the orders sold that day', async () => {
    const tick = async () => {
      await t.app.jobs.send(predictionJobs.snapshotTick, {});
      return t.app.jobs.drain({ names: [predictionJobs.snapshotTick, predictionJobs.buildSnapshot] });
    };
    // 01:59 local on D+1: not yet.
    t.clock.set(at(`${D1}T04:59:00Z`));
    expect(await t.app.services.purchasing.snapshotTick()).toBe(0);
    await tick();
    expect(await rowsOf(D)).toEqual([]);
    // 02:00:30 local: the tick sends the build of D, which runs.
    t.clock.set(at(`${D1}T05:00:30Z`));
    const ran = await tick();
    expect(ran.failed).toBe(0);
    const expected = sorted([
      { menuItemId: x, quantityMilli: 6000, orders: 3 },
      { menuItemId: y, quantityMilli: 3000, orders: 2 },
    ]);
    expect(await rowsOf(D)).toEqual(expected);
    // An hour later the tenant's 02:00 is not in the last hour: nothing is sent for it.
    t.clock.set(at(`${D1}T06:00:30Z`));
    expect(await t.app.services.purchasing.snapshotTick()).toBe(0);
    t.clock.set(at(`${D1}T05:59:59Z`));
    expect(await t.app.services.purchasing.snapshotTick()).toBe(1);
  });

  it('fires on the day a 02:00 does not exist (daylight saving starts at 2 a.m. in New York)', async () => {
    // 2030-03-10 in New York: 01:59 EST (06:59 UTC) is followed by 03:00 EDT (07:00 UTC).
    const ny = await t.app.services.tenants.create({ name: 'NY Diner', slug: 'ny-diner', timezone: 'America/New_York' });
    t.clock.set(at('2030-03-10T06:59:00Z'));
    expect(await t.app.services.purchasing.snapshotTick()).toBe(0);
    t.clock.set(at('2030-03-10T07:00:30Z')); // 03:00:30 EDT; São Paulo is at 04:00
    expect(await t.app.services.purchasing.snapshotTick()).toBe(1);
    await t.app.jobs.drain({ names: [predictionJobs.buildSnapshot] });
    await t.app.services.tenants.toggle(ny._id); // inactive tenants are skipped
    t.clock.set(at('2030-03-11T06:00:30Z')); // 02:00:30 EDT
    expect(await t.app.services.purchasing.snapshotTick()).toBe(0);
  });

  it('POST /snapshots/build builds yesterday now; building a day again gives the same rows, and follows a cancel', async () => {
    t.clock.set(at(`${D1}T15:00:00Z`));
    const res = await call('POST', `/t/${slug}/inventory/predictions/snapshots/build`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ message: `Sales snapshot of ${D} built: 2 menu items sold` });
    const first = await rowsOf(D);
    expect(first).toEqual(sorted([{ menuItemId: x, quantityMilli: 6000, orders: 3 }, { menuItemId: y, quantityMilli: 3000, orders: 2 }]));
    expect((await call('POST', `/t/${slug}/inventory/predictions/snapshots/build`)).statusCode).toBe(200);
    expect(await rowsOf(D)).toEqual(first);

    // #2 cancelled (refunded): D loses its 3 units of X when built again.
    expect((await call('PUT', `/t/${slug}/orders/${cancelLater}/status`, { status: 'cancelled' })).statusCode).toBe(200);
    expect((await call('POST', `/t/${slug}/inventory/predictions/snapshots/build?day=${D}`)).statusCode).toBe(200);
    expect(await rowsOf(D)).toEqual(sorted([{ menuItemId: x, quantityMilli: 3000, orders: 2 }, { menuItemId: y, quantityMilli: 3000, orders: 2 }]));

    // D+1 (a past day given): #7 only.
    t.clock.set(at(`2030-03-16T15:00:00Z`));
    const d1 = await call('POST', `/t/${slug}/inventory/predictions/snapshots/build`);
    expect(d1.json()).toEqual({ message: `Sales snapshot of ${D1} built: 1 menu item sold` });
    expect(await rowsOf(D1)).toEqual([{ menuItemId: x, quantityMilli: 1000, orders: 1 }]);
  });

  it('refuses today, a future day and one over 90 days back, naming day', async () => {
    t.clock.set(at(`2030-03-16T15:00:00Z`));
    for (const day of ['2030-03-16', '2030-04-01', '2029-12-15', 'nope']) {
      const res = await call('POST', `/t/${slug}/inventory/predictions/snapshots/build?day=${day}`);
      expect(res.statusCode, day).toBe(400);
      expect(res.body).toContain('querystring.day');
    }
    // The last 90 days end yesterday (2030-03-15): 2029-12-16 is the first of them.
    expect((await call('POST', `/t/${slug}/inventory/predictions/snapshots/build?day=2029-12-16`)).statusCode).toBe(200);
  });
});

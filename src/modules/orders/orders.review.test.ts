import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDate } from '../../platform/time.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeModifierGroup, makePdv, makeTable, makeTenantWithTeam } from '../../../test/factories.js';

/** The orders fixes of the payments review (issue 10): each case the review named. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ guestOrderRateLimit: { limit: 3, windowMs: 60_000 } });
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, headers: H = {}, payload?: object) =>
  t.app.inject({ method, url, headers, payload: payload as never });

async function restaurant() {
  const team = await makeTenantWithTeam(t.app);
  const half = await makeModifierGroup(t.app, team.tenant, {
    name: 'Porção',
    type: 'single',
    required: true,
    options: [
      { name: 'Inteira', priceAdjustment: 0, isDefault: true },
      { name: 'Meia', priceAdjustment: -3000 },
      { name: 'Degustação', priceAdjustment: -9000 },
    ],
  });
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 7000, modifierGroupIds: [half._id] });
  const soda = await makeMenuItem(t.app, team.tenant, { name: 'Guaraná', price: 700 });
  const table = await makeTable(t.app, team.tenant);
  const pdv = await makePdv(t.app, team.tenant);
  return { ...team, half, dish, soda, table, pdv };
}

describe('lines and prices', () => {
  it('applies the default option of a required group when none is sent, and lets an option lower the price, never below zero', async () => {
    const r = await restaurant();
    const res = await call('POST', `/t/${r.slug}/orders`, r.admin.headers, {
      orderType: 'takeout',
      items: [
        { menuItem: r.dish._id, quantity: 1 },
        { menuItem: r.dish._id, quantity: 1, modifiers: [{ groupId: r.half._id, options: ['Meia'] }] },
        { menuItem: r.dish._id, quantity: 1, modifiers: [{ groupId: r.half._id, options: ['Degustação'] }] },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json();
    expect(order.items.map((l: { price: number; modifiers: { options: { name: string }[] }[] }) => [l.price, l.modifiers[0].options[0].name])).toEqual([
      [7000, 'Inteira'],
      [4000, 'Meia'],
      [0, 'Degustação'],
    ]);
    expect(order.total).toBe(11000);
  });

  it('merges a round into a line only at the same unit price: a price change is not back-dated', async () => {
    const r = await restaurant();
    const order = (await call('POST', `/t/${r.slug}/orders`, r.admin.headers, { orderType: 'takeout', items: [{ menuItem: r.soda._id, quantity: 2 }] })).json();
    expect((await call('PUT', `/t/${r.slug}/menu/items/${r.soda._id}`, r.admin.headers, { price: 800 })).statusCode).toBe(200);
    const more = await call('PATCH', `/t/${r.slug}/orders/${order._id}/add-items`, r.admin.headers, { items: [{ menuItem: r.soda._id, quantity: 1 }] });
    expect(more.json().items.map((l: { price: number; quantity: number }) => [l.price, l.quantity])).toEqual([
      [700, 2],
      [800, 1],
    ]);
    expect(more.json().total).toBe(2200);
  });
});

describe('tables', () => {
  it('cannot be set available or deleted while an order is open on them (409)', async () => {
    const r = await restaurant();
    const tab = (await call('POST', `/t/${r.slug}/orders`, r.admin.headers, { orderType: 'dine_in', table: r.table._id, items: [{ menuItem: r.soda._id, quantity: 1 }] })).json();
    const free = await call('PUT', `/t/${r.slug}/tables/${r.table._id}`, r.admin.headers, { status: 'available' });
    expect([free.statusCode, free.json().code]).toEqual([409, 'table_in_use']);
    const gone = await call('DELETE', `/t/${r.slug}/tables/${r.table._id}`, r.admin.headers);
    expect([gone.statusCode, gone.json().code]).toEqual([409, 'table_in_use']);
    expect((await call('GET', `/t/${r.slug}/orders/open-tab/${r.table._id}`, r.admin.headers)).json()._id).toBe(tab._id);
    // Once the tab is closed, the table is free again by itself.
    expect((await call('POST', `/t/${r.slug}/orders/${tab._id}/close-tab`, r.admin.headers, {})).statusCode).toBe(200);
    expect((await call('GET', `/t/${r.slug}/orders/open-tab/${r.table._id}`, r.admin.headers)).json()).toBeNull();
    expect((await call('DELETE', `/t/${r.slug}/tables/${r.table._id}`, r.admin.headers)).statusCode).toBe(200);
  });
});

describe('the orders list', () => {
  it('pages with X-Total-Count, accepts pdvIds[]=, and keeps open orders of earlier days in view', async () => {
    const r = await restaurant();
    const create = (extra: object = {}) =>
      call('POST', `/t/${r.slug}/orders`, r.admin.headers, { orderType: 'takeout', items: [{ menuItem: r.soda._id, quantity: 1 }], ...extra });
    const yesterdayOpen = (await create()).json();
    const yesterdayDone = (await create()).json();
    await call('PUT', `/t/${r.slug}/orders/${yesterdayDone._id}/status`, r.admin.headers, { status: 'delivered' });
    // Both made yesterday (the database stamps creation time; moved back a day here).
    await t.app.deps.tenantDb(r.tenant._id).run((tx) =>
      tx.db.execute(sql`update orders set created_at = created_at - interval '1 day' where id in (${yesterdayOpen._id}, ${yesterdayDone._id})`),
    );
    const onPdv = (await create({ pdv: r.pdv.pdvId })).json();
    await create();
    await create();
    const list = (query: string) => call('GET', `/t/${r.slug}/orders${query}`, r.admin.headers);
    const all = await list('?limit=2');
    expect(all.headers['x-total-count'], all.body).toBe('4');
    expect(all.json()).toHaveLength(2);
    const last = await list('?limit=2&page=2');
    expect(last.json().map((o: { _id: string }) => o._id)).toContain(yesterdayOpen._id);
    expect([...all.json(), ...last.json()].map((o: { _id: string }) => o._id)).not.toContain(yesterdayDone._id);
    // With an explicit period, only that period.
    const today = localDate(t.clock.now(), r.tenant.timezone);
    expect((await list(`?from=${today}&to=${today}`)).headers['x-total-count']).toBe('3');
    const byPdv = await list(`?pdvIds[]=${r.pdv.pdvId}`);
    expect(byPdv.statusCode, byPdv.body).toBe(200);
    expect(byPdv.json().map((o: { _id: string }) => o._id)).toEqual([onPdv._id]);
    expect((await list(`?pdvIds[]=${'0'.repeat(23)}`)).statusCode).toBe(400);
  });
});

describe('guest orders', () => {
  it('are throttled per address (429 with Retry-After), and each address has its own budget', async () => {
    const r = await restaurant();
    const guest = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: `/t/${r.slug}/orders`,
        remoteAddress,
        payload: { pdv: r.pdv.pdvId, customerName: 'Ana', paymentMethod: 'cash', orderType: 'takeout', items: [{ menuItemId: r.soda._id, quantity: 1 }] },
      });
    for (let i = 0; i < 3; i++) expect((await guest('10.9.0.1')).statusCode).toBe(201);
    const over = await guest('10.9.0.1');
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect((await guest('10.9.0.2')).statusCode).toBe(201);
    // Staff are not counted.
    expect((await call('POST', `/t/${r.slug}/orders`, r.admin.headers, { orderType: 'takeout', items: [{ menuItem: r.soda._id, quantity: 1 }] })).statusCode).toBe(201);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeCategory, makeMenuItem, makeTenantWithTeam } from '../../../test/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: H = {}, payload?: object) =>
  t.app.inject({ method, url, headers, payload: payload as never });

describe('kitchen stations', () => {
  it('an item has a station (kitchen by default) on create, update and every list', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const category = await makeCategory(t.app, tenant);
    const created = await call('POST', `/t/${slug}/menu/items`, admin.headers, { name: 'Caipirinha', price: 2490, category: category._id, station: 'bar' });
    expect(created.statusCode).toBe(201);
    expect(created.json().station).toBe('bar');
    const plain = await call('POST', `/t/${slug}/menu/items`, admin.headers, { name: 'Feijoada', price: 6990, category: category._id });
    expect(plain.json().station).toBe('kitchen');

    const updated = await call('PUT', `/t/${slug}/menu/items/${plain.json()._id}`, admin.headers, { station: 'desserts' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().station).toBe('desserts');
    // An update without station keeps it.
    expect((await call('PUT', `/t/${slug}/menu/items/${created.json()._id}`, admin.headers, { price: 2590 })).json().station).toBe('bar');

    const stations = (items: { name: string; station: string }[]) => Object.fromEntries(items.map((i) => [i.name, i.station]));
    expect(stations((await call('GET', `/t/${slug}/menu/items`)).json())).toEqual({ Caipirinha: 'bar', Feijoada: 'desserts' });
    expect(stations((await call('GET', `/t/${slug}/admin/menu/items`, admin.headers)).json())).toEqual({ Caipirinha: 'bar', Feijoada: 'desserts' });
    expect((await call('GET', `/t/${slug}/menu/items/${created.json()._id}`)).json().station).toBe('bar');
  });

  it('refuses a station outside the list, naming the field', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const category = await makeCategory(t.app, tenant);
    const bad = await call('POST', `/t/${slug}/menu/items`, admin.headers, { name: 'Chope', price: 1290, category: category._id, station: 'grill' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('body.station');
    const item = await makeMenuItem(t.app, tenant);
    const badUpdate = await call('PUT', `/t/${slug}/menu/items/${item._id}`, admin.headers, { station: null });
    expect(badUpdate.statusCode).toBe(400);
    expect(badUpdate.json().details[0].field).toBe('body.station');
  });

  it("an order line keeps the item's station and preparation time from when it was ordered", async () => {
    const { tenant, slug, staff, admin } = await makeTenantWithTeam(t.app);
    const drink = await makeMenuItem(t.app, tenant, { name: 'Chope', price: 1290, preparationTime: 2, station: 'bar' });
    const dish = await makeMenuItem(t.app, tenant, { name: 'Moqueca', price: 8990, preparationTime: undefined });
    const res = await call('POST', `/t/${slug}/orders`, staff.headers, {
      orderType: 'takeout',
      customerName: 'João',
      items: [
        { menuItem: drink._id, quantity: 2 },
        { menuItem: dish._id, quantity: 1 },
      ],
    });
    expect(res.statusCode).toBe(201);
    const [first, second] = res.json().items;
    expect(first).toMatchObject({ station: 'bar', preparationTime: 2 });
    expect(second.station).toBe('kitchen');
    expect(second).not.toHaveProperty('preparationTime');

    // A later menu change does not move lines already made.
    await call('PUT', `/t/${slug}/menu/items/${drink._id}`, admin.headers, { station: 'kitchen', preparationTime: 9 });
    const order = (await call('GET', `/t/${slug}/orders`, admin.headers)).json().find((o: { _id: string }) => o._id === res.json()._id);
    expect(order.items[0]).toMatchObject({ station: 'bar', preparationTime: 2 });
  });
});

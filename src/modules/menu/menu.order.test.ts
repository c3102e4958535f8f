import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeCategory, makeTenantWithTeam } from '../../../test/factories.js';

/** A dish's place within its category (`order`), as the panel's menu editor sets it by drag or keys. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: H = {}, payload?: object) =>
  t.app.inject({ method, url, headers, payload: payload as never });

describe('menu item order', () => {
  it('lists items by their order within the category, then by name, on the public and the admin lists', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const category = await makeCategory(t.app, tenant);
    const make = async (name: string, order?: number) => {
      const res = await call('POST', `/t/${slug}/menu/items`, admin.headers, { name, price: 1000, category: category._id, ...(order === undefined ? {} : { order }) });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { _id: string; order: number };
    };
    const a = await make('Açaí');
    await make('Bolo', 2);
    await make('Cocada', 1);
    expect(a.order).toBe(0);
    const names = async (url: string, headers: H = {}) => ((await call('GET', url, headers)).json() as { name: string }[]).map((i) => i.name);
    expect(await names(`/t/${slug}/menu/items`)).toEqual(['Açaí', 'Cocada', 'Bolo']);

    // Moving Açaí to the end.
    const moved = await call('PUT', `/t/${slug}/menu/items/${a._id}`, admin.headers, { order: 3 });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().order).toBe(3);
    expect(await names(`/t/${slug}/menu/items`)).toEqual(['Cocada', 'Bolo', 'Açaí']);
    expect(await names(`/t/${slug}/admin/menu/items`, admin.headers)).toEqual(['Cocada', 'Bolo', 'Açaí']);
  });

  it('refuses a negative or fractional order, naming the field, and changes nothing', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const category = await makeCategory(t.app, tenant);
    const item = (await call('POST', `/t/${slug}/menu/items`, admin.headers, { name: 'Pudim', price: 900, category: category._id, order: 4 })).json();
    for (const order of [-1, 1.5, 'first']) {
      const res = await call('PUT', `/t/${slug}/menu/items/${item._id}`, admin.headers, { order });
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0].field).toBe('body.order');
    }
    expect((await call('GET', `/t/${slug}/menu/items/${item._id}`)).json().order).toBe(4);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, testConfig, type TestApp } from '../../../test/app.js';
import { login } from '../../../test/factories.js';
import { seedFirstStart } from '../../seed.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('demo tenant', () => {
  it('shows a Brazilian menu, 10 tables and a few reservations through the routes', async () => {
    const logins = await seedFirstStart(t.app.deps.tenantDb, t.app.services, testConfig({ seedDemo: true }), { DEMO_PASSWORD: 'demo-password-123' });
    const admin = logins.find((l) => l.who === 'demo admin')!;

    const categories = (await t.app.inject({ url: '/t/demo/menu/categories' })).json();
    expect(categories.length).toBeGreaterThanOrEqual(5);
    expect(categories.map((c: { name: string }) => c.name)).toContain('Sobremesas');

    const items = (await t.app.inject({ url: '/t/demo/menu/items' })).json();
    expect(items.length).toBeGreaterThanOrEqual(30);
    for (const item of items) {
      expect(Number.isInteger(item.price)).toBe(true);
      expect(item.price).toBeGreaterThan(0);
    }
    expect(items.filter((i: { allergens: string[] }) => i.allergens.length > 0).length).toBeGreaterThan(10);
    const feijoada = items.find((i: { name: string }) => i.name === 'Feijoada completa');
    expect(feijoada.price).toBe(6990);
    const stationOf = (name: string) => items.find((i: { name: string }) => i.name === name).station;
    expect([stationOf('Feijoada completa'), stationOf('Caipirinha de limão'), stationOf('Café expresso'), stationOf('Pudim de leite condensado')])
      .toEqual(['kitchen', 'bar', 'bar', 'desserts']);

    const groups = (await t.app.inject({ url: '/t/demo/menu/modifier-groups' })).json();
    expect(groups.map((g: { name: string }) => g.name).sort()).toEqual(['Acompanhamento', 'Adicionais', 'Ponto da carne']);
    const picanha = items.find((i: { name: string }) => i.name.startsWith('Picanha'));
    const detail = (await t.app.inject({ url: `/t/demo/menu/items/${picanha._id}` })).json();
    expect(detail.variations.map((v: { name: string }) => v.name)).toEqual(['Ponto da carne', 'Acompanhamento', 'Adicionais']);
    // Its recipe, from the inventory's demo seed: what goes into the dish, without costs.
    type Line = { inventoryItem: { name: string }; quantityPerUnit: number; unit: string };
    expect(detail.bom.ingredients.map((i: Line) => [i.inventoryItem.name, i.quantityPerUnit, i.unit]))
      .toEqual(expect.arrayContaining([['Picanha bovina', 0.4, 'kg'], ['Cebola', 50, 'g']]));
    const pudim = items.find((i: { name: string }) => i.name === 'Pudim de leite condensado');
    expect((await t.app.inject({ url: `/t/demo/menu/items/${pudim._id}` })).json().bom.ingredients).toHaveLength(4);
    const coffee = items.find((i: { name: string }) => i.name === 'Café expresso');
    expect((await t.app.inject({ url: `/t/demo/menu/items/${coffee._id}` })).json().bom).toBeNull();

    const { accessToken } = (await login(t.app, admin.email, admin.password!)).json();
    const headers = { authorization: `Bearer ${accessToken}` };
    const tables = (await t.app.inject({ url: '/t/demo/tables', headers })).json();
    expect(tables.map((x: { number: number }) => x.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const reservations = (await t.app.inject({ url: '/t/demo/reservations', headers })).json();
    expect(reservations.length).toBeGreaterThanOrEqual(3);
    expect(new Set(reservations.map((r: { status: string }) => r.status))).toEqual(new Set(['pending', 'confirmed', 'cancelled']));
  });
});

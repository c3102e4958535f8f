import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { seedDemoTenant } from '../../../test/demo.js';

let t: TestApp;
let demo: Awaited<ReturnType<typeof seedDemoTenant>>;
beforeAll(async () => {
  t = await createTestApp();
  demo = await seedDemoTenant(t);
});
afterAll(() => t.close());
const get = (url: string) => demo.get(url);

describe('the demo kitchen', () => {
  it('has stock for the best sellers, two items under their minimum, and items expiring or expired', async () => {
    const stats = await get('/t/demo/inventory/stats');
    expect(stats).toMatchObject({ totalItems: 15, lowStock: 2, expired: 0, blocked: 0 });
    expect(stats.totalValue).toBeGreaterThan(0);
    const alerts = await get('/t/demo/inventory/alerts');
    // Two in the catalog, and the cans at the Vila Madalena counter.
    expect(alerts.map((a: { itemName: string; pdvName: string | null }) => `${a.itemName} @ ${a.pdvName ?? 'catalog'}`).sort()).toEqual([
      'Carne seca @ catalog',
      'Guaraná lata 350 ml @ Balcão Vila',
      'Pão de queijo congelado @ catalog',
    ]);

    const expiring = await get('/t/demo/inventory/expiration-alerts');
    const names = (list: { name: string }[]) => list.map((i) => i.name).sort();
    expect(names(expiring.expiredItems)).toEqual(['Pão de queijo congelado']);
    expect(names(expiring.expiringIn7)).toEqual(['Couve manteiga', 'Leite integral']);
    expect(names(expiring.expiringIn30)).toEqual(['Laranja pera']);

    const low = await get('/t/demo/branch-stock/alerts');
    expect(low.map((r: { pdv: { name: string }; physicalQuantity: number }) => [r.pdv.name, r.physicalQuantity])).toEqual([[expect.any(String), 3]]);
  });

  it('deducts a feijoada sold at the counter from the catalog, to the gram', async () => {
    const items = await get('/t/demo/menu/items');
    const feijoada = items.find((i: { name: string }) => i.name === 'Feijoada completa');
    const stockOf = async (name: string) =>
      ((await get('/t/demo/inventory')) as { name: string; currentStock: number }[]).find((i) => i.name === name)!.currentStock;
    expect(await stockOf('Feijão preto')).toBe(12);
    const order = await t.app.inject({
      method: 'POST',
      url: '/t/demo/orders',
      headers: demo.headers,
      payload: { orderType: 'takeout', pdv: 'balcao', items: [{ menuItem: feijoada._id, quantity: 2 }] },
    });
    expect(order.statusCode, order.body).toBe(201);
    const paid = await t.app.inject({
      method: 'POST',
      url: `/t/demo/orders/${order.json()._id}/process-payment`,
      headers: demo.headers,
      payload: { method: 'cash', gateway: 'mock' },
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(await stockOf('Feijão preto')).toBe(11.7);
    expect(await stockOf('Laranja pera')).toBe(38);
    expect(await stockOf('Carne seca')).toBe(3.04);
  });
});

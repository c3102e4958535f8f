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

describe('the demo purchasing', () => {
  it('has three suppliers and a purchase order in each state, the received ones in stock', async () => {
    expect((await get('/t/demo/inventory/suppliers')).map((s: { name: string }) => s.name).sort()).toEqual([
      'Distribuidora Grãos do Vale',
      'Frigorífico Boi Bom',
      'Laticínios Serra Azul',
    ]);
    const orders = await get('/t/demo/inventory/purchase-orders');
    expect(orders.map((o: { status: string }) => o.status).sort()).toEqual(['draft', 'partial', 'received', 'sent']);
    const stock = (await get('/t/demo/inventory')) as { sku: string; currentStock: number }[];
    const of = (sku: string) => stock.find((i) => i.sku === sku)!.currentStock;
    expect([of('ACUCAR'), of('CEBOLA'), of('LEITE-COND'), of('OVOS')]).toEqual([15, 12, 36, 60]);
  });

  it('forecasts the dishes from 60 days of history, the weekly rhythm beating the moving average', async () => {
    const demand = (await get('/t/demo/inventory/predictions/demand?horizon=7')) as {
      menuItemName: string;
      confidence: number;
      method: string;
      mape: { wma: number; weekday: number };
    }[];
    expect(demand.length).toBe(8);
    for (const d of demand) {
      expect(d.confidence).toBe(1);
      expect(d.method).toBe('weekday');
      expect(d.mape.weekday).toBeLessThan(d.mape.wma);
    }
    const suggestions = await get('/t/demo/inventory/predictions/suggestions?horizon=7');
    expect(suggestions.length).toBeGreaterThan(5);
  });
});

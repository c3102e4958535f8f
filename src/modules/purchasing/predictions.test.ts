import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { salesSnapshots } from '../../db/schema/purchasing.js';
import { addDays } from '../../platform/time.js';

/**
 * Predictions routes (spec 4.8): ingredient suggestions, suggested purchase orders and their decision, and the
 * guards of every route. Today is 2030-06-15 in São Paulo; the history ends yesterday.
 *
 * Dish A sells 10 a day and 24 on every 7th day (two weeks): the weekday method forecasts 84 for 7 days. Dish B
 * sold 10 a day for a week then 12 a day: the moving average, 1204/105 a day, 80.267 for 7 days
 * (predictions.forecast.test.ts computes both). Recipes: A = 2 bread + 5 g salt; B = 200 g beef + 5 g salt.
 */
const TODAY = '2030-06-15';
const YESTERDAY = '2030-06-14';
const MISSING = 'ffffffffffffffffffffffff';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  t.clock.set(new Date(`${TODAY}T15:00:00Z`));
});
afterAll(() => t.close());

type H = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT';
const call = (method: Method, url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, payload: payload as never });

async function history(tenantId: string, menuItemId: string, units: number[]) {
  const rows = units.map((u, i) => ({ tenantId, menuItemId, day: addDays(YESTERDAY, -(units.length - 1 - i)), quantityMilli: u * 1000, orders: 1 }));
  await t.app.deps.tenantDb(tenantId).run((tx) => tx.db.insert(salesSnapshots).values(rows));
}

async function kitchen(plan: 'premium' | 'basic' = 'premium') {
  const team = await makeTenantWithTeam(t.app, { plan });
  const h = team.admin.headers;
  const item = async (body: object) => {
    const res = await call('POST', `/t/${team.slug}/inventory`, h, { minStock: 0, ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json()._id as string;
  };
  const beef = await item({ name: 'Carne', sku: 'CARNE', unit: 'kg', currentStock: 10, minStock: 2, cost: 5000 });
  const salt = await item({ name: 'Sal', sku: 'SAL', unit: 'kg', currentStock: 0.5, cost: 200 });
  const bread = await item({ name: 'Pão', sku: 'PAO', unit: 'un', currentStock: 500, cost: 85 });
  await item({ name: 'Azeite', sku: 'AZEITE', unit: 'l', currentStock: 3, cost: 1500 }); // in no recipe
  const a = await makeMenuItem(t.app, team.tenant, { name: 'A Feijoada' });
  const b = await makeMenuItem(t.app, team.tenant, { name: 'B Moqueca' });
  const recipe = async (menuItemId: string, inventoryItemId: string, quantityPerUnit: number, unit?: string) => {
    const res = await call('POST', `/t/${team.slug}/inventory/ingredients`, h, { menuItemId, inventoryItemId, quantityPerUnit, ...(unit ? { unit } : {}) });
    expect(res.statusCode, res.body).toBe(201);
  };
  await recipe(a._id, bread, 2);
  await recipe(a._id, salt, 5, 'g');
  await recipe(b._id, beef, 200, 'g');
  await recipe(b._id, salt, 5, 'g');
  await history(team.tenant._id, a._id, [10, 10, 10, 10, 10, 10, 24, 10, 10, 10, 10, 10, 10, 24]);
  await history(team.tenant._id, b._id, [10, 10, 10, 10, 10, 10, 10, 12, 12, 12, 12, 12, 12, 12]);
  const base = `/t/${team.slug}/inventory/predictions`;
  return { ...team, beef, salt, bread, base };
}

/**
 * By hand, in thousandths: A 84 x 2 bread = 168 un; B 80.267 x 0.2 kg = 16.0534 -> 16.053 kg of beef; salt
 * 84 x 0.005 + 80.267 x 0.005 = 0.821335 -> 0.821 kg (rounded once per item). Days until stockout = available /
 * (demand / 7), rounded down to the tenth: salt 0.5 x 7 / 0.821 = 4.26 -> 4.2; beef 10 x 7 / 16.053 = 4.36 -> 4.3;
 * bread 500 x 7 / 168 = 20.83 -> 20.8. Order = demand + minimum - available: salt 0.321 (64.2 -> 64 cents at
 * R$ 2,00/kg), beef 16.053 + 2 - 10 = 8.053 (R$ 402,65 at R$ 50,00/kg), bread none.
 */
const expectedSuggestions = (k: { beef: string; salt: string; bread: string }) => [
  {
    inventoryItemId: k.salt,
    itemName: 'Sal',
    unit: 'kg',
    currentStock: 0.5,
    availableQuantity: 0.5,
    minStock: 0,
    predictedDemand: 0.821,
    daysUntilStockout: 4.2,
    suggestedOrder: 0.321,
    estimatedCost: 64,
  },
  {
    inventoryItemId: k.beef,
    itemName: 'Carne',
    unit: 'kg',
    currentStock: 10,
    availableQuantity: 10,
    minStock: 2,
    predictedDemand: 16.053,
    daysUntilStockout: 4.3,
    suggestedOrder: 8.053,
    estimatedCost: 40265,
  },
  {
    inventoryItemId: k.bread,
    itemName: 'Pão',
    unit: 'un',
    currentStock: 500,
    availableQuantity: 500,
    minStock: 0,
    predictedDemand: 168,
    daysUntilStockout: 20.8,
    suggestedOrder: 0,
    estimatedCost: 0,
  },
];

describe('GET /inventory/predictions/suggestions', () => {
  it('turns the forecast into ingredient demand through the recipes, most urgent first', async () => {
    const k = await kitchen();
    const res = await call('GET', `${k.base}/suggestions`, k.admin.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(expectedSuggestions(k));
    // 14 days: A 168 (two weeks of its pattern) x 2 = 336 bread.
    const two = await call('GET', `${k.base}/suggestions?horizon=14`, k.admin.headers);
    expect(two.json().find((d: { itemName: string }) => d.itemName === 'Pão')).toMatchObject({ predictedDemand: 336, daysUntilStockout: 20.8 });
    expect((await call('GET', `${k.base}/suggestions?horizon=91`, k.admin.headers)).body).toContain('horizon');
  });
});

describe('suggested purchase orders', () => {
  it('generates a pending order of what needs restock, approves it into a draft purchase order, once', async () => {
    const k = await kitchen();
    const gen = await call('POST', `${k.base}/generate`, k.admin.headers);
    expect(gen.statusCode, gen.body).toBe(200);
    const suggestion = gen.json();
    const [salt, beef] = expectedSuggestions(k);
    expect(suggestion).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      status: 'pending',
      horizonDays: 7,
      items: [salt, beef],
      totalCost: 64 + 40265,
      purchaseOrder: null,
      decidedBy: null,
      decidedAt: null,
      createdAt: expect.stringMatching(new RegExp(`^${TODAY}T15:`)),
      updatedAt: suggestion.createdAt,
    });

    const approved = await call('PUT', `${k.base}/suggested-orders/${suggestion._id}/approve`, k.admin.headers);
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'approved', decidedBy: k.admin.id, purchaseOrder: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const po = await t.app.services.purchasing.getPurchaseOrder(t.app.deps.tenantDb(k.tenant._id), approved.json().purchaseOrder);
    expect(po).toMatchObject({
      status: 'draft',
      orderNumber: 'PO-20300615-0001',
      suggestion: suggestion._id,
      totalCost: 40329,
      items: [
        { inventoryItemId: k.salt, itemName: 'Sal', quantity: 0.321, unitCost: 200, subtotal: 64, receivedQuantity: 0 },
        { inventoryItemId: k.beef, itemName: 'Carne', quantity: 8.053, unitCost: 5000, subtotal: 40265, receivedQuantity: 0 },
      ],
    });
    // Decided: neither action again (409), and no second purchase order.
    for (const action of ['approve', 'dismiss']) {
      const again = await call('PUT', `${k.base}/suggested-orders/${suggestion._id}/${action}`, k.admin.headers);
      expect(again.statusCode, action).toBe(409);
      expect(again.json().code).toBe('suggestion_decided');
    }
    expect((await t.app.services.purchasing.listPurchaseOrders(t.app.deps.tenantDb(k.tenant._id), {})).orders).toHaveLength(1);

    // Dismiss another: recorded, no purchase order.
    const other = (await call('POST', `${k.base}/generate?horizon=14`, k.admin.headers)).json();
    expect(other.horizonDays).toBe(14);
    const dismissed = await call('PUT', `${k.base}/suggested-orders/${other._id}/dismiss`, k.admin.headers);
    expect(dismissed.statusCode, dismissed.body).toBe(200);
    expect(dismissed.json()).toMatchObject({ status: 'dismissed', purchaseOrder: null, decidedBy: k.admin.id });
    expect((await t.app.services.purchasing.listPurchaseOrders(t.app.deps.tenantDb(k.tenant._id), {})).orders).toHaveLength(1);
  });

  it('answers null when nothing needs restock, and lists the 20 newest first', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const none = await call('POST', `/t/${team.slug}/inventory/predictions/generate`, team.admin.headers);
    expect(none.statusCode, none.body).toBe(200);
    expect(none.json()).toBeNull();

    const k = await kitchen();
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) {
      t.clock.advance(1000);
      ids.push((await call('POST', `${k.base}/generate`, k.admin.headers)).json()._id);
    }
    const list = await call('GET', `${k.base}/suggested-orders`, k.admin.headers);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().map((s: { _id: string }) => s._id)).toEqual(ids.slice(1).reverse());
  });

  it('validates the action and answers 404 for an unknown suggestion', async () => {
    const k = await kitchen();
    const bad = await call('PUT', `${k.base}/suggested-orders/${MISSING}/maybe`, k.admin.headers);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('action');
    expect((await call('PUT', `${k.base}/suggested-orders/${MISSING}/approve`, k.admin.headers)).statusCode).toBe(404);
    expect((await call('PUT', `${k.base}/suggested-orders/nope/approve`, k.admin.headers)).statusCode).toBe(400);
  });
});

describe('guards', () => {
  const routes = (base: string, id: string): [Method, string][] => [
    ['GET', `${base}/demand`],
    ['GET', `${base}/suggestions`],
    ['GET', `${base}/suggested-orders`],
    ['POST', `${base}/generate`],
    ['PUT', `${base}/suggested-orders/${id}/dismiss`],
    ['POST', `${base}/snapshots/build`],
  ];

  it('401 without a token, 403 for staff and the accountant, 403 naming the feature on a plan without it; superadmin passes', async () => {
    const k = await kitchen();
    const id = (await call('POST', `${k.base}/generate`, k.admin.headers)).json()._id;
    for (const [method, url] of routes(k.base, id)) {
      expect((await call(method, url)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, k.staff.headers)).statusCode, `${method} ${url} staff`).toBe(403);
      expect((await call(method, url, k.accountant.headers)).statusCode, `${method} ${url} accountant`).toBe(403);
    }
    const basic = await makeTenantWithTeam(t.app, { plan: 'basic' });
    for (const [method, url] of routes(`/t/${basic.slug}/inventory/predictions`, MISSING)) {
      const res = await call(method, url, basic.admin.headers);
      expect(res.statusCode, `${method} ${url} basic plan`).toBe(403);
      expect(res.body).toContain('inventoryPrediction');
    }
    const sa = await makeSuperadmin(t.app);
    const demand = await call('GET', `${k.base}/demand`, sa.headers);
    expect(demand.statusCode, demand.body).toBe(200);
    expect(demand.json()).toHaveLength(2);
    // The suggestion is still pending: none of the refused calls decided it.
    expect((await call('GET', `${k.base}/suggested-orders`, k.admin.headers)).json()[0]).toMatchObject({ _id: id, status: 'pending' });
  });

  it("another tenant's suggestion is a 404 through its own slug and a 403 through the owner's", async () => {
    const k = await kitchen();
    const id = (await call('POST', `${k.base}/generate`, k.admin.headers)).json()._id;
    const outsider = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: k.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'PUT', path: `/t/:slug/inventory/predictions/suggested-orders/${id}/approve` },
        { method: 'PUT', path: `/t/:slug/inventory/predictions/suggested-orders/${id}/dismiss` },
      ],
      snapshot: async () => (await call('GET', `${k.base}/suggested-orders`, k.admin.headers)).json(),
    });
    // The outsider's own lists do not show it, and its forecast knows nothing of the owner's sales.
    expect((await call('GET', `/t/${outsider.slug}/inventory/predictions/suggested-orders`, outsider.admin.headers)).json()).toEqual([]);
    expect((await call('GET', `/t/${outsider.slug}/inventory/predictions/demand`, outsider.admin.headers)).json()).toEqual([]);
  });
});

describe('/openapi.json', () => {
  it('documents every predictions route with the closed sets of its answers as enums', async () => {
    const doc = (await call('GET', '/openapi.json')).json();
    const op = (method: string, path: string) => JSON.stringify(doc.paths[`/t/{slug}/inventory/predictions${path}`]?.[method] ?? null);
    expect(op('get', '/demand')).toContain('"enum":["up","down","stable"]');
    expect(op('get', '/demand')).toContain('"enum":["wma","weekday"]');
    expect(op('get', '/suggestions')).toContain('"enum":["kg","l","un"]');
    for (const [method, path] of [['get', '/suggested-orders'], ['post', '/generate'], ['put', '/suggested-orders/{id}/{action}']]) {
      expect(op(method, path)).toContain('"enum":["pending","approved","dismissed"]');
    }
    expect(op('post', '/snapshots/build')).toContain('message');
  });
});

import { randomBytes } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeCategory, makeMenuItem, makePdv, makeTable, makeTenantWithTeam } from '../../../test/factories.js';
import { newId } from '../../db/ids.js';
import { branchStock, inventoryItems, inventoryMovements, orderStock, type StockUnit } from '../../db/schema/inventory.js';
import { milli } from '../../platform/quantity.js';
import { consumed, lineCost, soldMilli, stockNeeded, unitFactor, type RecipeAmount } from './deduction.js';

/**
 * Deduction on sale over HTTP: the orders and payments routes (mock gateway) move the stock of the
 * recipes exactly once, whatever happens to the order afterwards.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, payload: payload as never });
const ok = <T = Record<string, unknown>>(res: { statusCode: number; body: string; json: () => unknown }, status = 200): T => {
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as T;
};

interface Order {
  _id: string;
  orderNumber: string;
  total: number;
  status: string;
  paymentStatus: string | null;
}

/**
 * A restaurant with five stock items (beef and salt by kg, bread by unit, oil and lettuce by litre/kg), a
 * grilled dish (180 g beef, 2 breads, 15 ml oil, 0.4 g salt), a salad sold by weight (0.6 kg lettuce and
 * 20 ml oil per kg sold) and a soda without recipe.
 */
async function restaurant() {
  const team = await makeTenantWithTeam(t.app);
  const tenantId = team.tenant._id;
  const db = () => t.app.deps.tenantDb(tenantId);
  const item = async (name: string, unit: StockUnit, stock: number, cost: number) => {
    const id = newId();
    await db().run((tx) =>
      tx.db.insert(inventoryItems).values({ tenantId, id, name, sku: `SKU-${randomBytes(3).toString('hex')}`, unit, physicalMilli: milli(stock), costCents: cost }),
    );
    return id;
  };
  const beef = await item('Picanha', 'kg', 20, 7990);
  const bread = await item('Pão', 'un', 100, 85);
  const oil = await item('Azeite', 'l', 6, 1200);
  const salt = await item('Sal', 'kg', 1, 300);
  const lettuce = await item('Alface', 'kg', 5, 900);
  const category = await makeCategory(t.app, team.tenant);
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Picanha na chapa', price: 8990, category: category._id });
  const salad = await makeMenuItem(t.app, team.tenant, { name: 'Salada por quilo', price: 5990, unit: 'kg', category: category._id });
  const soda = await makeMenuItem(t.app, team.tenant, { name: 'Guaraná', price: 695, category: category._id });
  const recipe = async (menuItemId: string, inventoryItemId: string, quantityPerUnit: number, unit?: string) =>
    ok(await call('POST', `/t/${team.slug}/inventory/ingredients`, team.admin.headers, { menuItemId, inventoryItemId, quantityPerUnit, unit }), 201);
  await recipe(dish._id, beef, 180, 'g');
  await recipe(dish._id, bread, 2);
  await recipe(dish._id, oil, 15, 'ml');
  await recipe(dish._id, salt, 0.4, 'g');
  await recipe(salad._id, lettuce, 0.6);
  await recipe(salad._id, oil, 20, 'ml');
  const base = `/t/${team.slug}/orders`;
  const h = team.admin.headers;

  return {
    ...team,
    tenantId,
    items: { beef, bread, oil, salt, lettuce },
    dish,
    salad,
    soda,
    order: async (items: object[], extra: object = {}): Promise<Order> => ok(await call('POST', base, h, { orderType: 'takeout', items, ...extra }), 201),
    /** Pays what is due in cash on the mock gateway; answers the payment. */
    pay: async (id: string, extra: object = {}): Promise<{ status: string; amountDue: number }> => ok(await call('POST', `${base}/${id}/process-payment`, h, { method: 'cash', gateway: 'mock', ...extra })),
    status: async (id: string, status: string): Promise<Order> => ok(await call('PUT', `${base}/${id}/status`, h, { status })),
    addItems: async (id: string, items: object[]): Promise<Order> => ok(await call('PATCH', `${base}/${id}/add-items`, h, { items })),
    /** Physical stock of each item in the catalog, as numbers (3 decimals). */
    stock: async () => {
      const rows = await db().run((tx) => tx.db.select().from(inventoryItems).where(eq(inventoryItems.tenantId, tenantId)));
      const by = new Map(rows.map((r) => [r.id, r.physicalMilli / 1000]));
      return { beef: by.get(beef), bread: by.get(bread), oil: by.get(oil), salt: by.get(salt), lettuce: by.get(lettuce) };
    },
    /** The stock movements of orders, oldest first. */
    movements: (...orderIds: string[]) =>
      db().run((tx) =>
        tx.db
          .select()
          .from(inventoryMovements)
          .where(and(eq(inventoryMovements.tenantId, tenantId), inArray(inventoryMovements.orderId, orderIds)))
          .orderBy(asc(inventoryMovements.createdAt), asc(inventoryMovements.id)),
      ),
    /** Every movement of the tenant. */
    allMovements: () => db().run((tx) => tx.db.select().from(inventoryMovements).where(eq(inventoryMovements.tenantId, tenantId))),
    db,
  };
}
type R = Awaited<ReturnType<typeof restaurant>>;

/** A movement's item name, type, reason and signed change, for compact comparisons. */
const brief = (r: R, m: { itemId: string; type: string; reason: string; deltaMilli: number }) => {
  const name = Object.entries(r.items).find(([, id]) => id === m.itemId)?.[0] ?? m.itemId;
  return [name, m.type, m.reason, m.deltaMilli];
};
const sortBriefs = (xs: unknown[][]) => xs.map((x) => JSON.stringify(x)).sort();

const INITIAL = { beef: 20, bread: 100, oil: 6, salt: 1, lettuce: 5 };

describe('the arithmetic', () => {
  it('converts units, sums recipes exactly and rounds half up once per item', () => {
    expect([unitFactor('g', 'kg', null), unitFactor('kg', 'kg', null), unitFactor('ml', 'l', null), unitFactor('cx', 'un', 12_000)]).toEqual([1, 1000, 1, 12_000]);
    expect([unitFactor('g', 'l', null), unitFactor('cx', 'kg', null), unitFactor('un', 'kg', null)]).toEqual([null, null, null]);
    const salt: RecipeAmount = { menuItemId: 'm', itemId: 'salt', quantityMilli: 400, unit: 'g', itemUnit: 'kg', packSize: null, costCents: 2000 };
    // 3 x 0.4 g = 1.2 g = 0.0012 kg -> 0.001; 5 x 0.4 g = 2 g.
    expect(stockNeeded(new Map([['m', 3000]]), [salt])).toEqual(new Map([['salt', 1]]));
    expect(stockNeeded(new Map([['m', 5000]]), [salt])).toEqual(new Map([['salt', 2]]));
    // 0.455 kg sold x 20 ml + 3 x 15 ml = 9.1 + 45 = 54.1 ml -> 0.054 l; 1.25 ml x 2 = 2.5 ml -> 0.003 l (half up).
    const oil = (menuItemId: string, quantityMilli: number): RecipeAmount => ({ menuItemId, itemId: 'oil', quantityMilli, unit: 'ml', itemUnit: 'l', packSize: null, costCents: 0 });
    expect(stockNeeded(new Map([['salad', 455], ['dish', 3000]]), [oil('salad', 20_000), oil('dish', 15_000)])).toEqual(new Map([['oil', 54]]));
    expect(stockNeeded(new Map([['dish', 2000]]), [oil('dish', 1250)])).toEqual(new Map([['oil', 3]]));
    // A box of 12 units: 0.5 box = 6 units.
    expect(stockNeeded(new Map([['m', 1000]]), [{ ...salt, itemId: 'egg', unit: 'cx', itemUnit: 'un', packSize: 12_000, quantityMilli: 500 }])).toEqual(
      new Map([['egg', 6000]]),
    );
    expect(lineCost(salt)).toBe(1); // 0.0004 kg x 2000 = 0.8 cents
    expect(lineCost({ ...salt, quantityMilli: 250_000, costCents: 7990 })).toBe(1998); // 1997.5
  });

  it('counts billed quantities (voided units out, equal-split lines without item ignored)', () => {
    const lines = [
      { menuItem: 'a', name: 'A', price: 1, quantity: 3, voidedQuantity: 1 },
      { menuItem: 'a', name: 'A', price: 2, quantity: 0.5 },
      { menuItem: 'b', name: 'B', price: 1, quantity: 2, voidedQuantity: 2 },
      { menuItem: null, name: 'Parte 1/2', price: 100, quantity: 1 },
    ];
    expect(soldMilli(lines)).toEqual(new Map([['a', 2500]]));
  });

  it('says when an order has consumed its ingredients', () => {
    const o = { status: 'pending', isSplitBill: false, paymentStatus: null, amountPaid: 0, splitAt: null } as const;
    expect(consumed(o)).toBe(false);
    expect(consumed({ ...o, status: 'delivered' })).toBe(true);
    expect(consumed({ ...o, paymentStatus: 'approved', amountPaid: 100 })).toBe(true);
    expect(consumed({ ...o, paymentStatus: null, amountPaid: 100 })).toBe(true); // paid, then a round was added
    expect(consumed({ ...o, paymentStatus: 'processing' })).toBe(false);
    expect(consumed({ ...o, splitAt: new Date() })).toBe(true);
    expect(consumed({ ...o, status: 'cancelled', paymentStatus: 'approved', amountPaid: 100 })).toBe(false);
    expect(consumed({ ...o, isSplitBill: true, paymentStatus: 'approved', amountPaid: 100 })).toBe(false);
  });
});

describe('deduction on sale', () => {
  it('takes the recipes of a paid order out of the catalog, exact to the thousandth, in g, ml, un and by weight', async () => {
    const r = await restaurant();
    const o = await r.order([
      { menuItem: r.dish._id, quantity: 3 },
      { menuItem: r.salad._id, quantity: 0.455 },
      { menuItem: r.soda._id, quantity: 2 },
    ]);
    // Not yet: an open, unpaid order takes nothing.
    expect(await r.stock()).toEqual(INITIAL);
    expect(await r.movements(o._id)).toEqual([]);

    expect((await r.pay(o._id)).status).toBe('approved');
    // beef 3 x 180 g = 0.540; bread 6; oil 3 x 15 ml + 0.455 x 20 ml = 54.1 ml -> 0.054; salt 1.2 g -> 0.001; lettuce 0.455 x 0.6 = 0.273.
    expect(await r.stock()).toEqual({ beef: 19.46, bread: 94, oil: 5.946, salt: 0.999, lettuce: 4.727 });
    const moves = await r.movements(o._id);
    expect(moves).toHaveLength(5);
    const byItem = new Map(moves.map((m) => [m.itemId, m]));
    expect(byItem.get(r.items.beef)).toMatchObject({
      pdvId: null,
      type: 'exit',
      reason: 'sale',
      quantityMilli: 540,
      deltaMilli: -540,
      beforeMilli: 20_000,
      afterMilli: 19_460,
      unitCostCents: 7990,
      orderId: o._id,
      notes: `order ${o.orderNumber}`,
    });
    expect([...byItem.values()].map((m) => [brief(r, m), m.afterMilli])).toEqual(
      expect.arrayContaining([
        [['bread', 'exit', 'sale', -6000], 94_000],
        [['oil', 'exit', 'sale', -54], 5946],
        [['salt', 'exit', 'sale', -1], 999],
        [['lettuce', 'exit', 'sale', -273], 4727],
      ]),
    );
    // Paying is final; delivering afterwards changes nothing.
    await r.status(o._id, 'delivered');
    expect(await r.movements(o._id)).toHaveLength(5);
    expect(await r.stock()).toEqual({ beef: 19.46, bread: 94, oil: 5.946, salt: 0.999, lettuce: 4.727 });
  });

  it('deducts once for an order delivered, then paid', async () => {
    const r = await restaurant();
    const o = await r.order([{ menuItem: r.dish._id, quantity: 2 }]);
    await r.status(o._id, 'preparing');
    expect(await r.movements(o._id)).toEqual([]);
    await r.status(o._id, 'delivered');
    const after = { ...INITIAL, beef: 19.64, bread: 96, oil: 5.97, salt: 0.999 };
    expect(await r.stock()).toEqual(after);
    expect(await r.pay(o._id)).toMatchObject({ status: 'approved', amountDue: 0 });
    expect(await r.stock()).toEqual(after);
    expect((await r.movements(o._id)).map((m) => brief(r, m))).toHaveLength(4);
  });

  it('deducts the difference when items are added after payment, and again only once the difference is paid', async () => {
    const r = await restaurant();
    const o = await r.order([{ menuItem: r.dish._id, quantity: 1 }]);
    await r.pay(o._id);
    expect((await r.stock()).beef).toBe(19.82);
    const grown = await r.addItems(o._id, [{ menuItem: r.dish._id, quantity: 2 }, { menuItem: r.salad._id, quantity: 0.5 }]);
    // The bill owes again, its paid food is still sold: the new units are taken at once, nothing is given back.
    expect(grown.paymentStatus).toBeNull();
    expect(await r.stock()).toEqual({ beef: 19.46, bread: 94, oil: 5.945, salt: 0.999, lettuce: 4.7 });
    const moves = await r.movements(o._id);
    expect(moves.filter((m) => m.reason !== 'sale')).toEqual([]);
    expect(moves.filter((m) => m.itemId === r.items.beef).map((m) => m.deltaMilli)).toEqual([-180, -360]);
    // oil: 15 ml, then 2 x 15 + 0.5 x 20 = 40 ml; salt: 0.4 g -> 0, then 1.2 g -> 0.001 in all.
    expect(moves.filter((m) => m.itemId === r.items.oil).map((m) => m.deltaMilli)).toEqual([-15, -40]);
    expect(moves.filter((m) => m.itemId === r.items.salt).map((m) => m.deltaMilli)).toEqual([-1]);
    await r.pay(o._id);
    expect(await r.movements(o._id)).toHaveLength(moves.length);
  });

  it('deducts only billed units: voided ones before payment are not taken', async () => {
    const r = await restaurant();
    const o = await r.order([{ menuItem: r.dish._id, quantity: 3 }]);
    ok(await call('POST', `/t/${r.slug}/orders/${o._id}/void`, r.admin.headers, { line: 0, quantity: 1, reason: 'queimou' }));
    await r.pay(o._id);
    expect((await r.stock()).beef).toBe(19.64);
    expect((await r.stock()).bread).toBe(96);
  });

  it('gives the stock back (entry, reason return) when a deducted order is cancelled', async () => {
    const r = await restaurant();
    const o = await r.order([{ menuItem: r.dish._id, quantity: 2 }, { menuItem: r.salad._id, quantity: 1.25 }]);
    await r.pay(o._id);
    expect(await r.stock()).not.toEqual(INITIAL);
    const sold = await r.movements(o._id);
    expect(await r.status(o._id, 'cancelled')).toMatchObject({ status: 'cancelled' });
    expect(await r.stock()).toEqual(INITIAL);
    const all = await r.movements(o._id);
    const returns = all.slice(sold.length);
    expect(sortBriefs(returns.map((m) => brief(r, m)))).toEqual(
      sortBriefs(sold.map((m) => { const [name, , , delta] = brief(r, m); return [name, 'entry', 'return', -(delta as number)]; })),
    );
    expect(returns.every((m) => m.orderId === o._id && m.notes === `order ${o.orderNumber} cancelled`)).toBe(true);
    // Nothing more happens to a cancelled order's stock.
    const rows = await r.db().run((tx) => tx.db.select().from(orderStock).where(eq(orderStock.orderId, o._id)));
    expect(rows.every((row) => row.deductedMilli === 0)).toBe(true);
  });

  it('deducts a split bill once, at the split, from the parent; paying its parts takes nothing more', async () => {
    const r = await restaurant();
    const o = await r.order([{ menuItem: r.dish._id, quantity: 2 }]);
    const split = ok<{ parent: Order; parts: Order[] }>(await call('POST', `/t/${r.slug}/orders/${o._id}/split`, r.admin.headers, { parts: 2 }), 201);
    const after = { ...INITIAL, beef: 19.64, bread: 96, oil: 5.97, salt: 0.999 };
    expect(await r.stock()).toEqual(after);
    for (const part of split.parts) expect(await r.pay(part._id)).toMatchObject({ status: 'approved', amountDue: 0 });
    await r.status(split.parts[0]._id, 'delivered');
    expect(await r.stock()).toEqual(after);
    expect(await r.movements(...split.parts.map((p) => p._id))).toEqual([]);
    expect(await r.movements(o._id)).toHaveLength(4);

    // Split by lines: the parts carry real items, still nothing from them.
    const o2 = await r.order([{ menuItem: r.dish._id, quantity: 1 }, { menuItem: r.salad._id, quantity: 0.5 }]);
    const byLines = ok<{ parts: Order[] }>(await call('POST', `/t/${r.slug}/orders/${o2._id}/split`, r.admin.headers, { lines: [[{ line: 0, quantity: 1 }], [{ line: 1, quantity: 0.5 }]] }), 201);
    for (const part of byLines.parts) await r.pay(part._id);
    expect(await r.movements(...byLines.parts.map((p) => p._id))).toEqual([]);
    expect((await r.stock()).lettuce).toBe(4.7);
  });

  it('deducts exactly 10 times the recipe for 10 orders paid at once', async () => {
    const r = await restaurant();
    const orders = await Promise.all(Array.from({ length: 10 }, () => r.order([{ menuItem: r.dish._id, quantity: 1 }])));
    const paid = await Promise.all(orders.map((o) => call('POST', `/t/${r.slug}/orders/${o._id}/process-payment`, r.admin.headers, { method: 'cash', gateway: 'mock' })));
    expect(paid.map((p) => p.statusCode)).toEqual(Array(10).fill(200));
    // 10 x 180 g, 10 x 2 breads, 10 x 15 ml; salt: 0.4 g per order rounds to 0 each time, so 0.
    expect(await r.stock()).toEqual({ ...INITIAL, beef: 18.2, bread: 80, oil: 5.85, salt: 1 });
    const moves = await r.allMovements();
    expect(moves).toHaveLength(30);
    for (const o of orders) expect(moves.filter((m) => m.orderId === o._id).map((m) => brief(r, m)).sort()).toEqual([
      ['beef', 'exit', 'sale', -180],
      ['bread', 'exit', 'sale', -2000],
      ['oil', 'exit', 'sale', -15],
    ]);
    // Every movement's before/after chain is unbroken per item: no lost update.
    for (const id of [r.items.beef, r.items.bread, r.items.oil]) {
      const chain = moves.filter((m) => m.itemId === id).sort((a, b) => b.beforeMilli - a.beforeMilli);
      chain.slice(1).forEach((m, i) => expect(m.beforeMilli).toBe(chain[i].afterMilli));
    }
  });

  it('takes what there is when stock is short (the shortfall noted, not taken later) and returns only what was taken', async () => {
    const r = await restaurant();
    await r.db().run((tx) => tx.db.update(inventoryItems).set({ physicalMilli: 300 }).where(eq(inventoryItems.id, r.items.beef)));
    const o = await r.order([{ menuItem: r.dish._id, quantity: 3 }]);
    expect(await r.pay(o._id)).toMatchObject({ status: 'approved', amountDue: 0 });
    expect((await r.stock()).beef).toBe(0);
    const [beef] = (await r.movements(o._id)).filter((m) => m.itemId === r.items.beef);
    expect(beef).toMatchObject({ type: 'exit', reason: 'sale', deltaMilli: -300, beforeMilli: 300, afterMilli: 0, notes: `order ${o.orderNumber}: short by 0.24 (0.3 of 0.54 in stock)` });
    // Stock arrives; a later change of the order does not take the old shortfall from it.
    await r.db().run((tx) => tx.db.update(inventoryItems).set({ physicalMilli: 5000 }).where(eq(inventoryItems.id, r.items.beef)));
    await r.status(o._id, 'delivered');
    expect((await r.stock()).beef).toBe(5);
    // A shorted order with nothing left that was cancelled gives back only the 0.3 it took.
    const o2 = await r.order([{ menuItem: r.dish._id, quantity: 1 }]);
    await r.db().run((tx) => tx.db.update(inventoryItems).set({ physicalMilli: 100 }).where(eq(inventoryItems.id, r.items.beef)));
    await r.pay(o2._id);
    expect((await r.stock()).beef).toBe(0);
    await r.status(o2._id, 'cancelled');
    expect((await r.stock()).beef).toBe(0.1);
    expect((await r.movements(o2._id)).filter((m) => m.itemId === r.items.beef).map((m) => [m.type, m.deltaMilli])).toEqual([
      ['exit', -100],
      ['entry', 100],
    ]);
  });

  it("uses the PDV's stock of an item stocked there, the catalog's otherwise, and keeps that place for later rounds", async () => {
    const r = await restaurant();
    const { pdvId } = await makePdv(t.app, r.tenant);
    const rowId = newId();
    await r.db().run((tx) => tx.db.insert(branchStock).values({ tenantId: r.tenantId, id: rowId, itemId: r.items.beef, pdvId, physicalMilli: 2000 }));
    const pdvBeef = async () =>
      (await r.db().run((tx) => tx.db.select().from(branchStock).where(eq(branchStock.id, rowId))))[0].physicalMilli;
    const o = await r.order([{ menuItem: r.dish._id, quantity: 2 }], { pdv: pdvId });
    await r.pay(o._id);
    expect(await pdvBeef()).toBe(1640);
    expect(await r.stock()).toEqual({ ...INITIAL, bread: 96, oil: 5.97, salt: 0.999 }); // catalog beef untouched
    const [m] = (await r.movements(o._id)).filter((x) => x.itemId === r.items.beef);
    expect(m).toMatchObject({ pdvId, deltaMilli: -360, beforeMilli: 2000, afterMilli: 1640 });

    // Bread gets a row at the PDV after the sale: the order's later round keeps taking bread from the catalog.
    await r.db().run((tx) => tx.db.insert(branchStock).values({ tenantId: r.tenantId, id: newId(), itemId: r.items.bread, pdvId, physicalMilli: 50_000 }));
    await r.addItems(o._id, [{ menuItem: r.dish._id, quantity: 1 }]);
    expect(await pdvBeef()).toBe(1460);
    expect((await r.stock()).bread).toBe(94);
    await r.status(o._id, 'cancelled');
    expect(await pdvBeef()).toBe(2000);
    expect(await r.stock()).toEqual(INITIAL);
  });

  it('follows a merge into a paid tab and lines moved out of a paid order', async () => {
    const r = await restaurant();
    const [t1, t2] = [await makeTable(t.app, r.tenant), await makeTable(t.app, r.tenant)];
    const tab = await r.order([{ menuItem: r.dish._id, quantity: 1 }], { orderType: 'dine_in', table: t1._id });
    await r.pay(tab._id);
    const other = await r.order([{ menuItem: r.dish._id, quantity: 2 }], { orderType: 'dine_in', table: t2._id });
    expect((await r.stock()).beef).toBe(19.82);
    ok(await call('POST', `/t/${r.slug}/orders/${tab._id}/merge`, r.admin.headers, { orderId: other._id }));
    // The paid tab now holds 3 dishes: 2 more taken, by the tab; the merged-away order never took anything.
    expect((await r.stock()).beef).toBe(19.46);
    expect(await r.movements(other._id)).toEqual([]);
    expect((await r.movements(tab._id)).filter((m) => m.itemId === r.items.beef).map((m) => m.deltaMilli)).toEqual([-180, -360]);

    // Lines moved out of a consumed order to an open one: given back by the first, taken by the second when it is paid.
    const open = await r.order([{ menuItem: r.soda._id, quantity: 1 }]);
    const moved = await call('POST', `/t/${r.slug}/orders/${tab._id}/move-lines`, r.admin.headers, { toOrderId: open._id, lines: [{ line: 0, quantity: 1 }] });
    expect(moved.statusCode, moved.body).toBe(200);
    // The tab keeps 2 dishes (it is still paid for more than that): one dish given back, then taken by the other order once paid.
    expect((await r.stock()).beef).toBe(19.64);
    expect((await r.movements(tab._id)).map((m) => brief(r, m)).filter(([name]) => name === 'beef')).toEqual([
      ['beef', 'exit', 'sale', -180],
      ['beef', 'exit', 'sale', -360],
      ['beef', 'entry', 'return', 180],
    ]);
    await r.pay(open._id);
    expect((await r.stock()).beef).toBe(19.46);
  });
});

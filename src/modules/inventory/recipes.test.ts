import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeSuperadmin, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { newId } from '../../db/ids.js';
import { inventoryItems, productIngredients, type StockUnit } from '../../db/schema/inventory.js';
import { milli } from '../../platform/quantity.js';

/** The recipe routes (spec 4.8 `/inventory/ingredients`) and the menu item detail's `bom`, over HTTP. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MISSING = 'ffffffffffffffffffffffff';
type H = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, payload: payload as never });

/** An inventory item written straight to the table (the items routes are another part's). */
async function stockItem(tenantId: string, f: { name: string; unit: StockUnit; stock?: number; cost?: number; packSize?: number }) {
  const id = newId();
  const sku = `SKU-${randomBytes(3).toString('hex')}`;
  await t.app.deps.tenantDb(tenantId).run((tx) =>
    tx.db.insert(inventoryItems).values({
      tenantId,
      id,
      name: f.name,
      sku,
      unit: f.unit,
      physicalMilli: milli(f.stock ?? 0),
      costCents: f.cost ?? 0,
      packSize: f.packSize === undefined ? null : milli(f.packSize),
    }),
  );
  return { _id: id, name: f.name, sku, unit: f.unit };
}

/** A restaurant with a dish and three stock items: beef by kg at R$ 79,90/kg, bread (baguette) by unit at R$ 0,85, oil by litre at R$ 12,00 (boxes of 6). */
async function kitchen() {
  const team = await makeTenantWithTeam(t.app);
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Picanha na chapa', price: 8990 });
  const beef = await stockItem(team.tenant._id, { name: 'Picanha', unit: 'kg', stock: 20, cost: 7990 });
  const bread = await stockItem(team.tenant._id, { name: 'Baguete', unit: 'un', stock: 100, cost: 85 });
  const oil = await stockItem(team.tenant._id, { name: 'Azeite', unit: 'l', stock: 6, cost: 1200, packSize: 6 });
  const base = `/t/${team.slug}/inventory/ingredients`;
  return {
    ...team,
    dish,
    beef,
    bread,
    oil,
    base,
    list: (menuItemId: string, headers: H = team.admin.headers) => call('GET', `${base}?menuItemId=${menuItemId}`, headers),
    add: (body: object, headers: H = team.admin.headers) => call('POST', base, headers, body),
    remove: (id: string, headers: H = team.admin.headers) => call('DELETE', `${base}/${id}`, headers),
  };
}

describe('POST /inventory/ingredients', () => {
  it('adds recipe lines in the item unit or a smaller one, answering 201 with the inventory item populated', async () => {
    const k = await kitchen();
    const res = await k.add({ menuItemId: k.dish._id, inventoryItemId: k.beef._id, quantityPerUnit: 250, unit: 'g' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      menuItem: k.dish._id,
      inventoryItem: k.beef,
      quantityPerUnit: 250,
      unit: 'g',
      tenant: k.tenant._id,
    });
    // No unit: the item's own, stored as such.
    const bread = await k.add({ menuItemId: k.dish._id, inventoryItemId: k.bread._id, quantityPerUnit: 2 });
    expect(bread.statusCode, bread.body).toBe(201);
    expect(bread.json()).toMatchObject({ inventoryItem: k.bread, quantityPerUnit: 2, unit: 'un' });
    // A box of an item with a pack size, and the smallest quantity.
    const oil = await k.add({ menuItemId: k.dish._id, inventoryItemId: k.oil._id, quantityPerUnit: 0.001, unit: 'cx' });
    expect(oil.statusCode, oil.body).toBe(201);
    expect(oil.json()).toMatchObject({ quantityPerUnit: 0.001, unit: 'cx' });
    const rows = await t.app.deps
      .tenantDb(k.tenant._id)
      .run((tx) => tx.db.select().from(productIngredients).where(eq(productIngredients.menuItemId, k.dish._id)));
    expect(rows.map((r) => [r.itemId, r.quantityMilli, r.unit]).sort()).toEqual(
      [
        [k.beef._id, 250_000, 'g'],
        [k.bread._id, 2000, 'un'],
        [k.oil._id, 1, 'cx'],
      ].sort(),
    );
  });

  it('refuses a bad quantity, a unit of another kind or a box without pack size, and unknown fields (400 naming the field)', async () => {
    const k = await kitchen();
    const ok = { menuItemId: k.dish._id, inventoryItemId: k.beef._id, quantityPerUnit: 0.25 };
    for (const [body, field] of [
      [{ ...ok, quantityPerUnit: 0 }, 'body.quantityPerUnit'],
      [{ ...ok, quantityPerUnit: 0.0005 }, 'body.quantityPerUnit'],
      [{ ...ok, quantityPerUnit: 0.1234 }, 'body.quantityPerUnit'],
      [{ ...ok, quantityPerUnit: -1 }, 'body.quantityPerUnit'],
      [{ ...ok, quantityPerUnit: '0.25' }, 'body.quantityPerUnit'],
      [{ ...ok, quantityPerUnit: undefined }, 'body.quantityPerUnit'],
      [{ ...ok, unit: 'ml' }, 'body.unit'],
      [{ ...ok, unit: 'un' }, 'body.unit'],
      [{ ...ok, unit: 'cx' }, 'body.unit'],
      [{ ...ok, unit: 'lb' }, 'body.unit'],
      [{ ...ok, inventoryItemId: k.bread._id, unit: 'g' }, 'body.unit'],
      [{ ...ok, menuItemId: 'abc' }, 'body.menuItemId'],
      [{ ...ok, inventoryItemId: undefined }, 'body.inventoryItemId'],
      [{ ...ok, tenant: k.tenant._id }, 'body.tenant'],
    ] as const) {
      const res = await k.add(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field), JSON.stringify(body)).toContain(field);
    }
    expect((await k.list(k.dish._id)).json()).toEqual([]);
  });

  it('answers 409 for a pair that exists, 404 for an unknown menu item or inventory item', async () => {
    const k = await kitchen();
    const body = { menuItemId: k.dish._id, inventoryItemId: k.beef._id, quantityPerUnit: 0.25 };
    expect((await k.add(body)).statusCode).toBe(201);
    const again = await k.add({ ...body, quantityPerUnit: 0.3, unit: 'kg' });
    expect([again.statusCode, again.json().code]).toEqual([409, 'ingredient_exists']);
    // Many at once: exactly one line per pair.
    const other = await makeMenuItem(t.app, k.tenant, { name: 'Sanduíche' });
    const racing = await Promise.all(Array.from({ length: 5 }, () => k.add({ ...body, menuItemId: other._id })));
    expect(racing.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);

    const noMenu = await k.add({ ...body, menuItemId: MISSING });
    expect([noMenu.statusCode, noMenu.json().message]).toEqual([404, 'Menu item not found']);
    const noItem = await k.add({ ...body, inventoryItemId: MISSING });
    expect([noItem.statusCode, noItem.json().message]).toEqual([404, 'Inventory item not found']);
    // A deleted menu item and a deleted inventory item are gone too.
    await t.app.services.menu.deleteItem(t.app.deps.tenantDb(k.tenant._id), other._id);
    expect((await k.add({ ...body, menuItemId: other._id, inventoryItemId: k.bread._id, quantityPerUnit: 1 })).statusCode).toBe(404);
    const oilRow = and(eq(inventoryItems.tenantId, k.tenant._id), eq(inventoryItems.id, k.oil._id));
    await t.app.deps.tenantDb(k.tenant._id).run((tx) => tx.db.update(inventoryItems).set({ deletedAt: new Date() }).where(oilRow));
    expect((await k.add({ ...body, inventoryItemId: k.oil._id, unit: 'l' })).statusCode).toBe(404);
  });
});

describe('GET and DELETE /inventory/ingredients', () => {
  it('lists the recipe of one menu item by item name, and deletes a line', async () => {
    const k = await kitchen();
    const other = await makeMenuItem(t.app, k.tenant, { name: 'Pão na chapa' });
    const beef = (await k.add({ menuItemId: k.dish._id, inventoryItemId: k.beef._id, quantityPerUnit: 0.25 })).json();
    const bread = (await k.add({ menuItemId: k.dish._id, inventoryItemId: k.bread._id, quantityPerUnit: 1 })).json();
    await k.add({ menuItemId: other._id, inventoryItemId: k.bread._id, quantityPerUnit: 2 });

    const list = await k.list(k.dish._id);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([bread, beef]); // Baguete, Picanha
    expect((await k.list(other._id)).json().map((i: { quantityPerUnit: number }) => i.quantityPerUnit)).toEqual([2]);

    const del = await k.remove(bread._id);
    expect([del.statusCode, del.json()]).toEqual([200, { deleted: true }]);
    expect((await k.list(k.dish._id)).json()).toEqual([beef]);
    const again = await k.remove(bread._id);
    expect([again.statusCode, again.json().message]).toEqual([404, 'Ingredient not found']);
    // The pair may be added again once deleted.
    expect((await k.add({ menuItemId: k.dish._id, inventoryItemId: k.bread._id, quantityPerUnit: 3 })).statusCode).toBe(201);
  });

  it('needs the menu item (400 without or malformed, 404 unknown) and a well-formed id to delete', async () => {
    const k = await kitchen();
    const none = await call('GET', k.base, k.admin.headers);
    expect([none.statusCode, none.json().details[0].field]).toEqual([400, 'querystring.menuItemId']);
    const bad = await k.list('nope');
    expect([bad.statusCode, bad.json().details[0].field]).toEqual([400, 'querystring.menuItemId']);
    const missing = await k.list(MISSING);
    expect([missing.statusCode, missing.json().message]).toEqual([404, 'Menu item not found']);
    const badId = await k.remove('nope');
    expect([badId.statusCode, badId.json().details[0].field]).toEqual([400, 'params.id']);
    expect((await k.remove(MISSING)).statusCode).toBe(404);
  });
});

describe('who may use the recipe routes', () => {
  it('answers 401 without a token, 403 to staff, branch managers and accountants, and lets a superadmin in', async () => {
    const k = await kitchen();
    const line = (await k.add({ menuItemId: k.dish._id, inventoryItemId: k.beef._id, quantityPerUnit: 0.25 })).json();
    const body = { menuItemId: k.dish._id, inventoryItemId: k.bread._id, quantityPerUnit: 1 };
    expect((await k.list(k.dish._id, {})).statusCode).toBe(401);
    expect((await k.add(body, {})).statusCode).toBe(401);
    expect((await k.remove(line._id, {})).statusCode).toBe(401);
    const manager = await makeUser(t.app, k.tenant, 'branch_manager');
    for (const who of [k.staff, manager, k.accountant]) {
      expect((await k.list(k.dish._id, who.headers)).statusCode).toBe(403);
      expect((await k.add(body, who.headers)).statusCode).toBe(403);
      expect((await k.remove(line._id, who.headers)).statusCode).toBe(403);
    }
    expect((await k.list(k.dish._id)).json()).toEqual([line]);

    const sa = await makeSuperadmin(t.app);
    expect((await k.list(k.dish._id, sa.headers)).json()).toEqual([line]);
    expect((await k.add(body, sa.headers)).statusCode).toBe(201);
    expect((await k.remove(line._id, sa.headers)).json()).toEqual({ deleted: true });
  });

  it("keeps each tenant's recipes apart: another tenant's admin gets 404 through their slug and 403 through the owner's", async () => {
    const k = await kitchen();
    const line = (await k.add({ menuItemId: k.dish._id, inventoryItemId: k.beef._id, quantityPerUnit: 0.25 })).json();
    const b = await kitchen();
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: k.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [
        { method: 'GET', path: `/t/:slug/inventory/ingredients?menuItemId=${k.dish._id}` },
        { method: 'POST', path: '/t/:slug/inventory/ingredients', payload: { menuItemId: k.dish._id, inventoryItemId: k.bread._id, quantityPerUnit: 1 } },
        { method: 'DELETE', path: `/t/:slug/inventory/ingredients/${line._id}` },
      ],
      snapshot: async () => (await k.list(k.dish._id)).json(),
    });
    // Their own menu item with the owner's inventory item, and the other way round: 404, nothing written.
    const theirs = await k.add({ menuItemId: b.dish._id, inventoryItemId: k.bread._id, quantityPerUnit: 1 });
    expect([theirs.statusCode, theirs.json().message]).toEqual([404, 'Menu item not found']);
    const mixed = await b.add({ menuItemId: b.dish._id, inventoryItemId: k.bread._id, quantityPerUnit: 1 });
    expect([mixed.statusCode, mixed.json().message]).toEqual([404, 'Inventory item not found']);
    expect((await b.list(b.dish._id)).json()).toEqual([]);
  });
});

describe("the menu item detail's bom", () => {
  it('shows an inventory item renamed after its recipe line was added (the cached detail is refreshed)', async () => {
    const k = await kitchen();
    await k.add({ menuItemId: k.dish._id, inventoryItemId: k.beef._id, quantityPerUnit: 250, unit: 'g' });
    const first = await call('GET', `/t/${k.slug}/menu/items/${k.dish._id}`);
    expect(first.json().bom.ingredients[0].inventoryItem.name).toBe('Picanha');
    const renamed = await call('PUT', `/t/${k.slug}/inventory/${k.beef._id}`, k.admin.headers, { name: 'Picanha maturada' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const again = await call('GET', `/t/${k.slug}/menu/items/${k.dish._id}`, { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(200);
    expect(again.json().bom.ingredients[0].inventoryItem.name).toBe('Picanha maturada');
  });

  it('shows the recipe without costs, follows every change, and is null without one; the staff view has the cost in cents', async () => {
    const k = await kitchen();
    const tdb = t.app.deps.tenantDb(k.tenant._id);
    /** The staff's view (with costs), after checking the public detail shows the same lines without them. */
    const detail = async (id = k.dish._id) => {
      const res = await call('GET', `/t/${k.slug}/menu/items/${id}`);
      expect(res.statusCode).toBe(200);
      const staff = await t.app.services.inventory.recipeBom(tdb, id);
      expect(res.json().bom).toEqual(staff && { ingredients: staff.ingredients.map(({ cost: _cost, ...line }) => line) });
      return staff;
    };
    expect(await detail()).toBeNull();
    await k.add({ menuItemId: k.dish._id, inventoryItemId: k.beef._id, quantityPerUnit: 250, unit: 'g' });
    const bread = (await k.add({ menuItemId: k.dish._id, inventoryItemId: k.bread._id, quantityPerUnit: 2 })).json();
    await k.add({ menuItemId: k.dish._id, inventoryItemId: k.oil._id, quantityPerUnit: 0.005, unit: 'cx' });
    // 0.25 kg x 7990 = 1997.5 -> 1998; 2 x 85 = 170; 0.005 box x 6 l x 1200 = 36.
    expect(await detail()).toEqual({
      ingredients: [
        { inventoryItem: k.oil, quantityPerUnit: 0.005, unit: 'cx', cost: 36 },
        { inventoryItem: k.bread, quantityPerUnit: 2, unit: 'un', cost: 170 },
        { inventoryItem: k.beef, quantityPerUnit: 250, unit: 'g', cost: 1998 },
      ],
      cost: 2204,
    });
    await k.remove(bread._id);
    expect((await detail())!.cost).toBe(1998 + 36);

    // A pinch: 0.4 g of a R$ 20,00/kg spice is 0.8 cents, rounded once to 1 (not 0.000 kg x 2000).
    const salt = await stockItem(k.tenant._id, { name: 'Sal grosso', unit: 'kg', cost: 2000 });
    const other = await makeMenuItem(t.app, k.tenant, { name: 'Vinagrete' });
    await k.add({ menuItemId: other._id, inventoryItemId: salt._id, quantityPerUnit: 0.4, unit: 'g' });
    expect(await detail(other._id)).toEqual({ ingredients: [{ inventoryItem: salt, quantityPerUnit: 0.4, unit: 'g', cost: 1 }], cost: 1 });
  });
});

import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeCategory, makeMenuItem, makeModifierGroup, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { menuItems } from '../../db/schema/menu.js';

/** An item as the public menu shows it: the admin's view without the fiscal fields. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
const publicOf = ({ ncm, cfop, cest, taxCode, externalCodes, ...rest }: Record<string, unknown>) => rest;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MISSING = 'ffffffffffffffffffffffff';

describe('menu categories', () => {
  it('lets admins and staff create categories; the public list shows only active ones, in order', async () => {
    const { tenant, slug, admin, staff } = await makeTenantWithTeam(t.app);
    const post = (payload: object) => t.app.inject({ method: 'POST', url: `/t/${slug}/menu/categories`, headers: admin.headers, payload });
    // Fields the body does not define (tenant, _id) are refused, naming the first.
    const foreign = await post({ name: '  Sobremesas ', order: 30, tenant: 'x', _id: 'abc' });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().details).toEqual([{ field: 'body.tenant', message: 'is not a known field' }]);
    const created = await post({ name: '  Sobremesas ', order: 30 });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Sobremesas',
      order: 30,
      isActive: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const byStaff = await t.app.inject({ method: 'POST', url: `/t/${slug}/menu/categories`, headers: staff.headers, payload: { name: 'Entradas', order: 10 } });
    expect(byStaff.statusCode).toBe(201);
    await makeCategory(t.app, tenant, { name: 'Escondida', order: 0, isActive: false });

    const pub = await t.app.inject({ url: `/t/${slug}/menu/categories` });
    expect(pub.statusCode).toBe(200);
    expect(pub.json().map((c: { name: string }) => c.name)).toEqual(['Entradas', 'Sobremesas']);

    const all = await t.app.inject({ url: `/t/${slug}/admin/menu/categories`, headers: staff.headers });
    expect(all.json().map((c: { name: string }) => c.name)).toEqual(['Escondida', 'Entradas', 'Sobremesas']);
    expect((await t.app.inject({ url: `/t/${slug}/admin/menu/categories` })).statusCode).toBe(401);
  });

  it('validates the body and names the field', async () => {
    const { slug, admin } = await makeTenantWithTeam(t.app);
    for (const payload of [{}, { name: '' }, { name: '   ' }, { name: 'X', order: -1 }, { name: 'X', order: 1.5 }, { name: 'X', order: '2' }, { name: 'X', isActive: 'yes' }]) {
      const res = await t.app.inject({ method: 'POST', url: `/t/${slug}/menu/categories`, headers: admin.headers, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().details[0].field).toMatch(/^body\./);
    }
  });

  it('needs a token (401) and an operational role (403 for accountants)', async () => {
    const { tenant, slug, accountant } = await makeTenantWithTeam(t.app);
    const c = await makeCategory(t.app, tenant);
    expect((await t.app.inject({ method: 'POST', url: `/t/${slug}/menu/categories`, payload: { name: 'X' } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/categories/${c._id}`, payload: { name: 'X' } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/categories/${c._id}` })).statusCode).toBe(401);
    const asAccountant = [
      await t.app.inject({ method: 'POST', url: `/t/${slug}/menu/categories`, headers: accountant.headers, payload: { name: 'X' } }),
      await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/categories/${c._id}`, headers: accountant.headers, payload: { name: 'X' } }),
      await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/categories/${c._id}`, headers: accountant.headers }),
    ];
    for (const res of asAccountant) {
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('role');
    }
  });

  it('updates a category partially; 404 for an unknown id, 400 for a malformed one', async () => {
    const { tenant, slug, staff } = await makeTenantWithTeam(t.app);
    const c = await makeCategory(t.app, tenant, { name: 'Bebidas', order: 5 });
    const res = await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/categories/${c._id}`, headers: staff.headers, payload: { isActive: false } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ _id: c._id, name: 'Bebidas', order: 5, isActive: false });
    const missing = await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/categories/${MISSING}`, headers: staff.headers, payload: { name: 'Y' } });
    expect(missing.statusCode).toBe(404);
    const malformed = await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/categories/not-an-id`, headers: staff.headers, payload: { name: 'Y' } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().details[0].field).toBe('params.id');
    const bad = await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/categories/${c._id}`, headers: staff.headers, payload: { name: '' } });
    expect(bad.statusCode).toBe(400);
  });

  it('refuses to delete a category that still has items (409 with the count), then deletes it once emptied', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const c = await makeCategory(t.app, tenant);
    const a = await makeMenuItem(t.app, tenant, { category: c._id });
    const b = await makeMenuItem(t.app, tenant, { category: c._id });
    const blocked = await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/categories/${c._id}`, headers: admin.headers });
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json()).toMatchObject({ code: 'category_not_empty', message: expect.stringContaining('2 items'), details: [{ field: 'items', message: '2' }] });

    // Deleted items do not hold the category back, and keep their row.
    for (const item of [a, b]) {
      expect((await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/items/${item._id}`, headers: admin.headers })).statusCode).toBe(200);
    }
    const done = await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/categories/${c._id}`, headers: admin.headers });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ deleted: true });
    const again = await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/categories/${c._id}`, headers: admin.headers });
    expect(again.statusCode).toBe(404);
    const kept = await t.app.deps
      .tenantDb(tenant._id)
      .run((tx) => tx.db.select().from(menuItems).where(and(eq(menuItems.tenantId, tenant._id), eq(menuItems.id, a._id))));
    expect(kept).toHaveLength(1);
    expect(kept[0].deletedAt).toBeInstanceOf(Date);
    expect(kept[0].categoryId).toBeNull();
  });

  it("answers 404 for another tenant's category and leaves it untouched", async () => {
    const owner = await makeTenantWithTeam(t.app);
    const outsider = await makeTenantWithTeam(t.app);
    const c = await makeCategory(t.app, owner.tenant);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'PUT', path: `/t/:slug/menu/categories/${c._id}`, payload: { name: 'Hacked' } },
        { method: 'DELETE', path: `/t/:slug/menu/categories/${c._id}` },
      ],
      snapshot: () => t.app.services.menu.listCategories(t.app.deps.tenantDb(owner.tenant._id)),
    });
  });
});

describe('menu items', () => {
  it('lets an admin create an item with allergens and modifier groups, prices in cents', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const c = await makeCategory(t.app, tenant);
    const g1 = await makeModifierGroup(t.app, tenant);
    const g2 = await makeModifierGroup(t.app, tenant, { name: 'Adicionais', type: 'multiple', required: false, options: [{ name: 'Bacon', priceAdjustment: 600 }] });
    const payload = {
      name: 'Picanha na chapa',
      description: 'Com farofa e vinagrete',
      price: 11990,
      category: c._id,
      preparationTime: 30,
      isAvailable: true,
      allergens: ['lactose'],
      modifierGroupIds: [g2._id, g1._id],
    };
    const post = (body: object) => t.app.inject({ method: 'POST', url: `/t/${slug}/menu/items`, headers: admin.headers, payload: body });
    // A field the body does not define is refused, naming it.
    const hacked = await post({ ...payload, bom: { hacked: true } });
    expect(hacked.statusCode).toBe(400);
    expect(hacked.json().details).toEqual([{ field: 'body.bom', message: 'is not a known field' }]);
    const res = await post(payload);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Picanha na chapa',
      description: 'Com farofa e vinagrete',
      price: 11990,
      unit: 'un',
      category: c._id,
      preparationTime: 30,
      order: 0,
      station: 'kitchen',
      isAvailable: true,
      isActive: true,
      allergens: ['lactose'],
      modifierGroupIds: [g2._id, g1._id],
      ncm: null,
      cfop: null,
      cest: null,
      taxCode: null,
      externalCodes: {},
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('sells an item by weight (unit kg): shown in the panel and the public menu, changeable, invalid units refused', async () => {
    const { tenant, slug, admin, staff } = await makeTenantWithTeam(t.app);
    const c = await makeCategory(t.app, tenant, { name: 'Padaria' });
    const post = (payload: object) => t.app.inject({ method: 'POST', url: `/t/${slug}/menu/items`, headers: admin.headers, payload });
    for (const unit of ['g', 'KG', '', 1, null]) {
      const bad = await post({ name: 'Pão francês', price: 1890, category: c._id, unit });
      expect(bad.statusCode, JSON.stringify(unit)).toBe(400);
      expect(bad.json().details[0].field).toBe('body.unit');
    }
    expect(await t.app.services.menu.listItems(t.app.deps.tenantDb(tenant._id))).toEqual([]);

    const created = await post({ name: 'Pão francês', price: 1890, category: c._id, unit: 'kg' });
    expect(created.statusCode).toBe(201);
    const bread = created.json();
    expect(bread).toMatchObject({ name: 'Pão francês', price: 1890, unit: 'kg' });
    const byUnit = await post({ name: 'Sonho', price: 650, category: c._id });
    expect(byUnit.json().unit).toBe('un');

    const panel = await t.app.inject({ url: `/t/${slug}/admin/menu/items`, headers: staff.headers });
    expect(panel.json().map((i: { name: string; unit: string }) => [i.name, i.unit])).toEqual([
      ['Pão francês', 'kg'],
      ['Sonho', 'un'],
    ]);
    expect((await t.app.inject({ url: `/t/${slug}/menu/items` })).json()).toEqual([bread, byUnit.json()].map(publicOf));
    const detail = await t.app.inject({ url: `/t/${slug}/menu/items/${bread._id}` });
    expect(detail.json()).toMatchObject({ _id: bread._id, price: 1890, unit: 'kg' });
    const [forOrder] = (await t.app.services.menu.itemsForOrder(t.app.deps.tenantDb(tenant._id), [bread._id])).values();
    expect(forOrder).toMatchObject({ price: 1890, unit: 'kg' });

    const put = (id: string, payload: object) => t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${id}`, headers: staff.headers, payload });
    const invalid = await put(bread._id, { unit: 'litro' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().details[0].field).toBe('body.unit');
    // Another field alone leaves the unit as it was.
    expect((await put(bread._id, { price: 1990 })).json()).toMatchObject({ price: 1990, unit: 'kg' });
    const back = await put(bread._id, { unit: 'un' });
    expect(back.statusCode).toBe(200);
    expect(back.json()).toMatchObject({ _id: bread._id, price: 1990, unit: 'un' });
    expect((await put(byUnit.json()._id, { unit: 'kg' })).json().unit).toBe('kg');
    expect((await t.app.inject({ url: `/t/${slug}/menu/items` })).json().map((i: { unit: string }) => i.unit)).toEqual(['un', 'kg']);
  });

  it('rejects negative, fractional and textual prices, and unknown categories or groups, naming them', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const other = await makeTenantWithTeam(t.app);
    const c = await makeCategory(t.app, tenant);
    const foreignGroup = await makeModifierGroup(t.app, other.tenant);
    const foreignCategory = await makeCategory(t.app, other.tenant);
    const base = { name: 'Feijoada', price: 6990, category: c._id };
    const post = (payload: object) => t.app.inject({ method: 'POST', url: `/t/${slug}/menu/items`, headers: admin.headers, payload });
    for (const [payload, field] of [
      [{ ...base, price: -1 }, 'body.price'],
      [{ ...base, price: 10.5 }, 'body.price'],
      [{ ...base, price: '6990' }, 'body.price'],
      [{ ...base, preparationTime: -5 }, 'body.preparationTime'],
      [{ ...base, category: 'nope' }, 'body.category'],
      [{ name: 'Feijoada', price: 6990 }, 'body.category'],
      [{ ...base, allergens: ['glúten', 'glúten'] }, 'body.allergens'],
      [{ ...base, modifierGroupIds: ['123'] }, 'body.modifierGroupIds.0'],
    ] as const) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
    const unknownCategory = await post({ ...base, category: foreignCategory._id });
    expect(unknownCategory.statusCode).toBe(400);
    expect(unknownCategory.json().details).toEqual([{ field: 'body.category', message: `unknown category ${foreignCategory._id}` }]);
    const unknownGroup = await post({ ...base, modifierGroupIds: [foreignGroup._id, MISSING] });
    expect(unknownGroup.statusCode).toBe(400);
    expect(unknownGroup.json().message).toContain(foreignGroup._id);
    expect(unknownGroup.json().message).toContain(MISSING);
    expect(unknownGroup.json().details[0].field).toBe('body.modifierGroupIds');
    expect(await t.app.services.menu.listItems(t.app.deps.tenantDb(tenant._id))).toEqual([]);
  });

  it('needs an admin to create (403 for staff), a token for every write (401)', async () => {
    const { tenant, slug, staff } = await makeTenantWithTeam(t.app);
    const c = await makeCategory(t.app, tenant);
    const payload = { name: 'Pudim', price: 1690, category: c._id };
    const byStaff = await t.app.inject({ method: 'POST', url: `/t/${slug}/menu/items`, headers: staff.headers, payload });
    expect(byStaff.statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: `/t/${slug}/menu/items`, payload })).statusCode).toBe(401);
    const item = await makeMenuItem(t.app, tenant);
    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${item._id}`, payload: { price: 1 } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/items/${item._id}` })).statusCode).toBe(401);
  });

  it('lists only active and available items of active categories publicly, filterable by category', async () => {
    const { tenant, slug, staff } = await makeTenantWithTeam(t.app);
    const mains = await makeCategory(t.app, tenant, { name: 'Pratos', order: 1 });
    const drinks = await makeCategory(t.app, tenant, { name: 'Bebidas', order: 2 });
    const hidden = await makeCategory(t.app, tenant, { name: 'Fora do ar', order: 3, isActive: false });
    const feijoada = await makeMenuItem(t.app, tenant, { name: 'Feijoada', category: mains._id });
    await makeMenuItem(t.app, tenant, { name: 'Moqueca', category: mains._id, isAvailable: false });
    await makeMenuItem(t.app, tenant, { name: 'Bobó', category: mains._id, isActive: false });
    const suco = await makeMenuItem(t.app, tenant, { name: 'Suco de laranja', category: drinks._id, price: 1290 });
    await makeMenuItem(t.app, tenant, { name: 'Sazonal', category: hidden._id });

    const all = await t.app.inject({ url: `/t/${slug}/menu/items` });
    expect(all.statusCode).toBe(200);
    expect(all.json().map((i: { _id: string }) => i._id)).toEqual([feijoada._id, suco._id]);
    const onlyDrinks = await t.app.inject({ url: `/t/${slug}/menu/items?category=${drinks._id}` });
    expect(onlyDrinks.json()).toEqual([publicOf(suco)]);
    expect((await t.app.inject({ url: `/t/${slug}/menu/items?category=${MISSING}` })).json()).toEqual([]);
    const malformed = await t.app.inject({ url: `/t/${slug}/menu/items?category=abc` });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().details[0].field).toBe('querystring.category');

    // The panel sees everything, with filters.
    const panel = await t.app.inject({ url: `/t/${slug}/admin/menu/items`, headers: staff.headers });
    expect(panel.json()).toHaveLength(5);
    const unavailable = await t.app.inject({ url: `/t/${slug}/admin/menu/items?isAvailable=false`, headers: staff.headers });
    expect(unavailable.json().map((i: { name: string }) => i.name)).toEqual(['Moqueca']);
    expect((await t.app.inject({ url: `/t/${slug}/admin/menu/items?isActive=maybe`, headers: staff.headers })).statusCode).toBe(400);
  });

  it('orders the listing by category order, then names as a Brazilian reader expects', async () => {
    const { tenant, slug } = await makeTenantWithTeam(t.app);
    const drinks = await makeCategory(t.app, tenant, { name: 'Bebidas', order: 2 });
    const starters = await makeCategory(t.app, tenant, { name: 'Entradas', order: 1 });
    for (const name of ['Suco', 'água de coco', 'Abacaxi', 'Água tônica', 'Cerveja 10', 'Cerveja 9']) await makeMenuItem(t.app, tenant, { name, category: drinks._id });
    await makeMenuItem(t.app, tenant, { name: 'Pastel', category: starters._id });
    const names = (await t.app.inject({ url: `/t/${slug}/menu/items` })).json().map((i: { name: string }) => i.name);
    expect(names).toEqual(['Pastel', 'Abacaxi', 'água de coco', 'Água tônica', 'Cerveja 9', 'Cerveja 10', 'Suco']);
  });

  it('shows the item detail with allergens, expanded variations in order and a null bom', async () => {
    const { tenant, slug } = await makeTenantWithTeam(t.app);
    const ponto = await makeModifierGroup(t.app, tenant, { name: 'Ponto da carne' });
    const extras = await makeModifierGroup(t.app, tenant, {
      name: 'Adicionais',
      type: 'multiple',
      required: false,
      maxSelections: 2,
      options: [{ name: 'Bacon', priceAdjustment: 600 }, { name: 'Ovo', priceAdjustment: 300 }],
    });
    const item = await makeMenuItem(t.app, tenant, { allergens: ['glúten', 'lactose'], modifierGroupIds: [ponto._id, extras._id] });
    const res = await t.app.inject({ url: `/t/${slug}/menu/items/${item._id}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...publicOf(item), variations: [ponto, extras], bom: null });

    const outOfStock = await makeMenuItem(t.app, tenant, { isAvailable: false });
    const detail = await t.app.inject({ url: `/t/${slug}/menu/items/${outOfStock._id}` });
    expect(detail.statusCode).toBe(200);
    expect(detail.json().isAvailable).toBe(false);

    const inactive = await makeMenuItem(t.app, tenant, { isActive: false });
    expect((await t.app.inject({ url: `/t/${slug}/menu/items/${inactive._id}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/t/${slug}/menu/items/${MISSING}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/t/${slug}/menu/items/xyz` })).statusCode).toBe(400);
    expect((await t.app.inject({ url: `/t/no-such-tenant/menu/items/${item._id}` })).statusCode).toBe(404);
  });

  it("never shows another tenant's item through the public routes", async () => {
    const owner = await makeTenantWithTeam(t.app);
    const other = await makeTenantWithTeam(t.app);
    const item = await makeMenuItem(t.app, owner.tenant);
    expect((await t.app.inject({ url: `/t/${other.slug}/menu/items/${item._id}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/t/${other.slug}/menu/items` })).json()).toEqual([]);
    const c = await makeCategory(t.app, other.tenant);
    expect((await t.app.inject({ url: `/t/${other.slug}/menu/items?category=${item.category}` })).json()).toEqual([]);
    expect((await t.app.inject({ url: `/t/${other.slug}/menu/categories` })).json()).toEqual([c]);
  });

  it('lets staff update an item partially: availability, price, group list replaced', async () => {
    const { tenant, slug, staff } = await makeTenantWithTeam(t.app);
    const g1 = await makeModifierGroup(t.app, tenant);
    const g2 = await makeModifierGroup(t.app, tenant);
    const item = await makeMenuItem(t.app, tenant, { modifierGroupIds: [g1._id], allergens: ['ovo'] });
    const other = await makeCategory(t.app, tenant);
    const res = await t.app.inject({
      method: 'PUT',
      url: `/t/${slug}/menu/items/${item._id}`,
      headers: staff.headers,
      payload: { isAvailable: false, price: 9990, category: other._id, modifierGroupIds: [g2._id, g1._id], preparationTime: null },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: item.name,
      isAvailable: false,
      price: 9990,
      category: other._id,
      modifierGroupIds: [g2._id, g1._id],
      allergens: ['ovo'],
      preparationTime: null,
    });
    const cleared = await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${item._id}`, headers: staff.headers, payload: { modifierGroupIds: [] } });
    expect(cleared.json().modifierGroupIds).toEqual([]);
    const bad = await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${item._id}`, headers: staff.headers, payload: { modifierGroupIds: [MISSING] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain(MISSING);
    const negative = await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${item._id}`, headers: staff.headers, payload: { price: -100 } });
    expect(negative.statusCode).toBe(400);
    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${MISSING}`, headers: staff.headers, payload: { price: 1 } })).statusCode).toBe(404);
  });

  it('refuses item writes by accountants (403)', async () => {
    const { tenant, slug, accountant } = await makeTenantWithTeam(t.app);
    const item = await makeMenuItem(t.app, tenant);
    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${item._id}`, headers: accountant.headers, payload: { price: 1 } })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/items/${item._id}`, headers: accountant.headers })).statusCode).toBe(403);
  });

  it('soft-deletes an item: it leaves the menu and order lookups, its row stays', async () => {
    const { tenant, slug, staff } = await makeTenantWithTeam(t.app);
    const item = await makeMenuItem(t.app, tenant);
    const keep = await makeMenuItem(t.app, tenant, { category: item.category });
    const res = await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/items/${item._id}`, headers: staff.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: true });
    expect((await t.app.inject({ url: `/t/${slug}/menu/items/${item._id}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/t/${slug}/menu/items` })).json().map((i: { _id: string }) => i._id)).toEqual([keep._id]);
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/items/${item._id}`, headers: staff.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${item._id}`, headers: staff.headers, payload: { price: 5 } })).statusCode).toBe(404);
    const lookup = await t.app.services.menu.itemsForOrder(t.app.deps.tenantDb(tenant._id), [item._id, keep._id]);
    expect([...lookup.keys()]).toEqual([keep._id]);
    const [row] = await t.app.deps
      .tenantDb(tenant._id)
      .run((tx) => tx.db.select().from(menuItems).where(and(eq(menuItems.tenantId, tenant._id), eq(menuItems.id, item._id))));
    expect(row.deletedAt).toBeInstanceOf(Date);
  });

  it("answers 404 for another tenant's item on every panel route and leaves it untouched", async () => {
    const owner = await makeTenantWithTeam(t.app);
    const outsider = await makeTenantWithTeam(t.app);
    const item = await makeMenuItem(t.app, owner.tenant);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'PUT', path: `/t/:slug/menu/items/${item._id}`, payload: { price: 1 } },
        { method: 'DELETE', path: `/t/:slug/menu/items/${item._id}` },
      ],
      snapshot: () => t.app.services.menu.listItems(t.app.deps.tenantDb(owner.tenant._id)),
    });
  });
});

describe('menu lookups for orders', () => {
  it('returns price, name, availability and expanded groups by id, and checks modifier selections', async () => {
    const { tenant } = await makeTenantWithTeam(t.app);
    const other = await makeTenantWithTeam(t.app);
    const ponto = await makeModifierGroup(t.app, tenant, { name: 'Ponto' });
    const extras = await makeModifierGroup(t.app, tenant, {
      name: 'Adicionais',
      type: 'multiple',
      required: false,
      maxSelections: 2,
      options: [{ name: 'Bacon', priceAdjustment: 600 }, { name: 'Ovo', priceAdjustment: 300 }, { name: 'Cheddar', priceAdjustment: 500, available: false }],
    });
    const burger = await makeMenuItem(t.app, tenant, { name: 'Hambúrguer', price: 4290, modifierGroupIds: [ponto._id, extras._id] });
    const off = await makeMenuItem(t.app, tenant, { isAvailable: false });
    const foreign = await makeMenuItem(t.app, other.tenant);
    const found = await t.app.services.menu.itemsForOrder(t.app.deps.tenantDb(tenant._id), [burger._id, off._id, foreign._id, burger._id]);
    expect([...found.keys()].sort()).toEqual([burger._id, off._id].sort());
    const b = found.get(burger._id)!;
    expect(b).toMatchObject({ name: 'Hambúrguer', price: 4290, unit: 'un', orderable: true, modifierGroups: [ponto, extras] });
    expect(found.get(off._id)!.orderable).toBe(false);

    const menu = t.app.services.menu;
    expect(
      menu.priceSelections(b, [
        { groupId: ponto._id, options: ['Ao ponto'] },
        { groupId: extras._id, options: ['Bacon', 'Ovo'] },
      ]),
    ).toEqual([
      { groupId: ponto._id, groupName: 'Ponto', option: 'Ao ponto', priceAdjustment: 0 },
      { groupId: extras._id, groupName: 'Adicionais', option: 'Bacon', priceAdjustment: 600 },
      { groupId: extras._id, groupName: 'Adicionais', option: 'Ovo', priceAdjustment: 300 },
    ]);
    // Nothing sent for a required group with a default option: the default is taken (the spec's lines carry no modifiers).
    expect(menu.priceSelections(b, [])).toEqual([{ groupId: ponto._id, groupName: 'Ponto', option: 'Ao ponto', priceAdjustment: 0 }]);
    expect(() => menu.priceSelections(b, [{ groupId: ponto._id, options: [] }])).toThrow(/Ponto: choose 1/);
    expect(() => menu.priceSelections(b, [{ groupId: ponto._id, options: ['Cru'] }])).toThrow(/unknown option Cru/);
    expect(() => menu.priceSelections(b, [{ groupId: ponto._id, options: ['Ao ponto'] }, { groupId: extras._id, options: ['Cheddar'] }])).toThrow(
      /not available/,
    );
    expect(() => menu.priceSelections(b, [{ groupId: MISSING, options: [] }])).toThrow(/not offered/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeModifierGroup, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MISSING = 'ffffffffffffffffffffffff';
const threeOptions = [{ name: 'Arroz' }, { name: 'Fritas', priceAdjustment: 300 }, { name: 'Salada' }];

describe('modifier groups: create and list', () => {
  it('creates a group with defaults that follow its type and required flag', async () => {
    const { slug, admin } = await makeTenantWithTeam(t.app);
    const single = await t.app.inject({
      method: 'POST',
      url: `/t/${slug}/menu/modifier-groups`,
      headers: admin.headers,
      payload: { name: 'Acompanhamento', type: 'single', required: true, options: threeOptions },
    });
    expect(single.statusCode).toBe(201);
    expect(single.json()).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Acompanhamento',
      description: '',
      type: 'single',
      required: true,
      minSelections: 1,
      maxSelections: 1,
      options: [
        { name: 'Arroz', priceAdjustment: 0, isDefault: false, available: true },
        { name: 'Fritas', priceAdjustment: 300, isDefault: false, available: true },
        { name: 'Salada', priceAdjustment: 0, isDefault: false, available: true },
      ],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const multiple = await t.app.inject({
      method: 'POST',
      url: `/t/${slug}/menu/modifier-groups`,
      headers: admin.headers,
      payload: { name: 'Adicionais', type: 'multiple', options: threeOptions },
    });
    expect(multiple.json()).toMatchObject({ required: false, minSelections: 0, maxSelections: 3 });

    const list = await t.app.inject({ url: `/t/${slug}/menu/modifier-groups` });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((g: { name: string }) => g.name)).toEqual(['Acompanhamento', 'Adicionais']);
  });

  it('enforces the selection rules, naming each broken one', async () => {
    const { slug, admin } = await makeTenantWithTeam(t.app);
    const post = (payload: object) =>
      t.app.inject({ method: 'POST', url: `/t/${slug}/menu/modifier-groups`, headers: admin.headers, payload: { name: 'G', ...payload } });
    const cases: [object, string, RegExp][] = [
      [{ type: 'single', maxSelections: 2, options: threeOptions }, 'body.maxSelections', /must be 1 for a single-choice group/],
      [{ type: 'multiple', minSelections: 3, maxSelections: 2, options: threeOptions }, 'body.minSelections', /must not exceed maxSelections/],
      [{ type: 'multiple', maxSelections: 4, options: threeOptions }, 'body.maxSelections', /must not exceed the number of options \(3\)/],
      [{ type: 'multiple', required: true, minSelections: 0, options: threeOptions }, 'body.minSelections', /at least 1 for a required group/],
      [{ type: 'multiple', options: [{ name: 'Bacon' }, { name: ' bacon ' }] }, 'body.options', /unique in the group: bacon/],
      [{ type: 'single', options: [{ name: 'A', isDefault: true }, { name: 'B', isDefault: true }] }, 'body.options', /2 options are default/],
    ];
    for (const [payload, field, message] of cases) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBe('modifier_group_rules');
      expect(res.json().details).toContainEqual({ field, message: expect.stringMatching(message) });
    }
    // Schema-level limits.
    for (const [payload, field] of [
      // A negative adjustment lowers the price (half portion), within the price bounds.
      [{ type: 'single', options: [{ name: 'A', priceAdjustment: -10_000_001 }] }, 'body.options.0.priceAdjustment'],
      [{ type: 'single', options: [{ name: 'A', priceAdjustment: 1.5 }] }, 'body.options.0.priceAdjustment'],
      [{ type: 'single', options: [] }, 'body.options'],
      [{ type: 'radio', options: threeOptions }, 'body.type'],
      [{ type: 'single' }, 'body.options'],
      [{ type: 'multiple', minSelections: -1, options: threeOptions }, 'body.minSelections'],
      [{ type: 'multiple', maxSelections: 0, options: threeOptions }, 'body.maxSelections'],
    ] as const) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
    expect((await t.app.inject({ url: `/t/${slug}/menu/modifier-groups` })).json()).toEqual([]);
  });

  it('needs an admin for every write (403 for staff, 401 without a token)', async () => {
    const { tenant, slug, staff } = await makeTenantWithTeam(t.app);
    const g = await makeModifierGroup(t.app, tenant);
    const payload = { name: 'X', type: 'single', options: threeOptions };
    for (const [method, url, body] of [
      ['POST', `/t/${slug}/menu/modifier-groups`, payload],
      ['PUT', `/t/${slug}/menu/modifier-groups/${g._id}`, { name: 'Y' }],
      ['DELETE', `/t/${slug}/menu/modifier-groups/${g._id}`, undefined],
    ] as const) {
      expect((await t.app.inject({ method, url, headers: staff.headers, payload: body })).statusCode).toBe(403);
      expect((await t.app.inject({ method, url, payload: body })).statusCode).toBe(401);
    }
  });
});

describe('modifier groups: update and delete', () => {
  it('merges a partial update with the stored group before checking the rules', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const g = await makeModifierGroup(t.app, tenant, { name: 'Adicionais', type: 'multiple', required: false, options: threeOptions });
    expect(g.maxSelections).toBe(3);
    const put = (payload: object) => t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/modifier-groups/${g._id}`, headers: admin.headers, payload });

    const renamed = await put({ description: 'Até 3' });
    expect(renamed.json()).toMatchObject({ name: 'Adicionais', description: 'Até 3', maxSelections: 3, options: g.options });

    const tooFew = await put({ options: [{ name: 'Bacon' }] });
    expect(tooFew.statusCode).toBe(400);
    expect(tooFew.json().details).toContainEqual({ field: 'body.maxSelections', message: expect.stringContaining('(1)') });

    const single = await put({ type: 'single' });
    expect(single.statusCode).toBe(200);
    expect(single.json()).toMatchObject({ type: 'single', maxSelections: 1, minSelections: 0 });

    const required = await put({ required: true });
    expect(required.json()).toMatchObject({ required: true, minSelections: 1 });

    const broken = await put({ minSelections: 0 });
    expect(broken.statusCode).toBe(400);
    const dupes = await put({ options: [{ name: 'Arroz' }, { name: 'ARROZ' }] });
    expect(dupes.statusCode).toBe(400);
    expect((await put({ name: '' })).statusCode).toBe(400);

    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/modifier-groups/${MISSING}`, headers: admin.headers, payload: { name: 'Z' } })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/modifier-groups/bad`, headers: admin.headers, payload: { name: 'Z' } })).statusCode).toBe(400);
  });

  it('soft-deletes a group and detaches it from items, which stay intact', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const ponto = await makeModifierGroup(t.app, tenant, { name: 'Ponto' });
    const extras = await makeModifierGroup(t.app, tenant, { name: 'Extras', type: 'multiple', required: false, options: threeOptions });
    const item = await makeMenuItem(t.app, tenant, { modifierGroupIds: [ponto._id, extras._id] });

    const res = await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/modifier-groups/${ponto._id}`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: true });

    const detail = await t.app.inject({ url: `/t/${slug}/menu/items/${item._id}` });
    expect(detail.statusCode).toBe(200);
    expect(detail.json().modifierGroupIds).toEqual([extras._id]);
    expect(detail.json().variations.map((v: { name: string }) => v.name)).toEqual(['Extras']);
    expect((await t.app.inject({ url: `/t/${slug}/menu/modifier-groups` })).json().map((g: { _id: string }) => g._id)).toEqual([extras._id]);

    // A deleted group is unknown from now on.
    const reuse = await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${item._id}`, headers: admin.headers, payload: { modifierGroupIds: [ponto._id] } });
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().message).toContain(ponto._id);
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${slug}/menu/modifier-groups/${ponto._id}`, headers: admin.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/modifier-groups/${ponto._id}`, headers: admin.headers, payload: { name: 'Z' } })).statusCode).toBe(404);
  });

  it("answers 404 for another tenant's group and leaves it untouched", async () => {
    const owner = await makeTenantWithTeam(t.app);
    const outsider = await makeTenantWithTeam(t.app);
    const g = await makeModifierGroup(t.app, owner.tenant);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'PUT', path: `/t/:slug/menu/modifier-groups/${g._id}`, payload: { name: 'Hacked' } },
        { method: 'DELETE', path: `/t/:slug/menu/modifier-groups/${g._id}` },
      ],
      snapshot: () => t.app.services.menu.listGroups(t.app.deps.tenantDb(owner.tenant._id)),
    });
    expect((await t.app.inject({ url: `/t/${outsider.slug}/menu/modifier-groups` })).json()).toEqual([]);
  });
});

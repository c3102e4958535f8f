import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeSuperadmin, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { bomSnapshots } from '../../db/schema/bom.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const call = (team: Team, method: Method, path: string, payload?: unknown, headers = team.admin.headers) =>
  t.app.inject({ method, url: `/t/${team.slug}${path}`, headers, payload: payload as never });

async function ok(team: Team, method: Method, path: string, payload: unknown, status: number) {
  const res = await call(team, method, path, payload);
  expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(status);
  return res.json();
}

let skuN = 0;
/** An inventory item through the inventory's route. `cost` in cents per `unit`. */
async function stockItem(team: Team, name: string, unit: 'kg' | 'l' | 'un', cost: number): Promise<string> {
  const body = { name, sku: `SKU-${++skuN}-${Math.random().toString(16).slice(2, 8)}`, unit, cost, currentStock: 0, minStock: 0 };
  return (await ok(team, 'POST', '/inventory', body, 201))._id;
}

async function recipe(team: Team, menuItemId: string, inventoryItemId: string, quantityPerUnit: number, unit?: string) {
  await ok(team, 'POST', '/inventory/ingredients', { menuItemId, inventoryItemId, quantityPerUnit, ...(unit ? { unit } : {}) }, 201);
}

async function indirect(team: Team, menuItemId: string, type: string, label: string, valuePerUnit: number, unitType: string) {
  return ok(team, 'POST', '/bom/indirect-costs', { menuItemId, type, label, valuePerUnit, unitType }, 201);
}

/**
 * The hand-computed dish: 0.333 kg of beef at R$ 19,99/kg (665.667 cents), 0.4 g of salt at R$ 2,00/kg
 * (0.08 cents), 15 ml of oil at R$ 12,50/l (18.75 cents): direct 684.497 -> 684 (rounded per line it would be
 * 666 + 0 + 19 = 685). Indirect: labor 150 cents, packaging 10% (68.4497), energy 3.5% (23.957395):
 * 242.407095 -> 242. Total 926.
 */
async function fileDish(team: Team, price = 4990) {
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Filé grelhado', price });
  const beef = await stockItem(team, 'Filé mignon', 'kg', 1999);
  const salt = await stockItem(team, 'Sal', 'kg', 200);
  const oil = await stockItem(team, 'Óleo', 'l', 1250);
  await recipe(team, dish._id, beef, 0.333);
  await recipe(team, dish._id, salt, 0.4, 'g');
  await recipe(team, dish._id, oil, 15, 'ml');
  await indirect(team, dish._id, 'labor', 'Cozinheiro', 150, 'fixed');
  await indirect(team, dish._id, 'packaging', 'Embalagem', 0.1, 'percentage_of_direct');
  await indirect(team, dish._id, 'energy', 'Gás', 0.035, 'percentage_of_direct');
  return { dish, beef, salt, oil };
}

describe('guards', () => {
  it('every route: 401 without a token, 403 to staff, accountant and branch manager; admin and superadmin pass', async () => {
    const team = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, team.tenant);
    const beef = await stockItem(team, 'Carne', 'kg', 3000);
    await recipe(team, dish._id, beef, 0.2);
    const cost = await indirect(team, dish._id, 'labor', 'Mão de obra', 100, 'fixed');
    const manager = await makeUser(t.app, team.tenant, 'branch_manager');
    const routes: [Method, string, object?][] = [
      ['GET', '/bom'],
      ['GET', `/bom/${dish._id}`],
      ['POST', `/bom/${dish._id}/calculate`, {}],
      ['GET', `/bom/${dish._id}/history`],
      ['POST', '/bom/indirect-costs', { menuItemId: dish._id, type: 'other', label: 'x', valuePerUnit: 1, unitType: 'fixed' }],
      ['PUT', `/bom/indirect-costs/${cost._id}`, { label: 'y' }],
      ['DELETE', `/bom/indirect-costs/${cost._id}`],
    ];
    for (const [method, path, body] of routes) {
      expect((await call(team, method, path, body, {} as never)).statusCode, `${method} ${path}`).toBe(401);
      for (const who of [team.staff, team.accountant, manager]) {
        const res = await call(team, method, path, body, who.headers);
        expect(res.statusCode, `${method} ${path}`).toBe(403);
      }
    }
    // Nothing changed through the refused calls.
    expect((await ok(team, 'GET', `/bom/${dish._id}/history`, undefined, 200)).length).toBe(0);
    expect((await ok(team, 'GET', `/bom/${dish._id}`, undefined, 200)).indirectCosts).toMatchObject([{ label: 'Mão de obra' }]);

    const sa = await makeSuperadmin(t.app);
    for (const [method, path, body] of routes) {
      const res = await call(team, method, path, body, sa.headers);
      expect(res.statusCode, `${method} ${path}: ${res.body}`).toBeLessThan(300);
    }
  });
});

describe('arithmetic', () => {
  it('direct cost keeps fractions of a cent until one rounding; percentages apply to the exact direct cost', async () => {
    const team = await makeTenantWithTeam(t.app);
    const { dish, beef, salt, oil } = await fileDish(team);
    const detail = await ok(team, 'GET', `/bom/${dish._id}`, undefined, 200);
    expect(detail.menuItem).toEqual({ _id: dish._id, name: 'Filé grelhado', price: 4990 });
    expect(detail.ingredients).toEqual([
      { inventoryItemId: beef, inventoryItemName: 'Filé mignon', quantityPerUnit: 0.333, unit: 'kg', currentCostPrice: 1999, lineCost: 665.667 },
      { inventoryItemId: oil, inventoryItemName: 'Óleo', quantityPerUnit: 15, unit: 'ml', currentCostPrice: 1250, lineCost: 18.75 },
      { inventoryItemId: salt, inventoryItemName: 'Sal', quantityPerUnit: 0.4, unit: 'g', currentCostPrice: 200, lineCost: 0.08 },
    ]);
    expect(detail.indirectCosts.map((c: { label: string; valuePerUnit: number; unitType: string }) => [c.label, c.valuePerUnit, c.unitType])).toEqual([
      ['Cozinheiro', 150, 'fixed'],
      ['Embalagem', 0.1, 'percentage_of_direct'],
      ['Gás', 0.035, 'percentage_of_direct'],
    ]);
    expect(detail.latestSnapshot).toBeNull();

    const snap = await ok(team, 'POST', `/bom/${dish._id}/calculate`, undefined, 201);
    expect(snap).toMatchObject({
      menuItem: dish._id,
      sellingPrice: 4990,
      totalDirectCost: 684,
      totalIndirectCost: 242,
      totalCostPerUnit: 926,
      // (4990 - 926) / 4990 = 81.4428...%
      marginPercent: 81.44,
      targetMargin: null,
      suggestedSellingPrice: null,
      triggeredBy: 'manual',
      createdBy: team.admin.id,
    });
    expect(snap.ingredientSnapshot).toEqual(detail.ingredients);
    expect(snap.indirectSnapshot.map((c: { label: string; amount: number }) => [c.label, c.amount])).toEqual([
      ['Cozinheiro', 150],
      ['Embalagem', 68.4497],
      ['Gás', 23.957395],
    ]);
    expect((await ok(team, 'GET', `/bom/${dish._id}`, undefined, 200)).latestSnapshot).toEqual(snap);
  });

  it('half a cent rounds up, once, on the total direct cost', async () => {
    const team = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, team.tenant, { price: 1000 });
    // 0.5 un x 1 cent + 0.5 un x 2 cents = 1.5 cents -> 2 (per line: 1 + 1 = 2 too); 0.25 un x 2 = 0.5 -> 1 direct with 0.5% ... below.
    const a = await stockItem(team, 'A', 'un', 1);
    const b = await stockItem(team, 'B', 'un', 1);
    await recipe(team, dish._id, a, 0.25);
    await recipe(team, dish._id, b, 0.25);
    // 0.25 + 0.25 = 0.5 cents -> 1 (per line 0 + 0 = 0); 50% of 0.5 = 0.25 -> 0.
    await indirect(team, dish._id, 'other', 'Metade', 0.5, 'percentage_of_direct');
    const snap = await ok(team, 'POST', `/bom/${dish._id}/calculate`, {}, 201);
    expect([snap.totalDirectCost, snap.totalIndirectCost, snap.totalCostPerUnit]).toEqual([1, 0, 1]);
    expect(snap.ingredientSnapshot.map((l: { lineCost: number }) => l.lineCost)).toEqual([0.25, 0.25]);
  });

  it('targetMargin: total / (1 - margin) rounded up to the cent; bounds 0 to 0.99', async () => {
    const team = await makeTenantWithTeam(t.app);
    const { dish } = await fileDish(team);
    const suggested = async (targetMargin: number) =>
      (await ok(team, 'POST', `/bom/${dish._id}/calculate`, { targetMargin }, 201)) as { suggestedSellingPrice: number; targetMargin: number };
    // 926 / 0.35 = 2645.71... -> 2646; 926 / 0.4 = 2315 exactly; 926 / 0.01 = 92600; margin 0 is the cost.
    expect(await suggested(0.65)).toMatchObject({ suggestedSellingPrice: 2646, targetMargin: 0.65 });
    expect(await suggested(0.6)).toMatchObject({ suggestedSellingPrice: 2315, targetMargin: 0.6 });
    expect(await suggested(0.99)).toMatchObject({ suggestedSellingPrice: 92600 });
    expect(await suggested(0)).toMatchObject({ suggestedSellingPrice: 926, targetMargin: 0 });
    // 926 / (1 - 0.333333) = 1388.9993... -> 1389
    expect(await suggested(0.333333)).toMatchObject({ suggestedSellingPrice: 1389 });
    const before = (await ok(team, 'GET', `/bom/${dish._id}/history`, undefined, 200)).length;
    for (const [targetMargin, field] of [
      [1, 'body.targetMargin'],
      [0.995, 'body.targetMargin'],
      [-0.1, 'body.targetMargin'],
      [0.1234567, 'body.targetMargin'],
      ['0.5', 'body.targetMargin'],
    ] as const) {
      const res = await call(team, 'POST', `/bom/${dish._id}/calculate`, { targetMargin });
      expect(res.statusCode, String(targetMargin)).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
    const unknown = await call(team, 'POST', `/bom/${dish._id}/calculate`, { margin: 0.3 });
    expect(unknown.statusCode).toBe(400);
    expect((await ok(team, 'GET', `/bom/${dish._id}/history`, undefined, 200)).length).toBe(before);
  });

  it('a dish without a recipe: 409 no_recipe, nothing stored; its detail shows no ingredients', async () => {
    const team = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, team.tenant);
    await indirect(team, dish._id, 'packaging', 'Caixa', 80, 'fixed');
    const res = await call(team, 'POST', `/bom/${dish._id}/calculate`, {});
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('no_recipe');
    expect(await ok(team, 'GET', `/bom/${dish._id}/history`, undefined, 200)).toEqual([]);
    expect(await ok(team, 'GET', `/bom/${dish._id}`, undefined, 200)).toMatchObject({ ingredients: [], latestSnapshot: null });
  });
});

describe('list and history', () => {
  it('GET /bom: every live menu item, its latest snapshot and the margin at the current price', async () => {
    const team = await makeTenantWithTeam(t.app);
    const { dish } = await fileDish(team);
    const plain = await makeMenuItem(t.app, team.tenant, { name: 'Água', price: 500 });
    const gone = await makeMenuItem(t.app, team.tenant, { name: 'Retirado' });
    await ok(team, 'DELETE', `/menu/items/${gone._id}`, undefined, 200);
    let list = await ok(team, 'GET', '/bom', undefined, 200);
    expect(list.map((e: { menuItemId: string }) => e.menuItemId).sort()).toEqual([dish._id, plain._id].sort());
    expect(list.find((e: { menuItemId: string }) => e.menuItemId === plain._id)).toEqual({
      menuItemId: plain._id,
      name: 'Água',
      sellingPrice: 500,
      hasRecipe: false,
      latestSnapshot: null,
      marginPercent: null,
    });

    const snap = await ok(team, 'POST', `/bom/${dish._id}/calculate`, {}, 201);
    // The price changes after the snapshot: the margin is the latest cost against the current price.
    await ok(team, 'PUT', `/menu/items/${dish._id}`, { price: 1852 }, 200);
    list = await ok(team, 'GET', '/bom', undefined, 200);
    expect(list.find((e: { menuItemId: string }) => e.menuItemId === dish._id)).toEqual({
      menuItemId: dish._id,
      name: 'Filé grelhado',
      sellingPrice: 1852,
      hasRecipe: true,
      latestSnapshot: { totalDirectCost: 684, totalIndirectCost: 242, totalCostPerUnit: 926, triggeredBy: 'manual', createdAt: snap.createdAt },
      // (1852 - 926) / 1852 = 50%
      marginPercent: 50,
    });
    // Above the price: a negative margin. At price 0: null.
    await ok(team, 'PUT', `/menu/items/${dish._id}`, { price: 900 }, 200);
    list = await ok(team, 'GET', '/bom', undefined, 200);
    // (900 - 926) / 900 = -2.888...%
    expect(list.find((e: { menuItemId: string }) => e.menuItemId === dish._id).marginPercent).toBe(-2.89);
    await ok(team, 'PUT', `/menu/items/${dish._id}`, { price: 0 }, 200);
    list = await ok(team, 'GET', '/bom', undefined, 200);
    expect(list.find((e: { menuItemId: string }) => e.menuItemId === dish._id).marginPercent).toBeNull();
  });

  it('history: newest first, limit (default 20, 1 to 100)', async () => {
    const team = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, team.tenant);
    const beef = await stockItem(team, 'Carne', 'kg', 1000);
    await recipe(team, dish._id, beef, 0.1);
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) {
      if (i % 2) t.clock.advance(60_000);
      ids.push((await ok(team, 'POST', `/bom/${dish._id}/calculate`, {}, 201))._id);
    }
    const all = await ok(team, 'GET', `/bom/${dish._id}/history`, undefined, 200);
    expect(all.map((s: { _id: string }) => s._id)).toEqual(ids.slice().reverse().slice(0, 20));
    const times = all.map((s: { createdAt: string }) => s.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    const two = await ok(team, 'GET', `/bom/${dish._id}/history?limit=2`, undefined, 200);
    expect(two.map((s: { _id: string }) => s._id)).toEqual([ids[21], ids[20]]);
    expect((await ok(team, 'GET', `/bom/${dish._id}/history?limit=100`, undefined, 200)).length).toBe(22);
    for (const limit of ['0', '101', 'abc', '1.5']) {
      const res = await call(team, 'GET', `/bom/${dish._id}/history?limit=${limit}`);
      expect(res.statusCode, limit).toBe(400);
      expect(res.json().details[0].field).toBe('querystring.limit');
    }
  });

  it('unknown, deleted or malformed menu items: 404 / 400', async () => {
    const team = await makeTenantWithTeam(t.app);
    const gone = await makeMenuItem(t.app, team.tenant);
    await ok(team, 'DELETE', `/menu/items/${gone._id}`, undefined, 200);
    for (const id of [gone._id, '0123456789abcdef01234567']) {
      for (const [method, path] of [['GET', `/bom/${id}`], ['POST', `/bom/${id}/calculate`], ['GET', `/bom/${id}/history`]] as const) {
        const res = await call(team, method, path, method === 'POST' ? {} : undefined);
        expect(res.statusCode, `${method} ${path}`).toBe(404);
      }
    }
    const bad = await call(team, 'GET', '/bom/not-an-id');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('params.menuItemId');
  });
});

describe('indirect costs', () => {
  it('create, update (partial, re-validated), delete', async () => {
    const team = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, team.tenant);
    const created = await indirect(team, dish._id, 'labor', '  Chapeiro ', 250, 'fixed');
    expect(created).toMatchObject({ menuItem: dish._id, type: 'labor', label: 'Chapeiro', valuePerUnit: 250, unitType: 'fixed' });

    expect(await ok(team, 'PUT', `/bom/indirect-costs/${created._id}`, { label: 'Chapeiro noturno', type: 'other' }, 200)).toMatchObject({
      label: 'Chapeiro noturno',
      type: 'other',
      valuePerUnit: 250,
      unitType: 'fixed',
    });
    // Changing the unit type needs the value that goes with it.
    let res = await call(team, 'PUT', `/bom/indirect-costs/${created._id}`, { unitType: 'percentage_of_direct' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('body.valuePerUnit');
    expect(await ok(team, 'PUT', `/bom/indirect-costs/${created._id}`, { unitType: 'percentage_of_direct', valuePerUnit: 0.125 }, 200)).toMatchObject({
      valuePerUnit: 0.125,
      unitType: 'percentage_of_direct',
    });
    // The stored unit type checks a new value: a fraction above 10, more than 6 decimals.
    for (const valuePerUnit of [10.5, 0.1234567]) {
      res = await call(team, 'PUT', `/bom/indirect-costs/${created._id}`, { valuePerUnit });
      expect(res.statusCode, String(valuePerUnit)).toBe(400);
      expect(res.json().details[0].field).toBe('body.valuePerUnit');
    }
    res = await call(team, 'PUT', `/bom/indirect-costs/${created._id}`, { unitType: 'fixed', valuePerUnit: 12.5 });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('body.valuePerUnit');
    expect(await ok(team, 'PUT', `/bom/indirect-costs/${created._id}`, { valuePerUnit: 10 }, 200)).toMatchObject({ valuePerUnit: 10 });
    for (const body of [{ label: '' }, { label: '   ' }, { type: 'rent' }, { valuePerUnit: -1 }, { menuItemId: dish._id }, { unitType: 'percent' }]) {
      res = await call(team, 'PUT', `/bom/indirect-costs/${created._id}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await ok(team, 'GET', `/bom/${dish._id}`, undefined, 200)).indirectCosts).toMatchObject([
      { _id: created._id, label: 'Chapeiro noturno', valuePerUnit: 10, unitType: 'percentage_of_direct' },
    ]);

    expect(await ok(team, 'DELETE', `/bom/indirect-costs/${created._id}`, undefined, 200)).toEqual({ deleted: true });
    expect((await call(team, 'DELETE', `/bom/indirect-costs/${created._id}`)).statusCode).toBe(404);
    expect((await call(team, 'PUT', `/bom/indirect-costs/${created._id}`, { label: 'x' })).statusCode).toBe(404);
    expect((await call(team, 'DELETE', '/bom/indirect-costs/nope')).statusCode).toBe(400);
  });

  it('create: every field required and checked; the menu item must be the tenant\'s', async () => {
    const team = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, team.tenant);
    const good = { menuItemId: dish._id, type: 'energy', label: 'Forno', valuePerUnit: 0.05, unitType: 'percentage_of_direct' };
    const cases: [object, string][] = [
      [{ ...good, menuItemId: undefined }, 'body.menuItemId'],
      [{ ...good, type: undefined }, 'body.type'],
      [{ ...good, label: undefined }, 'body.label'],
      [{ ...good, valuePerUnit: undefined }, 'body.valuePerUnit'],
      [{ ...good, unitType: undefined }, 'body.unitType'],
      [{ ...good, type: 'rent' }, 'body.type'],
      [{ ...good, unitType: 'percent' }, 'body.unitType'],
      [{ ...good, valuePerUnit: -0.01 }, 'body.valuePerUnit'],
      [{ ...good, valuePerUnit: 11 }, 'body.valuePerUnit'],
      [{ ...good, valuePerUnit: 1.5, unitType: 'fixed' }, 'body.valuePerUnit'],
      [{ ...good, valuePerUnit: 100_000_001, unitType: 'fixed' }, 'body.valuePerUnit'],
      [{ ...good, label: '' }, 'body.label'],
      [{ ...good, menuItemId: 'x' }, 'body.menuItemId'],
      [{ ...good, extra: 1 }, 'body.extra'],
    ];
    for (const [body, field] of cases) {
      const res = await call(team, 'POST', '/bom/indirect-costs', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field), JSON.stringify(body)).toContain(field);
    }
    const unknown = await call(team, 'POST', '/bom/indirect-costs', { ...good, menuItemId: '0123456789abcdef01234567' });
    expect(unknown.statusCode).toBe(404);
    expect((await ok(team, 'GET', `/bom/${dish._id}`, undefined, 200)).indirectCosts).toEqual([]);
    expect(await indirect(team, dish._id, 'other', 'Zero', 0, 'fixed')).toMatchObject({ valuePerUnit: 0 });
    expect(await indirect(team, dish._id, 'other', 'Dez vezes', 10, 'percentage_of_direct')).toMatchObject({ valuePerUnit: 10 });
  });
});

describe('tenant isolation', () => {
  it("another tenant's dishes and indirect costs are 404 through its slug, 403 through the owner's; nothing changes", async () => {
    const owner = await makeTenantWithTeam(t.app);
    const outsider = await makeTenantWithTeam(t.app);
    const { dish } = await fileDish(owner);
    await ok(owner, 'POST', `/bom/${dish._id}/calculate`, {}, 201);
    const cost = (await ok(owner, 'GET', `/bom/${dish._id}`, undefined, 200)).indirectCosts[0];
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'GET', path: `/t/:slug/bom/${dish._id}` },
        { method: 'POST', path: `/t/:slug/bom/${dish._id}/calculate`, payload: { targetMargin: 0.5 } },
        { method: 'GET', path: `/t/:slug/bom/${dish._id}/history` },
        { method: 'POST', path: '/t/:slug/bom/indirect-costs', payload: { menuItemId: dish._id, type: 'labor', label: 'x', valuePerUnit: 1, unitType: 'fixed' } },
        { method: 'PUT', path: `/t/:slug/bom/indirect-costs/${cost._id}`, payload: { label: 'hijacked' } },
        { method: 'DELETE', path: `/t/:slug/bom/indirect-costs/${cost._id}` },
      ],
      snapshot: async () => ({
        detail: await ok(owner, 'GET', `/bom/${dish._id}`, undefined, 200),
        history: await ok(owner, 'GET', `/bom/${dish._id}/history`, undefined, 200),
      }),
    });
    // The outsider's list does not show the owner's dish.
    const list = await ok(outsider, 'GET', '/bom', undefined, 200);
    expect(list.map((e: { menuItemId: string }) => e.menuItemId)).not.toContain(dish._id);
  });
});

describe('snapshot on supplier invoice import', () => {
  const NFE_DIR = join(import.meta.dirname, '../../../../shared/data/nfe');

  function importNfs(team: Team, file: string) {
    const boundary = `----bom${Math.random().toString(16).slice(2)}`;
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="nfe.xml"\r\ncontent-type: text/xml\r\n\r\n`),
      readFileSync(join(NFE_DIR, file)),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return t.app.inject({
      method: 'POST',
      url: `/t/${team.slug}/inventory/import-nfs`,
      headers: { ...team.admin.headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
  }

  it('only dishes using an ingredient whose cost changed get an nfe_import snapshot, in the import', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    expect((await call(team, 'PUT', '/tenants', { cnpj: '99999999000191' })).statusCode).toBe(200);
    // mod55-nfe_1.xml: rolls (RL -> un) matched by name. 1.700X400 at 214,57 (was 200,00: changes);
    // 1070X100 at 48,91 (already 48,91: unchanged); 170MX250 twice at 138,30 (was 130,00: changes).
    const wide = await stockItem(team, 'PAPEL MAXPLOT - 1.700X400MX 56 GRS 3"', 'un', 20000);
    const same = await stockItem(team, 'PAPEL MAXPLOT- 1070X100MX75GRS 2"', 'un', 4891);
    const roll = await stockItem(team, 'PAPEL MAXPLOT- 170MX250MX56GRS 3"', 'un', 13000);
    const other = await stockItem(team, 'Guardanapo', 'un', 5);

    const usesWide = await makeMenuItem(t.app, team.tenant, { name: 'Usa 1.700', price: 10000 });
    await recipe(team, usesWide._id, wide, 0.01);
    await recipe(team, usesWide._id, other, 2);
    const usesSame = await makeMenuItem(t.app, team.tenant, { name: 'Usa 1070', price: 10000 });
    await recipe(team, usesSame._id, same, 0.5);
    const usesRoll = await makeMenuItem(t.app, team.tenant, { name: 'Usa 170', price: 10000 });
    await recipe(team, usesRoll._id, roll, 0.003);
    await indirect(team, usesRoll._id, 'packaging', 'Caixa', 0.1, 'percentage_of_direct');
    const usesNothing = await makeMenuItem(t.app, team.tenant, { name: 'Nada', price: 10000 });
    await recipe(team, usesNothing._id, other, 1);
    // A manual snapshot with a target margin before: the import's snapshot keeps that margin.
    const before = await ok(team, 'POST', `/bom/${usesRoll._id}/calculate`, { targetMargin: 0.7 }, 201);
    // 0.003 x 13000 = 39; 10% = 3.9 -> 4; 43; 43 / 0.3 = 143.33 -> 144
    expect(before).toMatchObject({ totalDirectCost: 39, totalIndirectCost: 4, totalCostPerUnit: 43, suggestedSellingPrice: 144 });

    const res = await importNfs(team, 'mod55-nfe_1.xml');
    expect(res.statusCode, res.body).toBe(201);
    // The fifth line (1.85MX250) matches nothing: a new item, in no recipe.
    expect(res.json()).toMatchObject({ created: 1, movements: 5 });

    const wideHistory = await ok(team, 'GET', `/bom/${usesWide._id}/history`, undefined, 200);
    expect(wideHistory).toHaveLength(1);
    // 0.01 x 21457 = 214.57; 2 x 5 = 10: 224.57 -> 225
    expect(wideHistory[0]).toMatchObject({
      triggeredBy: 'nfe_import',
      totalDirectCost: 225,
      totalIndirectCost: 0,
      totalCostPerUnit: 225,
      targetMargin: null,
      suggestedSellingPrice: null,
      createdBy: team.admin.id,
    });
    expect(wideHistory[0].ingredientSnapshot.map((l: { currentCostPrice: number }) => l.currentCostPrice).sort((a: number, b: number) => a - b)).toEqual([
      5, 21457,
    ]);

    const rollHistory = await ok(team, 'GET', `/bom/${usesRoll._id}/history`, undefined, 200);
    expect(rollHistory.map((s: { triggeredBy: string }) => s.triggeredBy)).toEqual(['nfe_import', 'manual']);
    // 0.003 x 13830 = 41.49; 10% = 4.149: direct 41, indirect 4, total 45; 45 / 0.3 = 150
    expect(rollHistory[0]).toMatchObject({ totalDirectCost: 41, totalIndirectCost: 4, totalCostPerUnit: 45, targetMargin: 0.7, suggestedSellingPrice: 150 });

    expect(await ok(team, 'GET', `/bom/${usesSame._id}/history`, undefined, 200)).toEqual([]);
    expect(await ok(team, 'GET', `/bom/${usesNothing._id}/history`, undefined, 200)).toEqual([]);
    const list = await ok(team, 'GET', '/bom', undefined, 200);
    expect(list.find((e: { menuItemId: string }) => e.menuItemId === usesWide._id).latestSnapshot).toMatchObject({ triggeredBy: 'nfe_import', totalCostPerUnit: 225 });
  });

  it('a dish whose cost did not move from its latest snapshot gets none; a deleted dish gets none', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    expect((await call(team, 'PUT', '/tenants', { cnpj: '99999999000191' })).statusCode).toBe(200);
    const wide = await stockItem(team, 'PAPEL MAXPLOT - 1.700X400MX 56 GRS 3"', 'un', 21457);
    // The snapshot is taken at 214,57, the cost moves to 200,00 by hand, and the invoice brings it back.
    const dish = await makeMenuItem(t.app, team.tenant, { price: 50000 });
    await recipe(team, dish._id, wide, 1);
    const gone = await makeMenuItem(t.app, team.tenant, { price: 50000 });
    await recipe(team, gone._id, wide, 2);
    await ok(team, 'POST', `/bom/${dish._id}/calculate`, {}, 201);
    await ok(team, 'PUT', `/inventory/${wide}`, { cost: 20000 }, 200);
    await ok(team, 'DELETE', `/menu/items/${gone._id}`, undefined, 200);
    expect((await importNfs(team, 'mod55-nfe_1.xml')).statusCode).toBe(201);
    expect((await ok(team, 'GET', `/bom/${dish._id}/history`, undefined, 200)).map((s: { triggeredBy: string }) => s.triggeredBy)).toEqual(['manual']);
    const goneSnapshots = await t.app.deps
      .tenantDb(team.tenant._id)
      .run((tx) => tx.db.select().from(bomSnapshots).where(and(eq(bomSnapshots.tenantId, team.tenant._id), eq(bomSnapshots.menuItemId, gone._id))));
    expect(goneSnapshots).toEqual([]);
  });
});

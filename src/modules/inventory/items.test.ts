import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeSuperadmin, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { newId } from '../../db/ids.js';
import { branchStock, labelTokens, productIngredients, stockAlerts } from '../../db/schema/inventory.js';
import { validEan } from './units.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MISSING = 'ffffffffffffffffffffffff';
let n = 0;
const uniq = () => `${Date.now().toString(36)}-${++n}`;

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Item = {
  _id: string;
  name: string;
  sku: string;
  currentStock: number;
  availableQuantity: number;
  reservedQuantity: number;
  minStock: number;
  status: string;
  ean: string | null;
  unit: string;
};

function call(method: Method, url: string, headers: Record<string, string> = {}, payload?: object) {
  return t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
}

const base = (slug: string) => `/t/${slug}/inventory`;

/** A fresh valid EAN-13 (a random base and its check digit). */
function ean13(): string {
  const body = String(randomInt(100_000_000_000, 999_999_999_999));
  for (let d = 0; d < 10; d++) if (validEan(body + d)) return body + d;
  throw new Error('no check digit');
}

function itemBody(over: Record<string, unknown> = {}) {
  const s = uniq();
  return { name: `Farinha ${s}`, sku: `FAR-${s}`, currentStock: 0, minStock: 0, unit: 'kg', cost: 450, ...over };
}

async function createItem(team: Team, over: Record<string, unknown> = {}): Promise<Item> {
  const res = await call('POST', base(team.slug), team.admin.headers, itemBody(over));
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function listItems(team: Team, query = ''): Promise<Item[]> {
  const res = await call('GET', `${base(team.slug)}${query}`, team.admin.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function movementsOf(team: Team, id: string) {
  const res = await call('GET', `${base(team.slug)}/${id}/movements?limit=100`, team.admin.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: { type: string; reason: string; quantity: number; before: number; after: number; unitCost: number | null }[]; total: number };
}

async function move(team: Team, id: string, body: Record<string, unknown>) {
  return call('POST', `${base(team.slug)}/${id}/movements`, team.admin.headers, body);
}

const fieldsOf = (res: { json(): { details?: { field: string }[] } }) => (res.json().details ?? []).map((d) => d.field);

/** A recipe line naming the item (a fixture: the recipes routes are another part). */
const recipeLine = (team: Team, menuItemId: string, itemId: string, unit: 'cx' | null = null) =>
  t.app.deps.tenantDb(team.tenant._id).run((tx) =>
    tx.db.insert(productIngredients).values({ tenantId: tx.tenantId, id: newId(), menuItemId, itemId, quantityMilli: 1000, unit }),
  );

const openAlerts = (team: Team) =>
  t.app.deps.tenantDb(team.tenant._id).run(async (tx) => (await tx.db.select().from(stockAlerts)).filter((a) => a.resolvedAt === null));

describe('inventory catalog', () => {
  it('creates an item in the catalog vocabulary; its opening stock is an entry movement', async () => {
    const team = await makeTenantWithTeam(t.app);
    const ean = ean13();
    const body = itemBody({ currentStock: 12.5, minStock: 2.25, cost: 333, ean, packSize: 25, expirationDate: '2026-09-30' });
    const res = await call('POST', base(team.slug), team.admin.headers, body);
    expect(res.statusCode, res.body).toBe(201);
    const item = res.json();
    expect(item).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: body.name,
      sku: body.sku,
      ean,
      unit: 'kg',
      packSize: 25,
      currentStock: 12.5,
      reservedQuantity: 0,
      availableQuantity: 12.5,
      minStock: 2.25,
      cost: 333,
      expirationDate: '2026-09-30',
      status: 'active',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const history = await movementsOf(team, item._id);
    expect(history.total).toBe(1);
    expect(history.data[0]).toMatchObject({ type: 'entry', reason: 'adjustment', quantity: 12.5, before: 0, after: 12.5, unitCost: 333 });
    expect(await listItems(team)).toEqual([item]);

    // No opening stock, no movement; nullable extras default to null.
    const empty = await createItem(team, { unit: 'un' });
    expect(empty).toMatchObject({ currentStock: 0, ean: null, packSize: null, expirationDate: null, status: 'active', unit: 'un' });
    expect((await movementsOf(team, empty._id)).total).toBe(0);
  });

  it('lists live items by name, filtered by status or barcode', async () => {
    const team = await makeTenantWithTeam(t.app);
    const ean = ean13();
    const b = await createItem(team, { name: 'Batata', status: 'blocked' });
    const a = await createItem(team, { name: 'Arroz', ean });
    const c = await createItem(team, { name: 'Cebola', status: 'expired' });
    expect((await listItems(team)).map((i) => i._id)).toEqual([a._id, b._id, c._id]);
    expect((await listItems(team, '?status=blocked')).map((i) => i._id)).toEqual([b._id]);
    expect((await listItems(team, `?ean=${ean}`)).map((i) => i._id)).toEqual([a._id]);
    const bad = await call('GET', `${base(team.slug)}?status=gone`, team.admin.headers);
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toContain('querystring.status');
    // The staff (ManageInventory) read the catalog too.
    expect((await call('GET', base(team.slug), team.staff.headers)).statusCode).toBe(200);
  });

  it('refuses invalid fields with a 400 naming the field, and creates nothing', async () => {
    const team = await makeTenantWithTeam(t.app);
    // A valid EAN-13 with its check digit changed: always wrong (two random draws could both be right).
    const good = ean13();
    const wrongCheck = good.slice(0, 12) + String((Number(good[12]) + 1) % 10);
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'body.name'],
      [{ sku: ' FAR-1' }, 'body.sku'],
      [{ sku: '' }, 'body.sku'],
      [{ unit: 'g' }, 'body.unit'],
      [{ currentStock: -1 }, 'body.currentStock'],
      [{ currentStock: 1.0005 }, 'body.currentStock'],
      [{ minStock: 0.0001 }, 'body.minStock'],
      [{ minStock: 'low' }, 'body.minStock'],
      [{ cost: 1.5 }, 'body.cost'],
      [{ cost: -1 }, 'body.cost'],
      [{ ean: '123' }, 'body.ean'],
      [{ ean: '123456789' }, 'body.ean'],
      [{ ean: wrongCheck }, 'body.ean'],
      [{ packSize: 0 }, 'body.packSize'],
      [{ packSize: 2.0001 }, 'body.packSize'],
      [{ expirationDate: '2026-02-30' }, 'body.expirationDate'],
      [{ status: 'gone' }, 'body.status'],
      [{ physicalQuantity: 3 }, 'body.physicalQuantity'],
    ];
    for (const [over, field] of cases) {
      const res = await call('POST', base(team.slug), team.admin.headers, itemBody(over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(fieldsOf(res), JSON.stringify(over)).toContain(field);
    }
    const { sku: _sku, ...noSku } = itemBody();
    const missing = await call('POST', base(team.slug), team.admin.headers, noSku);
    expect(missing.statusCode).toBe(400);
    expect(fieldsOf(missing)).toContain('body.sku');
    expect(await listItems(team)).toEqual([]);
  });

  it('keeps SKU and EAN unique among live items (409), per tenant, and frees them on delete', async () => {
    const team = await makeTenantWithTeam(t.app);
    const other = await makeTenantWithTeam(t.app);
    const ean = ean13();
    const first = await createItem(team, { sku: 'QUEIJO-1', ean });
    const dupSku = await call('POST', base(team.slug), team.admin.headers, itemBody({ sku: 'QUEIJO-1' }));
    expect(dupSku.statusCode).toBe(409);
    expect(dupSku.json().code).toBe('sku_taken');
    const dupEan = await call('POST', base(team.slug), team.admin.headers, itemBody({ ean }));
    expect(dupEan.statusCode).toBe(409);
    expect(dupEan.json().code).toBe('ean_taken');
    // Another tenant may use both.
    await createItem(other, { sku: 'QUEIJO-1', ean });
    // An update to a taken SKU or EAN is the same 409.
    const second = await createItem(team);
    const clash = await call('PUT', `${base(team.slug)}/${second._id}`, team.admin.headers, { sku: 'QUEIJO-1' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().code).toBe('sku_taken');
    const clashEan = await call('PUT', `${base(team.slug)}/${second._id}`, team.admin.headers, { ean });
    expect(clashEan.json().code).toBe('ean_taken');
    expect((await listItems(team)).find((i) => i._id === second._id)).toMatchObject({ sku: second.sku, ean: null });
    // Deleted, its SKU and EAN are free again.
    expect((await call('DELETE', `${base(team.slug)}/${first._id}`, team.admin.headers)).statusCode).toBe(204);
    await createItem(team, { sku: 'QUEIJO-1', ean });
  });

  it('updates any field but the stock, which only movements change', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 4, ean: ean13(), packSize: 12, unit: 'un' });
    const ean = ean13();
    const res = await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, {
      name: 'Leite integral',
      cost: 529,
      ean,
      packSize: 6,
      expirationDate: '2026-12-01',
      status: 'blocked',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ _id: item._id, name: 'Leite integral', sku: item.sku, cost: 529, ean, packSize: 6, expirationDate: '2026-12-01', status: 'blocked', currentStock: 4 });
    // Nullable fields clear; an empty body changes nothing.
    const cleared = await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { ean: null, packSize: null, expirationDate: null });
    expect(cleared.json()).toMatchObject({ ean: null, packSize: null, expirationDate: null });
    expect((await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, {})).json()).toMatchObject({ name: 'Leite integral', currentStock: 4 });

    const stock = await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { currentStock: 10 });
    expect(stock.statusCode).toBe(400);
    expect(fieldsOf(stock)).toEqual(['body.currentStock']);
    expect(stock.json().message).toMatch(/movements/);
    for (const [over, field] of [
      [{ minStock: 1.0001 }, 'body.minStock'],
      [{ ean: '7891000315508' }, 'body.ean'],
      [{ unit: 'cx' }, 'body.unit'],
      [{ availableQuantity: 1 }, 'body.availableQuantity'],
    ] as const) {
      const bad = await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, over);
      expect(bad.statusCode, JSON.stringify(over)).toBe(400);
      expect(fieldsOf(bad)).toContain(field);
    }
    expect((await listItems(team))[0]).toMatchObject({ currentStock: 4, minStock: 0, ean: null });
  });

  it('changes the unit only while nothing is counted in it', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 2, unit: 'kg' });
    const refused = await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { unit: 'l' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('unit_in_use');
    // Same unit again is no change.
    expect((await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { unit: 'kg' })).statusCode).toBe(200);
    expect((await move(team, item._id, { type: 'exit', reason: 'loss', quantity: 2 })).statusCode).toBe(201);
    const ok = await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { unit: 'l' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().unit).toBe('l');
    // A recipe line counting it (a fixture row: the recipes routes are another part) blocks a change again.
    const menuItem = await makeMenuItem(t.app, team.tenant);
    await recipeLine(team, menuItem._id, item._id);
    expect((await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { unit: 'kg' })).json().code).toBe('unit_in_use');
  });

  it('keeps a pack size while a recipe counts the item in boxes', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { unit: 'un', packSize: 12 });
    const menuItem = await makeMenuItem(t.app, team.tenant);
    await recipeLine(team, menuItem._id, item._id, 'cx');
    const res = await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { packSize: null });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('pack_size_in_use');
    // Another size is fine.
    expect((await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { packSize: 6 })).json().packSize).toBe(6);
  });

  it('rechecks the low-stock alert when the minimum changes', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 5, minStock: 1 });
    expect(await openAlerts(team)).toEqual([]);
    const raised = await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { minStock: 5 });
    expect(raised.statusCode).toBe(200);
    expect((await openAlerts(team)).map((a) => [a.itemId, a.availableMilli, a.minMilli])).toEqual([[item._id, 5000, 5000]]);
    // Raised again, still one open alert.
    await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { minStock: 6 });
    expect(await openAlerts(team)).toHaveLength(1);
    await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { minStock: 4.999 });
    expect(await openAlerts(team)).toEqual([]);
    // An item created at or below its minimum alerts at once.
    const low = await createItem(team, { currentStock: 0, minStock: 2 });
    expect((await openAlerts(team)).map((a) => a.itemId)).toEqual([low._id]);
  });

  it('deletes an item (soft): gone from the list, its movements refused, its open alert closed', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 1, minStock: 3 });
    expect(await openAlerts(team)).toHaveLength(1);
    const res = await call('DELETE', `${base(team.slug)}/${item._id}`, team.admin.headers);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await listItems(team)).toEqual([]);
    expect(await openAlerts(team)).toEqual([]);
    expect((await move(team, item._id, { type: 'entry', reason: 'purchase', quantity: 1 })).statusCode).toBe(404);
    expect((await call('PUT', `${base(team.slug)}/${item._id}`, team.admin.headers, { name: 'x' })).statusCode).toBe(404);
    expect((await call('GET', `${base(team.slug)}/${item._id}/movements`, team.admin.headers)).statusCode).toBe(404);
    expect((await call('DELETE', `${base(team.slug)}/${item._id}`, team.admin.headers)).statusCode).toBe(404);
    expect((await call('DELETE', `${base(team.slug)}/${MISSING}`, team.admin.headers)).statusCode).toBe(404);
  });

  it('refuses to delete an item still named by a recipe line, a PDV row or an unscanned label (409 item_in_use)', async () => {
    const team = await makeTenantWithTeam(t.app);
    const db = t.app.deps.tenantDb(team.tenant._id);
    const menuItem = await makeMenuItem(t.app, team.tenant);
    const { pdvId } = await makePdv(t.app, team.tenant);
    const fixtures = [
      (itemId: string) => recipeLine(team, menuItem._id, itemId),
      (itemId: string) => db.run((tx) => tx.db.insert(branchStock).values({ tenantId: tx.tenantId, id: newId(), itemId, pdvId })),
      (itemId: string) =>
        db.run((tx) =>
          tx.db
            .insert(labelTokens)
            .values({ tenantId: tx.tenantId, id: newId(), token: crypto.randomUUID(), itemId, quantityMilli: 1000, reason: 'loss', createdBy: team.admin.id }),
        ),
    ];
    for (const [i, fixture] of fixtures.entries()) {
      const item = await createItem(team);
      await fixture(item._id);
      const res = await call('DELETE', `${base(team.slug)}/${item._id}`, team.admin.headers);
      expect(res.statusCode, `fixture ${i}`).toBe(409);
      expect(res.json().code).toBe('item_in_use');
      expect((await listItems(team)).map((x) => x._id)).toContain(item._id);
    }
    // A used label no longer holds it.
    const item = await createItem(team);
    await db.run((tx) =>
      tx.db
        .insert(labelTokens)
        .values({ tenantId: tx.tenantId, id: newId(), token: crypto.randomUUID(), itemId: item._id, quantityMilli: 1000, reason: 'loss', status: 'used', createdBy: team.admin.id }),
    );
    expect((await call('DELETE', `${base(team.slug)}/${item._id}`, team.admin.headers)).statusCode).toBe(204);
  });

  it('guards every route: 401 without a token, 403 for a role without the permission', async () => {
    const team = await makeTenantWithTeam(t.app);
    const manager = await makeUser(t.app, team.tenant, 'branch_manager');
    const sa = await makeSuperadmin(t.app);
    const item = await createItem(team);
    const b = base(team.slug);
    const routes: [Method, string, object?][] = [
      ['GET', b],
      ['POST', b, itemBody()],
      ['PUT', `${b}/${item._id}`, { name: 'Novo' }],
      ['POST', `${b}/${item._id}/movements`, { type: 'entry', reason: 'purchase', quantity: 1 }],
      ['GET', `${b}/${item._id}/movements`],
      ['GET', `${b}/stats`],
      ['GET', `${b}/expiration-alerts`],
      ['GET', `${b}/alerts`],
      ['GET', `${b}/alerts/count`],
      ['PUT', `${b}/alerts/${MISSING}/read`],
      ['DELETE', `${b}/${item._id}`],
    ];
    for (const [method, url, payload] of routes) {
      expect((await call(method, url, {}, payload)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, { authorization: 'Bearer nope' }, payload)).statusCode, `${method} ${url}`).toBe(401);
      // The accountant holds neither ManageInventory nor ManageSettings, nor an expiration-alerts role.
      expect((await call(method, url, team.accountant.headers, payload)).statusCode, `${method} ${url}`).toBe(403);
    }
    // Catalog changes are ManageSettings (admin): staff and branch managers get 403.
    const catalogChanges = routes.filter(([m, u]) => m !== 'GET' && !u.includes('/movements') && !u.includes('/alerts'));
    expect(catalogChanges.map(([m]) => m)).toEqual(['POST', 'PUT', 'DELETE']);
    for (const who of [team.staff, manager]) {
      for (const [method, url, payload] of catalogChanges) {
        expect((await call(method, url, who.headers, payload)).statusCode, `${method} ${url}`).toBe(403);
      }
    }
    // Expiration alerts: admin, staff or superadmin; not a branch manager.
    expect((await call('GET', `${b}/expiration-alerts`, manager.headers)).statusCode).toBe(403);
    expect((await call('GET', `${b}/expiration-alerts`, team.staff.headers)).statusCode).toBe(200);
    expect((await call('GET', `${b}/expiration-alerts`, sa.headers)).statusCode).toBe(200);
    // ManageInventory routes: staff, branch manager and superadmin pass.
    for (const who of [team.staff, manager, sa]) {
      expect((await call('GET', `${b}/stats`, who.headers)).statusCode).toBe(200);
      expect((await call('GET', `${b}/alerts/count`, who.headers)).statusCode).toBe(200);
      expect((await call('POST', `${b}/${item._id}/movements`, who.headers, { type: 'entry', reason: 'purchase', quantity: 1 })).statusCode).toBe(201);
    }
    // The superadmin manages the catalog too.
    expect((await call('PUT', `${b}/${item._id}`, sa.headers, { name: 'Pelo suporte' })).json().name).toBe('Pelo suporte');
    expect((await listItems(team))[0]).toMatchObject({ currentStock: 3 });
  });

  it("answers 404 for another tenant's item and alert, and changes nothing", async () => {
    const owner = await makeTenantWithTeam(t.app);
    const outsider = await makeTenantWithTeam(t.app);
    const item = await createItem(owner, { currentStock: 1, minStock: 2 });
    const [alert] = await openAlerts(owner);
    const b = '/t/:slug/inventory';
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'PUT', path: `${b}/${item._id}`, payload: { name: 'Roubado' } },
        { method: 'DELETE', path: `${b}/${item._id}` },
        { method: 'POST', path: `${b}/${item._id}/movements`, payload: { type: 'exit', reason: 'theft', quantity: 1 } },
        { method: 'GET', path: `${b}/${item._id}/movements` },
        { method: 'PUT', path: `${b}/alerts/${alert!.id}/read` },
      ],
      snapshot: async () => ({ items: await listItems(owner), movements: await movementsOf(owner, item._id), alerts: await openAlerts(owner) }),
    });
    // Nor does the outsider's list show them.
    expect(await listItems(outsider)).toEqual([]);
    expect((await call('GET', `${base(outsider.slug)}/alerts`, outsider.admin.headers)).json()).toEqual([]);
  });
});

describe('inventory stats', () => {
  it('counts active items, values the physical stock in cents, and counts low, expired and blocked items', async () => {
    const team = await makeTenantWithTeam(t.app);
    const empty = await call('GET', `${base(team.slug)}/stats`, team.admin.headers);
    expect(empty.json()).toEqual({ totalItems: 0, totalValue: 0, lowStock: 0, expired: 0, blocked: 0 });
    // 1.5 kg x 333 = 499.5 -> 500 cents; active, above its minimum.
    await createItem(team, { currentStock: 1.5, cost: 333, minStock: 1 });
    // 2 un x R$10: expired and low (2 <= 5).
    await createItem(team, { unit: 'un', currentStock: 2, cost: 1000, minStock: 5, status: 'expired' });
    // Blocked, no stock, minimum 1: low.
    await createItem(team, { currentStock: 0, cost: 999, minStock: 1, status: 'blocked' });
    // Active, no stock, no minimum (0): not low.
    await createItem(team, { currentStock: 0, cost: 50, minStock: 0 });
    // Active, 10 l x 10 = 100 cents; 7 reserved: available 3 <= 4, low.
    const held = await createItem(team, { unit: 'l', currentStock: 10, cost: 10, minStock: 4 });
    expect((await move(team, held._id, { type: 'reservation', reason: 'sale', quantity: 7 })).statusCode).toBe(201);
    // Deleted: not counted at all.
    const gone = await createItem(team, { currentStock: 100, cost: 100_000, minStock: 1000 });
    expect((await call('DELETE', `${base(team.slug)}/${gone._id}`, team.admin.headers)).statusCode).toBe(204);

    const res = await call('GET', `${base(team.slug)}/stats`, team.staff.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ totalItems: 3, totalValue: 500 + 2000 + 100, lowStock: 3, expired: 1, blocked: 1 });
  });
});

describe('expiration alerts', () => {
  it('sorts items with stock into expired, within 7 days and within 8 to 30 days, by the tenant’s calendar', async () => {
    const team = await makeTenantWithTeam(t.app);
    const now = t.clock.now();
    // 02:00 UTC on 10 March is still 9 March in São Paulo (UTC-3): today is the 9th.
    t.clock.set(new Date('2026-03-10T02:00:00Z'));
    try {
      const make = (expirationDate: string, over: Record<string, unknown> = {}) => createItem(team, { currentStock: 2, expirationDate, ...over });
      const yesterday = await make('2026-03-08');
      const longAgo = await make('2025-12-31', { status: 'expired' });
      await make('2026-03-01', { currentStock: 0 }); // no stock: nothing to throw away
      const today = await make('2026-03-09');
      const in7 = await make('2026-03-16');
      const in8 = await make('2026-03-17');
      const in30 = await make('2026-04-08');
      await make('2026-04-09'); // 31 days: not yet
      await createItem(team, { currentStock: 5 }); // no date
      // Available, not physical: 0.5 of 2 held.
      expect((await move(team, today._id, { type: 'reservation', reason: 'production', quantity: 0.5 })).statusCode).toBe(201);

      const res = await call('GET', `${base(team.slug)}/expiration-alerts`, team.staff.headers);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      const ids = (list: { _id: string }[]) => list.map((i) => i._id);
      expect(ids(body.expiredItems)).toEqual([longAgo._id, yesterday._id]);
      expect(ids(body.expiringIn7)).toEqual([today._id, in7._id]);
      expect(ids(body.expiringIn30)).toEqual([in8._id, in30._id]);
      expect(body.expiringIn7[0]).toEqual({ _id: today._id, name: today.name, sku: today.sku, expirationDate: '2026-03-09', availableQuantity: 1.5, unit: 'kg' });
    } finally {
      t.clock.set(now);
    }
  });
});

import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../app.js';
import { newId } from '../../db/ids.js';
import { branchStock, inventoryItems, inventoryMovements, stockAlerts, type StockUnit } from '../../db/schema/inventory.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makePdv, makeScopedTeam, makeSuperadmin, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

/**
 * Branch stock (spec 4.8 "Branch stock"): list, alerts, upsert, adjust, transfer and delete over HTTP;
 * every change a movement, exact thousandths, the low-stock alert of a row, permissions, branch scope
 * (staff their PDVs, branch managers their branches' PDVs), validation and tenant isolation.
 */
let t: TestApp;
let app: App;
beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
});
afterAll(() => t.close());

type H = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, headers: H = {}, payload?: object) => app.inject({ method, url, headers, payload: payload as never });
const fields = (res: { json(): unknown }) => ((res.json() as { details?: { field: string }[] }).details ?? []).map((d) => d.field);

/** A catalog item inserted directly (the items part builds its own routes). */
async function makeItem(tenantId: string, name = 'Farinha', unit: StockUnit = 'kg') {
  const id = newId();
  await app.deps.tenantDb(tenantId).run((tx) =>
    tx.db.insert(inventoryItems).values({ tenantId, id, name: `${name} ${id.slice(-6)}`, sku: `SKU-${id}`, unit }),
  );
  return id;
}

/**
 * A tenant with branch A (PDVs 1 and 2) and branch B (PDV 3), staff assigned to PDV 1, a branch manager
 * of branch A, another of branch B, and two items.
 */
async function world() {
  const team = await makeScopedTeam(app);
  const tenantId = team.tenant._id;
  const { main: a, other: b, manager, otherManager, secondPdvId, tdb } = team;
  const flour = await makeItem(tenantId, 'Farinha', 'kg');
  const eggs = await makeItem(tenantId, 'Ovos', 'un');
  const base = `/t/${team.slug}/branch-stock`;
  return {
    ...team,
    tenantId,
    manager,
    otherManager,
    pdv1: a.pdvId,
    pdv2: secondPdvId,
    pdv3: b.pdvId,
    flour,
    eggs,
    base,
    put: (headers: H, pdvId: string, body: object) => call('PUT', `${base}/${pdvId}`, headers, body),
    adjust: (headers: H, pdvId: string, body: object) => call('POST', `${base}/${pdvId}/adjust`, headers, body),
    transfer: (headers: H, body: object) => call('POST', `${base}/transfer`, headers, body),
    remove: (headers: H, pdvId: string, itemId: string) => call('DELETE', `${base}/${pdvId}/items/${itemId}`, headers),
    movements: (itemId: string) =>
      tdb.run((tx) =>
        tx.db
          .select()
          .from(inventoryMovements)
          .where(and(eq(inventoryMovements.tenantId, tenantId), eq(inventoryMovements.itemId, itemId)))
          .orderBy(asc(inventoryMovements.createdAt), asc(inventoryMovements.id)),
      ),
    openAlerts: (itemId: string) =>
      tdb.run(async (tx) =>
        (await tx.db.select().from(stockAlerts).where(and(eq(stockAlerts.tenantId, tenantId), eq(stockAlerts.itemId, itemId)))).filter((r) => !r.resolvedAt),
      ),
    rows: () => tdb.run((tx) => tx.db.select().from(branchStock).where(eq(branchStock.tenantId, tenantId)).orderBy(asc(branchStock.id))),
  };
}
type World = Awaited<ReturnType<typeof world>>;

describe('PUT /branch-stock/:pdvId (upsert)', () => {
  it('creates the row with its initial quantity as a movement, then sets the counted quantity of the existing row', async () => {
    const w = await world();
    const res = await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 2.5, minQuantity: 1 });
    expect(res.statusCode, res.body).toBe(200);
    const created = res.json();
    expect(created).toMatchObject({
      item: { _id: w.flour, sku: `SKU-${w.flour}`, unit: 'kg' },
      pdv: { _id: w.pdv1, name: expect.stringContaining('Caixa') },
      physicalQuantity: 2.5,
      availableQuantity: 2.5,
      minQuantity: 1,
    });
    expect(created.item.name).toMatch(/^Farinha/);

    const again = await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 1.25 });
    expect(again.statusCode, again.body).toBe(200);
    // Same row; the minimum is kept when omitted.
    expect(again.json()).toMatchObject({ _id: created._id, physicalQuantity: 1.25, availableQuantity: 1.25, minQuantity: 1 });

    const moves = await w.movements(w.flour);
    expect(moves.map((m) => [m.pdvId, m.type, m.reason, m.beforeMilli, m.afterMilli, m.deltaMilli])).toEqual([
      [w.pdv1, 'adjustment', 'adjustment', 0, 2500, 2500],
      [w.pdv1, 'adjustment', 'adjustment', 2500, 1250, -1250],
    ]);
    expect(moves[0]!.notes).toBe('initial stock at the PDV');
    expect(moves.every((m) => m.createdBy === w.admin.id)).toBe(true);
    expect(await w.rows()).toHaveLength(1);

    // null clears the minimum; the same quantity writes no movement.
    const cleared = await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 1.25, minQuantity: null });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).toMatchObject({ physicalQuantity: 1.25, minQuantity: null });
    expect(await w.movements(w.flour)).toHaveLength(2);
  });

  it('a new row of 0 writes no movement; quantities are exact thousandths (0.1 + 0.2 = 0.3)', async () => {
    const w = await world();
    const zero = await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 0 });
    expect(zero.statusCode, zero.body).toBe(200);
    expect(zero.json()).toMatchObject({ physicalQuantity: 0, availableQuantity: 0, minQuantity: null });
    expect(await w.movements(w.flour)).toHaveLength(0);
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 0.1 })).statusCode).toBe(200);
    const sum = await w.adjust(w.admin.headers, w.pdv1, { itemId: w.flour, delta: 0.2 });
    expect(sum.statusCode, sum.body).toBe(200);
    expect(sum.json().physicalQuantity).toBe(0.3);
    const [row] = await w.rows();
    expect(row!.physicalMilli).toBe(300);
  });

  it('raises one alert when available <= minimum, closes it above, and alerts on a change of minimum alone', async () => {
    const w = await world();
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 1, minQuantity: 2 })).statusCode).toBe(200);
    let open = await w.openAlerts(w.flour);
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ pdvId: w.pdv1, availableMilli: 1000, minMilli: 2000, pdvName: expect.stringContaining('Caixa') });
    // Still low: the same alert, now showing 0.5.
    expect((await w.adjust(w.admin.headers, w.pdv1, { itemId: w.flour, delta: -0.5 })).statusCode).toBe(200);
    open = await w.openAlerts(w.flour);
    expect(open).toHaveLength(1);
    expect(open[0]!.availableMilli).toBe(500);
    // Above the minimum: closed.
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 5 })).statusCode).toBe(200);
    expect(await w.openAlerts(w.flour)).toHaveLength(0);
    // The minimum raised to the quantity (no movement): an alert again (available <= min).
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 5, minQuantity: 5 })).statusCode).toBe(200);
    expect(await w.openAlerts(w.flour)).toHaveLength(1);
  });

  it('validates the body: 3 decimals, not negative, ids, no unknown field', async () => {
    const w = await world();
    for (const [body, field] of [
      [{ itemId: w.flour, physicalQuantity: 1.0001 }, 'body.physicalQuantity'],
      [{ itemId: w.flour, physicalQuantity: 1, minQuantity: 0.0005 }, 'body.minQuantity'],
      [{ itemId: w.flour, physicalQuantity: -1 }, 'body.physicalQuantity'],
      [{ itemId: w.flour, physicalQuantity: 1, minQuantity: -1 }, 'body.minQuantity'],
      [{ itemId: w.flour, physicalQuantity: '1' }, 'body.physicalQuantity'],
      [{ itemId: 'nope', physicalQuantity: 1 }, 'body.itemId'],
      [{ physicalQuantity: 1 }, 'body.itemId'],
      [{ itemId: w.flour }, 'body.physicalQuantity'],
      [{ itemId: w.flour, physicalQuantity: 1, extra: true }, 'body.extra'],
    ] as const) {
      const res = await w.put(w.admin.headers, w.pdv1, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fields(res), JSON.stringify(body)).toContain(field);
    }
    const badPdv = await w.put(w.admin.headers, 'not-an-id', { itemId: w.flour, physicalQuantity: 1 });
    expect(badPdv.statusCode).toBe(400);
    expect(await w.rows()).toHaveLength(0);
  });

  it('404 for an unknown PDV, another tenant’s PDV or an unknown item; 401 without a token; 403 without ManageInventory', async () => {
    const w = await world();
    const other = await makeTenantWithTeam(app);
    const foreign = await makePdv(app, other.tenant);
    expect((await w.put(w.admin.headers, newId(), { itemId: w.flour, physicalQuantity: 1 })).statusCode).toBe(404);
    expect((await w.put(w.admin.headers, foreign.pdvId, { itemId: w.flour, physicalQuantity: 1 })).statusCode).toBe(404);
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: newId(), physicalQuantity: 1 })).statusCode).toBe(404);
    expect((await w.put({}, w.pdv1, { itemId: w.flour, physicalQuantity: 1 })).statusCode).toBe(401);
    const accountant = await w.put(w.accountant.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 1 });
    expect(accountant.statusCode).toBe(403);
    expect(accountant.json().code).toBe('permission');
    expect(await w.rows()).toHaveLength(0);
  });

  it('branch scope: staff on their PDV only, a branch manager on their branch’s PDVs, superadmin anywhere', async () => {
    const w = await world();
    const ok = (res: { statusCode: number; body: string }) => expect(res.statusCode, res.body).toBe(200);
    const denied = (res: { statusCode: number; json(): { code: string } }) => {
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('branch_scope');
    };
    ok(await w.put(w.staff.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 1 }));
    denied(await w.put(w.staff.headers, w.pdv2, { itemId: w.flour, physicalQuantity: 1 }));
    denied(await w.put(w.staff.headers, w.pdv3, { itemId: w.flour, physicalQuantity: 1 }));
    ok(await w.put(w.manager.headers, w.pdv2, { itemId: w.flour, physicalQuantity: 2 }));
    denied(await w.put(w.manager.headers, w.pdv3, { itemId: w.flour, physicalQuantity: 1 }));
    ok(await w.put(w.otherManager.headers, w.pdv3, { itemId: w.flour, physicalQuantity: 3 }));
    const sa = await makeSuperadmin(app);
    ok(await w.put(sa.headers, w.pdv3, { itemId: w.eggs, physicalQuantity: 12 }));
    // An unknown PDV is a 404 before the scope.
    expect((await w.put(w.staff.headers, newId(), { itemId: w.flour, physicalQuantity: 1 })).statusCode).toBe(404);
    expect((await w.rows()).map((r) => [r.pdvId, r.physicalMilli]).sort()).toEqual(
      [
        [w.pdv1, 1000],
        [w.pdv2, 2000],
        [w.pdv3, 3000],
        [w.pdv3, 12000],
      ].sort(),
    );
  });
});

describe('POST /branch-stock/:pdvId/adjust', () => {
  it('adds a signed delta to an existing row as an adjustment movement', async () => {
    const w = await world();
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 3 })).statusCode).toBe(200);
    const down = await w.adjust(w.staff.headers, w.pdv1, { itemId: w.flour, delta: -1.125 });
    expect(down.statusCode, down.body).toBe(200);
    expect(down.json()).toMatchObject({ item: { _id: w.flour }, pdv: { _id: w.pdv1 }, physicalQuantity: 1.875, availableQuantity: 1.875 });
    const up = await w.adjust(w.admin.headers, w.pdv1, { itemId: w.flour, delta: 0.125 });
    expect(up.json().physicalQuantity).toBe(2);
    const moves = await w.movements(w.flour);
    expect(moves.slice(1).map((m) => [m.type, m.reason, m.beforeMilli, m.afterMilli, m.deltaMilli, m.quantityMilli, m.createdBy])).toEqual([
      ['adjustment', 'adjustment', 3000, 1875, -1125, 1125, w.staff.id],
      ['adjustment', 'adjustment', 1875, 2000, 125, 125, w.admin.id],
    ]);
  });

  it('400 naming delta when the result would be negative (nothing changes); 404 without a row', async () => {
    const w = await world();
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 1 })).statusCode).toBe(200);
    const negative = await w.adjust(w.admin.headers, w.pdv1, { itemId: w.flour, delta: -1.001 });
    expect(negative.statusCode, negative.body).toBe(400);
    expect(fields(negative)).toEqual(['body.delta']);
    const exact = await w.adjust(w.admin.headers, w.pdv1, { itemId: w.flour, delta: -1 });
    expect(exact.statusCode, exact.body).toBe(200);
    expect(exact.json().physicalQuantity).toBe(0);
    expect((await w.movements(w.flour)).map((m) => m.afterMilli)).toEqual([1000, 0]);
    // No row of eggs at PDV 1, none of flour at PDV 2.
    expect((await w.adjust(w.admin.headers, w.pdv1, { itemId: w.eggs, delta: 1 })).statusCode).toBe(404);
    expect((await w.adjust(w.admin.headers, w.pdv2, { itemId: w.flour, delta: 1 })).statusCode).toBe(404);
    expect((await w.adjust(w.admin.headers, w.pdv1, { itemId: newId(), delta: 1 })).statusCode).toBe(404);
    expect((await w.adjust(w.admin.headers, newId(), { itemId: w.flour, delta: 1 })).statusCode).toBe(404);
  });

  it('validates delta (3 decimals, not 0, a number) and the body', async () => {
    const w = await world();
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 1 })).statusCode).toBe(200);
    for (const [body, field] of [
      [{ itemId: w.flour, delta: 0.0001 }, 'body.delta'],
      [{ itemId: w.flour, delta: 0 }, 'body.delta'],
      [{ itemId: w.flour, delta: 'x' }, 'body.delta'],
      [{ itemId: w.flour }, 'body.delta'],
      [{ delta: 1 }, 'body.itemId'],
      [{ itemId: w.flour, delta: 1, reason: 'loss' }, 'body.reason'],
    ] as const) {
      const res = await w.adjust(w.admin.headers, w.pdv1, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fields(res), JSON.stringify(body)).toContain(field);
    }
    expect((await w.rows())[0]!.physicalMilli).toBe(1000);
  });

  it('401, 403 without the permission, 403 outside the branch scope', async () => {
    const w = await world();
    for (const pdv of [w.pdv1, w.pdv2, w.pdv3]) expect((await w.put(w.admin.headers, pdv, { itemId: w.flour, physicalQuantity: 5 })).statusCode).toBe(200);
    expect((await w.adjust({}, w.pdv1, { itemId: w.flour, delta: 1 })).statusCode).toBe(401);
    expect((await w.adjust(w.accountant.headers, w.pdv1, { itemId: w.flour, delta: 1 })).statusCode).toBe(403);
    expect((await w.adjust(w.staff.headers, w.pdv2, { itemId: w.flour, delta: 1 })).statusCode).toBe(403);
    expect((await w.adjust(w.manager.headers, w.pdv3, { itemId: w.flour, delta: 1 })).statusCode).toBe(403);
    expect((await w.adjust(w.manager.headers, w.pdv2, { itemId: w.flour, delta: 1 })).statusCode).toBe(200);
    expect((await w.rows()).map((r) => r.physicalMilli).sort()).toEqual([5000, 5000, 6000]);
  });
});

describe('GET /branch-stock', () => {
  async function stocked() {
    const w = await world();
    for (const [pdv, item, q] of [
      [w.pdv1, w.flour, 1],
      [w.pdv1, w.eggs, 30],
      [w.pdv2, w.flour, 2],
      [w.pdv3, w.eggs, 60],
    ] as const) {
      expect((await w.put(w.admin.headers, pdv, { itemId: item, physicalQuantity: q })).statusCode).toBe(200);
    }
    return w;
  }
  const pairs = (res: { json(): unknown }) =>
    (res.json() as { pdv: { _id: string }; item: { _id: string }; physicalQuantity: number }[]).map((r) => `${r.pdv._id}/${r.item._id}=${r.physicalQuantity}`).sort();

  it('admin: every row, by PDV or by item, with item and PDV populated', async () => {
    const w = await stocked();
    const all = await call('GET', w.base, w.admin.headers);
    expect(all.statusCode, all.body).toBe(200);
    expect(pairs(all)).toEqual([`${w.pdv1}/${w.eggs}=30`, `${w.pdv1}/${w.flour}=1`, `${w.pdv2}/${w.flour}=2`, `${w.pdv3}/${w.eggs}=60`].sort());
    const row = all.json().find((r: { pdv: { _id: string }; item: { _id: string } }) => r.pdv._id === w.pdv3 && r.item._id === w.eggs);
    expect(row).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      item: { _id: w.eggs, name: expect.stringMatching(/^Ovos/), sku: `SKU-${w.eggs}`, unit: 'un' },
      pdv: { _id: w.pdv3, name: expect.stringContaining('Caixa') },
      physicalQuantity: 60,
      availableQuantity: 60,
      minQuantity: null,
    });
    expect(pairs(await call('GET', `${w.base}?pdv=${w.pdv1}`, w.admin.headers))).toEqual([`${w.pdv1}/${w.eggs}=30`, `${w.pdv1}/${w.flour}=1`].sort());
    expect(pairs(await call('GET', `${w.base}?item=${w.flour}`, w.admin.headers))).toEqual([`${w.pdv1}/${w.flour}=1`, `${w.pdv2}/${w.flour}=2`].sort());
    expect(pairs(await call('GET', `${w.base}?pdv=${w.pdv1}&item=${w.flour}`, w.admin.headers))).toEqual([`${w.pdv1}/${w.flour}=1`]);
    expect((await call('GET', `${w.base}?pdv=${newId()}`, w.admin.headers)).json()).toEqual([]);
  });

  it('staff see only their PDVs, a branch manager their branch’s PDVs', async () => {
    const w = await stocked();
    const staff = await call('GET', w.base, w.staff.headers);
    expect(staff.statusCode, staff.body).toBe(200);
    expect(pairs(staff)).toEqual([`${w.pdv1}/${w.eggs}=30`, `${w.pdv1}/${w.flour}=1`].sort());
    expect((await call('GET', `${w.base}?pdv=${w.pdv3}`, w.staff.headers)).json()).toEqual([]);
    expect(pairs(await call('GET', `${w.base}?item=${w.flour}`, w.staff.headers))).toEqual([`${w.pdv1}/${w.flour}=1`]);
    expect(pairs(await call('GET', w.base, w.manager.headers))).toEqual([`${w.pdv1}/${w.eggs}=30`, `${w.pdv1}/${w.flour}=1`, `${w.pdv2}/${w.flour}=2`].sort());
    expect(pairs(await call('GET', w.base, w.otherManager.headers))).toEqual([`${w.pdv3}/${w.eggs}=60`]);
    // A branch manager with no branch sees nothing.
    const idle = await makeUser(app, w.tenant, 'branch_manager');
    expect((await call('GET', w.base, idle.headers)).json()).toEqual([]);
  });

  it('400 for a malformed filter, 401 without a token, 403 without ManageInventory', async () => {
    const w = await stocked();
    const bad = await call('GET', `${w.base}?pdv=abc`, w.admin.headers);
    expect(bad.statusCode).toBe(400);
    expect(fields(bad)).toContain('querystring.pdv');
    expect((await call('GET', `${w.base}?item=abc`, w.admin.headers)).statusCode).toBe(400);
    expect((await call('GET', w.base)).statusCode).toBe(401);
    expect((await call('GET', w.base, w.accountant.headers)).statusCode).toBe(403);
  });
});

describe('GET /branch-stock/alerts', () => {
  it('rows with a minimum set and available <= minimum, admin only', async () => {
    const w = await world();
    for (const [pdv, item, physicalQuantity, minQuantity] of [
      [w.pdv1, w.flour, 1, 2], // low
      [w.pdv1, w.eggs, 12, 12], // at the minimum: low
      [w.pdv2, w.flour, 3, 2], // above
      [w.pdv3, w.eggs, 0, undefined], // no minimum: never low
    ] as const) {
      const body = { itemId: item, physicalQuantity, ...(minQuantity === undefined ? {} : { minQuantity }) };
      expect((await w.put(w.admin.headers, pdv, body)).statusCode).toBe(200);
    }
    const res = await call('GET', `${w.base}/alerts`, w.admin.headers);
    expect(res.statusCode, res.body).toBe(200);
    const rows = res.json() as { pdv: { _id: string }; item: { _id: string }; availableQuantity: number; minQuantity: number }[];
    expect(rows.map((r) => [r.pdv._id, r.item._id, r.availableQuantity, r.minQuantity]).sort()).toEqual(
      [
        [w.pdv1, w.flour, 1, 2],
        [w.pdv1, w.eggs, 12, 12],
      ].sort(),
    );
    // Back above the minimum: gone from the list.
    expect((await w.adjust(w.admin.headers, w.pdv1, { itemId: w.eggs, delta: 1 })).statusCode).toBe(200);
    expect((await call('GET', `${w.base}/alerts`, w.admin.headers)).json()).toHaveLength(1);
    expect((await call('GET', `${w.base}/alerts`)).statusCode).toBe(401);
    for (const user of [w.staff, w.manager, w.accountant]) expect((await call('GET', `${w.base}/alerts`, user.headers)).statusCode).toBe(403);
    expect((await call('GET', `${w.base}/alerts`, (await makeSuperadmin(app)).headers)).json()).toHaveLength(1);
  });
});

describe('POST /branch-stock/transfer', () => {
  async function withSource(w: World, q = 10) {
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: q, minQuantity: 4 })).statusCode).toBe(200);
  }

  it('moves stock atomically with a transfer movement on each side, creating the target row when missing', async () => {
    const w = await world();
    await withSource(w);
    const res = await w.transfer(w.admin.headers, { fromPdvId: w.pdv1, toPdvId: w.pdv3, itemId: w.flour, quantity: 6.5 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      from: { pdv: { _id: w.pdv1 }, item: { _id: w.flour }, physicalQuantity: 3.5, availableQuantity: 3.5, minQuantity: 4 },
      to: { pdv: { _id: w.pdv3 }, item: { _id: w.flour }, physicalQuantity: 6.5, availableQuantity: 6.5, minQuantity: null },
    });
    const moves = (await w.movements(w.flour)).filter((m) => m.type === 'transfer');
    expect(moves.map((m) => [m.pdvId, m.reason, m.deltaMilli, m.beforeMilli, m.afterMilli]).sort()).toEqual(
      [
        [w.pdv1, 'transfer', -6500, 10000, 3500],
        [w.pdv3, 'transfer', 6500, 0, 6500],
      ].sort(),
    );
    expect(moves[0]!.transferId).toMatch(/^[0-9a-f]{24}$/);
    expect(moves[1]!.transferId).toBe(moves[0]!.transferId);
    // The source fell below its minimum: its alert is open.
    expect((await w.openAlerts(w.flour)).map((a) => a.pdvId)).toEqual([w.pdv1]);

    // Back into the existing row.
    const back = await w.transfer(w.admin.headers, { fromPdvId: w.pdv3, toPdvId: w.pdv1, itemId: w.flour, quantity: 0.5 });
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().from.physicalQuantity).toBe(6);
    expect(back.json().to.physicalQuantity).toBe(4);
    expect((await w.rows()).map((r) => r.physicalMilli).sort()).toEqual([4000, 6000]);
  });

  it('400 when the source holds too little (nothing changes), 400 for the same PDV, 404 when the item is not at the source', async () => {
    const w = await world();
    await withSource(w, 2);
    const tooMuch = await w.transfer(w.admin.headers, { fromPdvId: w.pdv1, toPdvId: w.pdv2, itemId: w.flour, quantity: 2.001 });
    expect(tooMuch.statusCode, tooMuch.body).toBe(400);
    expect(fields(tooMuch)).toEqual(['body.quantity']);
    // Rolled back: no target row, no movement beyond the initial one.
    expect(await w.rows()).toHaveLength(1);
    expect(await w.movements(w.flour)).toHaveLength(1);
    const same = await w.transfer(w.admin.headers, { fromPdvId: w.pdv1, toPdvId: w.pdv1, itemId: w.flour, quantity: 1 });
    expect(same.statusCode).toBe(400);
    expect(fields(same)).toEqual(['body.toPdvId']);
    const notThere = await w.transfer(w.admin.headers, { fromPdvId: w.pdv2, toPdvId: w.pdv1, itemId: w.flour, quantity: 1 });
    expect(notThere.statusCode).toBe(404);
    expect((await w.transfer(w.admin.headers, { fromPdvId: w.pdv1, toPdvId: w.pdv2, itemId: w.eggs, quantity: 1 })).statusCode).toBe(404);
    expect((await w.transfer(w.admin.headers, { fromPdvId: w.pdv1, toPdvId: w.pdv2, itemId: newId(), quantity: 1 })).statusCode).toBe(404);
    expect((await w.transfer(w.admin.headers, { fromPdvId: w.pdv1, toPdvId: newId(), itemId: w.flour, quantity: 1 })).statusCode).toBe(404);
    expect((await w.transfer(w.admin.headers, { fromPdvId: newId(), toPdvId: w.pdv1, itemId: w.flour, quantity: 1 })).statusCode).toBe(404);
    expect(await w.rows()).toHaveLength(1);
    expect((await w.rows())[0]!.physicalMilli).toBe(2000);
  });

  it('validates the body; 401; ManageSettings only (staff and branch managers 403)', async () => {
    const w = await world();
    await withSource(w);
    const body = { fromPdvId: w.pdv1, toPdvId: w.pdv2, itemId: w.flour, quantity: 1 };
    for (const [patch, field] of [
      [{ quantity: 0.0001 }, 'body.quantity'],
      [{ quantity: 0 }, 'body.quantity'],
      [{ quantity: -1 }, 'body.quantity'],
      [{ quantity: 1.0005 }, 'body.quantity'],
      [{ fromPdvId: 'x' }, 'body.fromPdvId'],
      [{ toPdvId: undefined }, 'body.toPdvId'],
      [{ note: 'x' }, 'body.note'],
    ] as const) {
      const res = await w.transfer(w.admin.headers, { ...body, ...patch });
      expect(res.statusCode, JSON.stringify(patch)).toBe(400);
      expect(fields(res), JSON.stringify(patch)).toContain(field);
    }
    expect((await w.transfer({}, body)).statusCode).toBe(401);
    for (const user of [w.staff, w.manager, w.accountant]) expect((await w.transfer(user.headers, body)).statusCode).toBe(403);
    expect(await w.rows()).toHaveLength(1);
    expect((await w.transfer((await makeSuperadmin(app)).headers, body)).statusCode).toBe(200);
  });
});

describe('DELETE /branch-stock/:pdvId/items/:itemId', () => {
  it('409 while the row holds stock; removes an empty row and closes its open alert; movements stay', async () => {
    const w = await world();
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 2, minQuantity: 3 })).statusCode).toBe(200);
    expect(await w.openAlerts(w.flour)).toHaveLength(1);
    const full = await w.remove(w.admin.headers, w.pdv1, w.flour);
    expect(full.statusCode, full.body).toBe(409);
    expect(full.json().code).toBe('branch_stock_not_empty');
    expect(await w.rows()).toHaveLength(1);
    expect((await w.adjust(w.admin.headers, w.pdv1, { itemId: w.flour, delta: -2 })).statusCode).toBe(200);
    const res = await w.remove(w.staff.headers, w.pdv1, w.flour);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deleted: true });
    expect(await w.rows()).toHaveLength(0);
    expect(await w.openAlerts(w.flour)).toHaveLength(0);
    expect(await w.movements(w.flour)).toHaveLength(2);
    expect((await call('GET', w.base, w.admin.headers)).json()).toEqual([]);
    // Gone: 404 now; adjust finds no row either.
    expect((await w.remove(w.admin.headers, w.pdv1, w.flour)).statusCode).toBe(404);
    expect((await w.adjust(w.admin.headers, w.pdv1, { itemId: w.flour, delta: 1 })).statusCode).toBe(404);
  });

  it('404, 400, 401, 403 without the permission or outside the branch scope', async () => {
    const w = await world();
    for (const pdv of [w.pdv1, w.pdv2, w.pdv3]) expect((await w.put(w.admin.headers, pdv, { itemId: w.eggs, physicalQuantity: 0 })).statusCode).toBe(200);
    expect((await w.remove(w.admin.headers, w.pdv1, w.flour)).statusCode).toBe(404);
    expect((await w.remove(w.admin.headers, w.pdv1, newId())).statusCode).toBe(404);
    expect((await w.remove(w.admin.headers, newId(), w.eggs)).statusCode).toBe(404);
    expect((await w.remove(w.admin.headers, w.pdv1, 'abc')).statusCode).toBe(400);
    expect((await w.remove({}, w.pdv1, w.eggs)).statusCode).toBe(401);
    expect((await w.remove(w.accountant.headers, w.pdv1, w.eggs)).statusCode).toBe(403);
    expect((await w.remove(w.staff.headers, w.pdv2, w.eggs)).statusCode).toBe(403);
    expect((await w.remove(w.manager.headers, w.pdv3, w.eggs)).statusCode).toBe(403);
    expect(await w.rows()).toHaveLength(3);
    expect((await w.remove(w.manager.headers, w.pdv2, w.eggs)).statusCode).toBe(200);
    expect((await w.rows()).map((r) => r.pdvId).sort()).toEqual([w.pdv1, w.pdv3].sort());
  });
});

describe('/inventory events', () => {
  it('a change sends the branch stockUpdate and, at the minimum, one lowStockAlert with the PDV name; a refused transfer sends nothing', async () => {
    const w = await world();
    const spy = vi.spyOn(app.deps.realtime, 'toInventory');
    try {
      expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.flour, physicalQuantity: 3, minQuantity: 2 })).statusCode).toBe(200);
      expect(spy.mock.calls).toEqual([
        [w.tenantId, 'stockUpdate', { type: 'branchStock', pdvId: w.pdv1, itemId: w.flour, physicalQuantity: 3, availableQuantity: 3, minQuantity: 2 }],
      ]);
      spy.mockClear();
      expect((await w.adjust(w.admin.headers, w.pdv1, { itemId: w.flour, delta: -1.5 })).statusCode).toBe(200);
      expect(spy.mock.calls.map((c) => c[1])).toEqual(['stockUpdate', 'lowStockAlert']);
      expect(spy.mock.calls[1]![2]).toMatchObject({
        type: 'branchStock',
        pdvId: w.pdv1,
        pdvName: expect.stringContaining('Caixa'),
        itemId: w.flour,
        availableQuantity: 1.5,
        minQuantity: 2,
      });
      spy.mockClear();
      expect((await w.transfer(w.admin.headers, { fromPdvId: w.pdv1, toPdvId: w.pdv2, itemId: w.flour, quantity: 2 })).statusCode).toBe(400);
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});

describe('tenant isolation', () => {
  it('another tenant’s admin reaches none of the rows, PDVs or items (404 through their slug, 403 through the owner’s)', async () => {
    const w = await world();
    for (const pdv of [w.pdv1, w.pdv2]) {
      expect((await w.put(w.admin.headers, pdv, { itemId: w.flour, physicalQuantity: 4, minQuantity: 5 })).statusCode).toBe(200);
    }
    expect((await w.put(w.admin.headers, w.pdv1, { itemId: w.eggs, physicalQuantity: 0 })).statusCode).toBe(200);
    const outsider = await makeTenantWithTeam(app);
    // The outsider's own lists show nothing of the owner's.
    expect((await call('GET', `/t/${outsider.slug}/branch-stock?pdv=${w.pdv1}`, outsider.admin.headers)).json()).toEqual([]);
    expect((await call('GET', `/t/${outsider.slug}/branch-stock/alerts`, outsider.admin.headers)).json()).toEqual([]);
    await expectTenantIsolation({
      app,
      ownerSlug: w.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'PUT', path: `/t/:slug/branch-stock/${w.pdv1}`, payload: { itemId: w.flour, physicalQuantity: 1 } },
        { method: 'POST', path: `/t/:slug/branch-stock/${w.pdv1}/adjust`, payload: { itemId: w.flour, delta: -1 } },
        { method: 'POST', path: '/t/:slug/branch-stock/transfer', payload: { fromPdvId: w.pdv1, toPdvId: w.pdv2, itemId: w.flour, quantity: 1 } },
        { method: 'DELETE', path: `/t/:slug/branch-stock/${w.pdv1}/items/${w.eggs}` },
      ],
      snapshot: async () => ({
        list: (await call('GET', w.base, w.admin.headers)).json(),
        alerts: (await call('GET', `${w.base}/alerts`, w.admin.headers)).json(),
        movements: (await w.movements(w.flour)).length,
      }),
    });
  });
});

describe('OpenAPI', () => {
  it('documents every branch-stock route with its success response', async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    for (const [path, method] of [
      ['/t/{slug}/branch-stock', 'get'],
      ['/t/{slug}/branch-stock/alerts', 'get'],
      ['/t/{slug}/branch-stock/{pdvId}', 'put'],
      ['/t/{slug}/branch-stock/{pdvId}/adjust', 'post'],
      ['/t/{slug}/branch-stock/transfer', 'post'],
      ['/t/{slug}/branch-stock/{pdvId}/items/{itemId}', 'delete'],
    ]) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.tags).toEqual(['branch-stock']);
      expect(op.responses['200']).toBeDefined();
    }
    expect(doc.paths['/t/{slug}/branch-stock'].get.responses['200'].content['application/json'].schema.items.properties.item.properties.unit.enum).toEqual([
      'kg',
      'l',
      'un',
    ]);
  });
});

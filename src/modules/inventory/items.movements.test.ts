import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makePdv, makeSuperadmin, makeTenantWithTeam, makeUser, type TestUser } from '../../../test/factories.js';
import { newId } from '../../db/ids.js';
import { inventoryItems, inventoryMovements, stockAlerts } from '../../db/schema/inventory.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());
afterEach(() => {
  vi.restoreAllMocks();
});

const MISSING = 'ffffffffffffffffffffffff';
let n = 0;
const uniq = () => `${Date.now().toString(36)}-${++n}`;

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Movement = { _id: string; type: string; reason: string; quantity: number; delta: number; before: number; after: number; unitCost: number | null };
type Alert = { _id: string; item: string; itemName: string; availableQuantity: number; minQuantity: number; pdv: string | null; readBy: string[] };

function call(method: Method, url: string, headers: Record<string, string> = {}, payload?: object) {
  return t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
}

const base = (slug: string) => `/t/${slug}/inventory`;
const fieldsOf = (res: { json(): { details?: { field: string }[] } }) => (res.json().details ?? []).map((d) => d.field);

async function createItem(team: Team, over: Record<string, unknown> = {}) {
  const s = uniq();
  const body = { name: `Queijo ${s}`, sku: `QJ-${s}`, currentStock: 0, minStock: 0, unit: 'kg', cost: 100, ...over };
  const res = await call('POST', base(team.slug), team.admin.headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { _id: string; name: string };
}

function move(team: Team, id: string, body: Record<string, unknown>, who: TestUser = team.admin) {
  return call('POST', `${base(team.slug)}/${id}/movements`, who.headers, body);
}

async function moved(team: Team, id: string, body: Record<string, unknown>): Promise<Movement> {
  const res = await move(team, id, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function itemOf(team: Team, id: string) {
  const res = await call('GET', base(team.slug), team.admin.headers);
  return (res.json() as { _id: string; currentStock: number; reservedQuantity: number; availableQuantity: number }[]).find((i) => i._id === id)!;
}

/** Every alert row of the tenant, straight from the table (open and closed). */
const alertRows = (team: Team) => t.app.deps.tenantDb(team.tenant._id).run((tx) => tx.db.select().from(stockAlerts));

async function alertsFor(team: Team, who: TestUser): Promise<Alert[]> {
  const res = await call('GET', `${base(team.slug)}/alerts`, who.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function countFor(team: Team, who: TestUser): Promise<number> {
  const res = await call('GET', `${base(team.slug)}/alerts/count`, who.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().count;
}

describe('movements', () => {
  it('adds and takes stock exactly: 0.1 + 0.2 kg is 0.3 kg, and 0.3 kg out leaves 0', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team);
    const a = await moved(team, item._id, { type: 'entry', reason: 'purchase', quantity: 0.1, unitCost: 2490, notes: 'NF 123' });
    expect(a).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      item: item._id,
      pdv: null,
      type: 'entry',
      reason: 'purchase',
      quantity: 0.1,
      delta: 0.1,
      before: 0,
      after: 0.1,
      unitCost: 2490,
      order: null,
      label: null,
      transfer: null,
      notes: 'NF 123',
      createdBy: team.admin.id,
      createdAt: expect.any(String),
    });
    const b = await moved(team, item._id, { type: 'entry', reason: 'production', quantity: 0.2 });
    expect([b.before, b.after]).toEqual([0.1, 0.3]);
    expect((await itemOf(team, item._id)).currentStock).toBe(0.3);
    const c = await moved(team, item._id, { type: 'exit', reason: 'sale', quantity: 0.3 });
    expect(c).toMatchObject({ type: 'exit', quantity: 0.3, delta: -0.3, before: 0.3, after: 0 });
    expect((await itemOf(team, item._id)).currentStock).toBe(0);
    // Ten entries of 0.001 are exactly 0.01 (10 thousandths).
    for (let i = 0; i < 10; i++) await moved(team, item._id, { type: 'entry', reason: 'return', quantity: 0.001 });
    expect((await itemOf(team, item._id)).currentStock).toBe(0.01);
    const [row] = await t.app.deps.tenantDb(team.tenant._id).run((tx) => tx.db.select().from(inventoryItems));
    expect(row!.physicalMilli).toBe(10);
  });

  it('refuses an exit below zero with 409 insufficient_stock, and writes nothing', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 1.25 });
    const res = await move(team, item._id, { type: 'exit', reason: 'loss', quantity: 1.251 });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('insufficient_stock');
    expect((await itemOf(team, item._id)).currentStock).toBe(1.25);
    const history = await call('GET', `${base(team.slug)}/${item._id}/movements`, team.admin.headers);
    expect(history.json().total).toBe(1); // the opening stock only
    // Exactly all of it is fine.
    expect((await moved(team, item._id, { type: 'exit', reason: 'theft', quantity: 1.25 })).after).toBe(0);
  });

  it('sets the counted stock with an adjustment, up or down, 0 included', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 3 });
    expect(await moved(team, item._id, { type: 'adjustment', reason: 'adjustment', quantity: 7.25 })).toMatchObject({
      type: 'adjustment',
      quantity: 4.25,
      delta: 4.25,
      before: 3,
      after: 7.25,
    });
    expect(await moved(team, item._id, { type: 'adjustment', reason: 'adjustment', quantity: 7.25 })).toMatchObject({ quantity: 0, delta: 0, after: 7.25 });
    expect(await moved(team, item._id, { type: 'adjustment', reason: 'adjustment', quantity: 0 })).toMatchObject({ quantity: 7.25, delta: -7.25, after: 0 });
    expect((await itemOf(team, item._id)).currentStock).toBe(0);
  });

  it('accepts the decided type and reason pairs and refuses the others with a 400 naming the field', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 100 });
    const accepted: [string, string[]][] = [
      ['entry', ['purchase', 'production', 'return', 'adjustment']],
      ['exit', ['sale', 'loss', 'theft', 'expiration', 'production', 'adjustment']],
      ['adjustment', ['adjustment']],
      ['reservation', ['sale', 'production', 'return']],
    ];
    const reasons = ['purchase', 'sale', 'transfer', 'adjustment', 'production', 'loss', 'theft', 'expiration', 'return'];
    for (const [type, ok] of accepted) {
      for (const reason of reasons) {
        const res = await move(team, item._id, { type, reason, quantity: type === 'adjustment' ? 100 : 1 });
        if (ok.includes(reason)) expect(res.statusCode, `${type}/${reason} ${res.body}`).toBe(201);
        else {
          expect(res.statusCode, `${type}/${reason}`).toBe(400);
          expect(fieldsOf(res)).toEqual(['body.reason']);
        }
      }
    }
    // Transfers go through branch stock, whatever the reason.
    const transfer = await move(team, item._id, { type: 'transfer', reason: 'transfer', quantity: 1 });
    expect(transfer.statusCode).toBe(400);
    expect(fieldsOf(transfer)).toEqual(['body.type']);
    expect(transfer.json().message).toMatch(/branch-stock/);

    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'entry', reason: 'purchase', quantity: 0 }, 'body.quantity'],
      [{ type: 'exit', reason: 'sale', quantity: 0.0004 }, 'body.quantity'],
      [{ type: 'entry', reason: 'purchase', quantity: 1.0001 }, 'body.quantity'],
      [{ type: 'entry', reason: 'purchase', quantity: -1 }, 'body.quantity'],
      [{ type: 'entry', reason: 'purchase', quantity: '1' }, 'body.quantity'],
      [{ type: 'exit', reason: 'sale', quantity: 1, unitCost: 100 }, 'body.unitCost'],
      [{ type: 'entry', reason: 'purchase', quantity: 1, unitCost: 1.5 }, 'body.unitCost'],
      [{ type: 'gift', reason: 'purchase', quantity: 1 }, 'body.type'],
      [{ type: 'entry', reason: 'gift', quantity: 1 }, 'body.reason'],
      [{ type: 'entry', reason: 'purchase' }, 'body.quantity'],
      [{ type: 'entry', reason: 'purchase', quantity: 1, pdv: MISSING }, 'body.pdv'],
      [{ type: 'entry', reason: 'purchase', quantity: 1, notes: 'x'.repeat(501) }, 'body.notes'],
    ];
    const before = await itemOf(team, item._id);
    for (const [body, field] of cases) {
      const res = await move(team, item._id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    expect(await itemOf(team, item._id)).toEqual(before);
    expect((await move(team, MISSING, { type: 'entry', reason: 'purchase', quantity: 1 })).statusCode).toBe(404);
  });

  it('holds stock with a reservation: exits and counts leave it alone, a return releases it', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 10 });
    const hold = await moved(team, item._id, { type: 'reservation', reason: 'sale', quantity: 4 });
    expect(hold).toMatchObject({ type: 'reservation', reason: 'sale', quantity: 4, delta: 0, before: 10, after: 10 });
    expect(await itemOf(team, item._id)).toMatchObject({ currentStock: 10, reservedQuantity: 4, availableQuantity: 6 });

    const take = await move(team, item._id, { type: 'exit', reason: 'sale', quantity: 6.001 });
    expect(take.statusCode).toBe(409);
    expect(take.json().code).toBe('insufficient_stock');
    const count = await move(team, item._id, { type: 'adjustment', reason: 'adjustment', quantity: 3.999 });
    expect(count.statusCode).toBe(409);
    expect(count.json().code).toBe('reserved_stock');
    const over = await move(team, item._id, { type: 'reservation', reason: 'production', quantity: 6.001 });
    expect(over.statusCode).toBe(409);
    expect(over.json().code).toBe('insufficient_stock');
    const release = await move(team, item._id, { type: 'reservation', reason: 'return', quantity: 4.001 });
    expect(release.statusCode).toBe(409);
    expect(release.json().code).toBe('reservation_exceeded');
    expect(await itemOf(team, item._id)).toMatchObject({ currentStock: 10, reservedQuantity: 4, availableQuantity: 6 });

    expect((await moved(team, item._id, { type: 'exit', reason: 'sale', quantity: 6 })).after).toBe(4);
    expect(await itemOf(team, item._id)).toMatchObject({ currentStock: 4, reservedQuantity: 4, availableQuantity: 0 });
    expect(await moved(team, item._id, { type: 'reservation', reason: 'return', quantity: 1.5 })).toMatchObject({ quantity: 1.5, delta: 0, after: 4 });
    expect(await itemOf(team, item._id)).toMatchObject({ currentStock: 4, reservedQuantity: 2.5, availableQuantity: 1.5 });
    // A count at or above the reserved quantity is fine.
    expect((await moved(team, item._id, { type: 'adjustment', reason: 'adjustment', quantity: 2.5 })).after).toBe(2.5);
    expect(await itemOf(team, item._id)).toMatchObject({ currentStock: 2.5, reservedQuantity: 2.5, availableQuantity: 0 });
  });

  it('lists an item’s movements newest first, a page at a time', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 1 });
    for (let i = 1; i <= 4; i++) {
      t.clock.advance(1000);
      await moved(team, item._id, { type: 'entry', reason: 'purchase', quantity: i });
    }
    const page1 = await call('GET', `${base(team.slug)}/${item._id}/movements?limit=2`, team.staff.headers);
    expect(page1.statusCode).toBe(200);
    expect(page1.json()).toMatchObject({ total: 5, page: 1, totalPages: 3 });
    expect(page1.json().data.map((m: Movement) => m.after)).toEqual([11, 7]);
    const page3 = await call('GET', `${base(team.slug)}/${item._id}/movements?limit=2&page=3`, team.admin.headers);
    expect(page3.json().data.map((m: Movement) => [m.reason, m.after])).toEqual([['adjustment', 1]]);
    const all = await call('GET', `${base(team.slug)}/${item._id}/movements`, team.admin.headers);
    expect(all.json().data.map((m: Movement) => m.after)).toEqual([11, 7, 4, 2, 1]);
    for (const [query, field] of [
      ['limit=0', 'querystring.limit'],
      ['limit=101', 'querystring.limit'],
      ['page=0', 'querystring.page'],
    ]) {
      const res = await call('GET', `${base(team.slug)}/${item._id}/movements?${query}`, team.admin.headers);
      expect(res.statusCode, query).toBe(400);
      expect(fieldsOf(res)).toContain(field);
    }
    expect((await call('GET', `${base(team.slug)}/${MISSING}/movements`, team.admin.headers)).statusCode).toBe(404);
    expect((await call('GET', `${base(team.slug)}/not-an-id/movements`, team.admin.headers)).statusCode).toBe(400);
  });

  it('shows a branch-scoped caller the catalog’s movements and their PDVs’ only', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 1 });
    const mine = await makePdv(t.app, team.tenant);
    const theirs = await makePdv(t.app, team.tenant);
    const assigned = await call('PUT', `/t/${team.slug}/users/${team.staff.id}`, team.admin.headers, { assignedPdvIds: [mine.pdvId] });
    expect(assigned.statusCode, assigned.body).toBe(200);
    // Movement rows at PDVs (fixtures: the branch-stock routes are another part).
    await t.app.deps.tenantDb(team.tenant._id).run((tx) =>
      tx.db.insert(inventoryMovements).values(
        [mine.pdvId, theirs.pdvId].map((pdvId) => ({
          tenantId: tx.tenantId,
          id: newId(),
          itemId: item._id,
          pdvId,
          type: 'entry' as const,
          reason: 'purchase' as const,
          quantityMilli: 1000,
          deltaMilli: 1000,
          beforeMilli: 0,
          afterMilli: 1000,
          createdBy: team.admin.id,
        })),
      ),
    );
    const pdvsSeen = async (who: TestUser) =>
      ((await call('GET', `${base(team.slug)}/${item._id}/movements`, who.headers)).json().data as { pdv: string | null }[]).map((m) => m.pdv).sort();
    expect(await pdvsSeen(team.staff)).toEqual([mine.pdvId, null].sort());
    expect(await pdvsSeen(team.admin)).toEqual([mine.pdvId, theirs.pdvId, null].sort());
  });

  it('lets exactly 10 of 20 concurrent exits of 1 take a stock of 10, never below zero, with one alert', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 10, minStock: 3 });
    const emitted = vi.spyOn(t.app.deps.realtime, 'toInventory');
    const results = await Promise.all(Array.from({ length: 20 }, () => move(team, item._id, { type: 'exit', reason: 'sale', quantity: 1 })));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(10);
    expect(codes.filter((c) => c === 409)).toHaveLength(10);
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().code === 'insufficient_stock')).toBe(true);
    expect((await itemOf(team, item._id)).currentStock).toBe(0);
    // Each success saw a different stock: before 10..1, after 9..0, every one a whole unit.
    const afters = results.filter((r) => r.statusCode === 201).map((r) => (r.json() as Movement).after);
    expect(afters.sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const movements = await t.app.deps.tenantDb(team.tenant._id).run((tx) => tx.db.select().from(inventoryMovements));
    expect(movements.filter((m) => m.type === 'exit')).toHaveLength(10);
    expect(movements.every((m) => m.afterMilli >= 0 && m.afterMilli === m.beforeMilli + m.deltaMilli)).toBe(true);
    // Crossing the minimum raised one alert, kept up to date; one lowStockAlert event.
    const alerts = await alertRows(team);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ itemId: item._id, availableMilli: 0, minMilli: 3000, resolvedAt: null });
    expect(emitted.mock.calls.filter(([, event]) => event === 'lowStockAlert')).toHaveLength(1);
    expect(emitted.mock.calls.filter(([, event]) => event === 'stockUpdate')).toHaveLength(10);
  });
});

describe('low-stock alerts', () => {
  it('raises one alert when available stock crosses the minimum, and closes it when stock is back above', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 10, minStock: 3 });
    const emitted = vi.spyOn(t.app.deps.realtime, 'toInventory');
    await moved(team, item._id, { type: 'exit', reason: 'sale', quantity: 6.999 });
    expect(await alertRows(team)).toEqual([]); // 3.001 > 3
    await moved(team, item._id, { type: 'exit', reason: 'sale', quantity: 0.001 });
    await moved(team, item._id, { type: 'exit', reason: 'sale', quantity: 1 });
    await moved(team, item._id, { type: 'exit', reason: 'loss', quantity: 0.5 });
    const raised = await alertsFor(team, team.admin);
    expect(raised).toEqual([
      {
        _id: expect.any(String),
        item: item._id,
        itemName: item.name,
        availableQuantity: 1.5,
        minQuantity: 3,
        pdv: null,
        pdvName: null,
        expiresAt: null,
        createdAt: expect.any(String),
        readBy: [],
      },
    ]);
    expect(await countFor(team, team.staff)).toBe(1);
    // A rename shows in the open alert.
    const renamed = await t.app.inject({ method: 'PUT', url: `/t/${team.slug}/inventory/${item._id}`, headers: team.admin.headers, payload: { name: 'Farinha de trigo' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((await alertsFor(team, team.admin)).map((a) => a.itemName)).toEqual(['Farinha de trigo']);
    const lowEvents = emitted.mock.calls.filter(([, event]) => event === 'lowStockAlert');
    expect(lowEvents).toHaveLength(1);
    expect(lowEvents[0]![2]).toMatchObject({ _id: raised[0]!._id, itemId: item._id, availableQuantity: 3, minQuantity: 3 });

    // Back above the minimum: closed, so no longer listed.
    await moved(team, item._id, { type: 'entry', reason: 'purchase', quantity: 2 });
    expect(await alertsFor(team, team.admin)).toEqual([]);
    expect(await countFor(team, team.admin)).toBe(0);
    expect((await alertRows(team)).map((a) => a.resolvedAt === null)).toEqual([false]);
    // Down again: a new alert.
    await moved(team, item._id, { type: 'exit', reason: 'sale', quantity: 1 });
    const again = await alertsFor(team, team.admin);
    expect(again).toHaveLength(1);
    expect(again[0]!._id).not.toBe(raised[0]!._id);
    expect(await alertRows(team)).toHaveLength(2);
    // A reservation lowers available stock too.
    const other = await createItem(team, { currentStock: 5, minStock: 2, expirationDate: '2027-01-31' });
    await moved(team, other._id, { type: 'reservation', reason: 'sale', quantity: 3 });
    expect((await alertsFor(team, team.admin)).find((a) => a.item === other._id)).toMatchObject({
      availableQuantity: 2,
      expiresAt: '2027-01-31T00:00:00.000Z',
    });
    await moved(team, other._id, { type: 'reservation', reason: 'return', quantity: 0.001 });
    expect((await alertsFor(team, team.admin)).map((a) => a.item)).toEqual([item._id]);
  });

  it('marks an alert read by one user, once, however many times and concurrently', async () => {
    const team = await makeTenantWithTeam(t.app);
    const item = await createItem(team, { currentStock: 1, minStock: 2 });
    const [alert] = await alertsFor(team, team.staff);
    const reads = await Promise.all(Array.from({ length: 5 }, () => call('PUT', `${base(team.slug)}/alerts/${alert!._id}/read`, team.admin.headers)));
    expect(reads.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const read = reads[0]!.json();
    expect(read).toMatchObject({ _id: alert!._id, item: item._id, minQuantity: 2, availableQuantity: 1 });
    expect(read.readBy).toContain(team.admin.id);
    const [row] = await alertRows(team);
    expect(row!.readBy).toEqual([team.admin.id]);
    // Read for the admin only: the staff still has it.
    expect(await alertsFor(team, team.admin)).toEqual([]);
    expect(await countFor(team, team.admin)).toBe(0);
    expect(await countFor(team, team.staff)).toBe(1);
    const staffRead = await call('PUT', `${base(team.slug)}/alerts/${alert!._id}/read`, team.staff.headers);
    expect(staffRead.json().readBy).toEqual([team.admin.id, team.staff.id]);
    expect(await alertsFor(team, team.staff)).toEqual([]);
    // A closed alert can still be marked.
    await moved(team, item._id, { type: 'entry', reason: 'purchase', quantity: 5 });
    const sa = await makeSuperadmin(t.app);
    const closedRead = await call('PUT', `${base(team.slug)}/alerts/${alert!._id}/read`, sa.headers);
    expect(closedRead.statusCode).toBe(200);
    expect(closedRead.json().readBy).toEqual([team.admin.id, team.staff.id, sa.id]);

    expect((await call('PUT', `${base(team.slug)}/alerts/${MISSING}/read`, team.admin.headers)).statusCode).toBe(404);
    const bad = await call('PUT', `${base(team.slug)}/alerts/nope/read`, team.admin.headers);
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toContain('params.id');
  });

  it('lists 50 at most, newest first, and counts them all', async () => {
    const team = await makeTenantWithTeam(t.app);
    const items: string[] = [];
    for (let i = 0; i < 53; i++) {
      t.clock.advance(1000);
      items.push((await createItem(team, { currentStock: 0, minStock: 1 }))._id);
    }
    const alerts = await alertsFor(team, team.admin);
    expect(alerts).toHaveLength(50);
    expect(alerts.map((a) => a.item)).toEqual(items.slice(3).reverse());
    expect(await countFor(team, team.admin)).toBe(53);
  });

  it('shows a branch-scoped caller the catalog’s alerts and their PDVs’; reading another PDV’s is a 403', async () => {
    const team = await makeTenantWithTeam(t.app);
    const manager = await makeUser(t.app, team.tenant, 'branch_manager');
    const catalogItem = await createItem(team, { currentStock: 0, minStock: 1 });
    const mine = await makePdv(t.app, team.tenant);
    const theirs = await makePdv(t.app, team.tenant);
    // The manager is assigned a branch, the staff a PDV.
    expect((await call('PUT', `/t/${team.slug}/users/${manager.id}`, team.admin.headers, { assignedBranchIds: [mine.branchId] })).statusCode).toBe(200);
    expect((await call('PUT', `/t/${team.slug}/users/${team.staff.id}`, team.admin.headers, { assignedPdvIds: [mine.pdvId] })).statusCode).toBe(200);
    // Alerts at PDVs (fixtures: branch-stock alerts are raised by another part).
    const pdvAlert = async (pdvId: string) => {
      const id = newId();
      t.clock.advance(1000);
      await t.app.deps.tenantDb(team.tenant._id).run((tx) =>
        tx.db.insert(stockAlerts).values({
          tenantId: tx.tenantId,
          id,
          itemId: catalogItem._id,
          itemName: catalogItem.name,
          pdvId,
          pdvName: 'Caixa',
          availableMilli: 500,
          minMilli: 1000,
          createdAt: t.clock.now(),
        }),
      );
      return id;
    };
    const mineAlert = await pdvAlert(mine.pdvId);
    const theirsAlert = await pdvAlert(theirs.pdvId);
    const seen = async (who: TestUser) => (await alertsFor(team, who)).map((a) => a.pdv);
    expect(await seen(team.admin)).toEqual([theirs.pdvId, mine.pdvId, null]);
    expect(await seen(team.staff)).toEqual([mine.pdvId, null]);
    expect(await seen(manager)).toEqual([mine.pdvId, null]);
    expect(await countFor(team, team.staff)).toBe(2);
    expect(await countFor(team, team.admin)).toBe(3);
    const refused = await call('PUT', `${base(team.slug)}/alerts/${theirsAlert}/read`, team.staff.headers);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('branch_scope');
    expect((await call('PUT', `${base(team.slug)}/alerts/${mineAlert}/read`, team.staff.headers)).statusCode).toBe(200);
    expect(await seen(team.staff)).toEqual([null]);
    expect((await alertRows(team)).find((a) => a.id === theirsAlert)!.readBy).toEqual([]);
  });
});

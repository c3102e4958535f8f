import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { newId } from '../../db/ids.js';
import { expectAdminFeatureGuard } from '../../../test/guards.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const MISSING = 'ffffffffffffffffffffffff';
type Line = { inventoryItemId: string; itemName: string; quantity: number; unitCost: number; subtotal: number; receivedQuantity: number };
type Order = {
  _id: string;
  orderNumber: string;
  status: string;
  totalCost: number;
  items: Line[];
  supplier: { _id: string; name: string; cnpj: string | null } | null;
  notes: string | null;
};
type Movement = { type: string; reason: string; quantity: number; before: number; after: number; unitCost: number | null; notes: string | null };
type Item = { _id: string; name: string; currentStock: number; availableQuantity: number; cost: number };

function call(method: Method, url: string, headers: Record<string, string> = {}, payload?: object) {
  return t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
}
const inv = (team: Team) => `/t/${team.slug}/inventory`;
const pos = (team: Team) => `/t/${team.slug}/inventory/purchase-orders`;
const fieldsOf = (res: { json(): { details?: { field: string }[] } }) => (res.json().details ?? []).map((d) => d.field);

async function premium() {
  return makeTenantWithTeam(t.app, { plan: 'premium' });
}

async function item(team: Team, over: Record<string, unknown> = {}): Promise<Item> {
  const res = await call('POST', inv(team), team.admin.headers, {
    name: `Item ${randomInt(1e9)}`,
    sku: `SKU-${randomInt(1e12)}`,
    currentStock: 0,
    minStock: 0,
    unit: 'kg',
    cost: 100,
    ...over,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function supplier(team: Team, over: Record<string, unknown> = {}) {
  const res = await call('POST', `${inv(team)}/suppliers`, team.admin.headers, { name: `Fornecedor ${randomInt(1e9)}`, ...over });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { _id: string; name: string };
}

async function order(team: Team, body: Record<string, unknown>): Promise<Order> {
  const res = await call('POST', pos(team), team.admin.headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function stockOf(team: Team, id: string): Promise<Item> {
  const res = await call('GET', inv(team), team.admin.headers);
  return (res.json() as Item[]).find((i) => i._id === id)!;
}

async function movementsOf(team: Team, id: string) {
  const res = await call('GET', `${inv(team)}/${id}/movements?limit=100`, team.admin.headers);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: Movement[] }).data;
}

const put = (team: Team, id: string, body: object) => call('PUT', `${pos(team)}/${id}`, team.admin.headers, body);
const receive = (team: Team, id: string, items: object[]) => call('POST', `${pos(team)}/${id}/receive`, team.admin.headers, { items });

describe('purchase orders: create, read', () => {
  it('creates a draft: number PO-YYYYMMDD-NNNN of the tenant’s day, subtotals half up to the cent, total', async () => {
    const team = await premium();
    const s = await supplier(team, { cnpj: '11222333000181' });
    const a = await item(team);
    const b = await item(team, { unit: 'un' });
    const c = await item(team, { unit: 'l' });
    // 01:30 UTC is still the evening before in São Paulo.
    t.clock.set(new Date('2026-03-10T01:30:00Z'));
    try {
      const po = await order(team, {
        supplierId: s._id,
        items: [
          { inventoryItemId: a._id, itemName: 'Farinha 00', quantity: 0.333, unitCost: 150 }, // 49.95 -> 50
          { inventoryItemId: b._id, itemName: 'Ovos', quantity: 2.5, unitCost: 333 }, // 832.5 -> 833
          { inventoryItemId: c._id, quantity: 1.005, unitCost: 1 }, // 1.005 -> 1
        ],
        expectedDelivery: '2026-03-12',
        notes: 'entregar cedo',
      });
      expect(po).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        orderNumber: 'PO-20260309-0001',
        supplier: { _id: s._id, name: s.name, cnpj: '11.222.333/0001-81' },
        items: [
          { inventoryItemId: a._id, itemName: 'Farinha 00', quantity: 0.333, unitCost: 150, subtotal: 50, receivedQuantity: 0 },
          { inventoryItemId: b._id, itemName: 'Ovos', quantity: 2.5, unitCost: 333, subtotal: 833, receivedQuantity: 0 },
          { inventoryItemId: c._id, itemName: c.name, quantity: 1.005, unitCost: 1, subtotal: 1, receivedQuantity: 0 },
        ],
        totalCost: 884,
        expectedDelivery: '2026-03-12',
        notes: 'entregar cedo',
        status: 'draft',
        suggestion: null,
        createdBy: team.admin.id,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const second = await order(team, { items: [{ inventoryItemId: a._id, itemName: 'x', quantity: 1, unitCost: 1 }] });
      expect(second.orderNumber).toBe('PO-20260309-0002');
      expect(second.supplier).toBeNull();
      // Another tenant counts its own day from 1.
      const other = await premium();
      const o = await item(other);
      expect((await order(other, { items: [{ inventoryItemId: o._id, itemName: 'x', quantity: 1, unitCost: 1 }] })).orderNumber).toBe('PO-20260309-0001');
      // The next local day starts again at 1.
      t.clock.set(new Date('2026-03-10T03:00:00Z'));
      expect((await order(team, { items: [{ inventoryItemId: a._id, itemName: 'x', quantity: 1, unitCost: 1 }] })).orderNumber).toBe('PO-20260310-0001');
      const got = await call('GET', `${pos(team)}/${po._id}`, team.admin.headers);
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual(po);
    } finally {
      t.clock.set(new Date());
    }
  });

  it('lists newest first with the supplier populated, filtered by status', async () => {
    const team = await premium();
    const s = await supplier(team);
    const a = await item(team);
    const line = [{ inventoryItemId: a._id, itemName: 'a', quantity: 1, unitCost: 10 }];
    const first = await order(team, { supplierId: s._id, items: line });
    t.clock.advance(1000);
    const second = await order(team, { items: line });
    expect((await put(team, first._id, { status: 'sent' })).statusCode).toBe(200);
    const list = async (q = '') => (await call('GET', `${pos(team)}${q}`, team.admin.headers)).json() as Order[];
    const all = await list();
    expect(all.map((o) => o._id)).toEqual([second._id, first._id]);
    expect(all[1]!.supplier).toEqual({ _id: s._id, name: s.name, cnpj: null });
    expect((await list('?status=sent')).map((o) => o._id)).toEqual([first._id]);
    expect((await list('?status=draft')).map((o) => o._id)).toEqual([second._id]);
    expect(await list('?status=received')).toEqual([]);
    const bad = await call('GET', `${pos(team)}?status=lost`, team.admin.headers);
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toContain('querystring.status');
  });

  it('refuses bad input with a 400 naming the field, unknown items and suppliers with 404, an inactive supplier with 409; writes nothing', async () => {
    const team = await premium();
    const other = await premium();
    const a = await item(team);
    const foreign = await item(other);
    const inactive = await supplier(team, { active: false });
    const ok = { inventoryItemId: a._id, itemName: 'a', quantity: 1, unitCost: 10 };
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body.items'],
      [{ items: [] }, 'body.items'],
      [{ items: [{ ...ok, quantity: 0 }] }, 'body.items.0.quantity'],
      [{ items: [{ ...ok, quantity: -1 }] }, 'body.items.0.quantity'],
      [{ items: [ok, { ...ok, inventoryItemId: foreign._id, quantity: 1.0005 }] }, 'body.items.1.quantity'],
      [{ items: [{ ...ok, unitCost: 1.5 }] }, 'body.items.0.unitCost'],
      [{ items: [{ ...ok, unitCost: -1 }] }, 'body.items.0.unitCost'],
      [{ items: [{ ...ok, inventoryItemId: 'abc' }] }, 'body.items.0.inventoryItemId'],
      [{ items: [ok, ok] }, 'body.items.1.inventoryItemId'],
      [{ items: [{ ...ok, colour: 'red' }] }, 'body.items.0.colour'],
      [{ items: [ok], expectedDelivery: '2026-02-30' }, 'body.expectedDelivery'],
      [{ items: [ok], supplierId: 'x' }, 'body.supplierId'],
      [{ items: [ok], status: 'sent' }, 'body.status'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', pos(team), team.admin.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    const unknownItem = await call('POST', pos(team), team.admin.headers, { items: [ok, { ...ok, inventoryItemId: foreign._id }] });
    expect(unknownItem.statusCode).toBe(404);
    expect(unknownItem.json().message).toContain('items.1.inventoryItemId');
    const deleted = await item(team);
    expect((await call('DELETE', `${inv(team)}/${deleted._id}`, team.admin.headers)).statusCode).toBe(204);
    expect((await call('POST', pos(team), team.admin.headers, { items: [{ ...ok, inventoryItemId: deleted._id }] })).statusCode).toBe(404);
    expect((await call('POST', pos(team), team.admin.headers, { items: [ok], supplierId: MISSING })).statusCode).toBe(404);
    const off = await call('POST', pos(team), team.admin.headers, { items: [ok], supplierId: inactive._id });
    expect(off.statusCode).toBe(409);
    expect(off.json().code).toBe('supplier_inactive');
    expect((await call('GET', pos(team), team.admin.headers)).json()).toEqual([]);
    // Nothing was numbered by the refused requests.
    expect((await order(team, { items: [ok] })).orderNumber).toMatch(/-0001$/);
    expect((await call('GET', `${pos(team)}/${MISSING}`, team.admin.headers)).statusCode).toBe(404);
  });

  it('createDraftPurchaseOrder runs inside another part’s transaction (and rolls back with it)', async () => {
    const team = await premium();
    const a = await item(team, { cost: 250 });
    const tdb = t.app.deps.tenantDb(team.tenant._id);
    const suggestionId = newId();
    const po = await tdb.run((tx) =>
      t.app.services.purchasing.createDraftPurchaseOrder(tx, {
        items: [{ inventoryItemId: a._id, quantityMilli: 1500, unitCostCents: 250 }],
        notes: 'from a suggestion',
        suggestionId,
        userId: team.admin.id,
      }),
    );
    expect(po).toMatchObject({ status: 'draft', suggestion: suggestionId, totalCost: 375, items: [{ itemName: a.name, quantity: 1.5, subtotal: 375 }] });
    await expect(
      tdb.run(async (tx) => {
        const items = [{ inventoryItemId: a._id, quantityMilli: 1000, unitCostCents: 1 }];
        await t.app.services.purchasing.createDraftPurchaseOrder(tx, { items, userId: team.admin.id });
        throw new Error('the caller fails');
      }),
    ).rejects.toThrow('the caller fails');
    expect((await call('GET', pos(team), team.admin.headers)).json().map((o: Order) => o._id)).toEqual([po._id]);
  });
});

describe('generate from low stock', () => {
  it('one line per live, unblocked item at or below a minimum above 0: max(1, 2 x min - available) at its cost', async () => {
    const team = await premium();
    const s = await supplier(team);
    const a = await item(team, { name: 'A', minStock: 10, currentStock: 4, cost: 333 }); // 16 x 3.33 = 53.28
    const b = await item(team, { name: 'B', minStock: 2.5, currentStock: 2.5, cost: 199 }); // 2.5 x 1.99 = 4.975 -> 4.98
    const c = await item(team, { name: 'C', minStock: 0.5, currentStock: 0.4, cost: 1000 }); // max(1, 0.6) = 1
    const d = await item(team, { name: 'D', minStock: 1.2, currentStock: 0.001, cost: 7, status: 'expired' }); // 2.399 x 0.07 = 16.793 -> 17
    await item(team, { name: 'E', minStock: 0, currentStock: 0 });
    await item(team, { name: 'F', minStock: 5, currentStock: 5.001 });
    await item(team, { name: 'G', minStock: 5, currentStock: 1, status: 'blocked' });
    const res = await call('POST', `${pos(team)}/generate-from-low-stock`, team.admin.headers, { supplierId: s._id });
    expect(res.statusCode, res.body).toBe(201);
    const po = res.json() as Order;
    expect(po.status).toBe('draft');
    expect(po.supplier?._id).toBe(s._id);
    expect(po.notes).toContain('4 item');
    expect(po.items).toEqual([
      { inventoryItemId: a._id, itemName: 'A', quantity: 16, unitCost: 333, subtotal: 5328, receivedQuantity: 0 },
      { inventoryItemId: b._id, itemName: 'B', quantity: 2.5, unitCost: 199, subtotal: 498, receivedQuantity: 0 },
      { inventoryItemId: c._id, itemName: 'C', quantity: 1, unitCost: 1000, subtotal: 1000, receivedQuantity: 0 },
      { inventoryItemId: d._id, itemName: 'D', quantity: 2.399, unitCost: 7, subtotal: 17, receivedQuantity: 0 },
    ]);
    expect(po.totalCost).toBe(5328 + 498 + 1000 + 17);
    expect(po.orderNumber).toMatch(/^PO-\d{8}-0001$/);
    // A bare POST (no body) works too, without a supplier.
    const bare = await call('POST', `${pos(team)}/generate-from-low-stock`, team.admin.headers);
    expect(bare.statusCode, bare.body).toBe(201);
    expect(bare.json().supplier).toBeNull();
  });

  it('nothing low: 200 null and no order; unknown supplier 404; bad body 400', async () => {
    const team = await premium();
    await item(team, { minStock: 1, currentStock: 3 });
    const res = await call('POST', `${pos(team)}/generate-from-low-stock`, team.admin.headers, {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toBeNull();
    expect((await call('GET', pos(team), team.admin.headers)).json()).toEqual([]);
    expect((await call('POST', `${pos(team)}/generate-from-low-stock`, team.admin.headers, { supplierId: MISSING })).statusCode).toBe(404);
    const bad = await call('POST', `${pos(team)}/generate-from-low-stock`, team.admin.headers, { supplierId: 'nope' });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['body.supplierId']);
  });
});

describe('purchase orders: edit, status moves, delete', () => {
  it('a draft’s items, supplier, notes and date change; the total is recalculated', async () => {
    const team = await premium();
    const s = await supplier(team, { name: 'Beta' });
    const a = await item(team);
    const b = await item(team);
    const po = await order(team, { items: [{ inventoryItemId: a._id, itemName: 'a', quantity: 1, unitCost: 100 }] });
    const res = await put(team, po._id, {
      supplierId: s._id,
      items: [
        { inventoryItemId: a._id, itemName: 'a', quantity: 3, unitCost: 99 },
        { inventoryItemId: b._id, itemName: 'b', quantity: 0.125, unitCost: 1001 }, // 125.125 -> 125
      ],
      notes: 'nova',
      expectedDelivery: '2026-12-01',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ supplier: { _id: s._id, name: 'Beta' }, totalCost: 297 + 125, notes: 'nova', expectedDelivery: '2026-12-01', orderNumber: po.orderNumber });
    expect(res.json().items.map((l: Line) => l.subtotal)).toEqual([297, 125]);
    const cleared = await put(team, po._id, { notes: null, expectedDelivery: null, supplierId: null });
    expect(cleared.json()).toMatchObject({ notes: null, expectedDelivery: null, supplier: null, totalCost: 422 });
    const bad = await put(team, po._id, { items: [{ inventoryItemId: a._id, itemName: 'a', quantity: 0.0001, unitCost: 1 }] });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['body.items.0.quantity']);
    const badStatus = await put(team, po._id, { status: 'shipped' });
    expect(fieldsOf(badStatus)).toEqual(['body.status']);
    expect((await put(team, MISSING, { notes: 'x' })).statusCode).toBe(404);
    expect((await call('GET', `${pos(team)}/${po._id}`, team.admin.headers)).json().totalCost).toBe(422);
  });

  it('status moves: draft -> sent (needs a supplier) -> cancelled; partial and received only by receive; closed orders do not change', async () => {
    const team = await premium();
    const s = await supplier(team);
    const a = await item(team);
    const line = [{ inventoryItemId: a._id, itemName: 'a', quantity: 1, unitCost: 100 }];
    const po = await order(team, { items: line });
    const codeOf = async (id: string, body: object) => {
      const res = await put(team, id, body);
      return res.statusCode === 200 ? 200 : `${res.statusCode} ${res.json().code}`;
    };
    expect(await codeOf(po._id, { status: 'sent' })).toBe('409 supplier_required');
    expect(await codeOf(po._id, { status: 'partial' })).toBe('409 status_by_receive');
    expect(await codeOf(po._id, { status: 'received' })).toBe('409 status_by_receive');
    expect(await codeOf(po._id, { status: 'draft' })).toBe(200); // the same status is no move
    expect(await codeOf(po._id, { supplierId: s._id, status: 'sent' })).toBe(200);
    expect((await call('GET', `${pos(team)}/${po._id}`, team.admin.headers)).json().status).toBe('sent');
    expect(await codeOf(po._id, { status: 'draft' })).toBe('409 invalid_transition');
    expect(await codeOf(po._id, { items: line })).toBe('409 not_draft');
    expect(await codeOf(po._id, { supplierId: null })).toBe('409 not_draft');
    expect(await codeOf(po._id, { notes: 'chega amanhã' })).toBe(200);
    expect(await codeOf(po._id, { status: 'cancelled' })).toBe(200);
    expect(await codeOf(po._id, { status: 'sent' })).toBe('409 invalid_transition');
    expect(await codeOf(po._id, { notes: 'x' })).toBe('409 order_closed');
    expect((await call('GET', `${pos(team)}/${po._id}`, team.admin.headers)).json()).toMatchObject({ status: 'cancelled', notes: 'chega amanhã' });

    // A draft is cancelled directly; a partial order cannot be cancelled.
    const d = await order(team, { items: line });
    expect(await codeOf(d._id, { status: 'cancelled' })).toBe(200);
    const p = await order(team, { supplierId: s._id, items: [{ ...line[0], quantity: 2 }] });
    await put(team, p._id, { status: 'sent' });
    expect((await receive(team, p._id, [{ inventoryItemId: a._id, receivedQuantity: 1 }])).statusCode).toBe(200);
    expect(await codeOf(p._id, { status: 'cancelled' })).toBe('409 invalid_transition');
    expect(await codeOf(p._id, { status: 'sent' })).toBe('409 invalid_transition');
    expect(await codeOf(p._id, { expectedDelivery: '2026-12-24' })).toBe(200);
  });

  it('deletes only drafts (409 not_draft otherwise)', async () => {
    const team = await premium();
    const s = await supplier(team);
    const a = await item(team);
    const line = [{ inventoryItemId: a._id, itemName: 'a', quantity: 1, unitCost: 100 }];
    const draft = await order(team, { items: line });
    const sent = await order(team, { supplierId: s._id, items: line });
    await put(team, sent._id, { status: 'sent' });
    const del = await call('DELETE', `${pos(team)}/${draft._id}`, team.admin.headers);
    expect(del.statusCode).toBe(204);
    expect((await call('GET', `${pos(team)}/${draft._id}`, team.admin.headers)).statusCode).toBe(404);
    expect((await call('DELETE', `${pos(team)}/${draft._id}`, team.admin.headers)).statusCode).toBe(404);
    const refused = await call('DELETE', `${pos(team)}/${sent._id}`, team.admin.headers);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('not_draft');
    expect((await call('GET', pos(team), team.admin.headers)).json().map((o: Order) => o._id)).toEqual([sent._id]);
  });
});

describe('receive', () => {
  async function sentOrder(team: Team, items: object[]) {
    const s = await supplier(team);
    const po = await order(team, { supplierId: s._id, items });
    expect((await put(team, po._id, { status: 'sent' })).statusCode).toBe(200);
    return po;
  }

  it('partial then complete: entry movements (purchase, the line’s unit cost) to the thousandth, stock and cost follow', async () => {
    const team = await premium();
    const a = await item(team, { name: 'Farinha', currentStock: 0.1, cost: 400 });
    const b = await item(team, { name: 'Ovos', unit: 'un', currentStock: 12, cost: 90 });
    const po = await sentOrder(team, [
      { inventoryItemId: a._id, itemName: 'Farinha', quantity: 2.5, unitCost: 455 }, // 1137.5 -> 1138
      { inventoryItemId: b._id, itemName: 'Ovos', quantity: 30, unitCost: 85 },
    ]);
    expect(po.totalCost).toBe(1138 + 2550);

    const first = await receive(team, po._id, [{ inventoryItemId: a._id, receivedQuantity: 1.237 }]);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ status: 'partial', totalCost: 3688 });
    expect(first.json().items.map((l: Line) => l.receivedQuantity)).toEqual([1.237, 0]);
    expect(await stockOf(team, a._id)).toMatchObject({ currentStock: 1.337, cost: 455 });
    expect(await stockOf(team, b._id)).toMatchObject({ currentStock: 12, cost: 90 });

    const second = await receive(team, po._id, [
      { inventoryItemId: b._id, receivedQuantity: 30 },
      { inventoryItemId: a._id, receivedQuantity: 1.263 },
    ]);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().status).toBe('received');
    expect(second.json().items.map((l: Line) => l.receivedQuantity)).toEqual([2.5, 30]);
    expect(await stockOf(team, a._id)).toMatchObject({ currentStock: 2.6, cost: 455 });
    expect(await stockOf(team, b._id)).toMatchObject({ currentStock: 42, cost: 85 });

    const ma = await movementsOf(team, a._id);
    expect(ma.filter((m) => m.reason === 'purchase').reverse()).toEqual([
      expect.objectContaining({ type: 'entry', reason: 'purchase', quantity: 1.237, before: 0.1, after: 1.337, unitCost: 455, notes: `${po.orderNumber} received` }),
      expect.objectContaining({ type: 'entry', reason: 'purchase', quantity: 1.263, before: 1.337, after: 2.6, unitCost: 455 }),
    ]);
    const mb = await movementsOf(team, b._id);
    expect(mb.filter((m) => m.reason === 'purchase')).toEqual([expect.objectContaining({ type: 'entry', quantity: 30, before: 12, after: 42, unitCost: 85 })]);

    // Received: nothing more.
    const again = await receive(team, po._id, [{ inventoryItemId: a._id, receivedQuantity: 0.001 }]);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('order_closed');
  });

  it('409 over what remains, an item not on the order, a draft or a cancelled order; nothing changes', async () => {
    const team = await premium();
    const a = await item(team, { currentStock: 1 });
    const b = await item(team);
    const po = await sentOrder(team, [{ inventoryItemId: a._id, itemName: 'a', quantity: 2, unitCost: 100 }]);
    expect((await receive(team, po._id, [{ inventoryItemId: a._id, receivedQuantity: 1.5 }])).statusCode).toBe(200);
    const codeOf = async (id: string, items: object[]) => {
      const res = await receive(team, id, items);
      return `${res.statusCode} ${res.json().code}`;
    };
    expect(await codeOf(po._id, [{ inventoryItemId: a._id, receivedQuantity: 0.501 }])).toBe('409 over_receipt');
    expect(await codeOf(po._id, [{ inventoryItemId: b._id, receivedQuantity: 1 }])).toBe('409 item_not_on_order');
    // One good line and one bad: neither is received.
    expect(await codeOf(po._id, [{ inventoryItemId: a._id, receivedQuantity: 0.1 }, { inventoryItemId: b._id, receivedQuantity: 1 }])).toBe('409 item_not_on_order');
    expect(await stockOf(team, a._id)).toMatchObject({ currentStock: 2.5 });
    expect((await call('GET', `${pos(team)}/${po._id}`, team.admin.headers)).json()).toMatchObject({ status: 'partial', items: [{ receivedQuantity: 1.5 }] });

    const draft = await order(team, { items: [{ inventoryItemId: a._id, itemName: 'a', quantity: 2, unitCost: 100 }] });
    expect(await codeOf(draft._id, [{ inventoryItemId: a._id, receivedQuantity: 1 }])).toBe('409 order_not_sent');
    const cancelled = await sentOrder(team, [{ inventoryItemId: a._id, itemName: 'a', quantity: 2, unitCost: 100 }]);
    await put(team, cancelled._id, { status: 'cancelled' });
    expect(await codeOf(cancelled._id, [{ inventoryItemId: a._id, receivedQuantity: 1 }])).toBe('409 order_closed');
    expect(await codeOf(MISSING, [{ inventoryItemId: a._id, receivedQuantity: 1 }])).toBe('404 not_found');
    expect(await stockOf(team, a._id)).toMatchObject({ currentStock: 2.5 });
    expect((await movementsOf(team, a._id)).filter((m) => m.reason === 'purchase')).toHaveLength(1);
  });

  it('400 naming the field: quantity 0, 4 decimals, a repeated item, no items, an unknown field', async () => {
    const team = await premium();
    const a = await item(team);
    const po = await sentOrder(team, [{ inventoryItemId: a._id, itemName: 'a', quantity: 2, unitCost: 100 }]);
    const cases: [object, string][] = [
      [{ items: [] }, 'body.items'],
      [{}, 'body.items'],
      [{ items: [{ inventoryItemId: a._id, receivedQuantity: 0 }] }, 'body.items.0.receivedQuantity'],
      [{ items: [{ inventoryItemId: a._id, receivedQuantity: 0.0015 }] }, 'body.items.0.receivedQuantity'],
      [{ items: [{ inventoryItemId: a._id, receivedQuantity: 1 }, { inventoryItemId: a._id, receivedQuantity: 1 }] }, 'body.items.1.inventoryItemId'],
      [{ items: [{ inventoryItemId: a._id }] }, 'body.items.0.receivedQuantity'],
      [{ items: [{ inventoryItemId: a._id, receivedQuantity: 1, cost: 3 }] }, 'body.items.0.cost'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', `${pos(team)}/${po._id}/receive`, team.admin.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    expect(await stockOf(team, a._id)).toMatchObject({ currentStock: 0 });
  });
});

describe('purchase orders: guards and isolation', () => {
  it('401 without a token, 403 for staff and accountants, 403 naming the feature on the free plan; superadmin passes', async () => {
    const team = await premium();
    const a = await item(team);
    const po = await order(team, { items: [{ inventoryItemId: a._id, itemName: 'a', quantity: 1, unitCost: 1 }] });
    const routes: [Method, string, object?][] = [
      ['GET', pos(team)],
      ['GET', `${pos(team)}/${po._id}`],
      ['POST', pos(team), { items: [{ inventoryItemId: a._id, itemName: 'a', quantity: 1, unitCost: 1 }] }],
      ['POST', `${pos(team)}/generate-from-low-stock`, {}],
      ['PUT', `${pos(team)}/${po._id}`, { notes: 'x' }],
      ['DELETE', `${pos(team)}/${po._id}`],
      ['POST', `${pos(team)}/${po._id}/receive`, { items: [{ inventoryItemId: a._id, receivedQuantity: 1 }] }],
    ];
    await expectAdminFeatureGuard(t.app, team, routes, 'supplierManagement');
    const sa = await makeSuperadmin(t.app);
    expect((await call('GET', `${pos(team)}/${po._id}`, sa.headers)).json()._id).toBe(po._id);
    const made = await call('POST', pos(team), sa.headers, { items: [{ inventoryItemId: a._id, itemName: 'a', quantity: 1, unitCost: 1 }] });
    expect(made.statusCode).toBe(201);
    expect(made.json().createdBy).toBe(sa.id);
  });

  it("another tenant's order is 404 through its own slug, 403 through the owner's; nothing changes", async () => {
    const owner = await premium();
    const outsider = await premium();
    const a = await item(owner);
    const po = await order(owner, { items: [{ inventoryItemId: a._id, itemName: 'a', quantity: 1, unitCost: 1 }] });
    const b = await item(outsider);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'GET', path: `/t/:slug/inventory/purchase-orders/${po._id}` },
        { method: 'PUT', path: `/t/:slug/inventory/purchase-orders/${po._id}`, payload: { notes: 'hacked' } },
        { method: 'DELETE', path: `/t/:slug/inventory/purchase-orders/${po._id}` },
        { method: 'POST', path: `/t/:slug/inventory/purchase-orders/${po._id}/receive`, payload: { items: [{ inventoryItemId: a._id, receivedQuantity: 1 }] } },
      ],
      snapshot: async () => ({
        orders: (await call('GET', pos(owner), owner.admin.headers)).json(),
        stock: (await stockOf(owner, a._id)).currentStock,
      }),
    });
    // The outsider cannot order the owner's item either (404), and its list stays empty.
    expect((await call('POST', pos(outsider), outsider.admin.headers, { items: [{ inventoryItemId: a._id, itemName: 'a', quantity: 1, unitCost: 1 }] })).statusCode).toBe(404);
    expect((await call('POST', pos(outsider), outsider.admin.headers, { items: [{ inventoryItemId: b._id, itemName: 'b', quantity: 1, unitCost: 1 }] })).statusCode).toBe(201);
    expect((await call('GET', pos(outsider), outsider.admin.headers)).json()).toHaveLength(1);
  });
});

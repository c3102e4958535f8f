import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeCategory, makeMenuItem, makePdv, makeTable, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

/**
 * Running the floor (issue 11) through HTTP on the real database: moving a tab to another table,
 * merging two tabs, moving lines between tabs. Each test asserts the outcome (tables, both bills, the
 * recorded adjustments) and that a refused request changes nothing.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, payload: payload as never });
const codeOf = (res: { statusCode: number; json: () => { code?: string } }) => [res.statusCode, res.json().code];

interface Line {
  name: string;
  quantity: number;
  price: number;
  amount?: number;
  discountAmount?: number;
  voidedQuantity?: number;
  discount?: object;
}
interface Adjustment {
  kind: string;
  line?: number;
  detail: string;
  by: string;
  at: string;
}
interface Order {
  _id: string;
  orderNumber: string;
  status: string;
  table: string | null;
  isTab: boolean;
  items: Line[];
  itemsTotal: number;
  discountTotal: number;
  serviceCharge: number;
  covers: number;
  coverCharge: number;
  total: number;
  amountPaid: number;
  amountDue: number;
  paymentStatus: string | null;
  adjustments: Adjustment[];
  statusHistory: { from: string; to: string; by: string }[];
}

/**
 * A restaurant with 10% service and a cover of R$ 8,00 a person (unless `settings` says otherwise), a
 * dish at R$ 45,90, a soda at R$ 6,95, cheese sold by weight at R$ 49,90/kg and three free tables.
 */
async function restaurant(settings: object = { serviceChargePercent: 10, coverCharge: 800 }) {
  const team = await makeTenantWithTeam(t.app);
  const put = await call('PUT', `/t/${team.slug}/tenants`, team.admin.headers, settings);
  expect(put.statusCode, put.body).toBe(200);
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 4590 });
  const soda = await makeMenuItem(t.app, team.tenant, { name: 'Guaraná', price: 695 });
  const category = await makeCategory(t.app, team.tenant);
  const cheese = await makeMenuItem(t.app, team.tenant, { name: 'Queijo minas', price: 4990, unit: 'kg', category: category._id });
  const [t1, t2, t3] = [await makeTable(t.app, team.tenant), await makeTable(t.app, team.tenant), await makeTable(t.app, team.tenant)];
  const base = `/t/${team.slug}/orders`;
  const defaultRound = [{ menuItem: dish._id, quantity: 2 }, { menuItem: soda._id, quantity: 1 }];
  const order = async (body: object): Promise<Order> => {
    const res = await call('POST', base, team.admin.headers, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  return {
    ...team,
    dish,
    soda,
    cheese,
    t1,
    t2,
    t3,
    order,
    /** A new tab on `table`; by default 2 x 45,90 + 1 x 6,95 = 98,75 for 2 covers (9875 + 988 + 1600 = 12463 with the default settings). */
    tab: async (table: { _id: string }, items: object[] = defaultRound, covers = 2, extra = {}) => {
      const o = await order({ orderType: 'dine_in', table: table._id, covers, items, ...extra });
      expect(o).toMatchObject({ isTab: true, table: table._id });
      return o;
    },
    moveTable: (id: string, body: object, headers: H = team.staff.headers) => call('POST', `${base}/${id}/move-table`, headers, body),
    merge: (id: string, body: object, headers: H = team.staff.headers) => call('POST', `${base}/${id}/merge`, headers, body),
    moveLines: (id: string, body: object, headers: H = team.staff.headers) => call('POST', `${base}/${id}/move-lines`, headers, body),
    pay: (id: string, body: object) => call('POST', `${base}/${id}/process-payment`, team.admin.headers, { gateway: 'mock', ...body }),
    status: (id: string, status: string) => call('PUT', `${base}/${id}/status`, team.admin.headers, { status }),
    /** The order as the list shows it now. */
    get: async (id: string): Promise<Order> => (await call('GET', base, team.admin.headers)).json().find((o: Order) => o._id === id),
    /** Every order and every table: what a refused request must leave as it was. */
    snapshot: async () => ({
      orders: (await call('GET', base, team.admin.headers)).json(),
      tables: (await call('GET', `/t/${team.slug}/tables`, team.admin.headers)).json(),
    }),
    /** Status of each table, by id. */
    tables: async (): Promise<Record<string, string>> =>
      Object.fromEntries((await call('GET', `/t/${team.slug}/tables`, team.admin.headers)).json().map((x: { _id: string; status: string }) => [x._id, x.status])),
    openTab: async (tableId: string): Promise<Order | null> => (await call('GET', `${base}/open-tab/${tableId}`, team.admin.headers)).json(),
    /** A card payment left processing on the terminal of a new PDV. */
    processing: async (id: string) => {
      const terminal = `T-${team.slug.slice(2).toUpperCase()}`;
      await makePdv(t.app, team.tenant, { terminal });
      const res = await call('POST', `${base}/${id}/process-payment`, team.admin.headers, { gateway: 'gateway_a', method: 'credit_card', gatewayATerminalSerial: terminal });
      expect(res.json(), res.body).toMatchObject({ status: 'processing' });
    },
    split: async (id: string) => {
      const res = await call('POST', `${base}/${id}/split`, team.admin.headers, { parts: 2 });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { parent: Order; parts: Order[] };
    },
    /** Gives the staff member the PDVs they work at (none by default: orders of a PDV are then out of their scope). */
    assignStaff: async (pdvIds: string[]) => {
      const res = await call('PUT', `/t/${team.slug}/users/${team.staff.id}`, team.admin.headers, { assignedPdvIds: pdvIds });
      expect(res.statusCode, res.body).toBe(200);
    },
  };
}
type R = Awaited<ReturnType<typeof restaurant>>;

const adjustmentsOf = (o: Order) => o.adjustments.map(({ kind, line, detail, by }) => ({ kind, ...(line === undefined ? {} : { line }), detail, by }));
const sumTotals = (...orders: Order[]) => orders.reduce((s, o) => s + o.total, 0);

describe('POST /orders/:id/move-table', () => {
  it('moves an open tab to a free table: the old table is freed, the new one occupied, the bill unchanged, the move recorded', async () => {
    const r = await restaurant();
    const o = await r.tab(r.t1);
    expect(o).toMatchObject({ total: 12463, adjustments: [] });
    expect(await r.tables()).toEqual({ [r.t1._id]: 'occupied', [r.t2._id]: 'available', [r.t3._id]: 'available' });

    const res = await r.moveTable(o._id, { tableId: r.t2._id });
    expect(res.statusCode, res.body).toBe(200);
    const moved: Order = res.json();
    expect(moved).toMatchObject({ _id: o._id, table: r.t2._id, isTab: true, status: 'pending', items: o.items, total: 12463, covers: 2, amountDue: 12463 });
    expect(moved.adjustments).toEqual([{ kind: 'table_moved', detail: `table ${r.t1.number} -> table ${r.t2.number}`, by: r.staff.id, at: expect.any(String) }]);
    expect(await r.get(o._id)).toEqual(moved);
    expect(await r.tables()).toEqual({ [r.t1._id]: 'available', [r.t2._id]: 'occupied', [r.t3._id]: 'available' });
    expect(await r.openTab(r.t1._id)).toBeNull();
    expect((await r.openTab(r.t2._id))?._id).toBe(o._id);

    // The next round for table 2 joins the moved tab; a new party at table 1 opens a tab of its own.
    const round = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, { orderType: 'dine_in', table: r.t2._id, items: [{ menuItem: r.soda._id, quantity: 1 }] });
    expect(round.statusCode, round.body).toBe(200);
    expect(round.json()).toMatchObject({ _id: o._id, items: [{ quantity: 2 }, { quantity: 2 }] });
    const fresh = await r.tab(r.t1, [{ menuItem: r.soda._id, quantity: 1 }], 1);
    expect(fresh._id).not.toBe(o._id);

    // Moved on again: the adjustments accumulate, each naming its tables.
    const again = await r.moveTable(o._id, { tableId: r.t3._id }, r.admin.headers);
    expect(again.statusCode, again.body).toBe(200);
    expect(adjustmentsOf(again.json())).toEqual([
      { kind: 'table_moved', detail: `table ${r.t1.number} -> table ${r.t2.number}`, by: r.staff.id },
      { kind: 'table_moved', detail: `table ${r.t2.number} -> table ${r.t3.number}`, by: r.admin.id },
    ]);
    expect(await r.tables()).toEqual({ [r.t1._id]: 'occupied', [r.t2._id]: 'available', [r.t3._id]: 'occupied' });
  });

  it('refuses a bad body, the same table, a takeout order and an order without a table (400), and an unknown table (404), changing nothing', async () => {
    const r = await restaurant();
    const o = await r.tab(r.t1);
    const takeout = await r.order({ orderType: 'takeout', items: [{ menuItem: r.soda._id, quantity: 1 }] });
    const tableless = await r.order({ orderType: 'dine_in', items: [{ menuItem: r.soda._id, quantity: 1 }] });
    const before = await r.snapshot();

    for (const [body, field] of [
      [{}, 'body.tableId'],
      [{ tableId: 'table-2' }, 'body.tableId'],
      [{ tableId: r.t2._id, covers: 3 }, 'body.covers'],
      [{ tableId: r.t1._id }, 'body.tableId'],
    ] as const) {
      const res = await r.moveTable(o._id, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json().details?.[0]?.field, res.body).toBe(field);
    }
    expect((await call('POST', `/t/${r.slug}/orders/not-an-id/move-table`, r.staff.headers, { tableId: r.t2._id })).statusCode).toBe(400);
    expect(codeOf(await r.moveTable(takeout._id, { tableId: r.t2._id }))).toEqual([400, 'not_dine_in']);
    expect(codeOf(await r.moveTable(tableless._id, { tableId: r.t2._id }))).toEqual([400, 'no_table']);
    // A table that does not exist, or was deleted.
    expect((await r.moveTable(o._id, { tableId: 'f'.repeat(24) })).statusCode).toBe(404);
    expect((await call('DELETE', `/t/${r.slug}/tables/${r.t3._id}`, r.admin.headers)).statusCode).toBe(200);
    const afterDelete = await r.snapshot();
    expect((await r.moveTable(o._id, { tableId: r.t3._id })).statusCode).toBe(404);
    expect(await r.snapshot()).toEqual(afterDelete);
    expect(afterDelete.orders).toEqual(before.orders);
  });

  it('is for the floor: 401 without a token, 403 for the accountant and for staff outside the PDV, 404 for another tenant', async () => {
    const r = await restaurant();
    const other = await restaurant();
    const pdv = await makePdv(t.app, r.tenant);
    const o = await r.tab(r.t1, undefined, 2, { pdv: pdv.pdvId });
    const before = await r.snapshot();

    expect((await r.moveTable(o._id, { tableId: r.t2._id }, {})).statusCode).toBe(401);
    expect(codeOf(await r.moveTable(o._id, { tableId: r.t2._id }, r.accountant.headers))).toEqual([403, 'role']);
    // The staff member works at no PDV yet: the order of this PDV is out of their scope.
    expect(codeOf(await r.moveTable(o._id, { tableId: r.t2._id }, r.staff.headers))).toEqual([403, 'branch_scope']);
    // Another tenant's table is no table here.
    expect((await r.moveTable(o._id, { tableId: other.t1._id }, r.admin.headers)).statusCode).toBe(404);
    expect(await r.snapshot()).toEqual(before);

    await expectTenantIsolation({
      app: t.app,
      ownerSlug: r.slug,
      outsider: { slug: other.slug, headers: other.admin.headers },
      requests: [
        { method: 'POST', path: `/t/:slug/orders/${o._id}/move-table`, payload: { tableId: other.t2._id } },
        { method: 'POST', path: `/t/:slug/orders/${o._id}/move-table`, payload: { tableId: r.t2._id } },
      ],
      snapshot: r.snapshot,
    });

    await r.assignStaff([pdv.pdvId]);
    const res = await r.moveTable(o._id, { tableId: r.t2._id }, r.staff.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ table: r.t2._id });
  });

  it('refuses a table with an open order (409 table_in_use), naming it, and changes neither tab', async () => {
    const r = await restaurant();
    const a = await r.tab(r.t1);
    const b = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 1 }], 1);
    const before = await r.snapshot();
    const res = await r.moveTable(a._id, { tableId: r.t2._id });
    expect(codeOf(res)).toEqual([409, 'table_in_use']);
    expect(res.json().message).toContain(b.orderNumber);
    expect(await r.snapshot()).toEqual(before);
    expect(await r.tables()).toMatchObject({ [r.t1._id]: 'occupied', [r.t2._id]: 'occupied' });
  });

  it('refuses a delivered or cancelled order (409 order_closed), a split one (order_split, split_part), a payment in flight (payment_in_progress)', async () => {
    const r = await restaurant();
    const [t4, t5] = [await makeTable(t.app, r.tenant), await makeTable(t.app, r.tenant)];
    const delivered = await r.tab(r.t1);
    expect((await call('POST', `/t/${r.slug}/orders/${delivered._id}/close-tab`, r.admin.headers, {})).json()).toMatchObject({ status: 'delivered' });
    const cancelled = await r.tab(r.t2);
    expect((await r.status(cancelled._id, 'cancelled')).json()).toMatchObject({ status: 'cancelled' });
    const split = await r.tab(r.t3);
    const { parts } = await r.split(split._id);
    const paying = await r.tab(t4);
    await r.processing(paying._id);
    const before = await r.snapshot();

    expect(codeOf(await r.moveTable(delivered._id, { tableId: t5._id }))).toEqual([409, 'order_closed']);
    expect(codeOf(await r.moveTable(cancelled._id, { tableId: t5._id }))).toEqual([409, 'order_closed']);
    expect(codeOf(await r.moveTable(split._id, { tableId: t5._id }))).toEqual([409, 'order_split']);
    expect(codeOf(await r.moveTable(parts[0]._id, { tableId: t5._id }))).toEqual([409, 'split_part']);
    expect(codeOf(await r.moveTable(paying._id, { tableId: t5._id }))).toEqual([409, 'payment_in_progress']);
    expect(await r.snapshot()).toEqual(before);
    expect((await r.tables())[t5._id]).toBe('available');
  });

  it('lets exactly one of two simultaneous moves onto the same free table win; the other gets 409 table_in_use', async () => {
    const r = await restaurant();
    for (let round = 0; round < 3; round++) {
      const [from1, from2, target] = [await makeTable(t.app, r.tenant), await makeTable(t.app, r.tenant), await makeTable(t.app, r.tenant)];
      const a = await r.tab(from1);
      const b = await r.tab(from2, [{ menuItem: r.soda._id, quantity: 3 }], 3);
      const results = await Promise.all([r.moveTable(a._id, { tableId: target._id }), r.moveTable(b._id, { tableId: target._id }, r.admin.headers)]);
      expect(results.map((x) => x.statusCode).sort(), results.map((x) => x.body).join('\n')).toEqual([200, 409]);
      const lost = results.find((x) => x.statusCode === 409)!;
      expect(lost.json().code).toBe('table_in_use');
      const winner = results.findIndex((x) => x.statusCode === 200) === 0 ? a : b;
      const loser = winner === a ? b : a;
      const [winnerFrom, loserFrom] = winner === a ? [from1, from2] : [from2, from1];

      expect((await r.openTab(target._id))?._id).toBe(winner._id);
      expect(await r.get(winner._id)).toMatchObject({ table: target._id, total: winner.total, adjustments: [{ kind: 'table_moved' }] });
      expect(await r.get(loser._id)).toMatchObject({ table: loserFrom._id, total: loser.total, adjustments: [] });
      expect(await r.tables()).toMatchObject({ [target._id]: 'occupied', [winnerFrom._id]: 'available', [loserFrom._id]: 'occupied' });
    }
  });
});

describe('POST /orders/:id/merge', () => {
  /**
   * Table 1: 2 x 45,90 + 1 x 6,95 for 2 = 9875 + 988 (987.5) + 1600 = 12463.
   * Table 2: 1 x 45,90 with 10% off (459) + 3 x 6,95 with one voided, for 3: 4590 + 1390 = 5980 - 459 = 5521, + 552 (552.1) + 2400 = 8473.
   */
  async function twoTabs(r: R) {
    const into = await r.tab(r.t1);
    const from = await r.tab(r.t2, [{ menuItem: r.dish._id, quantity: 1 }, { menuItem: r.soda._id, quantity: 3 }], 3);
    expect((await call('POST', `/t/${r.slug}/orders/${from._id}/void`, r.staff.headers, { line: 1, quantity: 1, reason: 'derrubou' })).statusCode).toBe(200);
    const discounted = await call('PUT', `/t/${r.slug}/orders/${from._id}/discount`, r.staff.headers, { line: 0, kind: 'percent', value: 10, reason: 'demora' });
    expect(discounted.json()).toMatchObject({ itemsTotal: 5980, discountTotal: 459, serviceCharge: 552, coverCharge: 2400, total: 8473 });
    expect(into.total).toBe(12463);
    return { into, from: discounted.json() as Order };
  }

  it('brings the billed lines (line discounts kept, voided units left) and covers into this tab, cancels the other and frees its table', async () => {
    const r = await restaurant();
    const { into, from } = await twoTabs(r);
    const res = await r.merge(into._id, { orderId: from._id });
    expect(res.statusCode, res.body).toBe(200);
    const { from: merged, to }: { from: Order; to: Order } = res.json();

    // The sodas join the soda line (2 billed units: the voided one stays behind); the discounted dish keeps its own line and discount.
    expect(to.items).toMatchObject([
      { name: 'Moqueca', quantity: 2, amount: 9180 },
      { name: 'Guaraná', quantity: 3, amount: 2085 },
      { name: 'Moqueca', quantity: 1, amount: 4590, discountAmount: 459, discount: { kind: 'percent', value: 10, reason: 'demora', by: r.staff.id } },
    ]);
    expect(to.items.every((l) => l.voidedQuantity === undefined)).toBe(true);
    // 9180 + 2085 + 4590 = 15855; - 459 = 15396; service 1539.6 -> 1540; 5 covers = 4000; total 20936.
    expect(to).toMatchObject({
      _id: into._id, status: 'pending', table: r.t1._id, isTab: true,
      itemsTotal: 15855, discountTotal: 459, serviceCharge: 1540, covers: 5, coverCharge: 4000, total: 20936, amountDue: 20936,
    });
    // Nothing lost, nothing added: the items, discounts and covers of both bills, and here the service charge too
    // (988 + 552 = 1540: the two roundings, +0.5 and -0.1, happen to cancel out).
    expect(to.total).toBe(sumTotals(into, from));
    expect(to.adjustments).toEqual([
      { kind: 'merged', detail: `order ${from.orderNumber} (table ${r.t2.number}): 2 line(s), 3 cover(s)`, by: r.staff.id, at: expect.any(String) },
    ]);

    // The merged-away order keeps its lines and bill as they were, cancelled (its money now lives on the other tab).
    expect(merged).toMatchObject({ _id: from._id, status: 'cancelled', table: r.t2._id, items: from.items, total: 8473, amountPaid: 0 });
    expect(merged.statusHistory.at(-1)).toMatchObject({ from: 'pending', to: 'cancelled', by: r.staff.id });
    expect(adjustmentsOf(merged)).toEqual([
      { kind: 'void', line: 1, detail: '1 x Guaraná', by: r.staff.id },
      { kind: 'discount', line: 0, detail: '10%', by: r.staff.id },
      { kind: 'merged', detail: `into order ${into.orderNumber} (table ${r.t1.number})`, by: r.staff.id },
    ]);
    expect(await r.get(into._id)).toEqual(to);
    expect(await r.get(from._id)).toEqual(merged);
    expect(await r.tables()).toMatchObject({ [r.t1._id]: 'occupied', [r.t2._id]: 'available' });
    expect((await r.openTab(r.t1._id))?._id).toBe(into._id);
    expect(await r.openTab(r.t2._id)).toBeNull();
    // The merged order is closed for good: a second merge of it is refused.
    expect(codeOf(await r.merge(into._id, { orderId: from._id }))).toEqual([409, 'order_closed']);
  });

  it("bills the merged lines at this tab's service charge: the other tab's removed service charge is not kept", async () => {
    const r = await restaurant();
    const into = await r.tab(r.t1);
    const from = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 2 }], 1);
    const removed = await call('PUT', `/t/${r.slug}/orders/${from._id}/bill`, r.staff.headers, { serviceChargeRemoved: true, reason: 'cliente pediu' });
    // 1390 + 800, no service.
    expect(removed.json()).toMatchObject({ serviceCharge: 0, total: 2190 });
    const res = await r.merge(into._id, { orderId: from._id });
    expect(res.statusCode, res.body).toBe(200);
    // 9180 + 3 x 695 = 11265; service 1126.5 -> 1127; 3 covers 2400; total 14792.
    expect(res.json().to).toMatchObject({ itemsTotal: 11265, serviceCharge: 1127, coverCharge: 2400, total: 14792 });
    // Before: 12463 + 2190 = 14653. After: 139 more, the 10% of the 1390 the other table had declined it on.
    expect(res.json().to.total - (into.total + removed.json().total)).toBe(139);
  });

  it("applies this tab's discount on the whole order (a percentage) to the merged lines too", async () => {
    const r = await restaurant();
    const into = await r.tab(r.t1);
    const d = await call('PUT', `/t/${r.slug}/orders/${into._id}/discount`, r.staff.headers, { kind: 'percent', value: 10, reason: 'aniversário' });
    // 9875 - 988 (987.5) = 8887; service 888.7 -> 889; 1600: 11376.
    expect(d.json()).toMatchObject({ discountTotal: 988, total: 11376 });
    const from = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 2 }], 1);
    expect(from.total).toBe(2329);
    const res = await r.merge(into._id, { orderId: from._id });
    expect(res.statusCode, res.body).toBe(200);
    // 9180 + 2085 = 11265; 10% = 1127 (1126.5); 10138; service 1014 (1013.8); 3 covers 2400: 13552.
    expect(res.json().to).toMatchObject({ itemsTotal: 11265, discountTotal: 1127, serviceCharge: 1014, total: 13552, discount: { kind: 'percent', value: 10 } });
    // 11376 + 2329 = 13705 before: 139 of discount on the merged 1390, and 14 less service on it.
    expect(sumTotals(d.json(), from) - res.json().to.total).toBe(139 + 14);
  });

  it('merges into a tab with money taken (it then owes the difference) but refuses to merge away one (409 already_paid)', async () => {
    const r = await restaurant();
    const paid = await r.tab(r.t1);
    expect((await r.pay(paid._id, { method: 'pix' })).json()).toMatchObject({ status: 'approved', amount: 12463, amountDue: 0 });
    const other = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 1 }], 1);
    const before = await r.snapshot();
    const refused = await r.merge(other._id, { orderId: paid._id });
    expect(codeOf(refused)).toEqual([409, 'already_paid']);
    expect(await r.snapshot()).toEqual(before);

    // The other way round: the paid tab takes the soda and its cover and owes them.
    const res = await r.merge(paid._id, { orderId: other._id });
    expect(res.statusCode, res.body).toBe(200);
    // 9180 + 1390 = 10570; service 1057; 3 covers 2400; total 14027; paid 12463, due 1564.
    expect(res.json().to).toMatchObject({ total: 14027, amountPaid: 12463, amountDue: 1564, paymentStatus: null });
    expect(await r.tables()).toMatchObject({ [r.t1._id]: 'occupied', [r.t2._id]: 'available' });
  });

  it('refuses a tab with a discount on the whole order (409 order_discount), a closed, split or paying one, changing nothing', async () => {
    const r = await restaurant();
    const [t4, t5, t6] = [await makeTable(t.app, r.tenant), await makeTable(t.app, r.tenant), await makeTable(t.app, r.tenant)];
    const into = await r.tab(r.t1);
    const discounted = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 1 }], 1);
    const d = await call('PUT', `/t/${r.slug}/orders/${discounted._id}/discount`, r.admin.headers, { kind: 'amount', value: 100, reason: 'cortesia' });
    expect(d.statusCode, d.body).toBe(200);
    const delivered = await r.tab(r.t3);
    await call('POST', `/t/${r.slug}/orders/${delivered._id}/close-tab`, r.admin.headers, {});
    const cancelled = await r.tab(t4);
    await r.status(cancelled._id, 'cancelled');
    const split = await r.tab(t5);
    const { parts } = await r.split(split._id);
    const paying = await r.tab(t6);
    await r.processing(paying._id);
    const before = await r.snapshot();

    expect(codeOf(await r.merge(into._id, { orderId: discounted._id }))).toEqual([409, 'order_discount']);
    for (const [id, code] of [
      [delivered._id, 'order_closed'],
      [cancelled._id, 'order_closed'],
      [split._id, 'order_split'],
      [parts[0]._id, 'split_part'],
      [paying._id, 'payment_in_progress'],
    ]) {
      expect(codeOf(await r.merge(into._id, { orderId: id })), `from ${code}`).toEqual([409, code]);
      expect(codeOf(await r.merge(id, { orderId: into._id })), `into ${code}`).toEqual([409, code]);
    }
    expect(await r.snapshot()).toEqual(before);
  });

  it('refuses a bad body, the order itself and a takeout order (400), changing nothing', async () => {
    const r = await restaurant();
    const into = await r.tab(r.t1);
    const takeout = await r.order({ orderType: 'takeout', items: [{ menuItem: r.soda._id, quantity: 1 }] });
    const before = await r.snapshot();
    for (const [body, field] of [
      [{}, 'body.orderId'],
      [{ orderId: 'x' }, 'body.orderId'],
      [{ orderId: takeout._id, lines: [] }, 'body.lines'],
      [{ orderId: into._id }, 'body.orderId'],
    ] as const) {
      const res = await r.merge(into._id, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json().details?.[0]?.field, res.body).toBe(field);
    }
    expect(codeOf(await r.merge(into._id, { orderId: takeout._id }))).toEqual([400, 'not_dine_in']);
    expect(codeOf(await r.merge(takeout._id, { orderId: into._id }))).toEqual([400, 'not_dine_in']);
    expect((await r.merge(into._id, { orderId: 'f'.repeat(24) })).statusCode).toBe(404);
    expect(await r.snapshot()).toEqual(before);
  });

  it('is for the floor: 401, 403 for the accountant and for staff outside the PDV of either tab, 404 for another tenant', async () => {
    const r = await restaurant();
    const other = await restaurant();
    const pdv = await makePdv(t.app, r.tenant);
    const into = await r.tab(r.t1);
    const from = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 1 }], 1, { pdv: pdv.pdvId });
    const theirs = await other.tab(other.t1);
    const before = await r.snapshot();
    const theirsBefore = await other.snapshot();

    expect((await r.merge(into._id, { orderId: from._id }, {})).statusCode).toBe(401);
    expect(codeOf(await r.merge(into._id, { orderId: from._id }, r.accountant.headers))).toEqual([403, 'role']);
    expect(codeOf(await r.merge(into._id, { orderId: from._id }, r.staff.headers))).toEqual([403, 'branch_scope']);
    expect(codeOf(await r.merge(from._id, { orderId: into._id }, r.staff.headers))).toEqual([403, 'branch_scope']);
    // Their tab into ours, ours into theirs: the other tenant's order does not exist here.
    expect((await r.merge(into._id, { orderId: theirs._id }, r.admin.headers)).statusCode).toBe(404);
    expect((await other.merge(theirs._id, { orderId: into._id }, other.admin.headers)).statusCode).toBe(404);
    expect(await r.snapshot()).toEqual(before);
    expect(await other.snapshot()).toEqual(theirsBefore);

    await expectTenantIsolation({
      app: t.app,
      ownerSlug: r.slug,
      outsider: { slug: other.slug, headers: other.admin.headers },
      requests: [{ method: 'POST', path: `/t/:slug/orders/${into._id}/merge`, payload: { orderId: from._id } }],
      snapshot: r.snapshot,
    });

    await r.assignStaff([pdv.pdvId]);
    expect((await r.merge(into._id, { orderId: from._id }, r.staff.headers)).statusCode).toBe(200);
  });
});

describe('POST /orders/:id/move-lines', () => {
  it('moves units to another tab: the source lines keep their place with fewer units, both bills recomputed, both moves recorded', async () => {
    const r = await restaurant();
    const a = await r.tab(r.t1);
    const b = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 1 }], 1);
    // 695 + 69.5 -> 70 + 800.
    expect(b.total).toBe(1565);

    const res = await r.moveLines(a._id, { toOrderId: b._id, lines: [{ line: 0, quantity: 1 }, { line: 1, quantity: 1 }] });
    expect(res.statusCode, res.body).toBe(200);
    const { from, to }: { from: Order; to: Order } = res.json();
    // Table 1: 1 x 45,90 left (the soda line stays, with 0 units); 4590 + 459 + 1600 = 6649.
    expect(from.items).toMatchObject([
      { name: 'Moqueca', quantity: 1, amount: 4590 },
      { name: 'Guaraná', quantity: 0, amount: 0 },
    ]);
    expect(from).toMatchObject({ _id: a._id, itemsTotal: 4590, serviceCharge: 459, covers: 2, coverCharge: 1600, total: 6649, table: r.t1._id });
    // Table 2: the soda joins its soda line, the dish is a new line; 1390 + 4590 = 5980 + 598 + 800 = 7378.
    expect(to.items).toMatchObject([
      { name: 'Guaraná', quantity: 2, amount: 1390 },
      { name: 'Moqueca', quantity: 1, amount: 4590, price: 4590 },
    ]);
    expect(to).toMatchObject({ _id: b._id, itemsTotal: 5980, serviceCharge: 598, covers: 1, coverCharge: 800, total: 7378 });
    // The items and covers of the two bills add up as before; the service charge is rounded per bill:
    // before 987.5 -> 988 and 69.5 -> 70 (1058), after 459 and 598 (1057, the exact 1057 of both).
    expect(from.itemsTotal + to.itemsTotal).toBe(a.itemsTotal + b.itemsTotal);
    expect(sumTotals(from, to)).toBe(sumTotals(a, b) - 1);

    expect(adjustmentsOf(from)).toEqual([
      { kind: 'lines_moved', line: 0, detail: `1 x Moqueca -> order ${b.orderNumber}`, by: r.staff.id },
      { kind: 'lines_moved', line: 1, detail: `1 x Guaraná -> order ${b.orderNumber}`, by: r.staff.id },
    ]);
    expect(adjustmentsOf(to)).toEqual([
      { kind: 'lines_moved', detail: `1 x Moqueca <- order ${a.orderNumber}`, by: r.staff.id },
      { kind: 'lines_moved', detail: `1 x Guaraná <- order ${a.orderNumber}`, by: r.staff.id },
    ]);
    expect(await r.get(a._id)).toEqual(from);
    expect(await r.get(b._id)).toEqual(to);
    // Both tabs stay open on their tables.
    expect(await r.tables()).toMatchObject({ [r.t1._id]: 'occupied', [r.t2._id]: 'occupied' });
    expect([from.status, to.status]).toEqual(['pending', 'pending']);
  });

  it('keeps the sum of both bills exactly without a service charge, over moves both ways; a weighed line split in two may lose a cent', async () => {
    const r = await restaurant({ serviceChargePercent: 0, coverCharge: 700 });
    const a = await r.tab(r.t1, [{ menuItem: r.dish._id, quantity: 3 }, { menuItem: r.soda._id, quantity: 4 }, { menuItem: r.cheese._id, quantity: 0.347 }], 2);
    const b = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 1 }], 3);
    // 13770 + 2780 + 1732 (0.347 kg x 4990 = 1731.53) + 1400 = 19682; 695 + 2100 = 2795.
    expect([a.total, b.total]).toEqual([19682, 2795]);
    const sum = sumTotals(a, b);

    const moves: [Order, Order, object[]][] = [
      // 2 dishes and 3 sodas (named twice) to B: B's soda line takes them, the dishes are a new line.
      [a, b, [{ line: 0, quantity: 2 }, { line: 1, quantity: 1 }, { line: 1, quantity: 2 }]],
      // 1 dish and 2 sodas back: they join A's lines of the same dish.
      [b, a, [{ line: 1, quantity: 1 }, { line: 0, quantity: 2 }]],
      // 0.1 kg of cheese to B (1233 + 499 = 1732) and 1 g back (0.248 kg = 1237.52 -> 1238, 0.099 kg = 494.01 -> 494: 1732).
      [a, b, [{ line: 2, quantity: 0.1 }]],
      [b, a, [{ line: 2, quantity: 0.001 }]],
    ];
    for (const [from, to, lines] of moves) {
      const res = await r.moveLines(from._id, { toOrderId: to._id, lines });
      expect(res.statusCode, res.body).toBe(200);
      expect(sumTotals(res.json().from, res.json().to), JSON.stringify(lines)).toBe(sum);
    }
    const [finalA, finalB] = [await r.get(a._id), await r.get(b._id)];
    expect(finalA.items.map((l) => [l.name, l.quantity])).toEqual([['Moqueca', 2], ['Guaraná', 3], ['Queijo minas', 0.248]]);
    expect(finalB.items.map((l) => [l.name, l.quantity])).toEqual([['Guaraná', 2], ['Moqueca', 1], ['Queijo minas', 0.099]]);
    // 9180 + 2085 + 1238 + 1400 = 13903; 1390 + 4590 + 494 + 2100 = 8574.
    expect([finalA.total, finalB.total]).toEqual([13903, 8574]);
    expect([finalA.covers, finalB.covers]).toEqual([2, 3]);

    // Each bill rounds its own weighed line: 60 g more to B leaves 0.188 kg = 938.12 -> 938 and 0.159 kg = 793.41 -> 793,
    // 1731 for the 1731.53 of cheese, where the two lines rounded to 1732 before. The sum is 1 cent lower.
    const grams = await r.moveLines(a._id, { toOrderId: b._id, lines: [{ line: 2, quantity: 0.06 }] });
    expect(grams.statusCode, grams.body).toBe(200);
    expect([grams.json().from.items[2].amount, grams.json().to.items[2].amount]).toEqual([938, 793]);
    expect(sumTotals(grams.json().from, grams.json().to)).toBe(sum - 1);
  });

  it('leaves a line discount on the source line: the moved units are billed at full price (the arithmetic of both bills)', async () => {
    const r = await restaurant();
    const a = await r.tab(r.t1);
    const disc = await call('PUT', `/t/${r.slug}/orders/${a._id}/discount`, r.staff.headers, { line: 0, kind: 'percent', value: 10, reason: 'cliente fiel' });
    // 9875 - 918 = 8957; service 895.7 -> 896; 1600: 11453.
    expect(disc.json().total).toBe(11453);
    const b = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 1 }], 1);
    const res = await r.moveLines(a._id, { toOrderId: b._id, lines: [{ line: 0, quantity: 1 }] });
    expect(res.statusCode, res.body).toBe(200);
    const { from, to } = res.json();
    // Source: 1 dish with 10% (459) + soda: 5285 - 459 = 4826; service 482.6 -> 483; 1600: 6909.
    expect(from).toMatchObject({ itemsTotal: 5285, discountTotal: 459, serviceCharge: 483, total: 6909 });
    expect(from.items[0]).toMatchObject({ quantity: 1, amount: 4590, discountAmount: 459, discount: { value: 10 } });
    // Target: soda + the dish without discount: 5285; service 528.5 -> 529; 800: 6614.
    expect(to).toMatchObject({ itemsTotal: 5285, discountTotal: 0, serviceCharge: 529, total: 6614 });
    expect(to.items[1]).not.toHaveProperty('discount');
    // 11453 + 1565 = 13018 before; 6909 + 6614 = 13523 after: the moved unit's 459 discount is gone, and its 10% service (46) comes on top.
    expect(from.total + to.total - (disc.json().total + b.total)).toBe(459 + 46);
  });

  it('refuses bad lines and quantities (400) naming the field, changing nothing', async () => {
    const r = await restaurant();
    const a = await r.tab(r.t1, [{ menuItem: r.dish._id, quantity: 3 }, { menuItem: r.cheese._id, quantity: 0.347 }]);
    // 1 of the 3 dishes voided: 2 left to move.
    expect((await call('POST', `/t/${r.slug}/orders/${a._id}/void`, r.admin.headers, { line: 0, quantity: 1, reason: 'x' })).statusCode).toBe(200);
    const b = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 1 }], 1);
    const before = await r.snapshot();
    for (const [body, field] of [
      [{ lines: [{ line: 0, quantity: 1 }] }, 'body.toOrderId'],
      [{ toOrderId: b._id }, 'body.lines'],
      [{ toOrderId: b._id, lines: [] }, 'body.lines'],
      [{ toOrderId: b._id, lines: [{ line: -1, quantity: 1 }] }, 'body.lines.0.line'],
      [{ toOrderId: b._id, lines: [{ line: 0, quantity: 0 }] }, 'body.lines.0.quantity'],
      [{ toOrderId: b._id, lines: [{ line: 0 }] }, 'body.lines.0.quantity'],
      [{ toOrderId: a._id, lines: [{ line: 0, quantity: 1 }] }, 'body.toOrderId'],
      [{ toOrderId: b._id, lines: [{ line: 2, quantity: 1 }] }, 'body.lines.0.line'],
      [{ toOrderId: b._id, lines: [{ line: 0, quantity: 1.5 }] }, 'body.lines.0.quantity'],
      [{ toOrderId: b._id, lines: [{ line: 1, quantity: 0.0005 }] }, 'body.lines.0.quantity'],
      [{ toOrderId: b._id, lines: [{ line: 0, quantity: 3 }] }, 'body.lines.0.quantity'],
      [{ toOrderId: b._id, lines: [{ line: 1, quantity: 0.348 }] }, 'body.lines.0.quantity'],
      [{ toOrderId: b._id, lines: [{ line: 0, quantity: 1 }, { line: 1, quantity: 0.1 }, { line: 0, quantity: 2 }] }, 'body.lines.2.quantity'],
    ] as const) {
      const res = await r.moveLines(a._id, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json().details?.[0]?.field, `${JSON.stringify(body)}: ${res.body}`).toBe(field);
    }
    expect((await r.moveLines(a._id, { toOrderId: 'f'.repeat(24), lines: [{ line: 0, quantity: 1 }] })).statusCode).toBe(404);
    expect(await r.snapshot()).toEqual(before);
    // What is left can move: the 2 billed dishes and all the cheese.
    const all = await r.moveLines(a._id, { toOrderId: b._id, lines: [{ line: 0, quantity: 2 }, { line: 1, quantity: 0.347 }] });
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().from.items).toMatchObject([{ quantity: 1, voidedQuantity: 1, amount: 0 }, { quantity: 0, amount: 0 }]);
    expect(all.json().from).toMatchObject({ itemsTotal: 0, serviceCharge: 0, total: 1600 });
  });

  it('refuses to take the source below what was paid on it (409 would_overpay); a paid target owes what it receives', async () => {
    const r = await restaurant();
    const a = await r.tab(r.t1);
    expect((await r.pay(a._id, { method: 'cash', amount: 10000 })).json()).toMatchObject({ status: 'approved', amountDue: 2463 });
    const b = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 1 }], 1);
    expect((await r.pay(b._id, { method: 'pix' })).json()).toMatchObject({ status: 'approved', amount: 1565, amountDue: 0 });
    const before = await r.snapshot();
    // Without a dish: 4590 + 695 = 5285 + 529 + 1600 = 7414, below the 10000 paid.
    const refused = await r.moveLines(a._id, { toOrderId: b._id, lines: [{ line: 0, quantity: 1 }] });
    expect(codeOf(refused)).toEqual([409, 'would_overpay']);
    expect(await r.snapshot()).toEqual(before);

    // Without the soda: 9180 + 918 + 1600 = 11698, still above.
    const res = await r.moveLines(a._id, { toOrderId: b._id, lines: [{ line: 1, quantity: 1 }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().from).toMatchObject({ total: 11698, amountPaid: 10000, amountDue: 1698 });
    // B: 1390 + 139 + 800 = 2329; it had paid 1565 and owes 764 again.
    expect(res.json().to).toMatchObject({ total: 2329, amountPaid: 1565, amountDue: 764, paymentStatus: null });
    // 12463 + 1565 = 14028 before; 11698 + 2329 = 14027: the service roundings (987.5 -> 988, 69.5 -> 70) are now exact (918, 139).
    expect(sumTotals(res.json().from, res.json().to)).toBe(14027);
  });

  it('refuses a closed, cancelled, split or paying order on either side (409), changing nothing', async () => {
    const r = await restaurant();
    const [t4, t5] = [await makeTable(t.app, r.tenant), await makeTable(t.app, r.tenant)];
    const a = await r.tab(r.t1);
    const delivered = await r.tab(r.t2);
    await call('POST', `/t/${r.slug}/orders/${delivered._id}/close-tab`, r.admin.headers, {});
    const cancelled = await r.tab(r.t3);
    await r.status(cancelled._id, 'cancelled');
    const split = await r.tab(t4);
    const { parts } = await r.split(split._id);
    const paying = await r.tab(t5);
    await r.processing(paying._id);
    const before = await r.snapshot();
    for (const [id, code] of [
      [delivered._id, 'order_closed'],
      [cancelled._id, 'order_closed'],
      [split._id, 'order_split'],
      [parts[0]._id, 'split_part'],
      [paying._id, 'payment_in_progress'],
    ]) {
      expect(codeOf(await r.moveLines(a._id, { toOrderId: id, lines: [{ line: 1, quantity: 1 }] })), `to ${code}`).toEqual([409, code]);
      expect(codeOf(await r.moveLines(id, { toOrderId: a._id, lines: [{ line: 0, quantity: 1 }] })), `from ${code}`).toEqual([409, code]);
    }
    expect(await r.snapshot()).toEqual(before);
  });

  it('is for the floor: 401, 403 for the accountant and for staff outside the PDV of either order, 404 for another tenant', async () => {
    const r = await restaurant();
    const other = await restaurant();
    const pdv = await makePdv(t.app, r.tenant);
    const a = await r.tab(r.t1);
    const b = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 1 }], 1, { pdv: pdv.pdvId });
    const theirs = await other.tab(other.t1);
    const body = { toOrderId: b._id, lines: [{ line: 1, quantity: 1 }] };
    const before = await r.snapshot();
    const theirsBefore = await other.snapshot();

    expect((await r.moveLines(a._id, body, {})).statusCode).toBe(401);
    expect(codeOf(await r.moveLines(a._id, body, r.accountant.headers))).toEqual([403, 'role']);
    expect(codeOf(await r.moveLines(a._id, body, r.staff.headers))).toEqual([403, 'branch_scope']);
    expect(codeOf(await r.moveLines(b._id, { toOrderId: a._id, lines: [{ line: 0, quantity: 1 }] }, r.staff.headers))).toEqual([403, 'branch_scope']);
    expect((await r.moveLines(a._id, { toOrderId: theirs._id, lines: [{ line: 1, quantity: 1 }] }, r.admin.headers)).statusCode).toBe(404);
    expect((await other.moveLines(theirs._id, { toOrderId: a._id, lines: [{ line: 1, quantity: 1 }] }, other.admin.headers)).statusCode).toBe(404);
    expect(await r.snapshot()).toEqual(before);
    expect(await other.snapshot()).toEqual(theirsBefore);

    await expectTenantIsolation({
      app: t.app,
      ownerSlug: r.slug,
      outsider: { slug: other.slug, headers: other.admin.headers },
      requests: [{ method: 'POST', path: `/t/:slug/orders/${a._id}/move-lines`, payload: body }],
      snapshot: r.snapshot,
    });

    await r.assignStaff([pdv.pdvId]);
    expect((await r.moveLines(a._id, body, r.staff.headers)).statusCode).toBe(200);
  });

  it('runs two opposite moves between the same tabs at once without a deadlock, and keeps the sum', async () => {
    const r = await restaurant({ serviceChargePercent: 0, coverCharge: 500 });
    const a = await r.tab(r.t1, [{ menuItem: r.dish._id, quantity: 4 }]);
    const b = await r.tab(r.t2, [{ menuItem: r.soda._id, quantity: 4 }]);
    const sum = sumTotals(a, b);
    const results = await Promise.all([
      r.moveLines(a._id, { toOrderId: b._id, lines: [{ line: 0, quantity: 1 }] }),
      r.moveLines(b._id, { toOrderId: a._id, lines: [{ line: 0, quantity: 1 }] }, r.admin.headers),
    ]);
    expect(results.map((x) => x.statusCode), results.map((x) => x.body).join('\n')).toEqual([200, 200]);
    const [finalA, finalB] = [await r.get(a._id), await r.get(b._id)];
    expect(finalA.items.map((l) => [l.name, l.quantity])).toEqual([['Moqueca', 3], ['Guaraná', 1]]);
    expect(finalB.items.map((l) => [l.name, l.quantity])).toEqual([['Guaraná', 3], ['Moqueca', 1]]);
    expect(sumTotals(finalA, finalB)).toBe(sum);
    expect(finalA.adjustments).toHaveLength(2);
    expect(finalB.adjustments).toHaveLength(2);
  });
});

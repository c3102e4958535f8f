import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePixPayload } from '../../platform/pix/brcode.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeCategory, makeMenuItem, makePdv, makeTable, makeTenantWithTeam, makeUser } from '../../../test/factories.js';

/**
 * The bill through HTTP: tenant bill settings, weighed items, discounts (and the staff limit), voids,
 * the service charge and covers, the states in which a bill cannot be edited, payments around edits,
 * splits that add up, the receipt and the PIX code of a bill with a service charge.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, payload: payload as never });

/**
 * A restaurant with 10% service and a cover of R$ 8,00 a person (unless `settings` says otherwise), a
 * branch manager besides the team, a dish at R$ 45,90 and a soda at R$ 6,95.
 */
async function restaurant(settings: object = { serviceChargePercent: 10, coverCharge: 800 }) {
  const team = await makeTenantWithTeam(t.app);
  const put = await call('PUT', `/t/${team.slug}/tenants`, team.admin.headers, settings);
  expect(put.statusCode, put.body).toBe(200);
  const manager = await makeUser(t.app, team.tenant, 'branch_manager');
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 4590 });
  const soda = await makeMenuItem(t.app, team.tenant, { name: 'Guaraná', price: 695 });
  const base = `/t/${team.slug}/orders`;
  const order = async (body: object) => {
    const res = await call('POST', base, team.admin.headers, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  return {
    ...team,
    manager,
    dish,
    soda,
    settings: put.json(),
    order,
    /** 2 x 45,90 + 1 x 6,95 = 98,75 (9875 cents). */
    dineIn: (covers = 2, extra: object = {}) =>
      order({ orderType: 'dine_in', covers, items: [{ menuItem: dish._id, quantity: 2 }, { menuItem: soda._id, quantity: 1 }], ...extra }),
    takeout: (items: object[] = [{ menuItem: dish._id, quantity: 2 }, { menuItem: soda._id, quantity: 1 }]) => order({ orderType: 'takeout', items }),
    discount: (id: string, headers: H, body: object) => call('PUT', `${base}/${id}/discount`, headers, body),
    undiscount: (id: string, headers: H, line?: number) => call('DELETE', `${base}/${id}/discount${line === undefined ? '' : `?line=${line}`}`, headers),
    void: (id: string, headers: H, body: object) => call('POST', `${base}/${id}/void`, headers, body),
    bill: (id: string, headers: H, body: object) => call('PUT', `${base}/${id}/bill`, headers, body),
    status: (id: string, status: string) => call('PUT', `${base}/${id}/status`, team.admin.headers, { status }),
    pay: (id: string, body: object) => call('POST', `${base}/${id}/process-payment`, team.admin.headers, { gateway: 'mock', ...body }),
    split: (id: string, body: object) => call('POST', `${base}/${id}/split`, team.admin.headers, body),
    addItems: (id: string, items: object[]) => call('PATCH', `${base}/${id}/add-items`, team.admin.headers, { items }),
    get: async (id: string) => (await call('GET', base, team.admin.headers)).json().find((o: { _id: string }) => o._id === id),
  };
}
type R = Awaited<ReturnType<typeof restaurant>>;

const codeOf = (res: { statusCode: number; json: () => { code?: string } }) => [res.statusCode, res.json().code];
/** The bill fields of an order, to compare before and after a refused edit. */
const billFields = (o: Record<string, unknown>) => {
  const { updatedAt: _u, ...rest } = o;
  return rest;
};

describe('bill settings and a new bill', () => {
  it('adds the tenant service charge (half up) and the cover to a dine-in bill, never to a takeout', async () => {
    const r = await restaurant();
    expect(r.settings).toMatchObject({ serviceChargePercent: 10, coverCharge: 800, discountLimitPercent: 10 });

    const dine = await r.dineIn(3);
    // 2 x 4590 + 695 = 9875; service 10% = 987.5 -> 988; covers 3 x 800 = 2400; total 9875 + 988 + 2400 = 13263.
    expect(dine).toMatchObject({
      itemsTotal: 9875,
      discountTotal: 0,
      discount: null,
      serviceChargePercent: 10,
      serviceChargeRemoved: false,
      serviceCharge: 988,
      covers: 3,
      coverCharge: 2400,
      total: 13263,
      amountDue: 13263,
      rounding: { lines: 0, discounts: 0, serviceCharge: 0.5 },
      adjustments: [],
    });
    expect(dine.items.map((l: { unit: string; amount: number }) => [l.unit, l.amount])).toEqual([
      ['un', 9180],
      ['un', 695],
    ]);

    const out = await r.takeout();
    expect(out).toMatchObject({ itemsTotal: 9875, serviceChargePercent: 0, serviceCharge: 0, covers: 0, coverCharge: 0, total: 9875 });
    const covered = await call('POST', `/t/${r.slug}/orders`, r.admin.headers, { orderType: 'takeout', covers: 2, items: [{ menuItem: r.dish._id, quantity: 1 }] });
    expect(covered.statusCode, covered.body).toBe(400);
    expect(covered.json().details[0].field).toBe('body.covers');
  });

  it("takes a PDV's own service charge and cover over the tenant's, a 0 cover included", async () => {
    const r = await restaurant();
    const branch = await makePdv(t.app, r.tenant);
    const pdv = await t.app.services.branches.createPdv(t.app.deps.tenantDb(r.tenant._id), {
      branchId: branch.branchId,
      name: 'Terraço',
      slug: `terraco-${r.slug}`,
      serviceChargeBp: 1200,
      coverCharge: 0,
    });
    const o = await r.dineIn(2, { pdv: pdv.id });
    // 12% of 9875 = 1185 exactly; the PDV's cover is 0, not the tenant's 800.
    expect(o).toMatchObject({ pdv: pdv.id, serviceChargePercent: 12, serviceCharge: 1185, covers: 2, coverCharge: 0, total: 11060 });
    // A table's dine-in order follows the tenant's settings.
    const table = await makeTable(t.app, r.tenant);
    expect(await r.dineIn(1, { table: table._id })).toMatchObject({ serviceCharge: 988, coverCharge: 800, total: 9875 + 988 + 800 });
  });
});

describe('items sold by weight', () => {
  it('take kilograms to 3 decimals, priced half up; a unit item takes whole units', async () => {
    const r = await restaurant({});
    const category = await makeCategory(t.app, r.tenant);
    const created = await call('POST', `/t/${r.slug}/menu/items`, r.admin.headers, { name: 'Queijo minas', price: 4990, unit: 'kg', category: category._id });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().unit).toBe('kg');
    const cheese = created.json()._id;

    const o = await r.takeout([{ menuItem: cheese, quantity: 0.347 }]);
    // 0.347 kg x 4990 = 1731.53 cents -> 1732 (rounding moved 0.47).
    expect(o.items[0]).toMatchObject({ unit: 'kg', quantity: 0.347, price: 4990, amount: 1732 });
    expect(o.total).toBe(1732);
    expect(o.rounding.lines).toBeCloseTo(0.47, 4);

    for (const [menuItem, quantity] of [
      [r.dish._id, 1.5],
      [cheese, 0.0001],
      [cheese, 0.3475],
    ] as const) {
      const res = await call('POST', `/t/${r.slug}/orders`, r.admin.headers, { orderType: 'takeout', items: [{ menuItem, quantity }] });
      expect(res.statusCode, `${quantity}: ${res.body}`).toBe(400);
      expect(res.json().details[0].field).toBe('body.items.0.quantity');
    }

    // Voiding 0.1 kg leaves 0.247 kg: 1232.53 -> 1233.
    const voided = await r.void(o._id, r.staff.headers, { line: 0, quantity: 0.1, reason: 'pesagem errada' });
    expect(voided.statusCode, voided.body).toBe(200);
    expect(voided.json().items[0]).toMatchObject({ quantity: 0.347, voidedQuantity: 0.1, amount: 1233 });
    expect(voided.json().total).toBe(1233);
  });
});

describe('PUT and DELETE /orders/:id/discount', () => {
  it('lets staff discount up to the limit, above it only an admin or branch manager; the service charge follows', async () => {
    const r = await restaurant();
    const o = await r.dineIn(2);
    // 9875 + 988 + 1600.
    expect(o.total).toBe(12463);

    const line = await r.discount(o._id, r.staff.headers, { line: 0, kind: 'percent', value: 10, reason: 'cliente fiel' });
    expect(line.statusCode, line.body).toBe(200);
    // Line 0: 10% of 9180 = 918; base 9875 - 918 = 8957; service 895.7 -> 896; total 8957 + 896 + 1600 = 11453.
    expect(line.json()).toMatchObject({ discountTotal: 918, serviceCharge: 896, coverCharge: 1600, total: 11453, amountDue: 11453 });
    expect(line.json().items[0]).toMatchObject({ amount: 9180, discountAmount: 918, discount: { kind: 'percent', value: 10, reason: 'cliente fiel', by: r.staff.id } });
    expect(line.json().adjustments).toEqual([{ kind: 'discount', line: 0, detail: '10%', reason: 'cliente fiel', by: r.staff.id, at: expect.any(String) }]);

    // Over the limit: refused, nothing changes.
    const before = billFields(await r.get(o._id));
    const over = await r.discount(o._id, r.staff.headers, { line: 0, kind: 'percent', value: 10.01, reason: 'amigo' });
    expect(codeOf(over)).toEqual([403, 'discount_limit']);
    // The order's own limit is 10% of 8957 (after the line discount) = 895.7 cents: 896 is over, 895 is in.
    const orderOver = await r.discount(o._id, r.staff.headers, { kind: 'amount', value: 896, reason: 'amigo' });
    expect(codeOf(orderOver)).toEqual([403, 'discount_limit']);
    expect(billFields(await r.get(o._id))).toEqual(before);

    const orderIn = await r.discount(o._id, r.staff.headers, { kind: 'amount', value: 895, reason: 'demora' });
    expect(orderIn.statusCode, orderIn.body).toBe(200);
    // 918 + 895 = 1813; base 8062; service 806.2 -> 806; total 8062 + 806 + 1600 = 10468.
    expect(orderIn.json()).toMatchObject({ discountTotal: 1813, serviceCharge: 806, total: 10468, discount: { kind: 'amount', value: 895, reason: 'demora' } });

    // An admin goes above the limit: 50% of 695 = 347.5 -> 348 on line 1.
    const admin = await r.discount(o._id, r.admin.headers, { line: 1, kind: 'percent', value: 50, reason: 'cortesia' });
    expect(admin.statusCode, admin.body).toBe(200);
    // 918 + 348 + 895 = 2161; base 7714; service 771.4 -> 771; total 7714 + 771 + 1600 = 10085.
    expect(admin.json()).toMatchObject({ discountTotal: 2161, serviceCharge: 771, total: 10085 });
    expect(admin.json().items[1]).toMatchObject({ discountAmount: 348 });
    expect(admin.json().rounding.discounts).toBeCloseTo(-0.5, 4);
    expect(admin.json().rounding.serviceCharge).toBeCloseTo(-0.4, 4);

    // A branch manager replaces the order discount with 15%: of 9875 - 918 - 348 = 8609 -> 1291.35 -> 1291.
    const manager = await r.discount(o._id, r.manager.headers, { kind: 'percent', value: 15, reason: 'aniversário' });
    expect(manager.statusCode, manager.body).toBe(200);
    // 918 + 348 + 1291 = 2557; base 7318; service 731.8 -> 732; total 7318 + 732 + 1600 = 9650.
    expect(manager.json()).toMatchObject({ discountTotal: 2557, serviceCharge: 732, total: 9650, discount: { kind: 'percent', value: 15, by: r.manager.id } });
    expect(manager.json().adjustments.map((a: { kind: string; line?: number; detail: string }) => [a.kind, a.line, a.detail])).toEqual([
      ['discount', 0, '10%'],
      ['discount', undefined, '895 cents'],
      ['discount', 1, '50%'],
      ['discount', undefined, '15%'],
    ]);
  });

  it('follows the tenant limit when the admin changes it', async () => {
    const r = await restaurant({ discountLimitPercent: 20 });
    expect(r.settings.discountLimitPercent).toBe(20);
    const o = await r.takeout();
    const staff = await r.discount(o._id, r.staff.headers, { kind: 'percent', value: 20, reason: 'promoção' });
    expect(staff.statusCode, staff.body).toBe(200);
    // 20% of 9875 = 1975.
    expect(staff.json()).toMatchObject({ discountTotal: 1975, total: 7900 });
    expect(codeOf(await r.discount(o._id, r.staff.headers, { line: 1, kind: 'percent', value: 20.5, reason: 'promoção' }))).toEqual([403, 'discount_limit']);
  });

  it('refuses a fractional amount, a percentage over 100 or with 3 decimals, and an unknown line (400), changing nothing', async () => {
    const r = await restaurant();
    const o = await r.takeout();
    for (const [body, field] of [
      [{ kind: 'amount', value: 10.5, reason: 'x' }, 'body.value'],
      [{ kind: 'percent', value: 100.01, reason: 'x' }, 'body.value'],
      [{ kind: 'percent', value: 12.345, reason: 'x' }, 'body.value'],
      [{ line: 2, kind: 'percent', value: 5, reason: 'x' }, 'body.line'],
      [{ kind: 'percent', value: 5 }, undefined],
      [{ kind: 'percent', value: 5, reason: '' }, undefined],
    ] as const) {
      const res = await r.discount(o._id, r.admin.headers, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      if (field) expect(res.json().details[0].field).toBe(field);
    }
    expect(await r.get(o._id)).toMatchObject({ discountTotal: 0, discount: null, total: 9875, adjustments: [] });
    // 100% is the most, and takes the whole line.
    expect((await r.discount(o._id, r.admin.headers, { line: 1, kind: 'percent', value: 100, reason: 'cortesia' })).json()).toMatchObject({ total: 9180 });
  });

  it('takes a line discount or the order discount off, and recomputes the bill', async () => {
    const r = await restaurant();
    const o = await r.dineIn(2);
    await r.discount(o._id, r.admin.headers, { line: 0, kind: 'percent', value: 10, reason: 'a' });
    await r.discount(o._id, r.admin.headers, { line: 1, kind: 'percent', value: 50, reason: 'b' });
    const both = await r.discount(o._id, r.admin.headers, { kind: 'percent', value: 15, reason: 'c' });
    // As above: 918 + 348 + 1291; total 9650.
    expect(both.json()).toMatchObject({ discountTotal: 2557, total: 9650 });
    expect(both.json().items[0].discount).toMatchObject({ kind: 'percent', value: 10 });

    const noLine = await r.undiscount(o._id, r.staff.headers, 0);
    expect(noLine.statusCode, noLine.body).toBe(200);
    expect(noLine.json().items[0]).not.toHaveProperty('discount');
    expect(noLine.json().items[0]).not.toHaveProperty('discountAmount');
    // Order discount: 15% of 9875 - 348 = 9527 -> 1429.05 -> 1429; 348 + 1429 = 1777; base 8098; service 809.8 -> 810; total 8098 + 810 + 1600.
    expect(noLine.json()).toMatchObject({ discountTotal: 1777, serviceCharge: 810, total: 10508 });
    expect(noLine.json().adjustments.at(-1)).toMatchObject({ kind: 'discount_removed', line: 0, detail: '10%', by: r.staff.id });

    const noOrder = await r.undiscount(o._id, r.staff.headers);
    expect(noOrder.statusCode, noOrder.body).toBe(200);
    // 348 off; base 9527; service 952.7 -> 953; total 9527 + 953 + 1600 = 12080.
    expect(noOrder.json()).toMatchObject({ discount: null, discountTotal: 348, serviceCharge: 953, total: 12080 });
    expect(noOrder.json().adjustments.at(-1)).toMatchObject({ kind: 'discount_removed', detail: '15%' });
    expect(noOrder.json().adjustments).toHaveLength(5);

    // Nothing left to take off: the same bill, no new adjustment.
    const again = await r.undiscount(o._id, r.staff.headers);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ total: 12080, adjustments: noOrder.json().adjustments });
    expect((await r.undiscount(o._id, r.staff.headers, 7)).statusCode).toBe(400);
  });
});

describe('POST /orders/:id/void', () => {
  it('lets staff void on a pending order; once the kitchen has it, only an admin or branch manager', async () => {
    const r = await restaurant();
    // 3 x 4590 + 2 x 695 = 15160; each void takes its units off: - 4590 = 10570, - 695 = 9875, - 2 x 4590 = 695.
    const o = await r.takeout([{ menuItem: r.dish._id, quantity: 3 }, { menuItem: r.soda._id, quantity: 2 }]);
    expect(o.total).toBe(15160);

    const one = await r.void(o._id, r.staff.headers, { line: 0, quantity: 1, reason: 'desistiu' });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().items[0]).toMatchObject({ quantity: 3, voidedQuantity: 1, amount: 9180 });
    expect(one.json()).toMatchObject({ itemsTotal: 10570, total: 10570 });
    expect(one.json().adjustments).toEqual([{ kind: 'void', line: 0, detail: '1 x Moqueca', reason: 'desistiu', by: r.staff.id, at: expect.any(String) }]);

    for (const body of [
      { line: 0, quantity: 3, reason: 'x' },
      { line: 1, quantity: 0.5, reason: 'x' },
      { line: 2, quantity: 1, reason: 'x' },
    ]) {
      const res = await r.void(o._id, r.staff.headers, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
    }

    expect((await r.status(o._id, 'confirmed')).statusCode).toBe(200);
    const before = billFields(await r.get(o._id));
    expect(codeOf(await r.void(o._id, r.staff.headers, { line: 1, quantity: 1, reason: 'x' }))).toEqual([403, 'void_role']);
    expect(billFields(await r.get(o._id))).toEqual(before);

    const admin = await r.void(o._id, r.admin.headers, { line: 1, quantity: 1, reason: 'derrubou' });
    expect(admin.json()).toMatchObject({ itemsTotal: 9875, total: 9875 });
    const manager = await r.void(o._id, r.manager.headers, { line: 0, quantity: 2, reason: 'cozinha sem peixe' });
    expect(manager.statusCode, manager.body).toBe(200);
    // Line 0 fully voided: 695 left.
    expect(manager.json().items[0]).toMatchObject({ voidedQuantity: 3, amount: 0 });
    expect(manager.json()).toMatchObject({ itemsTotal: 695, total: 695 });
    // Nothing left on line 0.
    expect((await r.void(o._id, r.admin.headers, { line: 0, quantity: 1, reason: 'x' })).statusCode).toBe(400);
  });
});

describe('PUT /orders/:id/bill', () => {
  it('removes and restores the service charge and changes the covers, with the history', async () => {
    const r = await restaurant();
    const o = await r.dineIn(2);
    expect(o).toMatchObject({ serviceCharge: 988, coverCharge: 1600, total: 12463 });

    const removed = await r.bill(o._id, r.staff.headers, { serviceChargeRemoved: true, reason: 'cliente pediu' });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toMatchObject({ serviceChargeRemoved: true, serviceChargePercent: 10, serviceCharge: 0, total: 11475 });

    const covers = await r.bill(o._id, r.staff.headers, { covers: 4 });
    // 4 x 800 = 3200; 9875 + 3200 = 13075.
    expect(covers.json()).toMatchObject({ covers: 4, coverCharge: 3200, total: 13075 });

    const restored = await r.bill(o._id, r.manager.headers, { serviceChargeRemoved: false, covers: 1, reason: 'engano' });
    // 9875 + 988 + 800 = 11663.
    expect(restored.json()).toMatchObject({ serviceChargeRemoved: false, serviceCharge: 988, covers: 1, coverCharge: 800, total: 11663 });
    expect(restored.json().adjustments.map((a: { kind: string; detail: string; reason?: string; by: string }) => [a.kind, a.detail, a.reason, a.by])).toEqual([
      ['service_charge', 'removed', 'cliente pediu', r.staff.id],
      ['covers', '2 -> 4', undefined, r.staff.id],
      ['service_charge', 'restored', 'engano', r.manager.id],
      ['covers', '4 -> 1', 'engano', r.manager.id],
    ]);

    const empty = await r.bill(o._id, r.admin.headers, {});
    expect(empty.statusCode).toBe(400);
    const out = await r.takeout();
    const takeoutCovers = await r.bill(out._id, r.admin.headers, { covers: 2 });
    expect(takeoutCovers.statusCode, takeoutCovers.body).toBe(400);
    expect(takeoutCovers.json().details[0].field).toBe('body.covers');
    expect(await r.get(out._id)).toMatchObject({ covers: 0, coverCharge: 0, total: 9875, adjustments: [] });
  });
});

describe('who may edit a bill', () => {
  const edits = (r: R, id: string, headers: H) => [
    r.discount(id, headers, { kind: 'percent', value: 5, reason: 'x' }),
    r.undiscount(id, headers),
    r.void(id, headers, { line: 1, quantity: 1, reason: 'x' }),
    r.bill(id, headers, { covers: 3 }),
  ];

  it('is the floor (admin, staff, branch manager): 403 for the accountant, 401 without a token, 404 for another tenant', async () => {
    const r = await restaurant();
    const other = await restaurant();
    const o = await r.dineIn(2);
    expect((await Promise.all(edits(r, o._id, r.accountant.headers))).map((res) => res.statusCode)).toEqual([403, 403, 403, 403]);
    expect((await Promise.all(edits(r, o._id, {}))).map((res) => res.statusCode)).toEqual([401, 401, 401, 401]);
    // Another tenant's admin, through their own slug: the order does not exist there.
    expect((await Promise.all(edits(other, o._id, other.admin.headers))).map((res) => res.statusCode)).toEqual([404, 404, 404, 404]);
    expect(billFields(await r.get(o._id))).toEqual(billFields(o));
    // The floor roles do get through.
    expect((await Promise.all(edits(r, o._id, r.manager.headers))).map((res) => res.statusCode)).toEqual([200, 200, 200, 200]);
  });
});

describe('a bill that cannot be edited', () => {
  const edits = (r: R, id: string) => [
    r.discount(id, r.admin.headers, { kind: 'percent', value: 5, reason: 'x' }),
    r.undiscount(id, r.admin.headers),
    r.void(id, r.admin.headers, { line: 0, quantity: 1, reason: 'x' }),
    r.bill(id, r.admin.headers, { serviceChargeRemoved: true }),
  ];

  it('is a cancelled order (409 order_closed)', async () => {
    const r = await restaurant();
    const o = await r.dineIn(2);
    expect((await r.status(o._id, 'cancelled')).json().status).toBe('cancelled');
    const results = await Promise.all(edits(r, o._id));
    expect(results.map(codeOf)).toEqual(Array(4).fill([409, 'order_closed']));
    expect(await r.get(o._id)).toMatchObject({ total: 12463, adjustments: [] });
  });

  it('is a bill with a card payment processing (409 payment_in_progress)', async () => {
    const r = await restaurant();
    const terminal = `T-${r.slug.slice(2).toUpperCase()}`;
    await makePdv(t.app, r.tenant, { terminal });
    const o = await r.dineIn(2);
    const started = await r.pay(o._id, { method: 'credit_card', gateway: 'gateway_a', gatewayATerminalSerial: terminal });
    expect(started.json()).toMatchObject({ status: 'processing', amount: 12463 });
    const results = await Promise.all(edits(r, o._id));
    expect(results.map(codeOf)).toEqual(Array(4).fill([409, 'payment_in_progress']));
    expect(await r.get(o._id)).toMatchObject({ total: 12463, paymentStatus: 'processing', adjustments: [] });
  });

  it('is a split parent (409 order_split) and each of its parts (409 split_part), add-items included', async () => {
    const r = await restaurant();
    const o = await r.dineIn(2);
    const split = await r.split(o._id, { parts: 2 });
    expect(split.statusCode, split.body).toBe(201);
    const parent = await Promise.all(edits(r, o._id));
    expect(parent.map(codeOf)).toEqual(Array(4).fill([409, 'order_split']));
    const part = split.json().parts[0];
    expect(part).toMatchObject({ isSplitBill: true, splitBillReference: o.orderNumber });
    const results = await Promise.all([...edits(r, part._id), r.addItems(part._id, [{ menuItem: r.soda._id, quantity: 1 }])]);
    expect(results.map(codeOf)).toEqual(Array(5).fill([409, 'split_part']));
    expect(await r.get(part._id)).toMatchObject({ total: part.total, adjustments: [] });
  });

  it('would go below what was paid (409 would_overpay); a discount to exactly what was paid settles it', async () => {
    const r = await restaurant();
    // Takeout: 2 x 4590 = 9180.
    const o = await r.takeout([{ menuItem: r.dish._id, quantity: 2 }]);
    const part = await r.pay(o._id, { method: 'cash', amount: 9000 });
    expect(part.json()).toMatchObject({ status: 'approved', amount: 9000, amountDue: 180 });
    expect(await r.get(o._id)).toMatchObject({ amountPaid: 9000, amountDue: 180, paymentStatus: null, receiptToken: null });

    expect(codeOf(await r.discount(o._id, r.admin.headers, { kind: 'amount', value: 181, reason: 'x' }))).toEqual([409, 'would_overpay']);
    expect(codeOf(await r.void(o._id, r.admin.headers, { line: 0, quantity: 1, reason: 'x' }))).toEqual([409, 'would_overpay']);
    expect(await r.get(o._id)).toMatchObject({ total: 9180, amountDue: 180, adjustments: [] });

    const exact = await r.discount(o._id, r.staff.headers, { kind: 'amount', value: 180, reason: 'arredondamento' });
    expect(exact.statusCode, exact.body).toBe(200);
    expect(exact.json()).toMatchObject({ total: 9000, amountPaid: 9000, amountDue: 0, paymentStatus: 'approved' });
    expect(exact.json().receiptToken).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('a paid bill', () => {
  it('owes again when the covers go up, and cannot drop its service charge below what was paid', async () => {
    const r = await restaurant();
    const o = await r.dineIn(2);
    expect((await r.pay(o._id, { method: 'pix' })).json()).toMatchObject({ status: 'approved', amount: 12463, amountDue: 0 });
    expect(await r.get(o._id)).toMatchObject({ paymentStatus: 'approved', amountDue: 0 });

    expect(codeOf(await r.bill(o._id, r.admin.headers, { serviceChargeRemoved: true }))).toEqual([409, 'would_overpay']);
    const more = await r.bill(o._id, r.staff.headers, { covers: 3 });
    expect(more.statusCode, more.body).toBe(200);
    // One more cover: 12463 + 800 = 13263.
    expect(more.json()).toMatchObject({ total: 13263, amountPaid: 12463, amountDue: 800, paymentStatus: null });
    expect((await r.pay(o._id, { method: 'cash' })).json()).toMatchObject({ status: 'approved', amount: 800, amountDue: 0 });
    expect(await r.get(o._id)).toMatchObject({ paymentStatus: 'approved', amountPaid: 13263, paymentMethod: 'mixed' });
  });
});

describe('a split bill with service, covers and discounts', () => {
  /**
   * 3 x 4590 + 695 = 14465; line 0 7% = 963.9 -> 964; order discount 333; discountTotal 1297; base 13168;
   * service 1316.8 -> 1317; 3 covers = 2400; total 13168 + 1317 + 2400 = 16885.
   */
  async function bill(r: R) {
    const o = await r.order({ orderType: 'dine_in', covers: 3, items: [{ menuItem: r.dish._id, quantity: 3 }, { menuItem: r.soda._id, quantity: 1 }] });
    await r.discount(o._id, r.admin.headers, { line: 0, kind: 'percent', value: 7, reason: 'a' });
    const res = await r.discount(o._id, r.admin.headers, { kind: 'amount', value: 333, reason: 'b' });
    expect(res.json()).toMatchObject({ itemsTotal: 14465, discountTotal: 1297, serviceCharge: 1317, coverCharge: 2400, total: 16885 });
    return res.json();
  }
  const FIELDS = ['itemsTotal', 'discountTotal', 'serviceCharge', 'coverCharge', 'total'] as const;
  type Part = Record<(typeof FIELDS)[number], number>;
  const sums = (parts: Part[]) => Object.fromEntries(FIELDS.map((f) => [f, parts.reduce((s, p) => s + p[f], 0)]));
  const amounts = (p: Part) => FIELDS.map((f) => p[f]);

  it('in equal parts: every amount of the parts adds up to the parent', async () => {
    const r = await restaurant();
    const o = await bill(r);
    const res = await r.split(o._id, { parts: 3 });
    expect(res.statusCode, res.body).toBe(201);
    const parts: Part[] = res.json().parts;
    expect(sums(parts)).toEqual({ itemsTotal: 14465, discountTotal: 1297, serviceCharge: 1317, coverCharge: 2400, total: 16885 });
    // 16885 / 3 -> 5629, 5628, 5628; service 439 each; covers 800 each; discounts 1297 / 3 -> 433, 432, 432.
    expect(parts.map(amounts)).toEqual([
      [5629 - 439 - 800 + 433, 433, 439, 800, 5629],
      [5628 - 439 - 800 + 432, 432, 439, 800, 5628],
      [5628 - 439 - 800 + 432, 432, 439, 800, 5628],
    ]);
    for (const p of parts) expect(p.total).toBe(p.itemsTotal - p.discountTotal + p.serviceCharge + p.coverCharge);
  });

  it('by lines: every amount of the parts adds up to the parent', async () => {
    const r = await restaurant();
    const o = await bill(r);
    const res = await r.split(o._id, { lines: [[{ line: 0, quantity: 2 }], [{ line: 0, quantity: 1 }, { line: 1, quantity: 1 }]] });
    expect(res.statusCode, res.body).toBe(201);
    const parts: Part[] = res.json().parts;
    expect(sums(parts)).toEqual({ itemsTotal: 14465, discountTotal: 1297, serviceCharge: 1317, coverCharge: 2400, total: 16885 });
    // Part 1: 9180, line discount 964 x 2/3 -> 643, order discount 333 x 8537/13501 -> 211, service 1317 x 8326/13168 -> 833, cover 1200.
    // Part 2: 5285, 321 + 122, service 484, cover 1200.
    expect(parts.map(amounts)).toEqual([
      [9180, 643 + 211, 833, 1200, 9180 - 854 + 833 + 1200],
      [5285, 321 + 122, 484, 1200, 5285 - 443 + 484 + 1200],
    ]);
    // Each part is paid for its own total.
    for (const p of res.json().parts) {
      expect((await r.pay(p._id, { method: 'pix' })).json()).toMatchObject({ status: 'approved', amount: p.total, amountDue: 0 });
    }
  });
});

describe('the receipt', () => {
  it('shows the service charge, discounts, cover, every payment with its tip and change, and the tips', async () => {
    const r = await restaurant();
    const o = await r.dineIn(2);
    await r.discount(o._id, r.staff.headers, { line: 0, kind: 'percent', value: 10, reason: 'cliente fiel' });
    // As above: discount 918, service 896, cover 1600, total 11453.
    const card = await r.pay(o._id, { method: 'credit_card', amount: 5000, tip: 500 });
    expect(card.json()).toMatchObject({ status: 'approved', amount: 5000, tip: 500, amountDue: 6453 });
    // 100,00 in cash for 64,53: 35,47 change.
    const cash = await r.pay(o._id, { method: 'cash', amount: 10000 });
    expect(cash.json()).toMatchObject({ status: 'approved', amount: 6453, change: 3547, amountDue: 0 });

    const token = (await r.get(o._id)).receiptToken;
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    const receipt = await call('GET', `/t/${r.slug}/receipts/${token}`);
    expect(receipt.statusCode, receipt.body).toBe(200);
    expect(receipt.json()).toMatchObject({
      itemsTotal: 9875,
      discountTotal: 918,
      serviceChargePercent: 10,
      serviceCharge: 896,
      covers: 2,
      coverCharge: 1600,
      total: 11453,
      tipTotal: 500,
      paymentMethod: 'mixed',
    });
    expect(receipt.json().items).toMatchObject([
      { quantity: 2, unit: 'un', price: 4590, amount: 9180, discountAmount: 918 },
      { quantity: 1, unit: 'un', price: 695, amount: 695, discountAmount: 0 },
    ]);
    expect(receipt.json().payments).toMatchObject([
      { method: 'credit_card', amount: 5000, tip: 500, tendered: null, change: 0 },
      { method: 'cash', amount: 6453, tip: 0, tendered: 10000, change: 3547 },
    ]);
  });
});

describe('a PIX order', () => {
  it('carries a BR Code for the total with the service charge and cover', async () => {
    const r = await restaurant({ serviceChargePercent: 10, coverCharge: 800, pixKey: 'caixa@cantina.com.br' });
    const o = await r.dineIn(2, { paymentMethod: 'pix' });
    // 9875 + 988 + 1600 = 12463.
    expect(o).toMatchObject({ serviceCharge: 988, total: 12463 });
    expect(o.pixPayload).toEqual(expect.any(String));
    const code = parsePixPayload(o.pixPayload);
    expect(code).toMatchObject({ key: 'caixa@cantina.com.br', amountCents: 12463, txid: o._id });
    expect(code.fields['54']).toBe('124.63');
  });

  it('gets a new BR Code for what is due when its bill changes', async () => {
    const r = await restaurant({ serviceChargePercent: 10, coverCharge: 800, pixKey: 'caixa@cantina.com.br' });
    const o = await r.dineIn(2, { paymentMethod: 'pix' });
    // Without the service charge: 9875 + 1600 = 11475.
    const declined = (await r.bill(o._id, r.staff.headers, { serviceChargeRemoved: true })).json();
    expect(declined.total).toBe(11475);
    expect(parsePixPayload(declined.pixPayload)).toMatchObject({ amountCents: 11475, txid: o._id });
    expect(declined.pixQrCodeBase64).not.toBe(o.pixQrCodeBase64);
    // Part paid in cash, then another soda: the code asks for the rest. 11475 + 695 (no service) - 5000 = 7170.
    expect((await r.pay(o._id, { method: 'cash', amount: 5000 })).statusCode).toBe(200);
    const more = (await r.addItems(o._id, [{ menuItem: r.soda._id, quantity: 1 }])).json();
    expect(more).toMatchObject({ total: 12170, amountDue: 7170 });
    expect(parsePixPayload(more.pixPayload).amountCents).toBe(7170);
  });
});

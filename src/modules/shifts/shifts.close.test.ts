import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeTenantWithTeam } from '../../../test/factories.js';

/**
 * Closing a shift against its payments: the expected amounts per method from the payments made in the
 * test (cash with change and tip, card, PIX, a split bill, a refunded cash payment, payments elsewhere),
 * the movements, exact cents; closing twice or at once; orders and payments linked to the shift open at
 * their PDV; `requireShift` refusing cash without one.
 */
let t: TestApp;
let app: App;
beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: H = {}, payload?: object) => app.inject({ method, url, headers, payload: payload as never });

async function world() {
  const team = await makeTenantWithTeam(app);
  const tdb = app.deps.tenantDb(team.tenant._id);
  const pdv = await makePdv(app, team.tenant);
  const second = await app.services.branches.createPdv(tdb, { branchId: pdv.branchId, name: 'Caixa 2', slug: `c2-${pdv.slug}` });
  const dish = await makeMenuItem(app, team.tenant, { name: 'Moqueca', price: 7450 });
  const dessert = await makeMenuItem(app, team.tenant, { name: 'Pudim', price: 1500 });
  const base = `/api/t/${team.slug}/admin/branches/${pdv.branchId}`;
  const h = team.admin.headers;

  /** A takeout order at `pdvId` (null: none) of `n` dishes and `d` desserts. */
  const order = async (pdvId: string | null, n: number, d = 0) => {
    const items = [...(n ? [{ menuItem: dish._id, quantity: n }] : []), ...(d ? [{ menuItem: dessert._id, quantity: d }] : [])];
    const res = await call('POST', `/t/${team.slug}/orders`, h, { orderType: 'takeout', ...(pdvId ? { pdv: pdvId } : {}), items });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { _id: string; total: number };
  };
  const pay = async (orderId: string, body: object, expectStatus = 200) => {
    const res = await call('POST', `/t/${team.slug}/orders/${orderId}/process-payment`, h, { gateway: 'mock', ...body });
    expect(res.statusCode, res.body).toBe(expectStatus);
    return res.json();
  };
  const ledger = async (orderId: string) => (await call('GET', `/t/${team.slug}/orders/${orderId}/payments`, h)).json() as { shift: string | null; status: string }[];
  const open = async (pdvId: string, openingFloat: number) => {
    const res = await call('POST', `${base}/shifts/open`, h, { pdvId, openingFloat, userId: team.staff.id });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { _id: string };
  };
  const move = async (shiftId: string, kind: string, amount: number) => {
    const res = await call('POST', `${base}/shifts/${shiftId}/movements`, h, { kind, amount, reason: kind === 'withdrawal' ? 'sangria ao cofre' : 'suprimento de troco' });
    expect(res.statusCode, res.body).toBe(201);
  };
  const close = (shiftId: string, body: object, headers = h) => call('POST', `${base}/shifts/${shiftId}/close`, headers, body);
  /** The order's `shift_id`, read in the tenant's transaction (the order view does not show it). */
  const shiftOfOrder = async (orderId: string) =>
    tdb.run(async (tx) => ((await tx.db.execute(sql`select shift_id from orders where id = ${orderId}`)) as unknown as { rows: { shift_id: string | null }[] }).rows[0]!.shift_id);
  return { ...team, pdvId: pdv.pdvId, secondPdvId: second.id, base, order, pay, ledger, open, move, close, shiftOfOrder };
}

const ZERO = { cash: 0, credit_card: 0, debit_card: 0, pix: 0, voucher: 0, mixed: 0, card: 0 };

describe('closing a shift', () => {
  it('expects per method what its payments took and its movements moved, to the cent, and reports the count against it', async () => {
    const w = await world();
    const beforeShift = await w.order(w.pdvId, 1);
    const shift = await w.open(w.pdvId, 10000);

    // Cash with change and a tip: 74.50 due, 100.00 handed over, 5.00 tip -> 79.50 stays in the drawer.
    const a = await w.order(w.pdvId, 1);
    expect(await w.pay(a._id, { method: 'cash', amount: 10000, tip: 500 })).toMatchObject({ amount: 7450, tip: 500, change: 2550 });
    // Card with a tip: 149.00 + 10.00.
    const b = await w.order(w.pdvId, 2);
    await w.pay(b._id, { method: 'credit_card', tip: 1000 });
    // PIX confirmed by hand.
    const c = await w.order(w.pdvId, 0, 1);
    await w.pay(c._id, { method: 'pix' });
    // A bill paid in two: 20.00 debit, the rest (54.50) in cash.
    const d = await w.order(w.pdvId, 1);
    await w.pay(d._id, { method: 'debit_card', amount: 2000 });
    await w.pay(d._id, { method: 'cash' });
    // A cash payment given back (the order cancelled): not in the drawer.
    const e = await w.order(w.pdvId, 0, 2);
    await w.pay(e._id, { method: 'cash' });
    expect((await call('PUT', `/t/${w.slug}/orders/${e._id}/status`, w.admin.headers, { status: 'cancelled' })).statusCode).toBe(200);
    expect((await w.ledger(e._id))[0]).toMatchObject({ status: 'refunded', shift: shift._id });
    // The order made before the shift opened is paid during it: its drawer is this one.
    await w.pay(beforeShift._id, { method: 'voucher' });
    // Money elsewhere: another PDV (no shift), and an order without a PDV.
    await w.pay((await w.order(w.secondPdvId, 1))._id, { method: 'cash' });
    await w.pay((await w.order(null, 1))._id, { method: 'cash' });

    await w.move(shift._id, 'addition', 5000);
    await w.move(shift._id, 'withdrawal', 8000);

    const res = await w.close(shift._id, { counted: { cash: 20000, credit_card: 15900, debit_card: 2000, pix: 1600 }, notes: ' faltou troco ' });
    expect(res.statusCode, res.body).toBe(200);
    const report = res.json();
    // cash = 100.00 float + 79.50 + 54.50 + 50.00 suprimento - 80.00 sangria = 204.00
    const expected = { ...ZERO, cash: 20400, credit_card: 15900, debit_card: 2000, pix: 1500, voucher: 7450 };
    expect(report).toMatchObject({
      _id: shift._id,
      status: 'closed',
      closedBy: { _id: w.admin.id },
      notes: 'faltou troco',
      openingFloat: 10000,
      sales: { ...ZERO, cash: 13400, credit_card: 15900, debit_card: 2000, pix: 1500, voucher: 7450 },
      cashMovements: { additions: 5000, withdrawals: 8000 },
      expected,
      counted: { ...ZERO, cash: 20000, credit_card: 15900, debit_card: 2000, pix: 1600 },
      difference: { ...ZERO, cash: -400, pix: 100, voucher: -7450 },
      totals: { expected: 47250, counted: 39500, difference: -7750 },
    });
    expect(report.movements.map((m: { kind: string; amount: number; createdBy: { _id: string } }) => [m.kind, m.amount, m.createdBy._id])).toEqual([
      ['addition', 5000, w.admin.id],
      ['withdrawal', 8000, w.admin.id],
    ]);
    expect(Math.abs(Date.parse(report.closedAt) - t.clock.now().getTime())).toBeLessThan(5_000);

    // The report stays as it was counted: the shift reads the same, and the history shows its totals.
    expect((await call('GET', `${w.base}/shifts/${shift._id}`, w.admin.headers)).json()).toEqual(report);
    const history = (await call('GET', `${w.base}/shifts`, w.admin.headers)).json();
    expect(history.data[0]).toMatchObject({ _id: shift._id, status: 'closed', totals: { expected: 47250, counted: 39500, difference: -7750 } });
    // Closed: no movement, no second close, and the PDV has no active shift.
    const again = await w.close(shift._id, { counted: { cash: 20400 } });
    expect([again.statusCode, again.json().code]).toEqual([409, 'shift_closed']);
    const late = await call('POST', `${w.base}/shifts/${shift._id}/movements`, w.admin.headers, { kind: 'addition', amount: 100, reason: 'x' });
    expect([late.statusCode, late.json().code]).toEqual([409, 'shift_closed']);
    expect((await call('GET', `${w.base}/shifts/active`, w.admin.headers)).json()).toEqual([]);
    // A payment after the close is in no shift.
    const after = await w.order(w.pdvId, 1);
    await w.pay(after._id, { method: 'cash' });
    expect((await w.ledger(after._id))[0]!.shift).toBeNull();
  });

  it('counts a method not given as 0 and validates the count', async () => {
    const w = await world();
    const shift = await w.open(w.pdvId, 5000);
    for (const [body, field] of [
      [{ counted: {} }, 'body.counted.cash'],
      [{}, 'body.counted'],
      [{ counted: { cash: -1 } }, 'body.counted.cash'],
      [{ counted: { cash: 1.5 } }, 'body.counted.cash'],
      [{ counted: { cash: 0, pix: -1 } }, 'body.counted.pix'],
      [{ counted: { cash: 0, bitcoin: 1 } }, 'body.counted.bitcoin'],
      [{ counted: { cash: 0 }, notes: 'x'.repeat(1001) }, 'body.notes'],
      [{ counted: { cash: 0 }, extra: true }, 'body.extra'],
    ] as const) {
      const res = await w.close(shift._id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const res = await w.close(shift._id, { counted: { cash: 5000 } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      expected: { ...ZERO, cash: 5000 },
      counted: { ...ZERO, cash: 5000 },
      difference: ZERO,
      totals: { expected: 5000, counted: 5000, difference: 0 },
      notes: null,
      movements: [],
    });
    expect((await w.close('ffffffffffffffffffffffff', { counted: { cash: 0 } })).statusCode).toBe(404);
  });

  it('lets one of two closes at the same moment win; the other finds it closed (409)', async () => {
    const w = await world();
    const shift = await w.open(w.pdvId, 1000);
    await w.pay((await w.order(w.pdvId, 1))._id, { method: 'cash' });
    const both = await Promise.all([w.close(shift._id, { counted: { cash: 8450 } }), w.close(shift._id, { counted: { cash: 1 } })]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(both.find((r) => r.statusCode === 409)!.json().code).toBe('shift_closed');
    const winner = both.find((r) => r.statusCode === 200)!.json();
    expect((await call('GET', `${w.base}/shifts/${shift._id}`, w.admin.headers)).json()).toEqual(winner);
    expect(winner.expected.cash).toBe(8450);
  });
});

describe('orders and payments linked to the shift', () => {
  it('links an order made at a PDV with an open shift, and each payment to the shift open at its PDV when taken', async () => {
    const w = await world();
    const before = await w.order(w.pdvId, 1);
    const noPdv = await w.order(null, 1);
    expect(await w.shiftOfOrder(before._id)).toBeNull();
    const shift = await w.open(w.pdvId, 0);
    const during = await w.order(w.pdvId, 1);
    const elsewhere = await w.order(w.secondPdvId, 1);
    expect(await w.shiftOfOrder(during._id)).toBe(shift._id);
    expect(await w.shiftOfOrder(elsewhere._id)).toBeNull();
    expect(await w.shiftOfOrder(noPdv._id)).toBeNull();

    await w.pay(before._id, { method: 'credit_card', amount: 1000 });
    await w.pay(noPdv._id, { method: 'cash' });
    await w.pay(elsewhere._id, { method: 'cash' });
    expect((await w.ledger(before._id)).map((p) => p.shift)).toEqual([shift._id]);
    expect((await w.ledger(noPdv._id)).map((p) => p.shift)).toEqual([null]);
    expect((await w.ledger(elsewhere._id)).map((p) => p.shift)).toEqual([null]);

    const closed = await w.close(shift._id, { counted: { cash: 0, credit_card: 1000 } });
    expect(closed.json()).toMatchObject({ expected: { ...ZERO, credit_card: 1000 }, difference: ZERO });
    // The rest of the bill, after the close, goes to the next shift.
    const next = await w.open(w.pdvId, 0);
    await w.pay(before._id, { method: 'cash' });
    expect((await w.ledger(before._id)).map((p) => p.shift)).toEqual([shift._id, next._id]);
    // The order stays on the shift it was made in.
    expect(await w.shiftOfOrder(during._id)).toBe(shift._id);
  });

  it('refuses cash at a PDV without an open shift when the tenant requires one (409 shift_required), and takes it with one', async () => {
    const w = await world();
    const set = await call('PUT', `/t/${w.slug}/tenants`, w.admin.headers, { requireShift: true });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().requireShift).toBe(true);
    expect((await call('GET', `/t/${w.slug}/tenants`, w.admin.headers)).json().requireShift).toBe(true);
    expect((await call('PUT', `/t/${w.slug}/tenants`, w.admin.headers, { requireShift: 'yes' })).statusCode).toBe(400);

    const order = await w.order(w.pdvId, 1);
    const refused = await call('POST', `/t/${w.slug}/orders/${order._id}/process-payment`, w.admin.headers, { method: 'cash', gateway: 'mock' });
    expect([refused.statusCode, refused.json().code]).toEqual([409, 'shift_required']);
    expect(await w.ledger(order._id)).toEqual([]);
    // Other methods, and cash for an order without a PDV, are not refused.
    await w.pay(order._id, { method: 'pix', amount: 450 });
    await w.pay((await w.order(null, 1))._id, { method: 'cash' });

    const shift = await w.open(w.pdvId, 0);
    const paid = await w.pay(order._id, { method: 'cash', amount: 10000 });
    expect(paid).toMatchObject({ status: 'approved', amount: 7000, change: 3000, amountDue: 0 });
    expect((await w.ledger(order._id)).map((p) => p.shift)).toEqual([null, shift._id]);

    // Not required (the default): cash without a shift is taken.
    expect((await call('PUT', `/t/${w.slug}/tenants`, w.admin.headers, { requireShift: false })).json().requireShift).toBe(false);
    await w.pay((await w.order(w.secondPdvId, 1))._id, { method: 'cash' });
  });
});

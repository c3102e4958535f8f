import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeSuperadmin, makeTenantWithTeam, makeUser, type TestUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

/**
 * Branch reports over HTTP (spec 4.10): the arithmetic against orders made and paid here, in the
 * tenant's time zone (America/Sao_Paulo, UTC-3 all year), with the test clock set to the moments of payment.
 *
 * Day D = 2030-03-14. Branch A has PDVs A1, A2 and an idle A3; branch B has B1. Every dish costs R$ 100.
 * - A1, 12:00 D: #1 R$ 100 in cash (R$ 120 handed over), #2 R$ 200 by credit card R$ 150 (tip R$ 10) + PIX R$ 50
 * - A2, 12:00 D: #3 R$ 100 by voucher; #4 R$ 100 part paid (R$ 40 cash): not counted
 * - A1, 12:00 D: #5 R$ 100 by debit card, then cancelled (refunded): not counted
 * - A1, 23:30 D: #6 R$ 100 by PIX: counts on D (02:30 UTC of D+1)
 * - A2, 00:10 D+1: #7 R$ 100 in cash: counts on D+1
 * - A2, 00:20 D+1: the rest of #4 by PIX (R$ 60): #4 counts on D+1, with its R$ 40 cash of D
 * - B1, 12:00 D: #8 R$ 300 by card (tip R$ 20)
 * Shifts (through the shifts module's routes): A1 09:00 D (closed 09:30) and 09:40 D, A2 10:00 D, B1 23:50 D,
 * A3 00:05 D+1; open now: A1, A2 and A3 (the staff member at A1 and A2, the admin at A3) and B1.
 */
const D = '2030-03-14';
const D1 = '2030-03-15';
const at = (iso: string) => new Date(iso);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
const get = (url: string, headers: H = {}) => t.app.inject({ method: 'GET', url, headers });
/** A fresh token for a user at the current (test) clock: tokens live 15 minutes and the clock jumps hours. */
const auth = async (u: TestUser): Promise<H> => ({ authorization: `Bearer ${await t.app.deps.jwt.sign(u.id)}` });

interface World {
  slug: string;
  admin: TestUser;
  staff: TestUser;
  accountant: TestUser;
  manager: TestUser;
  branchA: string;
  branchB: string;
  pdv: Record<'A1' | 'A2' | 'A3' | 'B1', string>;
}
let w: World;

async function order(pdv: string, quantity = 1): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/t/${w.slug}/orders`,
    headers: await auth(w.admin),
    payload: { orderType: 'takeout', pdv, items: [{ menuItem: dishId, quantity }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json()._id;
}

/** Opens a shift at `pdv` of `branch` for `user` at the clock's time; answers its id. */
async function openShift(branch: string, pdv: string, user: TestUser): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/t/${w.slug}/admin/branches/${branch}/shifts/open`,
    headers: await auth(w.admin),
    payload: { pdvId: pdv, openingFloat: 10000, userId: user.id },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json()._id;
}

async function pay(orderId: string, body: { method: string; amount?: number; tip?: number }) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/t/${w.slug}/orders/${orderId}/process-payment`,
    headers: await auth(w.admin),
    payload: { gateway: 'mock', ...body },
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().status).toBe('approved');
}

let dishId: string;
const base = () => `/api/t/${w.slug}/admin/branches`;

beforeAll(async () => {
  t.clock.set(at(`${D}T15:00:00Z`)); // 12:00 in São Paulo
  const team = await makeTenantWithTeam(t.app);
  const db = t.app.deps.tenantDb(team.tenant._id);
  const branch = (name: string) => t.app.services.branches.createBranch(db, { name, slug: name.toLowerCase().replace(/\W/g, '-') });
  const pdv = async (branchId: string, name: string) =>
    (await t.app.services.branches.createPdv(db, { branchId, name, slug: `pdv-${name.toLowerCase()}` })).id;
  const a = await branch('Filial Centro');
  const b = await branch('Filial Praia');
  const manager = await makeUser(t.app, team.tenant, 'branch_manager');
  w = {
    slug: team.slug,
    admin: team.admin,
    staff: team.staff,
    accountant: team.accountant,
    manager,
    branchA: a.id,
    branchB: b.id,
    pdv: { A1: await pdv(a.id, 'A1'), A2: await pdv(a.id, 'A2'), A3: await pdv(a.id, 'A3'), B1: await pdv(b.id, 'B1') },
  };
  const assigned = await t.app.inject({
    method: 'PUT',
    url: `/t/${w.slug}/users/${manager.id}`,
    headers: await auth(w.admin),
    payload: { assignedBranchIds: [a.id] },
  });
  expect(assigned.statusCode, assigned.body).toBe(200);
  dishId = (await makeMenuItem(t.app, team.tenant, { name: 'Prato do dia', price: 10000 }))._id;

  // 12:00 D
  await pay(await order(w.pdv.A1), { method: 'cash', amount: 12000 });
  const two = await order(w.pdv.A1, 2);
  await pay(two, { method: 'credit_card', amount: 15000, tip: 1000 });
  await pay(two, { method: 'pix' });
  await pay(await order(w.pdv.A2), { method: 'voucher' });
  const partPaid = await order(w.pdv.A2);
  await pay(partPaid, { method: 'cash', amount: 4000 });
  const cancelled = await order(w.pdv.A1);
  await pay(cancelled, { method: 'debit_card' });
  const cancel = await t.app.inject({
    method: 'PUT',
    url: `/t/${w.slug}/orders/${cancelled}/status`,
    headers: await auth(w.admin),
    payload: { status: 'cancelled' },
  });
  expect(cancel.statusCode, cancel.body).toBe(200);
  expect(cancel.json()).toMatchObject({ status: 'cancelled', amountPaid: 0 });
  await pay(await order(w.pdv.B1, 3), { method: 'card', tip: 2000 });
  // 23:30 D, then 00:10 D+1
  t.clock.set(at(`${D1}T02:30:00Z`));
  await pay(await order(w.pdv.A1), { method: 'pix' });
  t.clock.set(at(`${D1}T03:10:00Z`));
  await pay(await order(w.pdv.A2), { method: 'cash' });
  t.clock.set(at(`${D1}T03:20:00Z`));
  await pay(partPaid, { method: 'pix' });
  // Shifts: 09:00, 09:40 and 10:00 D, 23:50 D, then 00:05 D+1 (local).
  t.clock.set(at(`${D}T12:00:00Z`));
  const first = await openShift(w.branchA, w.pdv.A1, w.staff);
  t.clock.set(at(`${D}T12:30:00Z`));
  const closed = await t.app.inject({
    method: 'POST',
    url: `/api/t/${w.slug}/admin/branches/${w.branchA}/shifts/${first}/close`,
    headers: await auth(w.admin),
    payload: { counted: { cash: 10000 } },
  });
  expect(closed.statusCode, closed.body).toBe(200);
  t.clock.set(at(`${D}T12:40:00Z`));
  await openShift(w.branchA, w.pdv.A1, w.staff);
  t.clock.set(at(`${D}T13:00:00Z`));
  await openShift(w.branchA, w.pdv.A2, w.staff);
  t.clock.set(at(`${D1}T02:50:00Z`));
  await openShift(w.branchB, w.pdv.B1, w.staff);
  t.clock.set(at(`${D1}T03:05:00Z`));
  await openShift(w.branchA, w.pdv.A3, w.admin);
  t.clock.set(at(`${D}T15:00:00Z`));
});

const zero = { revenue: 0, cash: 0, card: 0, pix: 0, other: 0, tips: 0, orders: 0, shifts: 0 };

describe('GET /api/t/:slug/admin/branches/:id/daily-report', () => {
  it('sums the orders paid in full on the local day, by PDV and payment method, with tips apart', async () => {
    const res = await get(`${base()}/${w.branchA}/daily-report?date=${D}`, await auth(w.admin));
    expect(res.statusCode, res.body).toBe(200);
    const report = res.json();
    expect(report).toEqual({
      date: D,
      totals: { revenue: 50000, cash: 10000, card: 15000, pix: 15000, other: 10000, tips: 1000, orders: 4, shifts: 3 },
      byPdv: [
        { pdvId: w.pdv.A1, pdvName: 'A1', revenue: 40000, cash: 10000, card: 15000, pix: 15000, other: 0, tips: 1000, orders: 3, shifts: 2 },
        { pdvId: w.pdv.A2, pdvName: 'A2', revenue: 10000, cash: 0, card: 0, pix: 0, other: 10000, tips: 0, orders: 1, shifts: 1 },
        { pdvId: w.pdv.A3, pdvName: 'A3', ...zero },
      ],
    });
    const { totals } = report;
    expect(totals.cash + totals.card + totals.pix + totals.other).toBe(totals.revenue);
  });

  it('counts an order paid at 23:30 local on its day, and one paid at 00:10 on the next (shifts likewise)', async () => {
    const next = (await get(`${base()}/${w.branchA}/daily-report?date=${D1}`, await auth(w.admin))).json();
    // #7, and #4 paid in full that day: its cash of the day before comes with it.
    expect(next.totals).toEqual({ ...zero, revenue: 20000, cash: 14000, pix: 6000, orders: 2, shifts: 1 });
    expect(next.byPdv.map((p: { pdvName: string; orders: number; shifts: number }) => [p.pdvName, p.orders, p.shifts])).toEqual([
      ['A1', 0, 0],
      ['A2', 2, 0],
      ['A3', 0, 1],
    ]);
    const before = (await get(`${base()}/${w.branchA}/daily-report?date=2030-03-13`, await auth(w.admin))).json();
    expect(before.totals).toEqual(zero);
  });

  it('defaults to today in the tenant time zone', async () => {
    t.clock.set(at(`${D1}T02:45:00Z`)); // still D in São Paulo
    try {
      const res = await get(`${base()}/${w.branchA}/daily-report`, await auth(w.admin));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ date: D, totals: { revenue: 50000, orders: 4 } });
      t.clock.set(at(`${D1}T03:15:00Z`));
      expect((await get(`${base()}/${w.branchA}/daily-report`, await auth(w.admin))).json()).toMatchObject({ date: D1, totals: { revenue: 20000, shifts: 1 } });
    } finally {
      t.clock.set(at(`${D}T15:00:00Z`));
    }
  });

  it('reports branch B apart', async () => {
    const res = await get(`${base()}/${w.branchB}/daily-report?date=${D}`, await auth(w.admin));
    expect(res.json()).toEqual({
      date: D,
      totals: { revenue: 30000, cash: 0, card: 30000, pix: 0, other: 0, tips: 2000, orders: 1, shifts: 1 },
      byPdv: [{ pdvId: w.pdv.B1, pdvName: 'B1', revenue: 30000, cash: 0, card: 30000, pix: 0, other: 0, tips: 2000, orders: 1, shifts: 1 }],
    });
  });

  it('refuses a date that is not YYYY-MM-DD or not a real day (400), an unknown branch (404)', async () => {
    const h = await auth(w.admin);
    for (const date of ['14-03-2030', '2030-3-14', '2030-02-30', 'today', '1999-12-31']) {
      const res = await get(`${base()}/${w.branchA}/daily-report?date=${date}`, h);
      expect(res.statusCode, date).toBe(400);
    }
    expect((await get(`${base()}/${'0'.repeat(24)}/daily-report?date=${D}`, h)).statusCode).toBe(404);
    expect((await get(`${base()}/not-an-id/daily-report?date=${D}`, h)).statusCode).toBe(400);
  });
});

describe('GET /api/t/:slug/admin/branches/compare', () => {
  it('gives each branch its money, orders and average ticket for the period', async () => {
    const res = await get(`${base()}/compare?from=${D}&to=${D1}`, await auth(w.admin));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      from: D,
      to: D1,
      totals: { revenue: 100000, cash: 24000, card: 45000, pix: 21000, other: 10000, tips: 3000, orders: 7, shifts: 5, averageTicket: 14286 },
      branches: [
        { branchId: w.branchA, branchName: 'Filial Centro', revenue: 70000, cash: 24000, card: 15000, pix: 21000, other: 10000, tips: 1000, orders: 6, shifts: 4, averageTicket: 11667 },
        { branchId: w.branchB, branchName: 'Filial Praia', revenue: 30000, cash: 0, card: 30000, pix: 0, other: 0, tips: 2000, orders: 1, shifts: 1, averageTicket: 30000 },
      ],
    });
    const oneDay = (await get(`${base()}/compare?from=${D}&to=${D}`, await auth(w.admin))).json();
    type Row = { revenue: number; orders: number; averageTicket: number; shifts: number };
    expect(oneDay.branches.map((b: Row) => [b.revenue, b.orders, b.averageTicket, b.shifts])).toEqual([
      [50000, 4, 12500, 3],
      [30000, 1, 30000, 1],
    ]);
    const quiet = (await get(`${base()}/compare?from=2030-01-01&to=2030-01-31`, await auth(w.admin))).json();
    expect(quiet.branches).toEqual([
      expect.objectContaining({ branchName: 'Filial Centro', ...zero, averageTicket: 0 }),
      expect.objectContaining({ branchName: 'Filial Praia', ...zero, averageTicket: 0 }),
    ]);
  });

  it('needs from <= to, at most 366 days, both real dates (400)', async () => {
    const h = await auth(w.admin);
    expect((await get(`${base()}/compare?from=2028-01-01&to=2028-12-31`, h)).statusCode).toBe(200); // 366 days
    for (const q of [`from=${D1}&to=${D}`, 'from=2028-01-01&to=2029-01-01', `from=${D}`, `to=${D}`, '', `from=2030-14-01&to=${D}`, `from=${D}&to=15/03/2030`]) {
      const res = await get(`${base()}/compare?${q}`, h);
      expect(res.statusCode, q).toBe(400);
    }
    const reversed = await get(`${base()}/compare?from=${D1}&to=${D}`, h);
    expect(reversed.json().message).toContain('querystring.to');
  });

  it('shows a branch manager only their branches', async () => {
    const res = await get(`${base()}/compare?from=${D}&to=${D1}`, await auth(w.manager));
    expect(res.statusCode).toBe(200);
    expect(res.json().branches.map((b: { branchId: string }) => b.branchId)).toEqual([w.branchA]);
    expect(res.json().totals).toMatchObject({ revenue: 70000, orders: 6 });
  });
});

describe('GET /api/t/:slug/admin/branches/:id/stats', () => {
  it('gives today by default, or a period, with the shifts open now, their distinct operators and low stock 0', async () => {
    const today = await get(`${base()}/${w.branchA}/stats`, await auth(w.admin));
    expect(today.statusCode, today.body).toBe(200);
    // Open at A: A1 and A2 (the staff member) and A3 (the admin); the one closed at 09:30 is not.
    expect(today.json()).toEqual({ from: D, to: D, totalRevenue: 50000, totalOrders: 4, activeShifts: 3, activeOperators: 2, lowStockItems: 0 });
    expect((await get(`${base()}/${w.branchB}/stats`, await auth(w.admin))).json()).toMatchObject({ activeShifts: 1, activeOperators: 1, totalRevenue: 30000 });
    const two = (await get(`${base()}/${w.branchA}/stats?from=${D}&to=${D1}`, await auth(w.admin))).json();
    expect(two).toMatchObject({ from: D, to: D1, totalRevenue: 70000, totalOrders: 6 });
    const sinceYesterday = (await get(`${base()}/${w.branchA}/stats?from=2030-03-13`, await auth(w.admin))).json();
    expect(sinceYesterday).toMatchObject({ from: '2030-03-13', to: D, totalRevenue: 50000 });
    expect((await get(`${base()}/${w.branchA}/stats?from=${D1}&to=${D}`, await auth(w.admin))).statusCode).toBe(400);
    expect((await get(`${base()}/${w.branchA}/stats?to=2030-3-1`, await auth(w.admin))).statusCode).toBe(400);
    expect((await get(`${base()}/${'0'.repeat(24)}/stats`, await auth(w.admin))).statusCode).toBe(404);
  });
});

describe('access', () => {
  const routes = () => [
    { url: `${base()}/${w.branchA}/daily-report?date=${D}`, money: true },
    { url: `${base()}/compare?from=${D}&to=${D}`, money: true },
    { url: `${base()}/${w.branchA}/stats`, money: false },
  ];

  it('needs a token (401), refuses staff (403), lets accountants read the money reports only', async () => {
    for (const r of routes()) {
      expect((await get(r.url)).statusCode, r.url).toBe(401);
      const staff = await get(r.url, await auth(w.staff));
      expect([staff.statusCode, staff.json().code], r.url).toEqual([403, 'role']);
      const accountant = await get(r.url, await auth(w.accountant));
      expect(accountant.statusCode, r.url).toBe(r.money ? 200 : 403);
      expect((await get(r.url, await auth(w.manager))).statusCode, r.url).toBe(200);
    }
  });

  it("keeps a branch manager to their branches (403 on another's)", async () => {
    const h = await auth(w.manager);
    for (const path of ['daily-report', 'stats']) {
      const res = await get(`${base()}/${w.branchB}/${path}`, h);
      expect([res.statusCode, res.json().code], path).toEqual([403, 'branch_scope']);
    }
  });

  it('lets a superadmin in', async () => {
    const sa = await makeSuperadmin(t.app);
    for (const r of routes()) expect((await get(r.url, await auth(sa))).statusCode, r.url).toBe(200);
  });

  it("answers another tenant's admin 404 through their slug and 403 through the owner's", async () => {
    const other = await makeTenantWithTeam(t.app);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: w.slug,
      outsider: { slug: other.slug, headers: await auth(other.admin) },
      requests: [
        { method: 'GET', path: `/api/t/:slug/admin/branches/${w.branchA}/daily-report?date=${D}` },
        { method: 'GET', path: `/api/t/:slug/admin/branches/${w.branchA}/stats` },
      ],
      snapshot: async () => (await get(`${base()}/compare?from=${D}&to=${D1}`, await auth(w.admin))).json(),
    });
    // The outsider's own comparison shows none of A's branches.
    const theirs = (await get(`/api/t/${other.slug}/admin/branches/compare?from=${D}&to=${D1}`, await auth(other.admin))).json();
    expect(theirs.branches).toEqual([]);
  });
});

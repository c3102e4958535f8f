import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, testConfig, type TestApp } from '../../../test/app.js';
import { login } from '../../../test/factories.js';
import { addDays, localDate } from '../../platform/time.js';
import { seedFirstStart } from '../../seed.js';
import { DEMO_SALES_DAYS } from './payments.demo.js';

/** The demo tenant's two branches and past week of sales, as the branch reports show them (issue 11). */
let t: TestApp;
let headers: { authorization: string };
let today: string;
const branch: Record<'hq' | 'vila', string> = { hq: '', vila: '' };

type Money = { revenue: number; cash: number; card: number; pix: number; other: number; tips: number; orders: number; shifts: number };

beforeAll(async () => {
  t = await createTestApp();
  const logins = await seedFirstStart(t.app.deps.tenantDb, t.app.services, testConfig({ seedDemo: true }), { DEMO_PASSWORD: 'demo-password-123' });
  const admin = logins.find((l) => l.who === 'demo admin')!;
  headers = { authorization: `Bearer ${(await login(t.app, admin.email, admin.password!)).json().accessToken}` };
  today = localDate(new Date(), 'America/Sao_Paulo');
  const { data } = (await t.app.inject({ url: '/api/t/demo/admin/branches', headers })).json();
  branch.hq = data.find((b: { slug: string }) => b.slug === 'matriz')._id;
  branch.vila = data.find((b: { slug: string }) => b.slug === 'vila-madalena')._id;
});
afterAll(() => t.close());

const get = async (url: string) => {
  const res = await t.app.inject({ url, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

/** Revenue with cash, card and PIX in it, and nothing that is not one of the methods. */
function expectSplitRevenue(m: Money) {
  expect(m.revenue).toBeGreaterThan(0);
  expect(m.cash).toBeGreaterThan(0);
  expect(m.card).toBeGreaterThan(0);
  expect(m.pix).toBeGreaterThan(0);
  expect(m.cash + m.card + m.pix + m.other).toBe(m.revenue);
}

describe('demo tenant: branches and past sales', () => {
  it('has a second branch in Vila Madalena with two PDVs, and no shift open now', async () => {
    const vila = await get(`/api/t/demo/admin/branches/${branch.vila}`);
    expect(vila).toMatchObject({ name: 'Filial Vila Madalena', isHQ: false, active: true, cnpj: '31.846.259/0002-62', city: 'São Paulo', state: 'SP' });
    for (const id of [branch.hq, branch.vila]) {
      const pdvs = await get(`/api/t/demo/admin/branches/${id}/pdvs`);
      expect(pdvs).toHaveLength(2);
      expect(pdvs.map((p: { activeShift: unknown }) => p.activeShift)).toEqual([null, null]);
    }
  });

  it('reports yesterday of both branches with revenue by cash, card and PIX, and the shifts of every PDV', async () => {
    const yesterday = addDays(today, -1);
    for (const id of [branch.hq, branch.vila]) {
      const report = await get(`/api/t/demo/admin/branches/${id}/daily-report?date=${yesterday}`);
      expectSplitRevenue(report.totals);
      expect(report.totals.shifts).toBe(2);
      for (const pdv of report.byPdv) expect(pdv).toMatchObject({ shifts: 1, orders: expect.any(Number) as number });
      expect(report.byPdv.every((p: Money) => p.revenue > 0)).toBe(true);
    }
  });

  it('compares the branches over the week, and their stats', async () => {
    const from = addDays(today, -DEMO_SALES_DAYS);
    const to = addDays(today, -1);
    const compare = await get(`/api/t/demo/admin/branches/compare?from=${from}&to=${to}`);
    expect(compare.branches.map((b: { branchId: string }) => b.branchId).sort()).toEqual([branch.hq, branch.vila].sort());
    for (const b of compare.branches) {
      expectSplitRevenue(b);
      expect(b.shifts).toBe(2 * DEMO_SALES_DAYS);
      expect(b.averageTicket).toBeGreaterThan(0);
    }
    expectSplitRevenue(compare.totals);
    expect(compare.totals.tips).toBeGreaterThan(0);

    const stats = await get(`/api/t/demo/admin/branches/${branch.vila}/stats?from=${from}&to=${to}`);
    const vila = compare.branches.find((b: { branchId: string }) => b.branchId === branch.vila);
    expect(stats).toMatchObject({ totalRevenue: vila.revenue, totalOrders: vila.orders, activeShifts: 0, activeOperators: 0 });
  });

  it('closed every shift with its count: one drawer short, the others even', async () => {
    const differences: number[] = [];
    for (const id of [branch.hq, branch.vila]) {
      const page = await get(`/api/t/demo/admin/branches/${id}/shifts?limit=100`);
      expect(page.total).toBe(2 * DEMO_SALES_DAYS);
      for (const s of page.data) {
        expect(s.status).toBe('closed');
        expect(s.startedAt < s.closedAt!).toBe(true);
        differences.push(s.totals.difference);
      }
    }
    expect(differences.filter((d) => d !== 0)).toEqual([-250]);
  });

  it('leaves today alone: no order of today or still open, nothing in today’s report', async () => {
    const orders = await t.app.inject({ url: '/t/demo/orders', headers });
    expect(orders.json()).toEqual([]);
    const report = await get(`/api/t/demo/admin/branches/${branch.hq}/daily-report`);
    expect(report.totals).toMatchObject({ revenue: 0, orders: 0, shifts: 0 });
    // The past orders are on their days, closed.
    const week = await t.app.inject({ url: `/t/demo/orders?from=${addDays(today, -DEMO_SALES_DAYS)}&to=${addDays(today, -1)}&limit=500`, headers });
    const all = week.json() as { status: string; paymentStatus: string; createdAt: string }[];
    expect(all.length).toBeGreaterThan(50);
    expect(new Set(all.map((o) => `${o.status}/${o.paymentStatus}`))).toEqual(new Set(['delivered/approved']));
  });
});

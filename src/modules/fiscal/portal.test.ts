import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { newId } from '../../db/ids.js';
import { fiscalDocuments, type FiscalStatus, type FiscalType } from '../../db/schema/fiscal.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
type Doc = {
  _id: string; tipo: string; status: string; nfeNumber: string; serie: string; total: number; xmlUrl: string | null; danfeUrl: string | null; tenant: string;
};
let serial = 0;

/** A fiscal document row as the documents part writes it; `at` is its emission (São Paulo time when given as a local date-time). */
type DocFields = { status?: FiscalStatus; tipo?: FiscalType; at: string; totalCents?: number; taxes?: Record<string, unknown>; orderId?: string };
async function doc(team: Team, fields: DocFields) {
  const id = newId();
  const n = ++serial;
  const at = new Date(fields.at);
  await t.app.deps.tenantDb(team.tenant._id).run((tx) =>
    tx.db.insert(fiscalDocuments).values({
      tenantId: team.tenant._id,
      id,
      orderId: fields.orderId ?? newId(),
      tipo: fields.tipo ?? 'nfce',
      model: fields.tipo === 'nfe' ? 55 : 65,
      series: 1,
      number: n,
      status: fields.status ?? 'authorized',
      nfeKey: String(n).padStart(44, '3'),
      providerRef: `ref-${id}`,
      totalCents: fields.totalCents ?? 10_000,
      taxes: fields.taxes ?? {},
      emittedAt: at,
      createdAt: at,
    }));
  return id;
}

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const ok = async <T>(url: string, headers: Record<string, string>): Promise<T> => {
  const res = await get(url, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as T;
};

describe('accountant portal', () => {
  let team: Team;
  let ids: Record<string, string>;
  let order: { _id: string; orderNumber: string; total: number };
  beforeAll(async () => {
    team = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 7450 });
    const placed = await t.app.inject({
      method: 'POST',
      url: `/t/${team.slug}/orders`,
      headers: team.admin.headers,
      payload: { orderType: 'takeout', paymentMethod: 'pix', customerName: 'Ana', items: [{ menuItem: dish._id, quantity: 1 }] },
    });
    expect(placed.statusCode, placed.body).toBe(201);
    order = placed.json() as typeof order;
    const orderA = order._id;
    ids = {
      // March 2026 (São Paulo, UTC-3): the 1st at 00:30 local is 03:30 UTC; the 31st at 23:30 local is April 1st 02:30 UTC.
      first: await doc(team, { at: '2026-03-01T03:30:00Z', totalCents: 10_000, orderId: orderA,
        taxes: { icmsCents: 1_800, pisCents: 165, cofinsCents: 760, payments: [{ tPag: '17', amountCents: 6_000 }, { tPag: '01', amountCents: 4_000 }] } }),
      nfe: await doc(team, { at: '2026-03-10T15:00:00Z', tipo: 'nfe', totalCents: 25_000, taxes: { icmsCents: 4_500, payments: [{ tPag: '03', amountCents: 25_000 }] } }),
      cancelled: await doc(team, { at: '2026-03-12T15:00:00Z', status: 'cancelled', totalCents: 7_000 }),
      rejected: await doc(team, { at: '2026-03-15T15:00:00Z', status: 'rejected', totalCents: 3_000 }),
      pending: await doc(team, { at: '2026-03-20T15:00:00Z', tipo: 'nfe', status: 'pending', totalCents: 2_000 }),
      last: await doc(team, { at: '2026-04-01T02:30:00Z', tipo: 'nfe', totalCents: 5_000, orderId: orderA }),
      // Outside March, both sides.
      feb: await doc(team, { at: '2026-03-01T02:59:00Z', totalCents: 99_900 }),
      apr: await doc(team, { at: '2026-04-01T03:00:00Z', totalCents: 88_800 }),
    };
  });

  it('GET /dashboard counts the month’s documents (the tenant’s time zone) by status and type', async () => {
    const march = await ok<Record<string, unknown>>(`/t/${team.slug}/accountant/dashboard?year=2026&month=3`, team.accountant.headers);
    expect(march).toEqual({ year: 2026, month: 3, authorized: 3, rejected: 1, pending: 1, cancelled: 1, byType: { nfe: 3, nfce: 3, nfse: 0 } });
    expect(await ok(`/t/${team.slug}/accountant/dashboard?year=2026&month=1`, team.admin.headers))
      .toEqual({ year: 2026, month: 1, authorized: 0, rejected: 0, pending: 0, cancelled: 0, byType: { nfe: 0, nfce: 0, nfse: 0 } });
    // Without year and month: the current month on the tenant's clock.
    t.clock.set(new Date('2026-04-15T12:00:00Z'));
    expect(await ok(`/t/${team.slug}/accountant/dashboard`, team.accountant.headers)).toMatchObject({ year: 2026, month: 4, authorized: 1 });
    t.clock.set(new Date());
  });

  it('GET /documents pages the documents newest first with their total, filtered by status and days', async () => {
    const all = await ok<{ data: Doc[]; total: number }>(`/t/${team.slug}/accountant/documents`, team.accountant.headers);
    expect(all.total).toBe(8);
    expect(all.data.map((d) => d._id)).toEqual([ids.apr, ids.last, ids.pending, ids.rejected, ids.cancelled, ids.nfe, ids.first, ids.feb]);
    const nfe = all.data.find((d) => d._id === ids.nfe)!;
    expect(nfe).toMatchObject({ tipo: 'nfe', status: 'authorized', serie: '1', total: 25_000, tenant: team.tenant._id,
      xmlUrl: `/t/${team.slug}/fiscal/${ids.nfe}/xml`, danfeUrl: `/t/${team.slug}/fiscal/${ids.nfe}/danfe` });
    expect(typeof nfe.nfeNumber).toBe('string');
    expect(all.data.find((d) => d._id === ids.rejected)).toMatchObject({ xmlUrl: null, danfeUrl: null });

    const page2 = await ok<{ data: Doc[]; total: number }>(`/t/${team.slug}/accountant/documents?page=2&limit=3`, team.admin.headers);
    expect(page2).toMatchObject({ total: 8 });
    expect(page2.data.map((d) => d._id)).toEqual([ids.rejected, ids.cancelled, ids.nfe]);

    const march = await ok<{ data: Doc[]; total: number }>(`/t/${team.slug}/accountant/documents?startDate=2026-03-01&endDate=2026-03-31`, team.accountant.headers);
    expect(march.total).toBe(6);
    expect(march.data.map((d) => d._id)).not.toContain(ids.feb);
    const authorized = await ok<{ data: Doc[]; total: number }>(
      `/t/${team.slug}/accountant/documents?status=authorized&startDate=2026-03-01&endDate=2026-03-31`, team.accountant.headers);
    expect(authorized.data.map((d) => d._id)).toEqual([ids.last, ids.nfe, ids.first]);
    expect(await ok(`/t/${team.slug}/accountant/documents?startDate=2030-01-01`, team.accountant.headers)).toEqual({ data: [], total: 0 });
  });

  it('GET /documents/:id answers one document; an unknown id is 404', async () => {
    const first = await ok<Doc & { order: unknown }>(`/t/${team.slug}/accountant/documents/${ids.first}`, team.accountant.headers);
    expect(first.order).toEqual({ _id: order._id, orderNumber: order.orderNumber, total: order.total, customerName: 'Ana' });
    const one = await ok<Doc & { order: unknown }>(`/t/${team.slug}/accountant/documents/${ids.cancelled}`, team.accountant.headers);
    expect(one.order).toBeNull();
    expect(one).toMatchObject({ _id: ids.cancelled, status: 'cancelled', total: 7_000, xmlUrl: `/t/${team.slug}/fiscal/${ids.cancelled}/xml` });
    expect((await get(`/t/${team.slug}/accountant/documents/${newId()}`, team.accountant.headers)).statusCode).toBe(404);
  });

  it('GET /split-payment sums the period’s authorised documents: taxes due and CBS 0.9% + IBS 0.1% withheld at settlement', async () => {
    const s = await ok<Record<string, unknown>>(`/t/${team.slug}/accountant/split-payment?startDate=2026-03-01&endDate=2026-03-31`, team.accountant.headers);
    // first 10000 + nfe 25000 + last 5000 (the NF-e of the first's order): cancelled, rejected, pending and the other months left out.
    expect(s).toEqual({
      periodo: { inicio: '2026-03-01', fim: '2026-03-31' },
      orderCount: 2,
      totalRevenue: 40_000,
      totalTax: 1_800 + 165 + 760 + 4_500,
      totalNet: 40_000 - 7_225,
      splitPaymentImpact: 360 + 40,
      taxBreakdown: { icms: 6_300, pis: 165, cofins: 760, cbs: 360, ibs: 40, rates: { cbs: 0.009, ibs: 0.001 }, compensable: true },
    });
    const empty = await ok<Record<string, unknown>>(`/t/${team.slug}/accountant/split-payment?startDate=2025-01-01&endDate=2025-01-31`, team.admin.headers);
    expect(empty).toMatchObject({ orderCount: 0, totalRevenue: 0, totalTax: 0, totalNet: 0, splitPaymentImpact: 0 });
  });

  it('GET /dere: gross revenue of the accepted documents, cancellations and taxes deducted, by type and payment', async () => {
    const d = await ok<Record<string, unknown>>(`/t/${team.slug}/accountant/dere?startDate=2026-03-01&endDate=2026-03-31`, team.accountant.headers);
    expect(d).toEqual({
      periodo: { inicio: '2026-03-01', fim: '2026-03-31' },
      receitaBruta: 47_000,
      deducoes: { cancelamentos: 7_000, impostos: 7_225, total: 14_225 },
      receitaLiquida: 47_000 - 14_225,
      orderCount: 2,
      byType: { nfe: 30_000, nfce: 10_000 },
      byPayment: { pix: 15_000, nao_informado: 25_000 },
    });
  });

  it('400: bad dates, an end before the start, a period over 366 days, bad paging and month; nothing changes', async () => {
    const bad = [
      'dashboard?month=13', 'dashboard?month=0', 'dashboard?year=1999', 'dashboard?year=abc',
      'documents?page=0', 'documents?limit=101', 'documents?status=paid', 'documents?startDate=2026-02-30', 'documents?startDate=2026-03-10&endDate=2026-03-01',
      'split-payment', 'split-payment?startDate=2026-03-01', 'split-payment?startDate=2026-03-01&endDate=2026-02-28', 'split-payment?startDate=2025-01-01&endDate=2026-01-02',
      'dere?endDate=2026-03-01', 'dere?startDate=03/01/2026&endDate=2026-03-31', 'dere?startDate=2026-03-31&endDate=2026-03-01',
    ];
    for (const path of bad) {
      const res = await get(`/t/${team.slug}/accountant/${path}`, team.accountant.headers);
      expect(res.statusCode, path).toBe(400);
      expect(res.json().message, path).toMatch(/querystring/);
    }
    expect((await get(`/t/${team.slug}/accountant/documents/not-an-id`, team.accountant.headers)).statusCode).toBe(400);
    expect((await ok<{ total: number }>(`/t/${team.slug}/accountant/documents`, team.accountant.headers)).total).toBe(8);
  });

  it('401 without a token, 403 to staff; admin, accountant and superadmin read', async () => {
    const paths = ['dashboard', 'documents', `documents/${ids.first}`, 'split-payment?startDate=2026-03-01&endDate=2026-03-31', 'dere?startDate=2026-03-01&endDate=2026-03-31'];
    const sa = await makeSuperadmin(t.app);
    for (const path of paths) {
      const url = `/t/${team.slug}/accountant/${path}`;
      expect((await get(url)).statusCode, path).toBe(401);
      expect((await get(url, team.staff.headers)).statusCode, path).toBe(403);
      for (const who of [team.admin, team.accountant, sa]) expect((await get(url, who.headers)).statusCode, path).toBe(200);
    }
  });

  it('another tenant’s document is 404 through its own slug, 403 through the owner’s; its summaries count nothing of ours', async () => {
    const other = await makeTenantWithTeam(t.app);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: team.slug,
      outsider: { slug: other.slug, headers: other.accountant.headers },
      requests: [{ method: 'GET', path: `/t/:slug/accountant/documents/${ids.first}` }],
      snapshot: () => ok(`/t/${team.slug}/accountant/documents`, team.accountant.headers),
    });
    expect(await ok(`/t/${other.slug}/accountant/documents`, other.accountant.headers)).toEqual({ data: [], total: 0 });
    expect(await ok(`/t/${other.slug}/accountant/dere?startDate=2026-03-01&endDate=2026-03-31`, other.admin.headers)).toMatchObject({ receitaBruta: 0, byPayment: {} });
  });
});

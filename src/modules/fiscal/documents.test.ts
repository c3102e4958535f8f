import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { isValidAccessKey } from './access-key.js';
import { fiscalJobs } from './fiscal.jobs.js';

/**
 * Fiscal emission over HTTP (spec 4.9) against the in-process provider simulator: NFC-e authorised at once,
 * NF-e pending then authorised by the queue, rejection (422 with errorDetails, the number voided), provider
 * down (503) then retried, gapless numbering under concurrent emissions, cancel within and after the deadline,
 * the stored XML and DANFE behind xmlUrl / danfeUrl, guards and tenant isolation.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: H, payload?: object) =>
  t.app.inject({ method, url, headers, payload: payload as never });
const sim = () => t.app.integrations.fiscal.simulator!;
const drain = () => t.app.jobs.drain({ names: [fiscalJobs.advance], includeDelayed: true });

const CNPJ = '11222333000181';
const CPF = '52998224725';

/** A tenant set up for fiscal documents (CNPJ, token, SP), with a menu item carrying fiscal data. */
async function fiscalTenant(opts: { configure?: boolean } = {}) {
  const team = await makeTenantWithTeam(t.app);
  if (opts.configure !== false) {
    const res = await call('PUT', `/t/${team.slug}/tenants`, team.admin.headers, {
      cnpj: CNPJ,
      fiscalProviderToken: `token-${team.slug}`,
      state: 'SP',
      regimeTributario: 'simples_nacional',
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 7450 });
  const soda = await makeMenuItem(t.app, team.tenant, { name: 'Refrigerante lata', price: 600 });
  return { ...team, dish, soda };
}

type Team = Awaited<ReturnType<typeof fiscalTenant>>;

async function order(team: Team, opts: { pay?: boolean; pdv?: string } = {}) {
  const res = await call('POST', `/t/${team.slug}/orders`, team.admin.headers, {
    orderType: 'takeout',
    ...(opts.pdv ? { pdv: opts.pdv } : {}),
    items: [
      { menuItem: team.dish._id, quantity: 2 },
      { menuItem: team.soda._id, quantity: 3 },
    ],
  });
  expect(res.statusCode, res.body).toBe(201);
  const o = res.json() as { _id: string; orderNumber: string; total: number };
  if (opts.pay !== false) {
    const paid = await call('POST', `/t/${team.slug}/orders/${o._id}/process-payment`, team.admin.headers, { method: 'cash', gateway: 'mock' });
    expect(paid.statusCode, paid.body).toBeLessThan(300);
  }
  return o;
}

/** The admin's headers with a token signed now (the controlled clock moved past the old one's expiry). */
const freshAdmin = async (team: Team) => ({ authorization: `Bearer ${await t.app.deps.jwt.sign(team.admin.id)}` });

const emit = (team: Team, body: object, headers: H = team.admin.headers) => call('POST', `/t/${team.slug}/fiscal/emit`, headers, body);

describe('emission', () => {
  it('authorises an NFC-e at once: key, number, series, stored XML and DANFE, the order populated', async () => {
    const team = await fiscalTenant();
    const o = await order(team);
    const res = await emit(team, { orderId: o._id, tipo: 'nfce', customerCpf: CPF });
    expect(res.statusCode, res.body).toBe(201);
    const doc = res.json();
    expect(doc).toMatchObject({
      tipo: 'nfce',
      status: 'authorized',
      model: 65,
      nfeNumber: '1',
      serie: '1',
      customerCpf: CPF,
      total: 7450 * 2 + 600 * 3,
      order: { _id: o._id, orderNumber: o.orderNumber, total: o.total },
      xmlUrl: `/t/${team.slug}/fiscal/${doc._id}/xml`,
      danfeUrl: `/t/${team.slug}/fiscal/${doc._id}/danfe`,
      errorDetails: null,
    });
    expect(isValidAccessKey(doc.nfeKey)).toBe(true);
    expect(doc.nfeKey.slice(0, 2)).toBe('35');
    expect(doc.nfeKey.slice(6, 20)).toBe(CNPJ);
    expect(doc.nfeKey.slice(20, 22)).toBe('65');
    expect(doc.protocol).toMatch(/^\d{15}$/);

    const xml = await call('GET', doc.xmlUrl, team.accountant.headers);
    expect(xml.statusCode).toBe(200);
    expect(xml.headers['content-type']).toContain('application/xml');
    expect(xml.body).toContain(`<chNFe>${doc.nfeKey}</chNFe>`);
    expect(xml.body).toContain('<NCM>21069090</NCM>');
    expect(xml.body).toContain('<CFOP>5102</CFOP>');
    expect(xml.body).toContain('<CSOSN>102</CSOSN>');
    expect(xml.body).toContain(`<CPF>${CPF}</CPF>`);
    const pdf = await call('GET', doc.danfeUrl, team.admin.headers);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toContain('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await call('GET', doc.xmlUrl, team.staff.headers)).statusCode).toBe(403);
  });

  it('uses the menu item’s NCM, CFOP and CSOSN when set', async () => {
    const team = await fiscalTenant();
    const put = (body: object) => call('PUT', `/t/${team.slug}/menu/items/${team.soda._id}`, team.admin.headers, body);
    for (const bad of [{ ncm: '2202100' }, { ncm: '2202.10.00' }, { cfop: '1102' }, { cfop: '540' }, { cest: '123' }, { taxCode: '5' }]) {
      expect((await put(bad)).statusCode, JSON.stringify(bad)).toBe(400);
    }
    const updated = await put({ ncm: '22021000', cfop: '5405', cest: '0300700', taxCode: '500' });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ ncm: '22021000', cfop: '5405', cest: '0300700', taxCode: '500' });
    const admin = (await call('GET', `/t/${team.slug}/admin/menu/items`, team.admin.headers)).json();
    expect(admin.find((i: { _id: string }) => i._id === team.soda._id)).toMatchObject({ ncm: '22021000', taxCode: '500' });
    expect(admin.find((i: { _id: string }) => i._id === team.dish._id)).toMatchObject({ ncm: null, cfop: null, cest: null, taxCode: null });
    const publicItem = (await call('GET', `/t/${team.slug}/menu/items/${team.soda._id}`, {})).json();
    expect(publicItem.name).toBe('Refrigerante lata');
    expect(publicItem).not.toHaveProperty('ncm');
    expect(publicItem).not.toHaveProperty('taxCode');
    const o = await order(team);
    const res = await emit(team, { orderId: o._id, tipo: 'nfce' });
    expect(res.statusCode, res.body).toBe(201);
    const xml = await call('GET', res.json().xmlUrl, team.admin.headers);
    expect(xml.body).toContain('<NCM>22021000</NCM><CEST>0300700</CEST><CFOP>5405</CFOP>');
    expect(xml.body).toContain('<ICMSSN500><orig>0</orig><CSOSN>500</CSOSN></ICMSSN500>');
  });

  it('a bill with a discount, service charge and cover charge adds up: vNF is the order’s total', async () => {
    const team = await fiscalTenant();
    expect((await call('PUT', `/t/${team.slug}/tenants`, team.admin.headers, { serviceChargePercent: 10, coverCharge: 800 })).statusCode).toBe(200);
    const created = await call('POST', `/t/${team.slug}/orders`, team.admin.headers, {
      orderType: 'dine_in',
      covers: 2,
      items: [
        { menuItem: team.dish._id, quantity: 2 },
        { menuItem: team.soda._id, quantity: 1 },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json()._id;
    const disc = await call('PUT', `/t/${team.slug}/orders/${id}/discount`, team.admin.headers, { line: 0, kind: 'percent', value: 10, reason: 'cliente fiel' });
    expect(disc.statusCode, disc.body).toBe(200);
    const bill = disc.json();
    expect(bill.discountTotal).toBeGreaterThan(0);
    expect(bill.serviceCharge).toBeGreaterThan(0);
    const paid = await call('POST', `/t/${team.slug}/orders/${id}/process-payment`, team.admin.headers, { method: 'pix', gateway: 'mock' });
    expect(paid.statusCode, paid.body).toBeLessThan(300);
    const res = await emit(team, { orderId: id, tipo: 'nfce' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'authorized', total: bill.total });
    const xml = (await call('GET', res.json().xmlUrl, team.admin.headers)).body;
    const money = (tag: string) => Math.round(Number(new RegExp(`<ICMSTot>.*<${tag}>([0-9.]+)</${tag}>`).exec(xml)![1]) * 100);
    expect(money('vNF')).toBe(bill.total);
    expect(money('vDesc')).toBe(bill.discountTotal);
    expect(money('vOutro')).toBe(bill.serviceCharge + bill.coverCharge);
    expect(money('vProd')).toBe(7450 * 2 + 600);
  });

  it('answers an NF-e pending; the queue completes it', async () => {
    const team = await fiscalTenant();
    const o = await order(team);
    const res = await emit(team, { orderId: o._id, tipo: 'nfe', customerCpf: CPF });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'pending', model: 55, xmlUrl: null, danfeUrl: null });
    const stats = (await call('GET', `/t/${team.slug}/fiscal/queue/stats`, team.admin.headers)).json();
    expect(stats.waiting).toBeGreaterThanOrEqual(1);
    await drain();
    const list = (await call('GET', `/t/${team.slug}/fiscal?status=authorized`, team.admin.headers)).json();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ _id: res.json()._id, status: 'authorized', tipo: 'nfe' });
    const after = (await call('GET', `/t/${team.slug}/fiscal/queue/stats`, team.admin.headers)).json();
    expect(after.completed).toBeGreaterThan(stats.completed);
  });

  it('rejects an invalid CPF with the authority’s reasons (422), voids the number, and a new emission takes the next number', async () => {
    const team = await fiscalTenant();
    const o = await order(team);
    const res = await emit(team, { orderId: o._id, tipo: 'nfce', customerCpf: '52998224700' });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ code: 'fiscal_rejected', errorDetails: { errors: [{ code: '237', field: 'dest/CPF' }] }, document: { status: 'rejected', nfeNumber: '1' } });
    expect(sim().voids().filter((v) => v.token === `token-${team.slug}`)).toMatchObject([{ from: 1, to: 1, series: 1, cnpj: CNPJ }]);
    const again = await emit(team, { orderId: o._id, tipo: 'nfce', customerCpf: CPF });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ status: 'authorized', nfeNumber: '2' });
    const rejected = (await call('GET', `/t/${team.slug}/fiscal?status=rejected`, team.admin.headers)).json();
    expect(rejected).toHaveLength(1);
    expect(rejected[0].errorDetails.errors[0].code).toBe('237');
  });

  it('answers 503 while the provider is down; emitting again retries the same document', async () => {
    const team = await fiscalTenant();
    const o = await order(team);
    sim().setAvailable(false);
    try {
      const res = await emit(team, { orderId: o._id, tipo: 'nfce' });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().code).toBe('fiscal_provider_unavailable');
      const pending = (await call('GET', `/t/${team.slug}/fiscal?status=pending`, team.admin.headers)).json();
      expect(pending).toMatchObject([{ status: 'pending', nfeNumber: '1', attempts: 1 }]);
    } finally {
      sim().setAvailable(true);
    }
    const retry = await emit(team, { orderId: o._id, tipo: 'nfce' });
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.json()).toMatchObject({ status: 'authorized', nfeNumber: '1', attempts: 2 });
    expect((await call('GET', `/t/${team.slug}/fiscal`, team.admin.headers)).json()).toHaveLength(1);
  });

  it('the queue retries a document the provider could not take', async () => {
    const team = await fiscalTenant();
    const o = await order(team);
    sim().setAvailable(false);
    try {
      expect((await emit(team, { orderId: o._id, tipo: 'nfce' })).statusCode).toBe(503);
    } finally {
      sim().setAvailable(true);
    }
    await drain();
    expect((await call('GET', `/t/${team.slug}/fiscal`, team.admin.headers)).json()).toMatchObject([{ status: 'authorized' }]);
  });

  it('one active document per order and type (409); the other type is allowed', async () => {
    const team = await fiscalTenant();
    const o = await order(team);
    expect((await emit(team, { orderId: o._id, tipo: 'nfce' })).statusCode).toBe(201);
    const second = await emit(team, { orderId: o._id, tipo: 'nfce' });
    expect(second.statusCode).toBe(409);
    expect(second.json().code).toBe('fiscal_document_exists');
    expect((await emit(team, { orderId: o._id, tipo: 'nfe', customerCpf: CPF })).statusCode).toBe(201);
  });

  it('numbers without gaps under concurrent emissions, per branch', async () => {
    const team = await fiscalTenant();
    const pdv = await makePdv(t.app, team.tenant);
    const orders = [];
    for (let i = 0; i < 5; i++) orders.push(await order(team, { pdv: pdv.pdvId }));
    const other = await order(team);
    const results = await Promise.all(orders.map((o) => emit(team, { orderId: o._id, tipo: 'nfce' })));
    expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(results.map((r) => Number(r.json().nfeNumber)).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(results.every((r) => r.json().branch === pdv.branchId)).toBe(true);
    const own = await emit(team, { orderId: other._id, tipo: 'nfce' });
    expect(own.json()).toMatchObject({ nfeNumber: '1', branch: null });
  });

  it('400: unknown order, unpaid order, tenant without CNPJ or token, bad body', async () => {
    const team = await fiscalTenant();
    const unpaid = await order(team, { pay: false });
    const missing = await emit(team, { orderId: 'a'.repeat(24), tipo: 'nfce' });
    expect([missing.statusCode, missing.json().code]).toEqual([400, 'order_not_found']);
    const notPaid = await emit(team, { orderId: unpaid._id, tipo: 'nfce' });
    expect([notPaid.statusCode, notPaid.json().code]).toEqual([400, 'order_not_paid']);
    expect((await emit(team, { orderId: unpaid._id, tipo: 'nfse' })).statusCode).toBe(400);
    expect((await emit(team, { orderId: unpaid._id, tipo: 'nfce', customerCpf: '529.982.247-25' })).statusCode).toBe(400);
    expect((await emit(team, { tipo: 'nfce' })).statusCode).toBe(400);

    const bare = await fiscalTenant({ configure: false });
    const o = await order(bare);
    const res = await emit(bare, { orderId: o._id, tipo: 'nfce' });
    expect([res.statusCode, res.json().code]).toEqual([400, 'fiscal_not_configured']);
    expect(res.json().message).toContain('cnpj, fiscalProviderToken');
    expect((await call('GET', `/t/${bare.slug}/fiscal`, bare.admin.headers)).json()).toEqual([]);
  });
});

describe('cancel', () => {
  it('cancels an authorised NFC-e within 30 minutes; after it the authority refuses (422)', async () => {
    const team = await fiscalTenant();
    const [a, b] = [await order(team), await order(team)];
    const docA = (await emit(team, { orderId: a._id, tipo: 'nfce' })).json();
    const docB = (await emit(team, { orderId: b._id, tipo: 'nfce' })).json();
    t.clock.advance(29 * 60_000);
    const ok = await call('DELETE', `/t/${team.slug}/fiscal/${docA._id}/cancel`, await freshAdmin(team));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ _id: docA._id, status: 'cancelled' });
    t.clock.advance(2 * 60_000);
    const late = await call('DELETE', `/t/${team.slug}/fiscal/${docB._id}/cancel`, await freshAdmin(team));
    expect(late.statusCode, late.body).toBe(422);
    expect(late.json().code).toBe('cancel_deadline_expired');
    const admin = await freshAdmin(team);
    const again = await call('DELETE', `/t/${team.slug}/fiscal/${docA._id}/cancel`, admin);
    expect([again.statusCode, again.json().code]).toEqual([400, 'fiscal_not_authorized']);
    const list = (await call('GET', `/t/${team.slug}/fiscal`, admin)).json();
    expect(list.find((d: { _id: string }) => d._id === docA._id).status).toBe('cancelled');
    expect(list.find((d: { _id: string }) => d._id === docB._id).status).toBe('authorized');
    // The cancelled document's files stay readable.
    expect((await call('GET', `/t/${team.slug}/fiscal/${docA._id}/xml`, admin)).statusCode).toBe(200);
  });

  it('an NF-e may be cancelled within 24 hours, not after', async () => {
    const team = await fiscalTenant();
    const [a, b] = [await order(team), await order(team)];
    const docA = (await emit(team, { orderId: a._id, tipo: 'nfe', customerCpf: CPF })).json();
    const docB = (await emit(team, { orderId: b._id, tipo: 'nfe', customerCpf: CPF })).json();
    await drain();
    t.clock.advance(23 * 3_600_000);
    expect((await call('DELETE', `/t/${team.slug}/fiscal/${docA._id}/cancel`, await freshAdmin(team))).statusCode).toBe(200);
    t.clock.advance(2 * 3_600_000);
    expect((await call('DELETE', `/t/${team.slug}/fiscal/${docB._id}/cancel`, await freshAdmin(team))).statusCode).toBe(422);
  });

  it('400 for a pending document', async () => {
    const team = await fiscalTenant();
    const o = await order(team);
    const doc = (await emit(team, { orderId: o._id, tipo: 'nfe', customerCpf: CPF })).json();
    const res = await call('DELETE', `/t/${team.slug}/fiscal/${doc._id}/cancel`, team.admin.headers);
    expect([res.statusCode, res.json().code]).toEqual([400, 'fiscal_not_authorized']);
    await drain();
  });
});

describe('list, guards and isolation', () => {
  it('paginates newest first and filters by status', async () => {
    const team = await fiscalTenant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const o = await order(team);
      ids.push((await emit(team, { orderId: o._id, tipo: 'nfce' })).json()._id);
      t.clock.advance(1000);
    }
    const page1 = (await call('GET', `/t/${team.slug}/fiscal?page=1&limit=2`, team.admin.headers)).json();
    const page2 = (await call('GET', `/t/${team.slug}/fiscal?page=2&limit=2`, team.admin.headers)).json();
    expect([...page1, ...page2].map((d: { _id: string }) => d._id)).toEqual([...ids].reverse());
    expect((await call('GET', `/t/${team.slug}/fiscal?status=rejected`, team.admin.headers)).json()).toEqual([]);
    expect((await call('GET', `/t/${team.slug}/fiscal?status=nope`, team.admin.headers)).statusCode).toBe(400);
    expect((await call('GET', `/t/${team.slug}/fiscal?limit=0`, team.admin.headers)).statusCode).toBe(400);
  });

  it('admin only (superadmin passes); the files also to the accountant; 401 without a token', async () => {
    const team = await fiscalTenant();
    const o = await order(team);
    const doc = (await emit(team, { orderId: o._id, tipo: 'nfce' })).json();
    const routes: ['GET' | 'POST' | 'DELETE', string, object?][] = [
      ['POST', `/t/${team.slug}/fiscal/emit`, { orderId: o._id, tipo: 'nfe' }],
      ['GET', `/t/${team.slug}/fiscal`],
      ['GET', `/t/${team.slug}/fiscal/queue/stats`],
      ['DELETE', `/t/${team.slug}/fiscal/${doc._id}/cancel`],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, team.staff.headers, body)).statusCode, `${method} ${url} staff`).toBe(403);
      expect((await call(method, url, team.accountant.headers, body)).statusCode, `${method} ${url} accountant`).toBe(403);
    }
    for (const kind of ['xml', 'danfe']) {
      const url = `/t/${team.slug}/fiscal/${doc._id}/${kind}`;
      expect((await call('GET', url, {})).statusCode).toBe(401);
      expect((await call('GET', url, team.staff.headers)).statusCode).toBe(403);
      expect((await call('GET', url, team.accountant.headers)).statusCode).toBe(200);
      expect((await call('GET', `/t/${team.slug}/fiscal/${'b'.repeat(24)}/${kind}`, team.admin.headers)).statusCode).toBe(404);
      expect((await call('GET', `/t/${team.slug}/fiscal/nope/${kind}`, team.admin.headers)).statusCode).toBe(400);
    }
    expect((await call('DELETE', `/t/${team.slug}/fiscal/${'b'.repeat(24)}/cancel`, team.admin.headers)).statusCode).toBe(404);
    const { makeLinkedSuperadmin } = await import('../../../test/factories.js');
    const sa = await makeLinkedSuperadmin(t.app, team.tenant);
    expect((await call('GET', `/t/${team.slug}/fiscal`, sa.headers)).statusCode).toBe(200);
  });

  it('another tenant’s documents are a 404 through its own slug and a 403 through theirs', async () => {
    const owner = await fiscalTenant();
    const outsider = await fiscalTenant();
    const o = await order(owner);
    const doc = (await emit(owner, { orderId: o._id, tipo: 'nfce' })).json();
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'DELETE', path: `/t/:slug/fiscal/${doc._id}/cancel` },
        { method: 'GET', path: `/t/:slug/fiscal/${doc._id}/xml` },
        { method: 'GET', path: `/t/:slug/fiscal/${doc._id}/danfe` },
      ],
      snapshot: async () => (await call('GET', `/t/${owner.slug}/fiscal`, owner.admin.headers)).json(),
    });
    // Emitting for another tenant's order: the order is not found (spec 7: 400).
    const res = await emit(outsider, { orderId: o._id, tipo: 'nfce' });
    expect([res.statusCode, res.json().code]).toEqual([400, 'order_not_found']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { wallet, WALLET_SIM_ACCOUNT } from '../../integrations/wallet/index.js';
import { silentLogger } from '../../integrations/http.js';
import { systemClock } from '../../platform/clock.js';
import { makePdv, makeScopedTeam, makeTable, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MISSING = 'ffffffffffffffffffffffff';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers });

describe('GET /t/:slug/storefront', () => {
  it('answers the tenant, the PDV and the table asked for, with a short public cache and no secret', async () => {
    const { tenant, slug } = await makeTenantWithTeam(t.app, { name: 'Bar do Zé' });
    await t.app.services.tenants.update(tenant._id, {
      primaryColor: '#aa3300',
      walletPublicKey: 'TEST-public-key',
      walletAccessToken: 'secret-access-token-123',
      serviceChargePercent: 10,
    });
    const pdv = await makePdv(t.app, tenant);
    const table = await makeTable(t.app, tenant, { number: 7 });

    const res = await get(`/t/${slug}/storefront?pdv=${pdv.slug}&table=7`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.json()).toEqual({
      tenant: { slug, name: 'Bar do Zé', primaryColor: '#aa3300', businessType: 'restaurant', kitchenEnabled: true, timezone: 'America/Sao_Paulo' },
      pdv: { id: pdv.pdvId, slug: pdv.slug, name: expect.stringContaining('Caixa') },
      table: { id: table._id, number: 7 },
      walletPublicKey: 'TEST-public-key',
      walletTokenUrl: '/__sim/wallet/v1/card_tokens',
      serviceChargePercent: 10,
    });
    expect(res.body).not.toContain('secret-access-token-123');

    // The PDV by id too; its own service charge wins; no table query, or an unknown number: null.
    await t.app.services.branches.updatePdv(t.app.deps.tenantDb(tenant._id), pdv.branchId, pdv.pdvId, { serviceChargePercent: 12.5 });
    const byId = (await get(`/t/${slug}/storefront?pdv=${pdv.pdvId}`)).json();
    expect(byId).toMatchObject({ pdv: { id: pdv.pdvId }, table: null, serviceChargePercent: 12.5 });
    expect((await get(`/t/${slug}/storefront?table=99`)).json()).toMatchObject({ pdv: null, table: null });
  });

  it('a tenant without tables or a kitchen (mercado): kitchenEnabled false, no table, no service charge', async () => {
    const { slug } = await makeTenantWithTeam(t.app, { businessType: 'mercado' });
    const body = (await get(`/t/${slug}/storefront?table=1`)).json();
    expect(body).toMatchObject({
      tenant: { businessType: 'mercado', kitchenEnabled: false, primaryColor: null },
      table: null,
      walletPublicKey: null,
      walletTokenUrl: null,
      serviceChargePercent: null,
    });
  });

  it('walletTokenUrl is where a browser makes a card token with the public key (the in-process simulator, same origin)', async () => {
    const { tenant, slug } = await makeTenantWithTeam(t.app);
    await t.app.services.tenants.update(tenant._id, { walletPublicKey: WALLET_SIM_ACCOUNT.publicKey });
    const { walletTokenUrl, walletPublicKey } = (await get(`/t/${slug}/storefront`)).json();
    const card = { card_number: '5031 4332 1540 6351', security_code: '123', expiration_month: 11, expiration_year: 2099, cardholder: { name: 'APRO' } };
    const res = await t.app.inject({ method: 'POST', url: `${walletTokenUrl}?public_key=${walletPublicKey}`, payload: card });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ id: expect.stringMatching(/^ctok_/), last_four_digits: '6351' });
    // The key is cleared: no key, no URL.
    await t.app.services.tenants.update(tenant._id, { walletPublicKey: null });
    expect((await get(`/t/${slug}/storefront`)).json()).toMatchObject({ walletPublicKey: null, walletTokenUrl: null });
  });

  it('404 for an unknown or inactive PDV and an unknown tenant; 400 for a malformed query', async () => {
    const { tenant, slug } = await makeTenantWithTeam(t.app);
    const pdv = await makePdv(t.app, tenant);
    expect((await get(`/t/${slug}/storefront?pdv=nope`)).statusCode).toBe(404);
    expect((await get(`/t/${slug}/storefront?pdv=${MISSING}`)).statusCode).toBe(404);
    await t.app.services.branches.updatePdv(t.app.deps.tenantDb(tenant._id), pdv.branchId, pdv.pdvId, { active: false });
    const inactive = await get(`/t/${slug}/storefront?pdv=${pdv.slug}`);
    expect(inactive.statusCode).toBe(404);
    expect(inactive.json()).toMatchObject({ statusCode: 404, message: expect.any(String) });
    expect((await get('/t/no-such-tenant-xyz/storefront')).statusCode).toBe(404);
    for (const query of ['table=abc', 'table=0', 'table=1.5', 'pdv=', 'pdv=a%20b']) {
      const res = await get(`/t/${slug}/storefront?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().details[0].field).toMatch(/^querystring\./);
    }
  });

  it("another tenant's PDV is unknown here", async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const pdvA = await makePdv(t.app, a.tenant);
    expect((await get(`/t/${b.slug}/storefront?pdv=${pdvA.pdvId}`)).statusCode).toBe(404);
    expect((await get(`/t/${b.slug}/storefront?pdv=${pdvA.slug}`)).statusCode).toBe(404);
  });
});

describe('wallet tokenizationUrl', () => {
  const deps = { publicUrl: 'http://localhost', clock: systemClock, log: silentLogger, simulatorControl: false };
  it('is the standalone simulator or the live gateway when the wallet is not in this process', async () => {
    const standalone = wallet.create({ mode: 'simulator', baseUrl: 'http://127.0.0.1:4020/', timeoutMs: 1_000 }, deps);
    expect(standalone.tokenizationUrl).toBe('http://127.0.0.1:4020/v1/card_tokens');
    const live = wallet.create({ mode: 'live', baseUrl: undefined, timeoutMs: 1_000 }, deps);
    expect(live.tokenizationUrl).toBe('https://api.mercadopago.com/v1/card_tokens');
    await Promise.all([standalone.close(), live.close()]);
  });
});

describe('GET /t/:slug/pdvs/:pdvId/table-qr', () => {
  it('prints one card per live table with the menu URL and an inline QR code, tenant text escaped', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app, { name: 'Bar <Zé> & "Cia"' });
    const pdv = await makePdv(t.app, tenant);
    await makeTable(t.app, tenant, { number: 31 });
    await makeTable(t.app, tenant, { number: 32 });
    const gone = await makeTable(t.app, tenant, { number: 33 });
    await t.app.services.tables.remove(t.app.deps.tenantDb(tenant._id), gone._id);

    const res = await get(`/t/${slug}/pdvs/${pdv.pdvId}/table-qr`, admin.headers);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = res.body;
    expect(html.match(/<section class="card"/g)).toHaveLength(2);
    expect(html.match(/<svg/g)).toHaveLength(2);
    expect(html).toContain('Mesa 31');
    expect(html).toContain(`http://localhost/t/${slug}/b/${pdv.slug}/menu?table=31`);
    expect(html).toContain(`http://localhost/t/${slug}/b/${pdv.slug}/menu?table=32`);
    expect(html).not.toContain('table=33');
    expect(html).toContain('Bar &lt;Zé&gt; &amp; &quot;Cia&quot;');
    expect(html).not.toContain('<Zé>');
    expect(html).toContain('lang="pt-BR"');
    expect(html).toContain('@page { size: A4');
  });

  it('answers one table as a PNG; 404 for a number with no table; 400 without the table or for a bad format', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const pdv = await makePdv(t.app, tenant);
    await makeTable(t.app, tenant, { number: 41 });
    const png = await get(`/t/${slug}/pdvs/${pdv.pdvId}/table-qr?format=png&table=41`, admin.headers);
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.rawPayload.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    // Width of the IHDR chunk: 512 pixels.
    expect(png.rawPayload.readUInt32BE(16)).toBe(512);

    expect((await get(`/t/${slug}/pdvs/${pdv.pdvId}/table-qr?format=png&table=42`, admin.headers)).statusCode).toBe(404);
    for (const [query, field] of [
      ['format=png', 'querystring.table'],
      ['format=pdf', 'querystring.format'],
      ['format=png&table=x', 'querystring.table'],
    ]) {
      const res = await get(`/t/${slug}/pdvs/${pdv.pdvId}/table-qr?${query}`, admin.headers);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().details[0].field, query).toBe(field);
    }
    expect((await get(`/t/${slug}/pdvs/not-an-id/table-qr`, admin.headers)).statusCode).toBe(400);
    expect((await get(`/t/${slug}/pdvs/${MISSING}/table-qr`, admin.headers)).statusCode).toBe(404);
  });

  it('401 without a token; 403 for staff and accountants and for a branch manager of another branch', async () => {
    const team = await makeScopedTeam(t.app);
    const url = `/t/${team.slug}/pdvs/${team.main.pdvId}/table-qr`;
    expect((await get(url)).statusCode).toBe(401);
    expect((await get(url, team.staff.headers)).statusCode).toBe(403);
    expect((await get(url, team.accountant.headers)).statusCode).toBe(403);
    expect((await get(url, team.manager.headers)).statusCode).toBe(200);
    const outside = await get(url, team.otherManager.headers);
    expect(outside.statusCode).toBe(403);
    expect(outside.json().code).toBe('branch_scope');
    expect((await get(`/t/${team.slug}/pdvs/${team.other.pdvId}/table-qr`, team.otherManager.headers)).statusCode).toBe(200);
  });

  it("another tenant's PDV: 404 through the outsider's slug, 403 through the owner's", async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const pdvA = await makePdv(t.app, a.tenant);
    await makeTable(t.app, a.tenant, { number: 51 });
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: a.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [
        { method: 'GET', path: `/t/:slug/pdvs/${pdvA.pdvId}/table-qr` },
        { method: 'GET', path: `/t/:slug/pdvs/${pdvA.pdvId}/table-qr?format=png&table=51` },
      ],
      snapshot: () => t.app.services.tables.list(t.app.deps.tenantDb(a.tenant._id)),
    });
  });

  it('is for restaurants only: 404 for a mercado', async () => {
    const { tenant, slug } = await makeTenantWithTeam(t.app, { businessType: 'mercado' });
    const admin = await makeUser(t.app, tenant, 'admin');
    const pdv = await makePdv(t.app, tenant);
    expect((await get(`/t/${slug}/pdvs/${pdv.pdvId}/table-qr`, admin.headers)).statusCode).toBe(404);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam, makeUser, type TestUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  sa = await makeSuperadmin(t.app);
});
afterAll(() => t.close());

const req = (method: 'GET' | 'POST' | 'PUT', url: string, headers: object, payload?: object) =>
  t.app.inject({ method, url, headers: headers as Record<string, string>, payload: payload as never });

// A valid numeric CNPJ and the official alphanumeric example.
const CNPJ = '11222333000181';
const CNPJ_ALFA = '12ABC34501DE35';

/** Every fiscal and payment field of spec section 2, as an operator would type them. */
const FISCAL = {
  cnpj: '11.222.333/0001-81',
  inscricaoEstadual: '110042490114',
  fiscalProviderToken: 'fiscal-secret-token',
  fiscalProviderAmbiente: 'homologacao',
  regimeTributario: 'simples_nacional',
  address: 'Rua Augusta',
  addressNumber: '1500',
  district: 'Consolação',
  city: 'São Paulo',
  state: 'SP',
  cep: '01304-001',
  walletAccessToken: 'APP_USR-wallet-secret',
  walletDeviceId: 'PAX_A910__SMARTPOS1234',
  walletPublicKey: 'APP_USR-public-key',
};

describe('superadmin tenants', () => {
  it('creates a tenant with defaults and lists it', async () => {
    const res = await req('POST', '/api/superadmin/tenants', sa.headers, {
      name: 'Padaria Pão Quente',
      slug: 'pao-quente',
      email: 'Contato@PaoQuente.com.br',
      primaryColor: '#ffaa00',
      plan: 'basic',
    });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      name: 'Padaria Pão Quente',
      slug: 'pao-quente',
      email: 'contato@paoquente.com.br',
      plan: 'basic',
      isActive: true,
      businessType: 'restaurant',
      timezone: 'America/Sao_Paulo',
      fiscalProviderTokenSet: false,
    });
    expect(created._id).toMatch(/^[0-9a-f]{24}$/);
    const list = await req('GET', '/api/superadmin/tenants', sa.headers);
    expect(list.statusCode).toBe(200);
    const row = list.json().find((x: { _id: string }) => x._id === created._id);
    expect(Object.keys(row).sort()).toEqual(['_id', 'businessType', 'createdAt', 'email', 'isActive', 'name', 'plan', 'primaryColor', 'slug']);
  });

  it('rejects a duplicate slug with 409 and a malformed one with 400', async () => {
    expect((await req('POST', '/api/superadmin/tenants', sa.headers, { name: 'A', slug: 'dup-slug' })).statusCode).toBe(201);
    expect((await req('POST', '/api/superadmin/tenants', sa.headers, { name: 'B', slug: 'dup-slug' })).statusCode).toBe(409);
    for (const slug of ['Upper', 'with space', '-edge', 'edge-', 'ç', '']) {
      const res = await req('POST', '/api/superadmin/tenants', sa.headers, { name: 'X', slug });
      expect(res.statusCode, slug).toBe(400);
      expect(res.json().details[0].field).toBe('body.slug');
    }
  });

  it('rejects unknown enum values, a bad color and a bad time zone', async () => {
    const cases: [object, string][] = [
      [{ plan: 'gold' }, 'body.plan'],
      [{ businessType: 'bar' }, 'body.businessType'],
      [{ primaryColor: 'red' }, 'body.primaryColor'],
      [{ timezone: 'Mars/Olympus' }, 'body.timezone'],
    ];
    for (const [extra, field] of cases) {
      const res = await req('POST', '/api/superadmin/tenants', sa.headers, { name: 'X', slug: `s-${field.slice(5).toLowerCase()}`, ...extra });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
  });

  it('updates fields and the slug, with 409 on a taken slug and 404 for an unknown id', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const res = await req('PUT', `/api/superadmin/tenants/${a.tenant._id}`, sa.headers, { plan: 'premium', businessType: 'mercado', slug: `${a.slug}-novo` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ plan: 'premium', businessType: 'mercado', slug: `${a.slug}-novo` });
    // The old slug is gone at once, the new one works.
    expect((await req('GET', `/t/${a.slug}/users`, a.admin.headers)).statusCode).toBe(404);
    expect((await req('GET', `/t/${a.slug}-novo/users`, a.admin.headers)).statusCode).toBe(200);
    expect((await req('PUT', `/api/superadmin/tenants/${a.tenant._id}`, sa.headers, { slug: b.slug })).statusCode).toBe(409);
    expect((await req('PUT', `/api/superadmin/tenants/${'f'.repeat(24)}`, sa.headers, { plan: 'free' })).statusCode).toBe(404);
    expect((await req('PUT', `/api/superadmin/tenants/xyz`, sa.headers, { plan: 'free' })).statusCode).toBe(400);
  });

  it('sets the fiscal and payment fields too: validated, secrets encrypted and write-only, null clears', async () => {
    const a = await makeTenantWithTeam(t.app);
    const res = await req('PUT', `/api/superadmin/tenants/${a.tenant._id}`, sa.headers, { ...FISCAL, name: 'Cantina Nova', isActive: true });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      name: 'Cantina Nova',
      cnpj: CNPJ,
      inscricaoEstadual: '110042490114',
      fiscalProviderTokenSet: true,
      fiscalProviderAmbiente: 'homologacao',
      regimeTributario: 'simples_nacional',
      address: 'Rua Augusta',
      addressNumber: '1500',
      district: 'Consolação',
      city: 'São Paulo',
      state: 'SP',
      cep: '01304001',
      walletAccessTokenSet: true,
      walletDeviceId: 'PAX_A910__SMARTPOS1234',
      walletPublicKey: 'APP_USR-public-key',
    });
    expect(body).not.toHaveProperty('fiscalProviderToken');
    expect(body).not.toHaveProperty('walletAccessToken');
    expect(res.body).not.toContain('fiscal-secret-token');
    expect(res.body).not.toContain('APP_USR-wallet-secret');
    // The tenant admin reads the same configuration; the secrets are ciphertext at rest and readable by the service.
    const read = await req('GET', `/t/${a.slug}/tenants`, a.admin.headers);
    expect(read.json()).toEqual(body);
    const raw = await t.app.deps.db.execute(
      sql`select fiscal_provider_token_enc as f, wallet_access_token_enc as w from tenants where id = ${a.tenant._id}`,
    );
    const stored = (raw as unknown as { rows: { f: string; w: string }[] }).rows[0];
    expect(stored.f).toMatch(/^v1:/);
    expect(stored.w).toMatch(/^v1:/);
    expect(JSON.stringify(stored)).not.toMatch(/fiscal-secret-token|APP_USR-wallet-secret/);
    expect(await t.app.services.tenants.secret(a.tenant._id, 'fiscalProviderToken')).toBe('fiscal-secret-token');
    expect(await t.app.services.tenants.secret(a.tenant._id, 'walletAccessToken')).toBe('APP_USR-wallet-secret');
    // A partial update leaves the rest alone; null clears.
    const cleared = await req('PUT', `/api/superadmin/tenants/${a.tenant._id}`, sa.headers, { walletAccessToken: null, city: null, cnpj: '12.ABC.345/01DE-35' });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ walletAccessTokenSet: false, fiscalProviderTokenSet: true, city: null, cnpj: CNPJ_ALFA, state: 'SP' });
    expect(await t.app.services.tenants.secret(a.tenant._id, 'walletAccessToken')).toBeNull();
  });

  it('validates the fiscal fields as the tenant configuration route does, changing nothing on a 400', async () => {
    const a = await makeTenantWithTeam(t.app);
    const before = (await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json();
    const cases: [object, string][] = [
      [{ cnpj: '11222333000182' }, 'body.cnpj'],
      [{ cnpj: '00000000000000' }, 'body.cnpj'],
      [{ state: 'XX' }, 'body.state'],
      [{ cep: '123' }, 'body.cep'],
      [{ inscricaoEstadual: '12.345' }, 'body.inscricaoEstadual'],
      [{ fiscalProviderAmbiente: 'teste' }, 'body.fiscalProviderAmbiente'],
      [{ regimeTributario: 'lucro_presumido' }, 'body.regimeTributario'],
      [{ walletPublicKey: '' }, 'body.walletPublicKey'],
      [{ city: 7 }, 'body.city'],
    ];
    for (const [payload, field] of cases) {
      const res = await req('PUT', `/api/superadmin/tenants/${a.tenant._id}`, sa.headers, { name: 'Should not stick', ...payload });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().details[0].field, JSON.stringify(payload)).toBe(field);
    }
    expect((await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json()).toEqual(before);
  });

  it('toggles activation; an inactive tenant answers 403 to its members and to public calls', async () => {
    const a = await makeTenantWithTeam(t.app);
    const off = await req('PUT', `/api/superadmin/tenants/${a.tenant._id}/toggle`, sa.headers);
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({ isActive: false });
    const denied = await req('GET', `/t/${a.slug}/users`, a.admin.headers);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('tenant_inactive');
    const on = await req('PUT', `/api/superadmin/tenants/${a.tenant._id}/toggle`, sa.headers);
    expect(on.json()).toEqual({ isActive: true });
    expect((await req('GET', `/t/${a.slug}/users`, a.admin.headers)).statusCode).toBe(200);
    expect((await req('PUT', `/api/superadmin/tenants/${'e'.repeat(24)}/toggle`, sa.headers)).statusCode).toBe(404);
  });

  it('is for the superadmin only: 401 without a token, 403 for a tenant admin', async () => {
    const a = await makeTenantWithTeam(t.app);
    expect((await req('GET', '/api/superadmin/tenants', {})).statusCode).toBe(401);
    for (const [method, url] of [
      ['GET', '/api/superadmin/tenants'],
      ['POST', '/api/superadmin/tenants'],
      ['PUT', `/api/superadmin/tenants/${a.tenant._id}`],
      ['PUT', `/api/superadmin/tenants/${a.tenant._id}/toggle`],
    ] as const) {
      const res = await req(method, url, a.admin.headers, method === 'GET' ? undefined : { name: 'x', slug: 'hijack' });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    const list = await req('GET', '/api/superadmin/tenants', sa.headers);
    expect(list.json().some((x: { slug: string }) => x.slug === 'hijack')).toBe(false);
  });
});

describe('PUT /t/:slug/tenants (tenant configuration)', () => {
  it('stores fiscal and payment configuration, secrets encrypted and write-only', async () => {
    const a = await makeTenantWithTeam(t.app);
    const res = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, FISCAL);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ cnpj: CNPJ, cep: '01304001', state: 'SP', fiscalProviderTokenSet: true, walletAccessTokenSet: true, walletPublicKey: 'APP_USR-public-key' });
    expect(res.body).not.toContain('fiscal-secret-token');
    expect(res.body).not.toContain('APP_USR-wallet-secret');
    const read = await req('GET', `/t/${a.slug}/tenants`, a.admin.headers);
    expect(read.json()).toEqual(body);
    expect(read.body).not.toContain('fiscal-secret-token');
    // At rest the secret is ciphertext; the service can still read it.
    const raw = await t.app.deps.db.execute(sql`select fiscal_provider_token_enc as v from tenants where id = ${a.tenant._id}`);
    const stored = (raw as unknown as { rows: { v: string }[] }).rows[0].v;
    expect(stored).toMatch(/^v1:/);
    expect(stored).not.toContain('fiscal-secret-token');
    expect(await t.app.services.tenants.secret(a.tenant._id, 'fiscalProviderToken')).toBe('fiscal-secret-token');
    // null clears a secret
    const cleared = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { walletAccessToken: null });
    expect(cleared.json().walletAccessTokenSet).toBe(false);
    expect(cleared.json().fiscalProviderTokenSet).toBe(true);
  });

  it('accepts the alphanumeric CNPJ and rejects wrong check digits', async () => {
    const a = await makeTenantWithTeam(t.app);
    const ok = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { cnpj: '12.ABC.345/01DE-35' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().cnpj).toBe(CNPJ_ALFA);
    for (const cnpj of ['11222333000182', '00000000000000', '1122233300018', 'abc']) {
      const res = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { cnpj });
      expect(res.statusCode, cnpj).toBe(400);
      expect(res.json().details[0].field).toBe('body.cnpj');
    }
    expect((await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json().cnpj).toBe(CNPJ_ALFA);
  });

  it('rejects bad state, CEP, ambiente and types', async () => {
    const a = await makeTenantWithTeam(t.app);
    const cases: [object, string][] = [
      [{ state: 'XX' }, 'body.state'],
      [{ cep: '123' }, 'body.cep'],
      [{ fiscalProviderAmbiente: 'teste' }, 'body.fiscalProviderAmbiente'],
      [{ city: 7 }, 'body.city'],
    ];
    for (const [payload, field] of cases) {
      const res = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, payload);
      expect(res.statusCode, field).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
  });

  it('does not let the tenant admin change plan, slug, business type, time zone or activation', async () => {
    const a = await makeTenantWithTeam(t.app);
    const before = (await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json();
    for (const field of [{ plan: 'premium' }, { slug: 'other' }, { isActive: false }, { businessType: 'mercado' }, { timezone: 'Asia/Tokyo' }]) {
      const res = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { ...field, city: 'Recife' });
      // Refused with a 400 naming the field, never a silent 200; nothing written, not even the allowed city.
      expect(res.statusCode, JSON.stringify(field)).toBe(400);
      expect(res.json().details, JSON.stringify(field)).toEqual([{ field: `body.${Object.keys(field)[0]}`, message: expect.any(String) }]);
      expect((await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json(), JSON.stringify(field)).toMatchObject({
        plan: before.plan,
        slug: a.slug,
        isActive: true,
        businessType: before.businessType,
        timezone: before.timezone,
        city: before.city,
      });
    }
  });

  it('is refused to staff, accountants, branch managers (403) and without a token (401)', async () => {
    const a = await makeTenantWithTeam(t.app);
    const manager = await makeUser(t.app, a.tenant, 'branch_manager');
    for (const u of [a.staff, a.accountant, manager]) {
      expect((await req('PUT', `/t/${a.slug}/tenants`, u.headers, { city: 'Natal' })).statusCode).toBe(403);
      expect((await req('GET', `/t/${a.slug}/tenants`, u.headers)).statusCode).toBe(403);
    }
    expect((await req('PUT', `/t/${a.slug}/tenants`, {}, { city: 'Natal' })).statusCode).toBe(401);
    expect((await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json().city).toBeNull();
  });

  it("tenant B's admin cannot change tenant A's configuration", async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const res = await req('PUT', `/t/${a.slug}/tenants`, b.admin.headers, { city: 'Hacked' });
    expect(res.statusCode).toBe(403);
    expect((await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json().city).toBeNull();
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: a.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [{ method: 'PUT', path: `/t/:slug/users/${a.admin.id}`, payload: { role: 'staff' } }],
      snapshot: async () => (await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json(),
    });
  });
});

describe('regimeTributario: names or NF-e CRT codes', () => {
  const CRT: [string, string][] = [
    ['1', 'simples_nacional'],
    ['2', 'simples_nacional_excesso_sublimite'],
    ['3', 'regime_normal'],
    ['4', 'mei'],
  ];

  it('stores and answers the name for a CRT code, on both routes', async () => {
    const a = await makeTenantWithTeam(t.app);
    const routes = [
      { url: `/api/superadmin/tenants/${a.tenant._id}`, headers: sa.headers },
      { url: `/t/${a.slug}/tenants`, headers: a.admin.headers },
    ];
    for (const { url, headers } of routes) {
      for (const [code, name] of CRT) {
        const res = await req('PUT', url, headers, { regimeTributario: code });
        expect(res.statusCode, `${url} ${code}`).toBe(200);
        expect(res.json().regimeTributario, `${url} ${code}`).toBe(name);
        expect((await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json().regimeTributario).toBe(name);
        // The name itself is still accepted as it is.
        expect((await req('PUT', url, headers, { regimeTributario: name })).json().regimeTributario).toBe(name);
      }
      expect((await req('PUT', url, headers, { regimeTributario: null })).json().regimeTributario).toBeNull();
    }
  });

  it('refuses other codes, numbers and unknown names', async () => {
    const a = await makeTenantWithTeam(t.app);
    for (const url of [`/api/superadmin/tenants/${a.tenant._id}`, `/t/${a.slug}/tenants`]) {
      const headers = url.startsWith('/api') ? sa.headers : a.admin.headers;
      for (const value of ['0', '5', '01', 1, 'Simples Nacional', 'MEI', '']) {
        const res = await req('PUT', url, headers, { regimeTributario: value });
        expect(res.statusCode, `${url} ${JSON.stringify(value)}`).toBe(400);
        expect(res.json().details[0].field).toBe('body.regimeTributario');
      }
    }
    expect((await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json().regimeTributario).toBeNull();
  });
});

describe('bill settings: service charge, cover charge, discount limit', () => {
  const BILL = (body: Record<string, unknown>) => ({
    serviceChargePercent: body.serviceChargePercent,
    coverCharge: body.coverCharge,
    discountLimitPercent: body.discountLimitPercent,
  });
  const storedBp = async (tenantId: string) => {
    const raw = await t.app.deps.db.execute(
      sql`select service_charge_bp as s, cover_charge as c, discount_limit_bp as d from tenants where id = ${tenantId}`,
    );
    const row = (raw as unknown as { rows: { s: number; c: number | string; d: number }[] }).rows[0];
    return { s: Number(row.s), c: Number(row.c), d: Number(row.d) };
  };

  it('answers the defaults: no service charge, no cover charge, 10% discount limit', async () => {
    const a = await makeTenantWithTeam(t.app);
    const res = await req('GET', `/t/${a.slug}/tenants`, a.admin.headers);
    expect(BILL(res.json())).toEqual({ serviceChargePercent: 0, coverCharge: 0, discountLimitPercent: 10 });
  });

  it('sets the three and reads them back, percentages stored as basis points', async () => {
    const a = await makeTenantWithTeam(t.app);
    const res = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { serviceChargePercent: 12.5, coverCharge: 1500, discountLimitPercent: 7.25 });
    expect(res.statusCode).toBe(200);
    expect(BILL(res.json())).toEqual({ serviceChargePercent: 12.5, coverCharge: 1500, discountLimitPercent: 7.25 });
    expect(BILL((await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json())).toEqual(BILL(res.json()));
    expect(await storedBp(a.tenant._id)).toEqual({ s: 1250, c: 1500, d: 725 });
    // Floats that are not exact in binary still count as 2 decimals; the bounds are allowed.
    const edge = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { serviceChargePercent: 0.07, discountLimitPercent: 100 });
    expect(edge.statusCode).toBe(200);
    expect(BILL(edge.json())).toEqual({ serviceChargePercent: 0.07, coverCharge: 1500, discountLimitPercent: 100 });
    expect(await storedBp(a.tenant._id)).toEqual({ s: 7, c: 1500, d: 10000 });
    const top = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { serviceChargePercent: 30, coverCharge: 100000, discountLimitPercent: 0 });
    expect(BILL(top.json())).toEqual({ serviceChargePercent: 30, coverCharge: 100000, discountLimitPercent: 0 });
    // A partial update leaves the others alone.
    const partial = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { coverCharge: 0 });
    expect(BILL(partial.json())).toEqual({ serviceChargePercent: 30, coverCharge: 0, discountLimitPercent: 0 });
  });

  it('refuses negative, too precise, too large and non-numeric values with a 400 naming the field, changing nothing', async () => {
    const a = await makeTenantWithTeam(t.app);
    const set = { serviceChargePercent: 10, coverCharge: 500, discountLimitPercent: 15 };
    expect((await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, set)).statusCode).toBe(200);
    const before = (await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json();
    const cases: [object, string][] = [
      [{ serviceChargePercent: -1 }, 'serviceChargePercent'],
      [{ serviceChargePercent: 12.345 }, 'serviceChargePercent'],
      [{ serviceChargePercent: 10.001 }, 'serviceChargePercent'],
      [{ serviceChargePercent: 30.01 }, 'serviceChargePercent'],
      [{ serviceChargePercent: '10' }, 'serviceChargePercent'],
      [{ serviceChargePercent: null }, 'serviceChargePercent'],
      [{ coverCharge: -1 }, 'coverCharge'],
      [{ coverCharge: 12.5 }, 'coverCharge'],
      [{ coverCharge: 100001 }, 'coverCharge'],
      [{ coverCharge: null }, 'coverCharge'],
      [{ discountLimitPercent: -0.01 }, 'discountLimitPercent'],
      [{ discountLimitPercent: 5.555 }, 'discountLimitPercent'],
      [{ discountLimitPercent: 100.5 }, 'discountLimitPercent'],
    ];
    for (const [payload, field] of cases) {
      // With valid changes beside it: a 400 writes none of them.
      const res = await req('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { city: 'Recife', coverCharge: 900, discountLimitPercent: 20, ...payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().details[0].field, JSON.stringify(payload)).toBe(`body.${field}`);
    }
    expect((await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json()).toEqual(before);
    expect(await storedBp(a.tenant._id)).toEqual({ s: 1000, c: 500, d: 1500 });
  });

  it('is refused to staff, accountants and branch managers (403), changing nothing', async () => {
    const a = await makeTenantWithTeam(t.app);
    const manager = await makeUser(t.app, a.tenant, 'branch_manager');
    for (const u of [a.staff, a.accountant, manager]) {
      const res = await req('PUT', `/t/${a.slug}/tenants`, u.headers, { serviceChargePercent: 20, coverCharge: 1000, discountLimitPercent: 100 });
      expect(res.statusCode).toBe(403);
    }
    expect(BILL((await req('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json())).toEqual({ serviceChargePercent: 0, coverCharge: 0, discountLimitPercent: 10 });
  });

  it('the superadmin sets them too, with the same rules', async () => {
    const a = await makeTenantWithTeam(t.app);
    const ok = await req('PUT', `/api/superadmin/tenants/${a.tenant._id}`, sa.headers, { serviceChargePercent: 8.5, coverCharge: 250, discountLimitPercent: 12 });
    expect(ok.statusCode).toBe(200);
    expect(BILL(ok.json())).toEqual({ serviceChargePercent: 8.5, coverCharge: 250, discountLimitPercent: 12 });
    const bad = await req('PUT', `/api/superadmin/tenants/${a.tenant._id}`, sa.headers, { serviceChargePercent: 8.555 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('body.serviceChargePercent');
    expect(await storedBp(a.tenant._id)).toEqual({ s: 850, c: 250, d: 1200 });
  });
});

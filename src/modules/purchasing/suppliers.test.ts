import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { isValidCnpj } from '../../platform/br-documents.js';
import { expectAdminFeatureGuard } from '../../../test/guards.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const MISSING = 'ffffffffffffffffffffffff';

function call(method: Method, url: string, headers: Record<string, string> = {}, payload?: object) {
  return t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
}
const base = (slug: string) => `/t/${slug}/inventory/suppliers`;
const fieldsOf = (res: { json(): { details?: { field: string }[] } }) => (res.json().details ?? []).map((d) => d.field);

/** A fresh valid CNPJ (random base, its two check digits). */
function newCnpj(): string {
  const body = String(randomInt(10_000_000, 99_999_999)) + '0001';
  for (let a = 0; a < 10; a++) for (let b = 0; b < 10; b++) if (isValidCnpj(`${body}${a}${b}`)) return `${body}${a}${b}`;
  throw new Error('no check digits');
}
const formatted = (c: string) => `${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-${c.slice(12)}`;

async function create(team: Team, body: Record<string, unknown>) {
  const res = await call('POST', base(team.slug), team.admin.headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('suppliers', () => {
  it('creates a supplier with only a name, and one with every field (CNPJ stored bare, answered formatted)', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const bare = await create(team, { name: '  Hortifruti Silva ' });
    expect(bare).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Hortifruti Silva',
      cnpj: null,
      email: null,
      phone: null,
      contactName: null,
      address: null,
      categories: [],
      notes: null,
      active: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const cnpj = newCnpj();
    const full = await create(team, {
      name: 'Distribuidora Beta',
      cnpj: formatted(cnpj),
      email: 'vendas@beta.com.br',
      phone: '+55 11 4000-1000',
      contactName: 'Ana',
      address: 'Rua A, 1',
      categories: ['bebidas', 'laticínios', 'bebidas'],
      notes: 'entrega terça',
      active: false,
    });
    expect(full).toMatchObject({ cnpj: formatted(cnpj), email: 'vendas@beta.com.br', categories: ['bebidas', 'laticínios'], active: false });
    const stored = await t.app.services.purchasing.findSupplierByCnpj(t.app.deps.tenantDb(team.tenant._id), cnpj);
    expect(stored?._id).toBe(full._id);
    // The same CNPJ with punctuation finds it too; an invalid one finds nothing.
    expect((await t.app.services.purchasing.findSupplierByCnpj(t.app.deps.tenantDb(team.tenant._id), formatted(cnpj)))?._id).toBe(full._id);
    expect(await t.app.services.purchasing.findSupplierByCnpj(t.app.deps.tenantDb(team.tenant._id), '11222333000182')).toBeNull();
    const got = await call('GET', `${base(team.slug)}/${full._id}`, team.admin.headers);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(full);
  });

  it('lists by name, filtered by active', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'basic' });
    const b = await create(team, { name: 'Beta' });
    const a = await create(team, { name: 'Alfa', active: false });
    const c = await create(team, { name: 'Gama' });
    const list = async (q = '') => (await call('GET', `${base(team.slug)}${q}`, team.admin.headers)).json().map((s: { _id: string }) => s._id);
    expect(await list()).toEqual([a._id, b._id, c._id]);
    expect(await list('?active=true')).toEqual([b._id, c._id]);
    expect(await list('?active=false')).toEqual([a._id]);
    const bad = await call('GET', `${base(team.slug)}?active=maybe`, team.admin.headers);
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toContain('querystring.active');
  });

  it('refuses invalid fields with a 400 naming each, and writes nothing', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body.name'],
      [{ name: '   ' }, 'body.name'],
      [{ name: 'X', cnpj: '11222333000182' }, 'body.cnpj'],
      [{ name: 'X', cnpj: '11.222.333/0001-8' }, 'body.cnpj'],
      [{ name: 'X', cnpj: '11111111111111' }, 'body.cnpj'],
      [{ name: 'X', email: 'not-an-email' }, 'body.email'],
      [{ name: 'X', categories: 'bebidas' }, 'body.categories'],
      [{ name: 'X', categories: [''] }, 'body.categories.0'],
      [{ name: 'X', active: 'yes' }, 'body.active'],
      [{ name: 'X', rating: 5 }, 'body.rating'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', base(team.slug), team.admin.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    expect((await call('GET', base(team.slug), team.admin.headers)).json()).toEqual([]);
  });

  it('one supplier per CNPJ in a tenant (409 cnpj_taken), another tenant may have it', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const other = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const cnpj = newCnpj();
    const first = await create(team, { name: 'Um', cnpj });
    const dup = await call('POST', base(team.slug), team.admin.headers, { name: 'Dois', cnpj: formatted(cnpj) });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().code).toBe('cnpj_taken');
    await create(other, { name: 'Dois', cnpj });
    const second = await create(team, { name: 'Dois' });
    const put = await call('PUT', `${base(team.slug)}/${second._id}`, team.admin.headers, { cnpj });
    expect(put.statusCode).toBe(409);
    // Saving its own CNPJ again is no clash.
    expect((await call('PUT', `${base(team.slug)}/${first._id}`, team.admin.headers, { cnpj, name: 'Um Ltda' })).statusCode).toBe(200);
  });

  it('updates any field, null clears an optional one; 400 naming a bad field; 404 unknown', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const s = await create(team, { name: 'Alfa', email: 'a@alfa.com', categories: ['x'] });
    const cnpj = newCnpj();
    const res = await call('PUT', `${base(team.slug)}/${s._id}`, team.admin.headers, { name: 'Alfa Ltda', email: null, cnpj, categories: [], active: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ _id: s._id, name: 'Alfa Ltda', email: null, cnpj: formatted(cnpj), categories: [], active: false });
    expect((await call('GET', `${base(team.slug)}/${s._id}`, team.admin.headers)).json()).toEqual(res.json());
    const bad = await call('PUT', `${base(team.slug)}/${s._id}`, team.admin.headers, { cnpj: '12345678901234' });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['body.cnpj']);
    const badEmail = await call('PUT', `${base(team.slug)}/${s._id}`, team.admin.headers, { email: 'x@' });
    expect(fieldsOf(badEmail)).toEqual(['body.email']);
    expect((await call('PUT', `${base(team.slug)}/${MISSING}`, team.admin.headers, { name: 'Z' })).statusCode).toBe(404);
    expect((await call('GET', `${base(team.slug)}/${MISSING}`, team.admin.headers)).statusCode).toBe(404);
    expect((await call('GET', `${base(team.slug)}/not-an-id`, team.admin.headers)).statusCode).toBe(400);
  });

  it('deletes a supplier no order names; 409 supplier_in_use while one does', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const free = await create(team, { name: 'Livre' });
    const del = await call('DELETE', `${base(team.slug)}/${free._id}`, team.admin.headers);
    expect(del.statusCode).toBe(204);
    expect((await call('GET', `${base(team.slug)}/${free._id}`, team.admin.headers)).statusCode).toBe(404);
    expect((await call('DELETE', `${base(team.slug)}/${free._id}`, team.admin.headers)).statusCode).toBe(404);

    const used = await create(team, { name: 'Usado' });
    const item = await t.app.inject({
      method: 'POST',
      url: `/t/${team.slug}/inventory`,
      headers: team.admin.headers,
      payload: { name: 'Leite', sku: `L-${randomInt(1e9)}`, currentStock: 0, minStock: 0, unit: 'l', cost: 500 },
    });
    const po = await call('POST', `/t/${team.slug}/inventory/purchase-orders`, team.admin.headers, {
      supplierId: used._id,
      items: [{ inventoryItemId: item.json()._id, itemName: 'Leite', quantity: 1, unitCost: 500 }],
    });
    expect(po.statusCode, po.body).toBe(201);
    const refused = await call('DELETE', `${base(team.slug)}/${used._id}`, team.admin.headers);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('supplier_in_use');
    expect((await call('GET', `${base(team.slug)}/${used._id}`, team.admin.headers)).statusCode).toBe(200);
  });

  it('guards: 401 without a token, 403 for staff and accountants, 403 naming the feature on the free plan; superadmin passes', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const s = await create(team, { name: 'Alfa' });
    const routes: [Method, string, object?][] = [
      ['GET', base(team.slug)],
      ['GET', `${base(team.slug)}/${s._id}`],
      ['POST', base(team.slug), { name: 'Beta' }],
      ['PUT', `${base(team.slug)}/${s._id}`, { name: 'Gama' }],
      ['DELETE', `${base(team.slug)}/${s._id}`],
    ];
    await expectAdminFeatureGuard(t.app, team, routes, 'supplierManagement');
    const sa = await makeSuperadmin(t.app);
    expect((await call('GET', `${base(team.slug)}/${s._id}`, sa.headers)).json().name).toBe('Alfa');
    expect((await call('POST', base(team.slug), sa.headers, { name: 'Delta' })).statusCode).toBe(201);
  });

  it("another tenant's supplier is 404 through its own slug, 403 through the owner's, and unchanged", async () => {
    const owner = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const outsider = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const s = await create(owner, { name: 'Alfa', cnpj: newCnpj() });
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'GET', path: `/t/:slug/inventory/suppliers/${s._id}` },
        { method: 'PUT', path: `/t/:slug/inventory/suppliers/${s._id}`, payload: { name: 'Hacked' } },
        { method: 'DELETE', path: `/t/:slug/inventory/suppliers/${s._id}` },
      ],
      snapshot: async () => (await call('GET', base(owner.slug), owner.admin.headers)).json(),
    });
    expect((await call('GET', base(outsider.slug), outsider.admin.headers)).json()).toEqual([]);
  });
});

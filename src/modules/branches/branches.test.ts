import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makePdv, makeSuperadmin, makeTenantWithTeam, makeUser, type TestUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MISSING = 'ffffffffffffffffffffffff';
let n = 0;
const uniq = () => `${Date.now().toString(36)}-${++n}`;

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

function call(method: Method, url: string, headers: Record<string, string> = {}, payload?: object) {
  return t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
}

const base = (slug: string) => `/api/t/${slug}/admin/branches`;

/** A create body of a valid branch; `over` replaces fields. */
function branchBody(over: Record<string, unknown> = {}) {
  const s = uniq();
  return {
    name: `Filial ${s}`,
    slug: `filial-${s}`,
    cnpj: '11.222.333/0001-81',
    address: 'Rua dos Pinheiros, 100',
    city: 'São Paulo',
    state: 'SP',
    cep: '05422-000',
    ibsCbsEnabled: false,
    ...over,
  };
}

async function createBranch(team: Team, over: Record<string, unknown> = {}) {
  const res = await call('POST', base(team.slug), team.admin.headers, branchBody(over));
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { _id: string; slug: string; isHQ: boolean };
}

/** Every branch of the tenant as the admin lists them (100 at most). */
async function allBranches(team: Team) {
  const res = await call('GET', `${base(team.slug)}?limit=100`, team.admin.headers);
  expect(res.statusCode).toBe(200);
  return res.json().data as { _id: string; slug: string; isHQ: boolean; active: boolean; name: string }[];
}

/** A branch manager of the tenant assigned to `branchIds` (through the users route, as an admin does it). */
async function managerOf(team: Team, branchIds: string[]): Promise<TestUser> {
  const manager = await makeUser(t.app, team.tenant, 'branch_manager');
  const res = await call('PUT', `/t/${team.slug}/users/${manager.id}`, team.admin.headers, { assignedBranchIds: branchIds });
  expect(res.statusCode, res.body).toBe(200);
  return manager;
}

const pdvsOf = (team: Team, branchId: string) => t.app.services.branches.listBranchPdvs(t.app.deps.tenantDb(team.tenant._id), branchId);

describe('branches', () => {
  it('creates branches: the first is the headquarters whatever it says, CNPJ formatted, CEP as digits', async () => {
    const team = await makeTenantWithTeam(t.app);
    const body = branchBody({ cnpj: '11222333000181', cep: '05422000', isHQ: false, ibsCbsEnabled: true });
    const res = await call('POST', base(team.slug), team.admin.headers, body);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: body.name,
      slug: body.slug,
      active: true,
      isHQ: true,
      cnpj: '11.222.333/0001-81',
      address: 'Rua dos Pinheiros, 100',
      city: 'São Paulo',
      state: 'SP',
      cep: '05422000',
      ibsCbsEnabled: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // The second is not, unless it asks; one that asks takes the flag from the current one.
    const second = await createBranch(team, { cnpj: '11.444.777/0001-61' });
    expect(second.isHQ).toBe(false);
    const third = await createBranch(team, { isHQ: true, cnpj: '12.ABC.345/01DE-35' });
    expect(third).toMatchObject({ isHQ: true, cnpj: '12.ABC.345/01DE-35' });
    const list = await allBranches(team);
    expect(list.filter((b) => b.isHQ).map((b) => b._id)).toEqual([third._id]);
    expect(list[0]._id).toBe(third._id); // HQ first
  });

  it('gives a tenant one headquarters when its first branches are created at the same moment', async () => {
    const team = await makeTenantWithTeam(t.app);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => i).map((i) => call('POST', base(team.slug), team.admin.headers, branchBody({ isHQ: i % 2 === 0 }))));
    expect(results.map((r) => r.statusCode)).toEqual(results.map(() => 201));
    expect((await allBranches(team)).filter((b) => b.isHQ)).toHaveLength(1);
  });

  it('refuses invalid branch fields with a 400 naming the field, and creates nothing', async () => {
    const team = await makeTenantWithTeam(t.app);
    await createBranch(team);
    const cases: [Record<string, unknown>, string][] = [
      [{ cnpj: '11.222.333/0001-82' }, 'body.cnpj'],
      [{ cnpj: '1122233300018' }, 'body.cnpj'],
      [{ state: 'sp' }, 'body.state'],
      [{ state: 'XX' }, 'body.state'],
      [{ cep: '0542-2000' }, 'body.cep'],
      [{ cep: '054220000' }, 'body.cep'],
      [{ slug: 'Not A Slug' }, 'body.slug'],
      [{ name: '' }, 'body.name'],
      [{ ibsCbsEnabled: 'yes' }, 'body.ibsCbsEnabled'],
      [{ tenantId: 'x' }, 'body.tenantId'],
    ];
    for (const [over, field] of cases) {
      const res = await call('POST', base(team.slug), team.admin.headers, branchBody(over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field), JSON.stringify(over)).toContain(field);
    }
    const { cnpj: _cnpj, ...missing } = branchBody();
    const res = await call('POST', base(team.slug), team.admin.headers, missing);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('cnpj');
    expect(await allBranches(team)).toHaveLength(1);
  });

  it('answers 409 slug_taken for a duplicated slug, on create and update, and changes nothing', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await createBranch(team);
    const b = await createBranch(team, { isHQ: true });
    const dup = await call('POST', base(team.slug), team.admin.headers, branchBody({ slug: a.slug, isHQ: true }));
    expect(dup.statusCode).toBe(409);
    expect(dup.json().code).toBe('slug_taken');
    const before = await allBranches(team);
    expect(before.find((x) => x.isHQ)?._id).toBe(b._id); // the refused create did not take the HQ flag
    const upd = await call('PUT', `${base(team.slug)}/${b._id}`, team.admin.headers, { slug: a.slug, name: 'Renomeada' });
    expect(upd.statusCode).toBe(409);
    expect(upd.json().code).toBe('slug_taken');
    expect(await allBranches(team)).toEqual(before);
    // Another tenant may use the same slug.
    const other = await makeTenantWithTeam(t.app);
    await createBranch(other, { slug: a.slug });
  });

  it('lists a page at a time, filters by active, and validates the query', async () => {
    const team = await makeTenantWithTeam(t.app);
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await createBranch(team, { name: `Loja ${i}` }));
    await call('PUT', `${base(team.slug)}/${created[4]._id}`, team.admin.headers, { active: false });
    const page = await call('GET', `${base(team.slug)}?page=2&limit=2`, team.admin.headers);
    expect(page.statusCode).toBe(200);
    expect(page.json()).toMatchObject({ total: 5, page: 2, totalPages: 3 });
    expect(page.json().data.map((b: { name: string }) => b.name)).toEqual(['Loja 2', 'Loja 3']);
    const first = (await call('GET', base(team.slug), team.admin.headers)).json();
    expect(first).toMatchObject({ total: 5, page: 1, totalPages: 1 });
    expect(first.data[0]).toMatchObject({ name: 'Loja 0', isHQ: true });
    const inactive = (await call('GET', `${base(team.slug)}?active=false`, team.admin.headers)).json();
    expect(inactive).toMatchObject({ total: 1, totalPages: 1, data: [{ _id: created[4]._id, active: false }] });
    expect((await call('GET', `${base(team.slug)}?active=true`, team.admin.headers)).json().total).toBe(4);
    const beyond = (await call('GET', `${base(team.slug)}?page=9`, team.admin.headers)).json();
    expect(beyond).toMatchObject({ data: [], total: 5, page: 9 });
    for (const qs of ['limit=101', 'limit=0', 'page=0', 'active=maybe']) {
      const res = await call('GET', `${base(team.slug)}?${qs}`, team.admin.headers);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().details[0].field, qs).toMatch(/^querystring\./);
    }
    // A tenant with no branch: an empty page.
    const empty = await makeTenantWithTeam(t.app);
    expect((await call('GET', base(empty.slug), empty.admin.headers)).json()).toEqual({ data: [], total: 0, page: 1, totalPages: 0 });
  });

  it('reads one branch; 404 for an unknown id, 400 for a malformed one', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await createBranch(team);
    const res = await call('GET', `${base(team.slug)}/${a._id}`, team.admin.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ _id: a._id, slug: a.slug, isHQ: true, cnpj: '11.222.333/0001-81' });
    expect((await call('GET', `${base(team.slug)}/${MISSING}`, team.admin.headers)).statusCode).toBe(404);
    expect((await call('GET', `${base(team.slug)}/nope`, team.admin.headers)).statusCode).toBe(400);
  });

  it('updates any subset of the fields, normalising CNPJ and CEP; invalid fields change nothing', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await createBranch(team);
    const res = await call('PUT', `${base(team.slug)}/${a._id}`, team.admin.headers, {
      name: 'Matriz Centro',
      cnpj: '11444777000161',
      cep: '01001-000',
      state: 'RJ',
      ibsCbsEnabled: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ _id: a._id, name: 'Matriz Centro', cnpj: '11.444.777/0001-61', cep: '01001000', state: 'RJ', ibsCbsEnabled: true, isHQ: true });
    const before = (await call('GET', `${base(team.slug)}/${a._id}`, team.admin.headers)).json();
    for (const [payload, field] of [
      [{ name: 'X', cnpj: '11.444.777/0001-62' }, 'body.cnpj'],
      [{ name: 'X', state: 'Sao Paulo' }, 'body.state'],
      [{ name: 'X', cep: 'abcde-fgh' }, 'body.cep'],
      [{ name: 'X', cnpj: null }, 'body.cnpj'],
      [{ name: 'X', createdAt: '2020-01-01T00:00:00Z' }, 'body.createdAt'],
    ] as const) {
      const bad = await call('PUT', `${base(team.slug)}/${a._id}`, team.admin.headers, payload);
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await call('GET', `${base(team.slug)}/${a._id}`, team.admin.headers)).json()).toEqual(before);
    expect((await call('PUT', `${base(team.slug)}/${MISSING}`, team.admin.headers, { name: 'X' })).statusCode).toBe(404);
  });

  it('keeps exactly one headquarters: isHQ moves it, isHQ false or deactivating it is 409 hq_required', async () => {
    const team = await makeTenantWithTeam(t.app);
    const hq = await createBranch(team);
    const other = await createBranch(team);
    const url = (id: string) => `${base(team.slug)}/${id}`;
    for (const payload of [{ isHQ: false }, { active: false }, { isHQ: false, name: 'X' }]) {
      const res = await call('PUT', url(hq._id), team.admin.headers, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(409);
      expect(res.json().code).toBe('hq_required');
    }
    // isHQ false on a branch that is not the HQ changes nothing about the HQ.
    expect((await call('PUT', url(other._id), team.admin.headers, { isHQ: false })).json().isHQ).toBe(false);
    // An inactive branch is no headquarters.
    await call('PUT', url(other._id), team.admin.headers, { active: false });
    const inactive = await call('PUT', url(other._id), team.admin.headers, { isHQ: true });
    expect(inactive.statusCode).toBe(409);
    expect(inactive.json().code).toBe('branch_inactive');
    // Activating and promoting in one request moves the flag.
    const moved = await call('PUT', url(other._id), team.admin.headers, { isHQ: true, active: true });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ isHQ: true, active: true });
    const list = await allBranches(team);
    expect(list.filter((b) => b.isHQ).map((b) => b._id)).toEqual([other._id]);
    // The former HQ may now be deactivated.
    expect((await call('PUT', url(hq._id), team.admin.headers, { active: false })).json()).toMatchObject({ isHQ: false, active: false });
  });

  it('deletes a branch without PDVs (204); 409 branch_in_use with PDVs, hq_required for the HQ among others', async () => {
    const team = await makeTenantWithTeam(t.app);
    const hq = await createBranch(team);
    const spare = await createBranch(team);
    const busy = await createBranch(team);
    const url = (id: string) => `${base(team.slug)}/${id}`;
    const pdv = await call('POST', `${url(busy._id)}/pdvs`, team.admin.headers, { name: 'Caixa', slug: `cx-${uniq()}` });
    // Deactivated or not, a PDV keeps its branch.
    await call('PUT', `${url(busy._id)}/pdvs/${pdv.json()._id}`, team.admin.headers, { active: false });
    const inUse = await call('DELETE', url(busy._id), team.admin.headers);
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json().code).toBe('branch_in_use');
    const hqDel = await call('DELETE', url(hq._id), team.admin.headers);
    expect(hqDel.statusCode).toBe(409);
    expect(hqDel.json().code).toBe('hq_required');
    expect(await allBranches(team)).toHaveLength(3);

    const ok = await call('DELETE', url(spare._id), team.admin.headers);
    expect(ok.statusCode).toBe(204);
    expect(ok.body).toBe('');
    expect((await call('GET', url(spare._id), team.admin.headers)).statusCode).toBe(404);
    expect((await call('DELETE', url(spare._id), team.admin.headers)).statusCode).toBe(404);

    // The last branch, HQ or not, may go; the next one created is the HQ.
    const lone = await makeTenantWithTeam(t.app);
    const only = await createBranch(lone);
    expect((await call('DELETE', `${base(lone.slug)}/${only._id}`, lone.admin.headers)).statusCode).toBe(204);
    expect((await createBranch(lone, { isHQ: false })).isHQ).toBe(true);
  });

  it('asks for a token on every route (401)', async () => {
    const team = await makeTenantWithTeam(t.app);
    const b = await createBranch(team);
    const { pdvId } = await makePdv(t.app, team.tenant);
    for (const [method, url, payload] of [
      ['GET', base(team.slug)],
      ['POST', base(team.slug), branchBody()],
      ['GET', `${base(team.slug)}/${b._id}`],
      ['PUT', `${base(team.slug)}/${b._id}`, { name: 'X' }],
      ['DELETE', `${base(team.slug)}/${b._id}`],
      ['POST', `${base(team.slug)}/${b._id}/pdvs`, { name: 'X', slug: 'x' }],
      ['PUT', `${base(team.slug)}/${b._id}/pdvs/${pdvId}`, { name: 'X' }],
    ] as [Method, string, object?][]) {
      expect((await call(method, url, {}, payload)).statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('lets admins and superadmins do everything; staff and accountants nothing (403)', async () => {
    const team = await makeTenantWithTeam(t.app);
    const b = await createBranch(team);
    const pdv = (await call('POST', `${base(team.slug)}/${b._id}/pdvs`, team.admin.headers, { name: 'Caixa', slug: `cx-${uniq()}` })).json();
    const before = await allBranches(team);
    for (const who of [team.staff, team.accountant]) {
      for (const [method, url, payload] of [
        ['GET', base(team.slug)],
        ['POST', base(team.slug), branchBody()],
        ['GET', `${base(team.slug)}/${b._id}`],
        ['PUT', `${base(team.slug)}/${b._id}`, { name: 'X' }],
        ['DELETE', `${base(team.slug)}/${b._id}`],
        ['POST', `${base(team.slug)}/${b._id}/pdvs`, { name: 'X', slug: 'x' }],
        ['PUT', `${base(team.slug)}/${b._id}/pdvs/${pdv._id}`, { name: 'X' }],
      ] as [Method, string, object?][]) {
        const res = await call(method, url, who.headers, payload);
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().code).toBe('role');
      }
    }
    expect(await allBranches(team)).toEqual(before);
    expect((await pdvsOf(team, b._id)).map((p) => p.name)).toEqual(['Caixa']);
    // A superadmin who is no member passes every rule.
    const sa = await makeSuperadmin(t.app);
    expect((await call('GET', `${base(team.slug)}/${b._id}`, sa.headers)).statusCode).toBe(200);
    const created = await call('POST', base(team.slug), sa.headers, branchBody());
    expect(created.statusCode).toBe(201);
    expect((await call('DELETE', `${base(team.slug)}/${created.json()._id}`, sa.headers)).statusCode).toBe(204);
  });

  it('lets a branch manager read and update their branches only; never create, delete or move the HQ', async () => {
    const team = await makeTenantWithTeam(t.app);
    const hq = await createBranch(team);
    const mine = await createBranch(team);
    const theirs = await createBranch(team);
    const manager = await managerOf(team, [mine._id]);
    const url = (id: string) => `${base(team.slug)}/${id}`;

    const list = (await call('GET', base(team.slug), manager.headers)).json();
    expect(list).toMatchObject({ total: 1, totalPages: 1, data: [{ _id: mine._id }] });
    expect((await call('GET', url(mine._id), manager.headers)).statusCode).toBe(200);
    const renamed = await call('PUT', url(mine._id), manager.headers, { name: 'Loja do gerente', ibsCbsEnabled: true });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Loja do gerente', ibsCbsEnabled: true });

    const before = await allBranches(team);
    for (const [method, u, payload] of [
      ['GET', url(theirs._id)],
      ['PUT', url(theirs._id), { name: 'X' }],
      ['PUT', url(hq._id), { name: 'X' }],
      ['POST', `${url(theirs._id)}/pdvs`, { name: 'X', slug: `x-${uniq()}` }],
    ] as [Method, string, object?][]) {
      const res = await call(method, u, manager.headers, payload);
      expect(res.statusCode, `${method} ${u}`).toBe(403);
      expect(res.json().code).toBe('branch_scope');
    }
    for (const [method, u, payload] of [
      ['POST', base(team.slug), branchBody()],
      ['DELETE', url(mine._id)],
    ] as [Method, string, object?][]) {
      const res = await call(method, u, manager.headers, payload);
      expect(res.statusCode, `${method} ${u}`).toBe(403);
      expect(res.json().code).toBe('role');
    }
    // Moving the headquarters touches another branch: an admin's call.
    const moveHq = await call('PUT', url(mine._id), manager.headers, { isHQ: true });
    expect(moveHq.statusCode).toBe(403);
    expect(moveHq.json().code).toBe('role');
    expect(await allBranches(team)).toEqual(before);
    // A manager of the HQ may send its unchanged flag along.
    const hqManager = await managerOf(team, [hq._id]);
    expect((await call('PUT', url(hq._id), hqManager.headers, { isHQ: true, city: 'Campinas' })).json()).toMatchObject({ isHQ: true, city: 'Campinas' });
    // With no assignment, nothing.
    const idle = await managerOf(team, []);
    expect((await call('GET', base(team.slug), idle.headers)).json()).toMatchObject({ data: [], total: 0 });
  });

  it('keeps tenants apart: another tenant’s branch and PDVs are 404 through its own slug, 403 through theirs', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const branch = await createBranch(a);
    const pdv = (await call('POST', `${base(a.slug)}/${branch._id}/pdvs`, a.admin.headers, { name: 'Caixa', slug: `cx-${uniq()}` })).json();
    const ownOfB = await createBranch(b);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: a.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [
        { method: 'GET', path: `/api/t/:slug/admin/branches/${branch._id}` },
        { method: 'PUT', path: `/api/t/:slug/admin/branches/${branch._id}`, payload: { name: 'Invadida' } },
        { method: 'DELETE', path: `/api/t/:slug/admin/branches/${branch._id}` },
        { method: 'POST', path: `/api/t/:slug/admin/branches/${branch._id}/pdvs`, payload: { name: 'X', slug: `x-${uniq()}` } },
        { method: 'PUT', path: `/api/t/:slug/admin/branches/${branch._id}/pdvs/${pdv._id}`, payload: { active: false } },
      ],
      snapshot: async () => [await allBranches(a), await pdvsOf(a, branch._id)],
    });
    // A's PDV through B's own branch: not found either.
    const viaOwn = await call('PUT', `${base(b.slug)}/${ownOfB._id}/pdvs/${pdv._id}`, b.admin.headers, { active: false });
    expect(viaOwn.statusCode).toBe(404);
    // B's list does not show A's branches.
    expect((await allBranches(b)).map((x) => x._id)).toEqual([ownOfB._id]);
  });
});

describe('points of sale', () => {
  it('creates a PDV in a branch with its settings, and defaults', async () => {
    const team = await makeTenantWithTeam(t.app);
    const b = await createBranch(team);
    const slug = `salao-${uniq()}`;
    const serial = `T-${uniq().toUpperCase().replace(/[^A-Z0-9-]/g, '')}`;
    const res = await call('POST', `${base(team.slug)}/${b._id}/pdvs`, team.admin.headers, {
      name: 'Salão',
      slug,
      serviceMode: 'mesa',
      gatewayATerminalSerial: serial,
      pixKey: 'Caixa@Restaurante.com.br',
      serviceChargePercent: 12.5,
      coverCharge: 1500,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Salão',
      slug,
      serviceMode: 'mesa',
      active: true,
      branch: b._id,
      gatewayATerminalSerial: serial,
      pixKey: 'caixa@restaurante.com.br',
      serviceChargePercent: 12.5,
      coverCharge: 1500,
    });
    // The orders module sees the same PDV, its rate in basis points.
    const seen = await t.app.services.branches.findPdv(t.app.deps.tenantDb(team.tenant._id), res.json()._id);
    expect(seen).toMatchObject({ serviceChargeBp: 1250, coverCharge: 1500, gatewayATerminalSerial: serial });

    const plain = await call('POST', `${base(team.slug)}/${b._id}/pdvs`, team.admin.headers, { name: 'Balcão', slug: `balcao-${uniq()}` });
    expect(plain.statusCode).toBe(201);
    expect(plain.json()).toMatchObject({ serviceMode: 'balcao', active: true, gatewayATerminalSerial: null, pixKey: null, serviceChargePercent: null, coverCharge: null });
    expect((await call('POST', `${base(team.slug)}/${MISSING}/pdvs`, team.admin.headers, { name: 'X', slug: `x-${uniq()}` })).statusCode).toBe(404);
  });

  it('refuses invalid PDV fields with a 400 naming the field, and creates nothing', async () => {
    const team = await makeTenantWithTeam(t.app);
    const b = await createBranch(team);
    const cases: [Record<string, unknown>, string][] = [
      [{ serviceMode: 'drive-thru' }, 'body.serviceMode'],
      [{ gatewayATerminalSerial: 't-abcd1234' }, 'body.gatewayATerminalSerial'],
      [{ gatewayATerminalSerial: 'T-AB' }, 'body.gatewayATerminalSerial'],
      [{ gatewayATerminalSerial: 'X-ABCD1234' }, 'body.gatewayATerminalSerial'],
      [{ gatewayATerminalSerial: `T-${'A'.repeat(33)}` }, 'body.gatewayATerminalSerial'],
      [{ pixKey: 'not a key' }, 'body.pixKey'],
      [{ pixKey: '111.111.111-12' }, 'body.pixKey'],
      [{ serviceChargePercent: 30.01 }, 'body.serviceChargePercent'],
      [{ serviceChargePercent: -1 }, 'body.serviceChargePercent'],
      [{ serviceChargePercent: 12.345 }, 'body.serviceChargePercent'],
      [{ coverCharge: 100_001 }, 'body.coverCharge'],
      [{ coverCharge: 10.5 }, 'body.coverCharge'],
      [{ slug: 'Caixa 1' }, 'body.slug'],
      [{ branch: b._id }, 'body.branch'],
    ];
    for (const [over, field] of cases) {
      const res = await call('POST', `${base(team.slug)}/${b._id}/pdvs`, team.admin.headers, { name: 'Caixa', slug: `cx-${uniq()}`, ...over });
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field), JSON.stringify(over)).toContain(field);
    }
    expect(await pdvsOf(team, b._id)).toEqual([]);
  });

  it('updates a PDV of the branch: any subset, null back to the tenant’s, active false deactivates', async () => {
    const team = await makeTenantWithTeam(t.app);
    const b = await createBranch(team);
    const other = await createBranch(team);
    const created = (
      await call('POST', `${base(team.slug)}/${b._id}/pdvs`, team.admin.headers, {
        name: 'Caixa',
        slug: `cx-${uniq()}`,
        serviceChargePercent: 10,
        coverCharge: 500,
        pixKey: '+55 11 98765-4321',
      })
    ).json();
    expect(created.pixKey).toBe('+5511987654321');
    const url = `${base(team.slug)}/${b._id}/pdvs/${created._id}`;
    const res = await call('PUT', url, team.admin.headers, { name: 'Caixa 1', serviceMode: 'autoatendimento', serviceChargePercent: null, pixKey: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...created, name: 'Caixa 1', serviceMode: 'autoatendimento', serviceChargePercent: null, pixKey: null });
    const off = await call('PUT', url, team.admin.headers, { active: false });
    expect(off.json()).toMatchObject({ active: false, coverCharge: 500 });
    expect(await t.app.services.branches.findPdv(t.app.deps.tenantDb(team.tenant._id), created._id)).toMatchObject({ active: false });
    expect((await call('PUT', url, team.admin.headers, { active: true })).json().active).toBe(true);

    const before = await pdvsOf(team, b._id);
    for (const [payload, field] of [
      [{ gatewayATerminalSerial: 'T-lower' }, 'body.gatewayATerminalSerial'],
      [{ serviceChargePercent: 7.777 }, 'body.serviceChargePercent'],
      [{ name: 'X', pixKey: '@' }, 'body.pixKey'],
      [{ branch: other._id }, 'body.branch'],
    ] as const) {
      const bad = await call('PUT', url, team.admin.headers, payload);
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await pdvsOf(team, b._id)).toEqual(before);
    // The PDV must be in the branch of the path.
    expect((await call('PUT', `${base(team.slug)}/${other._id}/pdvs/${created._id}`, team.admin.headers, { name: 'X' })).statusCode).toBe(404);
    expect((await call('PUT', `${base(team.slug)}/${b._id}/pdvs/${MISSING}`, team.admin.headers, { name: 'X' })).statusCode).toBe(404);
    expect(await pdvsOf(team, b._id)).toEqual(before);
  });

  it('answers 409 slug_taken for a PDV slug of the tenant, terminal_taken for a terminal of anyone', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const branchA = await createBranch(a);
    const branchB = await createBranch(b);
    const serial = `T-${uniq().toUpperCase().replace(/[^A-Z0-9-]/g, '')}`;
    // B's terminal, registered through the service as the factories do.
    await makePdv(t.app, b.tenant, { terminal: serial });
    const pdv = (await call('POST', `${base(a.slug)}/${branchA._id}/pdvs`, a.admin.headers, { name: 'Caixa', slug: `cx-${uniq()}` })).json();

    const taken = await call('POST', `${base(a.slug)}/${branchA._id}/pdvs`, a.admin.headers, { name: 'Outro', slug: `o-${uniq()}`, gatewayATerminalSerial: serial });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('terminal_taken');
    expect(taken.body).not.toContain(b.slug);
    expect(taken.body).not.toContain(b.tenant._id);
    const takenOnUpdate = await call('PUT', `${base(a.slug)}/${branchA._id}/pdvs/${pdv._id}`, a.admin.headers, { gatewayATerminalSerial: serial });
    expect(takenOnUpdate.statusCode).toBe(409);
    expect(takenOnUpdate.json().code).toBe('terminal_taken');

    const dupSlug = await call('POST', `${base(a.slug)}/${branchA._id}/pdvs`, a.admin.headers, { name: 'Outro', slug: pdv.slug });
    expect(dupSlug.statusCode).toBe(409);
    expect(dupSlug.json().code).toBe('slug_taken');
    const second = (await call('POST', `${base(a.slug)}/${branchA._id}/pdvs`, a.admin.headers, { name: 'Dois', slug: `d-${uniq()}` })).json();
    const dupOnUpdate = await call('PUT', `${base(a.slug)}/${branchA._id}/pdvs/${second._id}`, a.admin.headers, { slug: pdv.slug });
    expect(dupOnUpdate.statusCode).toBe(409);
    expect(dupOnUpdate.json().code).toBe('slug_taken');
    expect((await pdvsOf(a, branchA._id)).map((p) => [p.slug, p.gatewayATerminalSerial])).toEqual(
      [
        [pdv.slug, null],
        [second.slug, null],
      ].sort(),
    );
    // The same slug in another tenant is fine; a freed terminal may move.
    expect((await call('POST', `${base(b.slug)}/${branchB._id}/pdvs`, b.admin.headers, { name: 'Caixa', slug: pdv.slug })).statusCode).toBe(201);
    const fresh = `T-${uniq().toUpperCase().replace(/[^A-Z0-9-]/g, '')}`;
    await call('PUT', `${base(a.slug)}/${branchA._id}/pdvs/${pdv._id}`, a.admin.headers, { gatewayATerminalSerial: fresh });
    await call('PUT', `${base(a.slug)}/${branchA._id}/pdvs/${pdv._id}`, a.admin.headers, { gatewayATerminalSerial: null });
    expect((await call('PUT', `${base(a.slug)}/${branchA._id}/pdvs/${second._id}`, a.admin.headers, { gatewayATerminalSerial: fresh })).statusCode).toBe(200);
  });

  it('lets the branch’s manager manage its PDVs, not another branch’s', async () => {
    const team = await makeTenantWithTeam(t.app);
    const mine = await createBranch(team);
    const theirs = await createBranch(team);
    const manager = await managerOf(team, [mine._id]);
    const created = await call('POST', `${base(team.slug)}/${mine._id}/pdvs`, manager.headers, { name: 'Caixa', slug: `cx-${uniq()}` });
    expect(created.statusCode).toBe(201);
    const updated = await call('PUT', `${base(team.slug)}/${mine._id}/pdvs/${created.json()._id}`, manager.headers, { active: false });
    expect(updated.json().active).toBe(false);
    const foreign = (await call('POST', `${base(team.slug)}/${theirs._id}/pdvs`, team.admin.headers, { name: 'Outro', slug: `o-${uniq()}` })).json();
    const before = await pdvsOf(team, theirs._id);
    const res = await call('PUT', `${base(team.slug)}/${theirs._id}/pdvs/${foreign._id}`, manager.headers, { active: false });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('branch_scope');
    // Through their own branch's path, the other branch's PDV is not there.
    expect((await call('PUT', `${base(team.slug)}/${mine._id}/pdvs/${foreign._id}`, manager.headers, { active: false })).statusCode).toBe(404);
    expect(await pdvsOf(team, theirs._id)).toEqual(before);
  });
});

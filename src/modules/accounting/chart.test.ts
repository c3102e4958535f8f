import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam, type TestUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { DEFAULT_ACCOUNTS } from './chart.defaults.js';

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  sa = await makeSuperadmin(t.app);
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
type Method = 'GET' | 'POST' | 'DELETE';
type Account = {
  _id: string;
  code: string;
  name: string;
  nature: string;
  type: string;
  normalBalance: string;
  parent: string | null;
  dreGroup: string | null;
  tenant: string | null;
  active: boolean;
};
const MISSING = 'ffffffffffffffffffffffff';

const call = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
const base = (slug: string) => `/t/${slug}/accounting/chart`;
const fieldsOf = (res: { json(): { details?: { field: string }[] } }) => (res.json().details ?? []).map((d) => d.field);

async function seed(team: Team) {
  const res = await call('POST', `${base(team.slug)}/seed/defaults`, sa.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { created: number; existing: number; total: number };
}
async function chart(team: Team): Promise<Account[]> {
  const res = await call('GET', base(team.slug), team.admin.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const byCode = (list: Account[], code: string) => list.find((a) => a.code === code && a.tenant === null)!;
async function create(team: Team, body: Record<string, unknown>) {
  const res = await call('POST', base(team.slug), team.admin.headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Account;
}

describe('the system chart seed', () => {
  it('loads the default restaurant chart once (superadmin only); a second run and a run at once add nothing', async () => {
    const team = await makeTenantWithTeam(t.app);
    // Admin, accountant, staff: 403; no token: 401. Nothing is loaded by them.
    for (const headers of [team.admin.headers, team.accountant.headers, team.staff.headers]) {
      const res = await call('POST', `${base(team.slug)}/seed/defaults`, headers);
      expect(res.statusCode).toBe(403);
    }
    expect((await call('POST', `${base(team.slug)}/seed/defaults`)).statusCode).toBe(401);
    expect(await chart(team)).toEqual([]);

    const [first, second] = await Promise.all([seed(team), seed(team)]);
    expect(first.created + second.created).toBe(DEFAULT_ACCOUNTS.length);
    expect(first.total).toBe(DEFAULT_ACCOUNTS.length);
    expect(DEFAULT_ACCOUNTS.length).toBeGreaterThanOrEqual(40);
    expect(await seed(team)).toEqual({ created: 0, existing: DEFAULT_ACCOUNTS.length, total: DEFAULT_ACCOUNTS.length });

    const list = await chart(team);
    expect(list).toHaveLength(DEFAULT_ACCOUNTS.length);
    expect(list.every((a) => a.tenant === null && a.active)).toBe(true);
    // In code order, numerically (6.2 before 6.10).
    const codes = list.map((a) => a.code);
    expect(codes.slice(0, 4)).toEqual(['1', '1.1', '1.1.01', '1.1.02']);
    expect(codes.indexOf('6.2')).toBeLessThan(codes.indexOf('6.10'));
    expect(codes.at(-1)).toBe('6.13');
    // The tree: every parent is a synthetic account of the same nature whose code prefixes the child's.
    const ids = new Map(list.map((a) => [a._id, a]));
    for (const a of list) {
      if (a.parent === null) {
        expect(a.code).toMatch(/^\d$/);
        continue;
      }
      const parent = ids.get(a.parent)!;
      expect(parent.type).toBe('sintetica');
      expect(parent.nature).toBe(a.nature);
      expect(a.code.startsWith(`${parent.code}.`)).toBe(true);
    }
    expect(byCode(list, '1.1.01')).toMatchObject({ name: 'Caixa', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: byCode(list, '1.1')._id });
    expect(byCode(list, '1.2.02')).toMatchObject({ name: 'Depreciação acumulada', nature: 'ativo', normalBalance: 'credit' });
    expect(byCode(list, '2.1.03.01')).toMatchObject({ name: 'ICMS a recolher', parent: byCode(list, '2.1.03')._id, type: 'analitica' });
    expect(byCode(list, '4.1')).toMatchObject({ nature: 'receita', normalBalance: 'credit', dreGroup: 'revenue' });
    expect(byCode(list, '4.3')).toMatchObject({ name: 'Descontos concedidos', normalBalance: 'debit', dreGroup: 'revenue_deduction' });
    expect(byCode(list, '5.1')).toMatchObject({ nature: 'custo', dreGroup: 'cogs' });
    expect(byCode(list, '6.10')).toMatchObject({ name: 'Despesas financeiras', nature: 'despesa', dreGroup: 'financial' });

    // Every tenant sees the same system chart.
    const other = await makeTenantWithTeam(t.app);
    expect(await chart(other)).toEqual(list);
  });
});

describe('tenant accounts', () => {
  it('adds an account under a synthetic parent (system or own), listed after the system chart by code', async () => {
    const team = await makeTenantWithTeam(t.app);
    await seed(team);
    const system = await chart(team);
    const circulante = byCode(system, '1.1');
    const sub = await create(team, { code: '1.1.10', name: 'Vales-refeição a receber', nature: 'ativo', type: 'sintetica', normalBalance: 'debit', parent: circulante._id });
    expect(sub).toEqual({
      _id: expect.any(String),
      code: '1.1.10',
      name: 'Vales-refeição a receber',
      nature: 'ativo',
      type: 'sintetica',
      normalBalance: 'debit',
      parent: circulante._id,
      dreGroup: null,
      tenant: team.tenant._id,
      active: true,
    });
    const leaf2 = await create(team, { code: '1.1.10.2', name: 'Ticket', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: sub._id });
    const leaf1 = await create(team, { code: '1.1.10.1', name: '  Alelo ', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: sub._id, dreGroup: null });
    expect(leaf1.name).toBe('Alelo');
    const root = await create(team, { code: '7', name: 'Contas de compensação', nature: 'ativo', type: 'sintetica', normalBalance: 'debit' });
    expect(root.parent).toBeNull();
    const fee = await create(team, { code: '6.21', name: 'Comissão de delivery', nature: 'despesa', type: 'analitica', normalBalance: 'debit', parent: byCode(system, '6')._id, dreGroup: 'opex' });
    expect(fee.dreGroup).toBe('opex');

    const list = await chart(team);
    expect(list.slice(0, system.length)).toEqual(system);
    expect(list.slice(system.length).map((a) => a.code)).toEqual(['1.1.10', '1.1.10.1', '1.1.10.2', '6.21', '7']);
    expect(list.find((a) => a._id === leaf2._id)!.parent).toBe(sub._id);
    // Another tenant does not see them.
    const other = await makeTenantWithTeam(t.app);
    expect((await chart(other)).filter((a) => a.tenant !== null)).toEqual([]);
  });

  it('keeps codes unique in the tenant across the system chart and its own (409 code_taken), even at once', async () => {
    const team = await makeTenantWithTeam(t.app);
    await seed(team);
    const system = await chart(team);
    const taken = await call('POST', base(team.slug), team.admin.headers, { code: '1.1.01', name: 'Caixa 2', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: byCode(system, '1.1')._id });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('code_taken');
    const body = { code: '8', name: 'Outros', nature: 'ativo', type: 'sintetica', normalBalance: 'debit' };
    const both = await Promise.all([1, 2].map(() => call('POST', base(team.slug), team.admin.headers, body)));
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(both.find((r) => r.statusCode === 409)!.json().code).toBe('code_taken');
    // Another tenant may use the code.
    const other = await makeTenantWithTeam(t.app);
    await create(other, body);
    expect((await chart(team)).filter((a) => a.code === '8')).toHaveLength(1);
  });

  it('refuses a bad account with 400 naming the field, and creates nothing', async () => {
    const team = await makeTenantWithTeam(t.app);
    await seed(team);
    const system = await chart(team);
    const own = await create(team, { code: '9', name: 'Próprio', nature: 'ativo', type: 'sintetica', normalBalance: 'debit' });
    const inactive = await create(team, { code: '9.1', name: 'Inativo', nature: 'ativo', type: 'sintetica', normalBalance: 'debit', parent: own._id });
    expect((await call('DELETE', `${base(team.slug)}/${inactive._id}`, team.admin.headers)).statusCode).toBe(200);
    const other = await makeTenantWithTeam(t.app);
    const foreign = await create(other, { code: '9', name: 'Alheio', nature: 'ativo', type: 'sintetica', normalBalance: 'debit' });
    const ok = { code: '1.1.20', name: 'Conta', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: byCode(system, '1.1')._id };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ok, code: '1.1.x' }, 'body.code'],
      [{ ...ok, code: '1..1' }, 'body.code'],
      [{ ...ok, code: '' }, 'body.code'],
      [{ ...ok, name: '  ' }, 'body.name'],
      [{ ...ok, nature: 'asset' }, 'body.nature'],
      [{ ...ok, type: 'leaf' }, 'body.type'],
      [{ ...ok, normalBalance: 'both' }, 'body.normalBalance'],
      [{ ...ok, dreGroup: 'misc' }, 'body.dreGroup'],
      [{ ...ok, parent: 'nope' }, 'body.parent'],
      [{ ...ok, extra: 1 }, 'body.extra'],
      [{ ...ok, parent: MISSING }, 'body.parent'],
      [{ ...ok, parent: foreign._id, code: '9.5' }, 'body.parent'],
      [{ ...ok, parent: byCode(system, '1.1.01')._id, code: '1.1.01.1' }, 'body.parent'],
      [{ ...ok, parent: inactive._id, code: '9.1.1' }, 'body.parent'],
      [{ ...ok, nature: 'passivo' }, 'body.nature'],
      [{ ...ok, code: '1.2.20' }, 'body.code'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', base(team.slug), team.admin.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(res), JSON.stringify(body)).toEqual([field]);
    }
    expect((await chart(team)).filter((a) => a.tenant !== null).map((a) => a.code)).toEqual(['9', '9.1']);
  });

  it('accepts a normal balance against the nature (contra accounts)', async () => {
    const team = await makeTenantWithTeam(t.app);
    await seed(team);
    const system = await chart(team);
    const contra = await create(team, { code: '4.9', name: 'Cancelamentos de delivery', nature: 'receita', type: 'analitica', normalBalance: 'debit', parent: byCode(system, '4')._id, dreGroup: 'revenue_deduction' });
    expect(contra).toMatchObject({ nature: 'receita', normalBalance: 'debit' });
  });
});

describe('deactivating an account', () => {
  it('soft deletes a tenant account; a system one is 400; one with active children 409; again it stays inactive', async () => {
    const team = await makeTenantWithTeam(t.app);
    await seed(team);
    const system = await chart(team);
    const group = await create(team, { code: '1.1.30', name: 'Grupo', nature: 'ativo', type: 'sintetica', normalBalance: 'debit', parent: byCode(system, '1.1')._id });
    const child = await create(team, { code: '1.1.30.1', name: 'Filha', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: group._id });

    const sys = await call('DELETE', `${base(team.slug)}/${byCode(system, '1.1.01')._id}`, team.admin.headers);
    expect(sys.statusCode).toBe(400);
    expect(sys.json().code).toBe('system_account');
    const parent = await call('DELETE', `${base(team.slug)}/${group._id}`, team.admin.headers);
    expect(parent.statusCode).toBe(409);
    expect(parent.json().code).toBe('account_has_children');

    const gone = await call('DELETE', `${base(team.slug)}/${child._id}`, team.admin.headers);
    expect(gone.statusCode).toBe(200);
    expect(gone.json()).toEqual({ ...child, active: false });
    expect((await call('DELETE', `${base(team.slug)}/${child._id}`, team.admin.headers)).json()).toEqual({ ...child, active: false });
    // Its parent may go now: the inactive child does not hold it.
    expect((await call('DELETE', `${base(team.slug)}/${group._id}`, team.admin.headers)).json().active).toBe(false);
    const list = await chart(team);
    expect(list.filter((a) => a.tenant !== null).map((a) => [a.code, a.active])).toEqual([['1.1.30', false], ['1.1.30.1', false]]);
    expect(list.filter((a) => a.tenant === null).every((a) => a.active)).toBe(true);

    expect((await call('DELETE', `${base(team.slug)}/${MISSING}`, team.admin.headers)).statusCode).toBe(404);
    expect(fieldsOf(await call('DELETE', `${base(team.slug)}/nope`, team.admin.headers))).toEqual(['params.id']);
  });
});

describe('who', () => {
  it('is admin or superadmin: 401 without a token, 403 for the accountant and staff', async () => {
    const team = await makeTenantWithTeam(t.app);
    await seed(team);
    const own = await create(team, { code: '9', name: 'Próprio', nature: 'ativo', type: 'sintetica', normalBalance: 'debit' });
    const requests: [Method, string, object?][] = [
      ['GET', base(team.slug)],
      ['POST', base(team.slug), { code: '10', name: 'X', nature: 'ativo', type: 'sintetica', normalBalance: 'debit' }],
      ['DELETE', `${base(team.slug)}/${own._id}`],
    ];
    for (const [method, url, body] of requests) {
      expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
      for (const who of [team.accountant, team.staff]) {
        const res = await call(method, url, who.headers, body);
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().code).toBe('permission');
      }
    }
    expect((await call('GET', base(team.slug), sa.headers)).statusCode).toBe(200);
    const bySuper = await call('POST', base(team.slug), sa.headers, { code: '11', name: 'Pelo superadmin', nature: 'ativo', type: 'sintetica', normalBalance: 'debit' });
    expect(bySuper.statusCode).toBe(201);
    expect(bySuper.json().tenant).toBe(team.tenant._id);
    expect((await chart(team)).filter((a) => a.tenant !== null).map((a) => [a.code, a.active])).toEqual([['9', true], ['11', true]]);
  });

  it("keeps a tenant's accounts from another tenant (404 through its slug, 403 through the owner's)", async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    await seed(a);
    const own = await create(a, { code: '9', name: 'Próprio', nature: 'ativo', type: 'sintetica', normalBalance: 'debit' });
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: a.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [{ method: 'DELETE', path: `/t/:slug/accounting/chart/${own._id}` }],
      snapshot: () => chart(a),
    });
    // As a parent, another tenant's account does not exist (400 on parent, nothing created).
    const res = await call('POST', base(b.slug), b.admin.headers, { code: '9.1', name: 'X', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: own._id });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res)).toEqual(['body.parent']);
  });
});

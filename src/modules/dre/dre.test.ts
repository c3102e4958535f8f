import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam, type TestUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import type { ExpenseChange } from './dre.service.js';

/** Expense categories, cost centers and operating expenses over HTTP (spec 4.12, 7, 8). */
let t: TestApp;
let sa: TestUser;
const changes: { kind: string; amountCents: number; before?: number }[] = [];
let failNext = false;
beforeAll(async () => {
  t = await createTestApp();
  sa = await makeSuperadmin(t.app);
  t.app.services.dre.onExpenseChange(async (tx, change: ExpenseChange) => {
    // Inside the change's transaction: the row is visible there as written.
    const seen = await t.app.services.dre.listExpenses(tx, {});
    expect(seen.items.some((e) => e._id === change.expense.id)).toBe(change.kind !== 'deleted');
    if (failNext) {
      failNext = false;
      throw new Error('the books refused it');
    }
    changes.push({ kind: change.kind, amountCents: change.expense.amountCents, ...(change.before ? { before: change.before.amountCents } : {}) });
  });
});
afterAll(() => t.close());

type H = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
function ok<T = Record<string, unknown>>(res: { statusCode: number; body: string; json: () => unknown }, status = 200): T {
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as T;
}
function fails(res: { statusCode: number; body: string; json: () => unknown }, status: number, code?: string) {
  expect(res.statusCode, res.body).toBe(status);
  if (code) expect((res.json() as { code: string }).code).toBe(code);
  return res.json() as { message: string; code: string };
}

const RENT = '5eedca7e0000000000000005';
const REVENUE = '5eedca7e0000000000000001';
type Category = { _id: string; code: string; name: string; dreGroup: string; active: boolean; tenant: string | null };
type Center = { _id: string; code: string; name: string; active: boolean };
type Expense = {
  _id: string;
  description: string;
  amount: number;
  competenceDate: string;
  category: { _id: string; name: string; dreGroup: string };
  costCenter: { _id: string; code: string; name: string } | null;
  receiptUrl: string | null;
};
type Page = { items: Expense[]; total: number; page: number; limit: number; pages: number };

async function team() {
  const tm = await makeTenantWithTeam(t.app);
  const base = `/t/${tm.slug}/dre`;
  return { ...tm, base, h: tm.admin.headers };
}

describe('guards', () => {
  it('every route: 401 without a token, 403 to staff and the accountant; the superadmin passes', async () => {
    const tm = await team();
    const id = 'a'.repeat(24);
    const routes: [Method, string, object?][] = [
      ['GET', `${tm.base}?year=2030&month=1`],
      ['GET', `${tm.base}/expenses`],
      ['POST', `${tm.base}/expenses`, { description: 'x', amount: 1, competenceDate: '2030-01-01', categoryId: RENT }],
      ['PUT', `${tm.base}/expenses/${id}`, { amount: 2 }],
      ['DELETE', `${tm.base}/expenses/${id}`],
      ['GET', `${tm.base}/categories`],
      ['POST', `${tm.base}/categories`, { code: 'X1', name: 'X', dreGroup: 'opex' }],
      ['DELETE', `${tm.base}/categories/${id}`],
      ['GET', `${tm.base}/cost-centers`],
      ['POST', `${tm.base}/cost-centers`, { code: 'X1', name: 'X' }],
      ['DELETE', `${tm.base}/cost-centers/${id}`],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, tm.staff.headers, body)).statusCode, `${method} ${url}`).toBe(403);
      expect((await call(method, url, tm.accountant.headers, body)).statusCode, `${method} ${url}`).toBe(403);
    }
    expect((await call('GET', `${tm.base}/categories`, sa.headers)).statusCode).toBe(200);
    ok(await call('POST', `${tm.base}/cost-centers`, sa.headers, { code: 'SA', name: 'Pela plataforma' }), 201);
    ok(await call('GET', `${tm.base}?year=2030&month=1`, sa.headers));
  });
});

describe('categories', () => {
  it('lists the system categories (tenant null) by code, then the tenant’s', async () => {
    const tm = await team();
    const mine = ok<Category>(await call('POST', `${tm.base}/categories`, tm.h, { code: 'opex-delivery', name: 'Apps de delivery', dreGroup: 'opex' }), 201);
    expect(mine).toEqual({ _id: mine._id, code: 'OPEX-DELIVERY', name: 'Apps de delivery', dreGroup: 'opex', active: true, tenant: tm.tenant._id });
    const list = ok<Category[]>(await call('GET', `${tm.base}/categories`, tm.h));
    const system = list.filter((c) => c.tenant === null);
    expect(system.length).toBe(15);
    expect(system.map((c) => c.code)).toEqual([...system.map((c) => c.code)].sort());
    expect(new Set(system.map((c) => c.dreGroup))).toEqual(new Set(['revenue', 'revenue_deduction', 'cogs', 'opex', 'da', 'financial']));
    expect(system.find((c) => c._id === RENT)).toEqual({ _id: RENT, code: 'OPEX-ALUGUEL', name: 'Aluguel e condomínio', dreGroup: 'opex', active: true, tenant: null });
    expect(list.slice(system.length)).toEqual([mine]);
    // Another tenant sees the system ones and not this one.
    const other = await team();
    expect(ok<Category[]>(await call('GET', `${other.base}/categories`, other.h)).map((c) => c._id)).not.toContain(mine._id);
  });

  it('409 for a code the tenant or the system has (any case); the same code in another tenant is fine', async () => {
    const tm = await team();
    ok(await call('POST', `${tm.base}/categories`, tm.h, { code: 'MKT-2', name: 'Marketing 2', dreGroup: 'opex' }), 201);
    fails(await call('POST', `${tm.base}/categories`, tm.h, { code: 'mkt-2', name: 'Outro', dreGroup: 'cogs' }), 409, 'category_code_taken');
    fails(await call('POST', `${tm.base}/categories`, tm.h, { code: 'opex-aluguel', name: 'Aluguel', dreGroup: 'opex' }), 409, 'category_code_taken');
    const other = await team();
    ok(await call('POST', `${other.base}/categories`, other.h, { code: 'MKT-2', name: 'Marketing 2', dreGroup: 'opex' }), 201);
  });

  it('400 for a missing field, a bad code, `revenue` or another group, an unknown field', async () => {
    const tm = await team();
    const bad: object[] = [
      { name: 'X', dreGroup: 'opex' },
      { code: 'X', dreGroup: 'opex' },
      { code: 'X', name: 'X' },
      { code: 'com espaço', name: 'X', dreGroup: 'opex' },
      { code: '', name: 'X', dreGroup: 'opex' },
      { code: 'X', name: '   ', dreGroup: 'opex' },
      { code: 'X', name: 'X', dreGroup: 'revenue' },
      { code: 'X', name: 'X', dreGroup: 'salaries' },
      { code: 'X', name: 'X', dreGroup: 'opex', tenant: null },
    ];
    for (const body of bad) fails(await call('POST', `${tm.base}/categories`, tm.h, body), 400);
    expect(ok<Category[]>(await call('GET', `${tm.base}/categories`, tm.h)).filter((c) => c.tenant)).toEqual([]);
  });

  it('delete: a system category is 400, one with expenses 409, another tenant’s 404; else it is removed', async () => {
    const tm = await team();
    const res = fails(await call('DELETE', `${tm.base}/categories/${RENT}`, tm.h), 400, 'system_category');
    expect(res.message).toContain('OPEX-ALUGUEL');
    const cat = ok<Category>(await call('POST', `${tm.base}/categories`, tm.h, { code: 'EMB', name: 'Embalagens', dreGroup: 'cogs' }), 201);
    const e = ok<Expense>(await call('POST', `${tm.base}/expenses`, tm.h, { description: 'Caixas', amount: 12.5, competenceDate: '2030-01-05', categoryId: cat._id }), 201);
    fails(await call('DELETE', `${tm.base}/categories/${cat._id}`, tm.h), 409, 'category_in_use');
    const other = await team();
    fails(await call('DELETE', `${other.base}/categories/${cat._id}`, other.h), 404);
    ok(await call('DELETE', `${tm.base}/expenses/${e._id}`, tm.h));
    expect(ok(await call('DELETE', `${tm.base}/categories/${cat._id}`, tm.h))).toEqual({ deleted: true });
    expect(ok<Category[]>(await call('GET', `${tm.base}/categories`, tm.h)).some((c) => c._id === cat._id)).toBe(false);
    fails(await call('DELETE', `${tm.base}/categories/${cat._id}`, tm.h), 404);
    fails(await call('DELETE', `${tm.base}/categories/not-an-id`, tm.h), 400);
  });
});

describe('cost centers', () => {
  it('creates (code upper case, unique: 409), lists by code, 400 on bad input', async () => {
    const tm = await team();
    const b = ok<Center>(await call('POST', `${tm.base}/cost-centers`, tm.h, { code: 'salao', name: 'Salão' }), 201);
    expect(b).toEqual({ _id: b._id, code: 'SALAO', name: 'Salão', active: true });
    const a = ok<Center>(await call('POST', `${tm.base}/cost-centers`, tm.h, { code: 'COZINHA', name: 'Cozinha' }), 201);
    fails(await call('POST', `${tm.base}/cost-centers`, tm.h, { code: 'Salao', name: 'Outro' }), 409, 'cost_center_code_taken');
    for (const body of [{ code: 'X' }, { name: 'X' }, { code: 'a b', name: 'X' }, { code: 'X', name: 'X', active: false }, { code: 'X'.repeat(31), name: 'X' }]) {
      fails(await call('POST', `${tm.base}/cost-centers`, tm.h, body), 400);
    }
    expect(ok<Center[]>(await call('GET', `${tm.base}/cost-centers`, tm.h))).toEqual([a, b]);
  });

  it('delete: removed when no expense names it; deactivated (kept, no new expenses) when one does; 404 for another tenant’s', async () => {
    const tm = await team();
    const free = ok<Center>(await call('POST', `${tm.base}/cost-centers`, tm.h, { code: 'LIVRE', name: 'Livre' }), 201);
    const used = ok<Center>(await call('POST', `${tm.base}/cost-centers`, tm.h, { code: 'USADO', name: 'Usado' }), 201);
    const e = ok<Expense>(
      await call('POST', `${tm.base}/expenses`, tm.h, { description: 'Aluguel', amount: 100, competenceDate: '2030-02-01', categoryId: RENT, costCenterId: used._id }),
      201,
    );
    const other = await team();
    fails(await call('DELETE', `${other.base}/cost-centers/${used._id}`, other.h), 404);
    expect(ok(await call('DELETE', `${tm.base}/cost-centers/${free._id}`, tm.h))).toEqual({ deleted: true, deactivated: false });
    expect(ok(await call('DELETE', `${tm.base}/cost-centers/${used._id}`, tm.h))).toEqual({ deleted: true, deactivated: true });
    expect(ok<Center[]>(await call('GET', `${tm.base}/cost-centers`, tm.h))).toEqual([{ ...used, active: false }]);
    // The expense keeps it; a new expense cannot take it; its code stays taken.
    expect(ok<Page>(await call('GET', `${tm.base}/expenses`, tm.h)).items[0]).toMatchObject({ _id: e._id, costCenter: { _id: used._id, code: 'USADO' } });
    const refused = fails(
      await call('POST', `${tm.base}/expenses`, tm.h, { description: 'Luz', amount: 1, competenceDate: '2030-02-01', categoryId: RENT, costCenterId: used._id }),
      400,
    );
    expect(refused.message).toContain('body.costCenterId');
    fails(await call('POST', `${tm.base}/cost-centers`, tm.h, { code: 'USADO', name: 'De novo' }), 409, 'cost_center_code_taken');
    // Its other fields can still change while it stays on the expense; deleting it again answers the same.
    ok(await call('PUT', `${tm.base}/expenses/${e._id}`, tm.h, { amount: 101 }));
    expect(ok(await call('DELETE', `${tm.base}/cost-centers/${used._id}`, tm.h))).toEqual({ deleted: true, deactivated: true });
  });
});

describe('expenses', () => {
  it('creates one (amount in currency units, cents inside; YYYY-MM is the first day), and the listener runs in its transaction', async () => {
    const tm = await team();
    const center = ok<Center>(await call('POST', `${tm.base}/cost-centers`, tm.h, { code: 'ADM', name: 'Administrativo' }), 201);
    changes.length = 0;
    const e = ok<Expense>(
      await call('POST', `${tm.base}/expenses`, tm.h, {
        description: ' Aluguel de janeiro ',
        amount: 1234.56,
        competenceDate: '2030-01',
        categoryId: RENT,
        costCenterId: center._id,
        receiptUrl: 'https://files.example.com/recibo.pdf',
      }),
      201,
    );
    expect(e).toMatchObject({
      description: 'Aluguel de janeiro',
      amount: 1234.56,
      competenceDate: '2030-01-01',
      category: { _id: RENT, name: 'Aluguel e condomínio', dreGroup: 'opex' },
      costCenter: { _id: center._id, code: 'ADM', name: 'Administrativo' },
      receiptUrl: 'https://files.example.com/recibo.pdf',
    });
    expect(changes).toEqual([{ kind: 'created', amountCents: 123456 }]);

    const upd = ok<Expense>(await call('PUT', `${tm.base}/expenses/${e._id}`, tm.h, { amount: 0.1, competenceDate: '2030-01-31', costCenterId: null, receiptUrl: null }));
    expect(upd).toMatchObject({ _id: e._id, description: 'Aluguel de janeiro', amount: 0.1, competenceDate: '2030-01-31', costCenter: null, receiptUrl: null });
    expect(changes[1]).toEqual({ kind: 'updated', amountCents: 10, before: 123456 });

    // A listener that throws rolls the change back.
    failNext = true;
    expect((await call('PUT', `${tm.base}/expenses/${e._id}`, tm.h, { amount: 99 })).statusCode).toBe(500);
    expect(ok<Page>(await call('GET', `${tm.base}/expenses`, tm.h)).items[0]!.amount).toBe(0.1);

    expect(ok(await call('DELETE', `${tm.base}/expenses/${e._id}`, tm.h))).toEqual({ deleted: true });
    expect(changes[2]).toEqual({ kind: 'deleted', amountCents: 10 });
    fails(await call('DELETE', `${tm.base}/expenses/${e._id}`, tm.h), 404);
    expect(ok<Page>(await call('GET', `${tm.base}/expenses`, tm.h)).total).toBe(0);
  });

  it('400 on bad input, and nothing is written', async () => {
    const tm = await team();
    const other = await team();
    const foreignCat = ok<Category>(await call('POST', `${other.base}/categories`, other.h, { code: 'F', name: 'F', dreGroup: 'opex' }), 201);
    const foreignCenter = ok<Center>(await call('POST', `${other.base}/cost-centers`, other.h, { code: 'F', name: 'F' }), 201);
    const good = { description: 'Luz', amount: 10, competenceDate: '2030-03-05', categoryId: RENT };
    const bad: [object, string][] = [
      [{ ...good, amount: 0 }, 'body.amount'],
      [{ ...good, amount: -5 }, 'body.amount'],
      [{ ...good, amount: 1.234 }, 'body.amount'],
      [{ ...good, amount: '10' }, 'body.amount'],
      [{ ...good, amount: 1e11 }, 'body.amount'],
      [{ ...good, competenceDate: '2030-02-30' }, 'body.competenceDate'],
      [{ ...good, competenceDate: '2030-13' }, 'body.competenceDate'],
      [{ ...good, competenceDate: '1999-12-31' }, 'body.competenceDate'],
      [{ ...good, competenceDate: '05/03/2030' }, 'body.competenceDate'],
      [{ ...good, categoryId: foreignCat._id }, 'body.categoryId'],
      [{ ...good, categoryId: 'x' }, 'body.categoryId'],
      [{ ...good, costCenterId: foreignCenter._id }, 'body.costCenterId'],
      [{ ...good, receiptUrl: 'ftp://files.example.com/a.pdf' }, 'body.receiptUrl'],
      [{ ...good, receiptUrl: 'not a url' }, 'body.receiptUrl'],
      [{ ...good, description: '  ' }, 'body.description'],
      [{ ...good, extra: 1 }, 'body.extra'],
      [{ amount: 10, competenceDate: '2030-03-05', categoryId: RENT }, 'description'],
    ];
    for (const [body, field] of bad) expect(fails(await call('POST', `${tm.base}/expenses`, tm.h, body), 400).message, JSON.stringify(body)).toContain(field);
    expect(ok<Page>(await call('GET', `${tm.base}/expenses`, tm.h)).total).toBe(0);
    const e = ok<Expense>(await call('POST', `${tm.base}/expenses`, tm.h, good), 201);
    for (const body of [{ amount: 0.001 }, { categoryId: foreignCat._id }, { competenceDate: '2030-04-31' }, { description: null }, { costCenterId: foreignCenter._id }]) {
      fails(await call('PUT', `${tm.base}/expenses/${e._id}`, tm.h, body), 400);
    }
    expect(ok<Page>(await call('GET', `${tm.base}/expenses`, tm.h)).items).toEqual([e]);
  });

  it('books on a system `revenue` category (other revenue) and on the tenant’s categories', async () => {
    const tm = await team();
    const cat = ok<Category>(await call('POST', `${tm.base}/categories`, tm.h, { code: 'JUROS-2', name: 'Juros de empréstimo', dreGroup: 'financial' }), 201);
    ok(await call('POST', `${tm.base}/expenses`, tm.h, { description: 'Evento', amount: 500, competenceDate: '2030-03-01', categoryId: REVENUE }), 201);
    const e = ok<Expense>(await call('POST', `${tm.base}/expenses`, tm.h, { description: 'Juros', amount: 12.34, competenceDate: '2030-03-01', categoryId: cat._id }), 201);
    expect(e.category).toEqual({ _id: cat._id, name: 'Juros de empréstimo', dreGroup: 'financial' });
    const moved = ok<Expense>(await call('PUT', `${tm.base}/expenses/${e._id}`, tm.h, { categoryId: RENT, description: 'Aluguel' }));
    expect(moved).toMatchObject({ description: 'Aluguel', amount: 12.34, category: { _id: RENT, dreGroup: 'opex' } });
  });

  it('pages (default 1 and 20, at most 100), newest competence first, filtered by month, day and category', async () => {
    const tm = await team();
    const cat = ok<Category>(await call('POST', `${tm.base}/categories`, tm.h, { code: 'GAS-2', name: 'Gás 2', dreGroup: 'opex' }), 201);
    // 25 in March (day 1..25), 3 in April on the tenant category.
    for (let d = 1; d <= 25; d++) {
      ok(await call('POST', `${tm.base}/expenses`, tm.h, { description: `M${d}`, amount: d, competenceDate: `2030-03-${String(d).padStart(2, '0')}`, categoryId: RENT }), 201);
    }
    for (let d = 1; d <= 3; d++) ok(await call('POST', `${tm.base}/expenses`, tm.h, { description: `A${d}`, amount: 1, competenceDate: `2030-04-0${d}`, categoryId: cat._id }), 201);

    const first = ok<Page>(await call('GET', `${tm.base}/expenses`, tm.h));
    const { items: firstItems, ...firstMeta } = first;
    expect({ ...firstMeta, n: firstItems.length }).toEqual({ total: 28, page: 1, limit: 20, pages: 2, n: 20 });
    expect(first.items.slice(0, 4).map((e) => e.description)).toEqual(['A3', 'A2', 'A1', 'M25']);
    const second = ok<Page>(await call('GET', `${tm.base}/expenses?page=2`, tm.h));
    expect(second.items.map((e) => e.description)).toEqual(['M8', 'M7', 'M6', 'M5', 'M4', 'M3', 'M2', 'M1']);
    expect(ok<Page>(await call('GET', `${tm.base}/expenses?page=9`, tm.h))).toMatchObject({ items: [], total: 28, page: 9, pages: 2 });

    const march = ok<Page>(await call('GET', `${tm.base}/expenses?competenceDate=2030-03&limit=100`, tm.h));
    expect({ total: march.total, pages: march.pages, n: march.items.length }).toEqual({ total: 25, pages: 1, n: 25 });
    expect(ok<Page>(await call('GET', `${tm.base}/expenses?competenceDate=2030-03-07`, tm.h)).items.map((e) => e.description)).toEqual(['M7']);
    const byCat = ok<Page>(await call('GET', `${tm.base}/expenses?categoryId=${cat._id}&limit=2`, tm.h));
    expect({ total: byCat.total, pages: byCat.pages, d: byCat.items.map((e) => e.description) }).toEqual({ total: 3, pages: 2, d: ['A3', 'A2'] });
    expect(ok<Page>(await call('GET', `${tm.base}/expenses?categoryId=${cat._id}&competenceDate=2030-03`, tm.h)).total).toBe(0);

    for (const q of ['page=0', 'limit=0', 'limit=101', 'competenceDate=2030-3', 'competenceDate=2030-02-30', 'categoryId=xyz', 'page=abc']) {
      fails(await call('GET', `${tm.base}/expenses?${q}`, tm.h), 400);
    }
    const other = await team();
    fails(await call('GET', `${other.base}/expenses?categoryId=${cat._id}`, other.h), 404);
  });
});

describe('tenant isolation', () => {
  it('another tenant’s expense, category and cost center are 404 through its own slug and 403 through the owner’s, unchanged', async () => {
    const owner = await team();
    const outsider = await team();
    const cat = ok<Category>(await call('POST', `${owner.base}/categories`, owner.h, { code: 'ISO', name: 'Iso', dreGroup: 'opex' }), 201);
    const center = ok<Center>(await call('POST', `${owner.base}/cost-centers`, owner.h, { code: 'ISO', name: 'Iso' }), 201);
    const e = ok<Expense>(await call('POST', `${owner.base}/expenses`, owner.h, { description: 'Iso', amount: 5, competenceDate: '2030-05-05', categoryId: cat._id }), 201);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.h },
      requests: [
        { method: 'PUT', path: `/t/:slug/dre/expenses/${e._id}`, payload: { amount: 1 } },
        { method: 'DELETE', path: `/t/:slug/dre/expenses/${e._id}` },
        { method: 'DELETE', path: `/t/:slug/dre/categories/${cat._id}` },
        { method: 'DELETE', path: `/t/:slug/dre/cost-centers/${center._id}` },
        { method: 'GET', path: `/t/:slug/dre?year=2030&month=5&costCenterId=${center._id}` },
      ],
      snapshot: async () => [
        ok(await call('GET', `${owner.base}/expenses`, owner.h)),
        ok(await call('GET', `${owner.base}/categories`, owner.h)),
        ok(await call('GET', `${owner.base}/cost-centers`, owner.h)),
      ],
    });
  });
});

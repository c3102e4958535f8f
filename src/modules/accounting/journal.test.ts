import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeTenantWithTeam, type TestUser, seedDefaultChart } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { periodClosings } from '../../db/schema/accounting.js';

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  sa = await seedDefaultChart(t.app);
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'DELETE';
type Line = { accountId: string; accountCode: string; accountName: string; debit: number; credit: number; memo: string | null };
type Entry = {
  _id: string;
  entryNumber: string;
  competenceDate: string;
  description: string;
  status: string;
  totalAmount: number;
  lines: Line[];
  reverses: string | null;
  reversedBy: string | null;
  reversalReason: string | null;
  createdAt: string;
  postedAt: string | null;
};
type Page = { data: Entry[]; total: number; page: number; totalPages: number };
const MISSING = 'ffffffffffffffffffffffff';

const call = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
const fieldsOf = (res: { json(): { details?: { field: string }[] } }) => (res.json().details ?? []).map((d) => d.field);
const journal = (slug: string) => `/t/${slug}/accounting/journal`;

/** A tenant with the system chart's ids by code, an analytic account of its own and a synthetic one. */
async function books() {
  const team = await makeTenantWithTeam(t.app);
  const chart = (await call('GET', `/t/${team.slug}/accounting/chart`, team.admin.headers)).json() as { _id: string; code: string }[];
  const id = (code: string) => chart.find((a) => a.code === code)!._id;
  const add = async (body: object) => {
    const res = await call('POST', `/t/${team.slug}/accounting/chart`, team.admin.headers, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json()._id as string;
  };
  const tip = await add({ code: '2.1.09', name: 'Gorjetas a repassar', nature: 'passivo', type: 'analitica', normalBalance: 'credit', parent: id('2.1') });
  return { ...team, caixa: id('1.1.01'), bancos: id('1.1.02'), vendas: id('4.1'), aluguel: id('6.1'), circulante: id('1.1'), tip, add };
}
type Books = Awaited<ReturnType<typeof books>>;

const sale = (b: Books, amount: number, date = '2026-03-10') => ({
  competenceDate: date,
  description: 'Venda do dia',
  lines: [
    { accountId: b.caixa, debit: amount, memo: 'gaveta' },
    { accountId: b.vendas, credit: amount },
  ],
});
async function create(b: Books, body: object = sale(b, 100)): Promise<Entry> {
  const res = await call('POST', journal(b.slug), b.admin.headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
async function post(b: Books, id: string): Promise<Entry> {
  const res = await call('POST', `${journal(b.slug)}/${id}/post`, b.admin.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
async function list(b: Books, query = ''): Promise<Page> {
  const res = await call('GET', `${journal(b.slug)}${query}`, b.admin.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
/** Closes a month directly in the table (the close route belongs to the ledger part). */
const closeMonth = (b: Books, year: number, month: number) =>
  t.app.deps.tenantDb(b.tenant._id).run((tx) =>
    tx.db.insert(periodClosings).values({ tenantId: tx.tenantId, year, month, status: 'closed', trialBalanceSnapshot: [], closedAt: new Date() }),
  );
/** Per account, posted debits minus credits in cents (what the ledger reads: posted entries only). */
async function postedBalances(b: Books) {
  const all = await list(b, '?status=posted&limit=100');
  const sums = new Map<string, number>();
  for (const e of all.data) {
    for (const l of e.lines) sums.set(l.accountCode, (sums.get(l.accountCode) ?? 0) + Math.round(l.debit * 100) - Math.round(l.credit * 100));
  }
  return sums;
}

describe('creating an entry', () => {
  it('makes a balanced draft with its number, its lines as the chart names them, amounts in currency units', async () => {
    const b = await books();
    const body = {
      competenceDate: '2026-03-10',
      description: '  Venda do dia com gorjeta ',
      lines: [
        { accountId: b.caixa, debit: 110.1, memo: 'gaveta' },
        { accountId: b.vendas, credit: 100.07, debit: 0 },
        { accountId: b.tip, credit: 10.03, memo: null },
      ],
    };
    const entry = await create(b, body);
    expect(entry).toEqual({
      _id: expect.any(String),
      entryNumber: 'JE-2026-00001',
      competenceDate: '2026-03-10',
      description: 'Venda do dia com gorjeta',
      status: 'draft',
      totalAmount: 110.1,
      lines: [
        { accountId: b.caixa, accountCode: '1.1.01', accountName: 'Caixa', debit: 110.1, credit: 0, memo: 'gaveta' },
        { accountId: b.vendas, accountCode: '4.1', accountName: 'Receita de vendas', debit: 0, credit: 100.07, memo: null },
        { accountId: b.tip, accountCode: '2.1.09', accountName: 'Gorjetas a repassar', debit: 0, credit: 10.03, memo: null },
      ],
      reverses: null,
      reversedBy: null,
      reversalReason: null,
      source: null,
      createdAt: expect.any(String),
      postedAt: null,
    });
    // The next one of the year follows; another year has its own counter.
    expect((await create(b)).entryNumber).toBe('JE-2026-00002');
    expect((await create(b, sale(b, 5, '2025-12-31'))).entryNumber).toBe('JE-2025-00001');
    expect((await create(b)).entryNumber).toBe('JE-2026-00003');
    expect((await list(b)).data.find((e) => e._id === entry._id)).toEqual(entry);
  });

  it('gives 10 entries made at once 10 distinct numbers', async () => {
    const b = await books();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => call('POST', journal(b.slug), b.admin.headers, sale(b, i + 1))));
    expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
    const numbers = results.map((r) => r.json().entryNumber as string).sort();
    expect(numbers).toEqual(Array.from({ length: 10 }, (_, i) => `JE-2026-${String(i + 1).padStart(5, '0')}`));
    expect((await list(b)).total).toBe(10);
  });

  it('refuses a bad entry with 400 naming the fields, and writes nothing', async () => {
    const b = await books();
    const other = await books();
    const inactive = await b.add({ code: '6.20', name: 'Velha', nature: 'despesa', type: 'analitica', normalBalance: 'debit', parent: (await call('GET', `/t/${b.slug}/accounting/chart`, b.admin.headers)).json().find((a: { code: string }) => a.code === '6')._id });
    expect((await call('DELETE', `/t/${b.slug}/accounting/chart/${inactive}`, b.admin.headers)).statusCode).toBe(200);
    const ok = sale(b, 50);
    const withLines = (lines: object[]) => ({ ...ok, lines });
    const cases: [object, string[]][] = [
      [withLines([{ accountId: b.caixa, debit: 50 }]), ['body.lines']],
      [withLines([{ accountId: b.caixa, debit: 50, credit: 50 }, { accountId: b.vendas, credit: 0, debit: 0 }]), ['body.lines.0', 'body.lines.1']],
      [withLines([{ accountId: b.caixa, debit: 50.001 }, { accountId: b.vendas, credit: 50.001 }]), ['body.lines.0.debit', 'body.lines.1.credit']],
      [withLines([{ accountId: b.caixa, debit: 50 }, { accountId: b.vendas, credit: 49.99 }]), ['body.lines']],
      [withLines([{ accountId: b.caixa, debit: -50 }, { accountId: b.vendas, credit: 50 }]), ['body.lines.0.debit']],
      [withLines([{ accountId: b.caixa, debit: 50 }, { accountId: b.vendas, credit: '50' }]), ['body.lines.1.credit']],
      [withLines([{ accountId: b.circulante, debit: 50 }, { accountId: b.vendas, credit: 50 }]), ['body.lines.0.accountId']],
      [withLines([{ accountId: b.caixa, debit: 50 }, { accountId: inactive, credit: 50 }]), ['body.lines.1.accountId']],
      [withLines([{ accountId: b.caixa, debit: 50 }, { accountId: other.tip, credit: 50 }]), ['body.lines.1.accountId']],
      [withLines([{ accountId: MISSING, debit: 50 }, { accountId: b.vendas, credit: 50 }]), ['body.lines.0.accountId']],
      [withLines([{ accountId: 'nope', debit: 50 }, { accountId: b.vendas, credit: 50 }]), ['body.lines.0.accountId']],
      [withLines([{ accountId: b.caixa, debit: 50, extra: 1 }, { accountId: b.vendas, credit: 50 }]), ['body.lines.0.extra']],
      [{ ...ok, competenceDate: '2026-02-30' }, ['body.competenceDate']],
      [{ ...ok, competenceDate: '1999-12-31' }, ['body.competenceDate']],
      [{ ...ok, description: ' ' }, ['body.description']],
      [{ ...ok, lines: undefined }, ['body.lines']],
    ];
    for (const [body, fields] of cases) {
      const res = await call('POST', journal(b.slug), b.admin.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(res).sort(), `${JSON.stringify(body)}: ${res.body}`).toEqual(fields);
    }
    const unbalanced = await call('POST', journal(b.slug), b.admin.headers, withLines([{ accountId: b.caixa, debit: 50 }, { accountId: b.vendas, credit: 49.99 }]));
    expect(unbalanced.json()).toMatchObject({ code: 'unbalanced', message: expect.stringContaining('debits 50.00, credits 49.99') });
    expect((await list(b)).total).toBe(0);
    // The counter was not consumed: the first real entry is number 1.
    expect((await create(b)).entryNumber).toBe('JE-2026-00001');
  });

  it('refuses an entry dated in a closed month (409 period_closed naming it)', async () => {
    const b = await books();
    await closeMonth(b, 2026, 2);
    const res = await call('POST', journal(b.slug), b.admin.headers, sale(b, 10, '2026-02-28'));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'period_closed', details: [{ field: 'period', message: '2026-02' }] });
    expect((await create(b, sale(b, 10, '2026-03-01'))).entryNumber).toBe('JE-2026-00001');
  });
});

describe('listing the journal', () => {
  it('pages newest competence date first, filters by status, and checks its query', async () => {
    const b = await books();
    const jan = await create(b, sale(b, 1, '2026-01-15'));
    const mar = await create(b, sale(b, 3, '2026-03-15'));
    const feb = await create(b, sale(b, 2, '2026-02-15'));
    await post(b, feb._id);
    const all = await list(b);
    expect(all).toMatchObject({ total: 3, page: 1, totalPages: 1 });
    expect(all.data.map((e) => e._id)).toEqual([mar._id, feb._id, jan._id]);
    const p2 = await list(b, '?limit=2&page=2');
    expect(p2).toMatchObject({ total: 3, page: 2, totalPages: 2 });
    expect(p2.data.map((e) => e._id)).toEqual([jan._id]);
    expect((await list(b, '?page=9')).data).toEqual([]);
    expect((await list(b, '?status=posted')).data.map((e) => [e._id, e.status])).toEqual([[feb._id, 'posted']]);
    expect((await list(b, '?status=draft')).total).toBe(2);
    expect((await list(b, '?status=reversed')).total).toBe(0);
    for (const [query, field] of [['?limit=101', 'querystring.limit'], ['?limit=0', 'querystring.limit'], ['?page=0', 'querystring.page'], ['?status=open', 'querystring.status']]) {
      const res = await call('GET', `${journal(b.slug)}${query}`, b.admin.headers);
      expect(res.statusCode, query).toBe(400);
      expect(fieldsOf(res), query).toEqual([field]);
    }
  });
});

describe('posting', () => {
  it('posts a draft once; a posted entry is not posted again (409), nor in a closed month', async () => {
    const b = await books();
    const draft = await create(b);
    t.clock.advance(60_000);
    const posted = await post(b, draft._id);
    expect(posted).toEqual({ ...draft, status: 'posted', postedAt: expect.any(String) });
    expect(Date.parse(posted.postedAt!)).toBeGreaterThan(Date.parse(draft.createdAt));
    const again = await call('POST', `${journal(b.slug)}/${draft._id}/post`, b.admin.headers);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('not_draft');
    expect((await list(b)).data).toEqual([posted]);

    const feb = await create(b, sale(b, 7, '2026-02-10'));
    await closeMonth(b, 2026, 2);
    const closed = await call('POST', `${journal(b.slug)}/${feb._id}/post`, b.admin.headers);
    expect(closed.statusCode).toBe(409);
    expect(closed.json().code).toBe('period_closed');
    expect((await list(b, '?status=draft')).data.map((e) => e._id)).toEqual([feb._id]);

    expect((await call('POST', `${journal(b.slug)}/${MISSING}/post`, b.admin.headers)).statusCode).toBe(404);
    expect(fieldsOf(await call('POST', `${journal(b.slug)}/nope/post`, b.admin.headers))).toEqual(['params.id']);
  });

  it('refuses to post a draft whose account was deactivated since (409 account_inactive)', async () => {
    const b = await books();
    const draft = await create(b, { ...sale(b, 10), lines: [{ accountId: b.caixa, debit: 10 }, { accountId: b.tip, credit: 10 }] });
    expect((await call('DELETE', `/t/${b.slug}/accounting/chart/${b.tip}`, b.admin.headers)).statusCode).toBe(200);
    const res = await call('POST', `${journal(b.slug)}/${draft._id}/post`, b.admin.headers);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'account_inactive', details: [{ field: 'lines.1.accountId', message: b.tip }] });
    expect((await list(b)).data[0]!.status).toBe('draft');
  });
});

describe('reversing', () => {
  it('creates a posted counter-entry; the original stays posted with reversedBy, and both cancel out', async () => {
    const b = await books();
    const original = await post(b, (await create(b, sale(b, 123.45, '2026-03-10')))._id);
    const other = await post(b, (await create(b, { ...sale(b, 10), lines: [{ accountId: b.aluguel, debit: 10 }, { accountId: b.caixa, credit: 10 }] }))._id);
    const res = await call('POST', `${journal(b.slug)}/${original._id}/reverse`, b.admin.headers, { reason: '  venda lançada em dobro ' });
    expect(res.statusCode, res.body).toBe(201);
    const counter: Entry = res.json();
    expect(counter).toEqual({
      _id: expect.any(String),
      entryNumber: 'JE-2026-00003',
      competenceDate: '2026-03-10',
      description: `Estorno de ${original.entryNumber}: venda lançada em dobro`,
      status: 'posted',
      totalAmount: 123.45,
      lines: [
        { accountId: b.caixa, accountCode: '1.1.01', accountName: 'Caixa', debit: 0, credit: 123.45, memo: 'gaveta' },
        { accountId: b.vendas, accountCode: '4.1', accountName: 'Receita de vendas', debit: 123.45, credit: 0, memo: null },
      ],
      reverses: original._id,
      reversedBy: null,
      reversalReason: 'venda lançada em dobro',
      source: null,
      createdAt: expect.any(String),
      postedAt: expect.any(String),
    });
    const after = (await list(b)).data;
    expect(after.find((e) => e._id === original._id)).toEqual({ ...original, reversedBy: counter._id, reversalReason: 'venda lançada em dobro' });
    // Posted entries only (the ledger's rule): the sale and its reversal cancel out; the rent stays.
    const sums = await postedBalances(b);
    expect(sums.get('4.1')).toBe(0);
    expect(sums.get('1.1.01')).toBe(-1000);
    expect(sums.get('6.1')).toBe(1000);
    expect([...sums.values()].reduce((s, v) => s + v, 0)).toBe(0);

    // Once only; a counter-entry is not reversed; a draft is not reversed.
    const twice = await call('POST', `${journal(b.slug)}/${original._id}/reverse`, b.admin.headers, { reason: 'de novo' });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe('already_reversed');
    const ofCounter = await call('POST', `${journal(b.slug)}/${counter._id}/reverse`, b.admin.headers, { reason: 'desfazer' });
    expect(ofCounter.statusCode).toBe(409);
    expect(ofCounter.json().code).toBe('reversal_entry');
    const draft = await create(b);
    const ofDraft = await call('POST', `${journal(b.slug)}/${draft._id}/reverse`, b.admin.headers, { reason: 'x' });
    expect(ofDraft.statusCode).toBe(409);
    expect(ofDraft.json().code).toBe('not_posted');
    // The counter-entry is posted: it is not posted again.
    expect((await call('POST', `${journal(b.slug)}/${counter._id}/post`, b.admin.headers)).json().code).toBe('not_draft');
    expect((await list(b)).total).toBe(4);
    expect(other.reversedBy).toBeNull();
  });

  it('reverses once when asked twice at once (one 201, one 409)', async () => {
    const b = await books();
    const original = await post(b, (await create(b))._id);
    const both = await Promise.all([1, 2].map((i) => call('POST', `${journal(b.slug)}/${original._id}/reverse`, b.admin.headers, { reason: `pedido ${i}` })));
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(both.find((r) => r.statusCode === 409)!.json().code).toBe('already_reversed');
    const all = (await list(b)).data;
    expect(all.filter((e) => e.reverses === original._id)).toHaveLength(1);
    expect(all.find((e) => e._id === original._id)!.reversedBy).toBe(both.find((r) => r.statusCode === 201)!.json()._id);
  });

  it('needs a reason (400) and an open month (409 period_closed)', async () => {
    const b = await books();
    const original = await post(b, (await create(b, sale(b, 20, '2026-01-20')))._id);
    for (const [body, field] of [[{}, 'body.reason'], [{ reason: '   ' }, 'body.reason'], [{ reason: 'x', extra: 1 }, 'body.extra']] as const) {
      const res = await call('POST', `${journal(b.slug)}/${original._id}/reverse`, b.admin.headers, body);
      expect(res.statusCode).toBe(400);
      expect(fieldsOf(res)).toEqual([field]);
    }
    await closeMonth(b, 2026, 1);
    const closed = await call('POST', `${journal(b.slug)}/${original._id}/reverse`, b.admin.headers, { reason: 'erro' });
    expect(closed.statusCode).toBe(409);
    expect(closed.json()).toMatchObject({ code: 'period_closed', details: [{ field: 'period', message: '2026-01' }] });
    expect((await list(b)).data).toEqual([original]);
    expect((await call('POST', `${journal(b.slug)}/${MISSING}/reverse`, b.admin.headers, { reason: 'x' })).statusCode).toBe(404);
  });
});

describe('who', () => {
  it('is admin or superadmin: 401 without a token, 403 for the accountant and staff, and nothing changes', async () => {
    const b = await books();
    const draft = await create(b);
    const posted = await post(b, (await create(b))._id);
    const requests: [Method, string, object?][] = [
      ['GET', journal(b.slug)],
      ['POST', journal(b.slug), sale(b, 1)],
      ['POST', `${journal(b.slug)}/${draft._id}/post`],
      ['POST', `${journal(b.slug)}/${posted._id}/reverse`, { reason: 'x' }],
    ];
    const before = await list(b);
    for (const [method, url, body] of requests) {
      expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
      for (const who of [b.accountant, b.staff]) {
        const res = await call(method, url, who.headers, body);
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().code).toBe('permission');
      }
    }
    expect(await list(b)).toEqual(before);
    // The superadmin keeps the books of any tenant.
    expect((await call('POST', `${journal(b.slug)}/${draft._id}/post`, sa.headers)).statusCode).toBe(200);
    expect((await call('POST', `${journal(b.slug)}/${posted._id}/reverse`, sa.headers, { reason: 'x' })).statusCode).toBe(201);
    expect((await call('POST', journal(b.slug), sa.headers, sale(b, 1))).statusCode).toBe(201);
  });

  it("keeps a tenant's entries from another tenant (404 through its slug, 403 through the owner's)", async () => {
    const a = await books();
    const b = await books();
    const draft = await create(a);
    const posted = await post(a, (await create(a))._id);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: a.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [
        { method: 'POST', path: `/t/:slug/accounting/journal/${draft._id}/post` },
        { method: 'POST', path: `/t/:slug/accounting/journal/${posted._id}/reverse`, payload: { reason: 'x' } },
      ],
      snapshot: () => list(a),
    });
    expect((await list(b)).total).toBe(0);
  });
});

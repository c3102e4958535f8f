import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeTenantWithTeam, type TestUser, seedDefaultChart } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { newId } from '../../db/ids.js';
import { periodClosings, receivables } from '../../db/schema/accounting.js';
import { addDays, localDate } from '../../platform/time.js';

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  sa = await seedDefaultChart(t.app);
});
afterAll(() => t.close());
afterEach(() => t.clock.set(new Date()));

type Method = 'GET' | 'POST';
type Settlement = { amount: number; fee: number; paymentMethod: string; date: string; entryId: string; at: string; by: string | null };
type Receivable = {
  _id: string;
  source: string;
  sourceId: string | null;
  customerName: string | null;
  description: string;
  account: { id: string; code: string; name: string };
  method: string | null;
  amount: number;
  received: number;
  fees: number;
  writtenOff: number;
  outstanding: number;
  issueDate: string;
  dueDate: string;
  status: string;
  settlements: Settlement[];
  writeOffReason: string | null;
  entryId: string | null;
  writeOffEntryId: string | null;
};
type Entry = { _id: string; competenceDate: string; description: string; status: string; lines: { accountCode: string; debit: number; credit: number }[] };
const MISSING = 'ffffffffffffffffffffffff';

const call = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
const base = (slug: string) => `/t/${slug}/accounting/receivables`;
/** The tenant's today (São Paulo, the factories' time zone). */
const today = () => localDate(t.clock.now(), 'America/Sao_Paulo');

async function books() {
  const team = await makeTenantWithTeam(t.app);
  const chart = (await call('GET', `/t/${team.slug}/accounting/chart`, team.admin.headers)).json() as { _id: string; code: string }[];
  const id = (code: string) => chart.find((a) => a.code === code)!._id;
  return { ...team, id };
}
type Books = Awaited<ReturnType<typeof books>>;

async function create(b: Books, body: object = {}): Promise<Receivable> {
  const res = await call('POST', base(b.slug), b.admin.headers, { customerName: 'Buffet Alegria', description: 'Almoço de empresa', amount: 100, dueDate: addDays(today(), 30), ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
async function settle(b: Books, id: string, body: object): Promise<Receivable> {
  const res = await call('POST', `${base(b.slug)}/${id}/settle`, b.admin.headers, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
async function entryOf(b: Books, id: string): Promise<Entry> {
  const all = (await call('GET', `/t/${b.slug}/accounting/journal?limit=100`, b.admin.headers)).json() as { data: Entry[] };
  return all.data.find((e) => e._id === id)!;
}
const linesOf = (e: Entry) => e.lines.map((l) => [l.accountCode, l.debit, l.credit]);
async function list(b: Books, query = '') {
  const res = await call('GET', `${base(b.slug)}${query}`, b.admin.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: Receivable[]; total: number; page: number; totalPages: number };
}
/** A card-sale receivable as the automatic postings make it (the recognition entry is theirs). */
async function cardSale(b: Books, amountCents: number) {
  const id = newId();
  await t.app.deps.tenantDb(b.tenant._id).run(async (tx) => {
    await tx.db.insert(receivables).values({
      tenantId: tx.tenantId,
      id,
      source: 'card_sale',
      sourceId: newId(),
      description: 'Venda no crédito',
      accountId: b.id('1.1.04'),
      method: 'credit_card',
      amountCents,
      issueDate: today(),
      dueDate: addDays(today(), 30),
    });
  });
  return id;
}
const closeMonth = (b: Books, date: string) =>
  t.app.deps.tenantDb(b.tenant._id).run((tx) =>
    tx.db.insert(periodClosings).values({ tenantId: tx.tenantId, year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)), status: 'closed', trialBalanceSnapshot: [], closedAt: new Date() }),
  );

describe('a sale on credit', () => {
  it('is created open, posting D clientes C receita de vendas (or the revenue account given)', async () => {
    const b = await books();
    const r = await create(b, { customerName: ' Buffet Alegria ', amount: 250.5, issueDate: addDays(today(), -2) });
    expect(r).toMatchObject({
      source: 'manual',
      sourceId: null,
      customerName: 'Buffet Alegria',
      description: 'Almoço de empresa',
      account: { id: b.id('1.1.03'), code: '1.1.03' },
      method: null,
      amount: 250.5,
      received: 0,
      fees: 0,
      writtenOff: 0,
      outstanding: 250.5,
      issueDate: addDays(today(), -2),
      dueDate: addDays(today(), 30),
      status: 'open',
      settlements: [],
      writeOffReason: null,
      writeOffEntryId: null,
    });
    const e = await entryOf(b, r.entryId!);
    expect(e).toMatchObject({ status: 'posted', competenceDate: addDays(today(), -2) });
    expect(linesOf(e)).toEqual([
      ['1.1.03', 250.5, 0],
      ['4.1', 0, 250.5],
    ]);
    const own = await call('POST', `/t/${b.slug}/accounting/chart`, b.admin.headers, {
      code: '4.9',
      name: 'Receita de eventos',
      nature: 'receita',
      type: 'analitica',
      normalBalance: 'credit',
      parent: b.id('4'),
    });
    expect(own.statusCode, own.body).toBe(201);
    const event = await create(b, { revenueAccountId: own.json()._id, amount: 80 });
    expect(linesOf(await entryOf(b, event.entryId!))).toEqual([
      ['1.1.03', 80, 0],
      ['4.9', 0, 80],
    ]);
  });

  it('refuses bad input with 400 and a closed month with 409, writing nothing', async () => {
    const b = await books();
    const cases: [object, RegExp][] = [
      [{ amount: 10.001 }, /amount/],
      [{ amount: 0 }, /amount/],
      [{ dueDate: addDays(today(), -1), issueDate: today() }, /dueDate/],
      [{ issueDate: addDays(today(), 1), dueDate: addDays(today(), 5) }, /issueDate/],
      [{ revenueAccountId: b.id('1.1.01') }, /revenueAccountId/],
      [{ revenueAccountId: b.id('4') }, /revenueAccountId/],
      [{ revenueAccountId: MISSING }, /revenueAccountId/],
      [{ customerName: ' ' }, /customerName/],
      [{ dueDate: '2026-02-30' }, /dueDate/],
      [{ extra: 1 }, /extra/],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', base(b.slug), b.admin.headers, { customerName: 'X', description: 'Y', amount: 10, dueDate: addDays(today(), 3), ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toMatch(field);
    }
    await closeMonth(b, addDays(today(), -400));
    const closed = await call('POST', base(b.slug), b.admin.headers, { customerName: 'X', description: 'Y', amount: 10, issueDate: addDays(today(), -400), dueDate: today() });
    expect(closed.statusCode).toBe(409);
    expect(closed.json().code).toBe('period_closed');
    expect((await list(b)).total).toBe(0);
    expect(((await call('GET', `/t/${b.slug}/accounting/journal`, b.admin.headers)).json() as { total: number }).total).toBe(0);
  });
});

describe('listing', () => {
  it('pages, soonest due first, filtered by status, source and due dates', async () => {
    const b = await books();
    const late = await create(b, { dueDate: addDays(today(), 40), description: 'late' });
    const soon = await create(b, { dueDate: addDays(today(), 5), description: 'soon' });
    const mid = await create(b, { dueDate: addDays(today(), 20), description: 'mid' });
    await settle(b, mid._id, { amount: 10, paymentMethod: 'pix' });
    const card = await cardSale(b, 5000);
    const all = await list(b);
    expect(all.total).toBe(4);
    expect(all.data.map((r) => r.description)).toEqual(['soon', 'mid', 'Venda no crédito', 'late']);
    expect(all.data.find((r) => r._id === card)).toMatchObject({ source: 'card_sale', method: 'credit_card', account: { code: '1.1.04' }, amount: 50 });
    expect((await list(b, '?status=partial')).data.map((r) => r._id)).toEqual([mid._id]);
    expect((await list(b, '?status=open&source=manual')).data.map((r) => r._id)).toEqual([soon._id, late._id]);
    expect((await list(b, '?source=card_sale')).data.map((r) => r._id)).toEqual([card]);
    expect((await list(b, `?dueFrom=${addDays(today(), 6)}&dueTo=${addDays(today(), 30)}`)).data.map((r) => r.description)).toEqual(['mid', 'Venda no crédito']);
    expect(await list(b, '?limit=3&page=2')).toMatchObject({ total: 4, page: 2, totalPages: 2, data: [{ _id: late._id }] });
    for (const q of ['?status=paid', '?limit=0', '?page=0', '?dueFrom=2026-13-01', '?source=x']) {
      expect((await call('GET', `${base(b.slug)}${q}`, b.admin.headers)).statusCode, q).toBe(400);
    }
  });
});

describe('settling', () => {
  it('takes a partial then the full receipt: cash to caixa, others to the bank, each with its entry', async () => {
    const b = await books();
    const r = await create(b, { amount: 100, issueDate: addDays(today(), -5) });
    const partial = await settle(b, r._id, { amount: 40, paymentMethod: 'cash', date: addDays(today(), -1) });
    expect(partial).toMatchObject({ status: 'partial', received: 40, outstanding: 60 });
    expect(partial.settlements).toEqual([{ amount: 40, fee: 0, paymentMethod: 'cash', date: addDays(today(), -1), entryId: expect.any(String), at: expect.any(String), by: b.admin.id }]);
    const first = await entryOf(b, partial.settlements[0]!.entryId);
    expect(first).toMatchObject({ status: 'posted', competenceDate: addDays(today(), -1) });
    expect(linesOf(first)).toEqual([
      ['1.1.01', 40, 0],
      ['1.1.03', 0, 40],
    ]);
    const full = await settle(b, r._id, { amount: 60, paymentMethod: 'pix' });
    expect(full).toMatchObject({ status: 'settled', received: 100, outstanding: 0 });
    expect(full.settlements.map((s) => [s.amount, s.paymentMethod, s.date])).toEqual([
      [40, 'cash', addDays(today(), -1)],
      [60, 'pix', today()],
    ]);
    expect(linesOf(await entryOf(b, full.settlements[1]!.entryId))).toEqual([
      ['1.1.02', 60, 0],
      ['1.1.03', 0, 60],
    ]);
    const again = await call('POST', `${base(b.slug)}/${r._id}/settle`, b.admin.headers, { amount: 1, paymentMethod: 'cash' });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('receivable_settled');
  });

  it('settles a card sale net of the acquirer fee (D banco, D taxas de cartão, C cartões a receber) into a bank account', async () => {
    const b = await books();
    const own = await call('POST', `/t/${b.slug}/accounting/chart`, b.admin.headers, {
      code: '1.1.09',
      name: 'Banco Cielo',
      nature: 'ativo',
      type: 'analitica',
      normalBalance: 'debit',
      parent: b.id('1.1'),
    });
    const bank = await call('POST', `/t/${b.slug}/accounting/bank`, b.admin.headers, { name: 'Cielo', bank: '341', agency: '1', account: '2', type: 'checking', ledgerAccountId: own.json()._id });
    expect(bank.statusCode, bank.body).toBe(201);
    const id = await cardSale(b, 10000);
    const res = await settle(b, id, { amount: 97.01, fee: 2.99, paymentMethod: 'credit_card', bankAccountId: bank.json()._id });
    expect(res).toMatchObject({ status: 'settled', received: 100, fees: 2.99, outstanding: 0, settlements: [{ amount: 97.01, fee: 2.99 }] });
    expect(linesOf(await entryOf(b, res.settlements[0]!.entryId))).toEqual([
      ['1.1.09', 97.01, 0],
      ['6.6', 2.99, 0],
      ['1.1.04', 0, 100],
    ]);
  });

  it('refuses more than the outstanding and bad input with 400, a closed month with 409, and changes nothing', async () => {
    const b = await books();
    const r = await create(b, { amount: 100, issueDate: addDays(today(), -3) });
    await settle(b, r._id, { amount: 30, paymentMethod: 'cash' });
    const cases: [object, RegExp][] = [
      [{ amount: 70.01, paymentMethod: 'cash' }, /exceeds the outstanding 70.00/],
      [{ amount: 69, fee: 1.01, paymentMethod: 'pix' }, /exceeds/],
      [{ amount: 1.001, paymentMethod: 'cash' }, /amount/],
      [{ amount: 0, paymentMethod: 'cash' }, /amount/],
      [{ amount: 1, paymentMethod: 'barter' }, /paymentMethod/],
      [{ amount: 1, paymentMethod: 'cash', date: addDays(today(), 1) }, /date/],
      [{ amount: 1, paymentMethod: 'cash', date: addDays(today(), -4) }, /issue date/],
      [{ amount: 1, paymentMethod: 'cash', bankAccountId: MISSING }, /bankAccountId/],
      [{ amount: 1, paymentMethod: 'pix', bankAccountId: MISSING }, /bankAccountId/],
      [{ paymentMethod: 'cash' }, /amount/],
    ];
    for (const [body, why] of cases) {
      const res = await call('POST', `${base(b.slug)}/${r._id}/settle`, b.admin.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toMatch(why);
    }
    expect((await call('POST', `${base(b.slug)}/${MISSING}/settle`, b.admin.headers, { amount: 1, paymentMethod: 'cash' })).statusCode).toBe(404);
    await closeMonth(b, today());
    const closed = await call('POST', `${base(b.slug)}/${r._id}/settle`, b.admin.headers, { amount: 1, paymentMethod: 'cash' });
    expect(closed.statusCode).toBe(409);
    expect(closed.json().code).toBe('period_closed');
    expect((await list(b)).data[0]).toMatchObject({ received: 30, outstanding: 70, status: 'partial' });
    expect((await list(b)).data[0]!.settlements).toHaveLength(1);
  });

  it('never takes more than the outstanding when receipts come at once', async () => {
    const b = await books();
    const r = await create(b, { amount: 100 });
    const results = await Promise.all(Array.from({ length: 6 }, () => call('POST', `${base(b.slug)}/${r._id}/settle`, b.admin.headers, { amount: 30, paymentMethod: 'pix' })));
    expect(results.map((x) => x.statusCode).sort()).toEqual([200, 200, 200, 400, 400, 400]);
    const [after] = (await list(b)).data;
    expect(after).toMatchObject({ received: 90, outstanding: 10, status: 'partial' });
    expect(new Set(after!.settlements.map((s) => s.entryId)).size).toBe(3);
    const journal = (await call('GET', `/t/${b.slug}/accounting/journal?limit=100`, b.admin.headers)).json() as { total: number };
    expect(journal.total).toBe(4);
  });
});

describe('writing off', () => {
  it('gives up the outstanding: D perdas C clientes, written_off with the reason; then 409', async () => {
    const b = await books();
    const r = await create(b, { amount: 100 });
    await settle(b, r._id, { amount: 25, paymentMethod: 'cash' });
    const res = await call('POST', `${base(b.slug)}/${r._id}/write-off`, b.admin.headers, { reason: ' cliente sumiu ' });
    expect(res.statusCode, res.body).toBe(200);
    const off = res.json() as Receivable;
    expect(off).toMatchObject({ status: 'written_off', received: 25, writtenOff: 75, outstanding: 0, writeOffReason: 'cliente sumiu' });
    const e = await entryOf(b, off.writeOffEntryId!);
    expect(e.competenceDate).toBe(today());
    expect(linesOf(e)).toEqual([
      ['6.11', 75, 0],
      ['1.1.03', 0, 75],
    ]);
    const twice = await call('POST', `${base(b.slug)}/${r._id}/write-off`, b.admin.headers, { reason: 'x' });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe('receivable_written_off');
    const settleAfter = await call('POST', `${base(b.slug)}/${r._id}/settle`, b.admin.headers, { amount: 1, paymentMethod: 'cash' });
    expect(settleAfter.json().code).toBe('receivable_written_off');

    const paid = await create(b, { amount: 10 });
    await settle(b, paid._id, { amount: 10, paymentMethod: 'cash' });
    const nothing = await call('POST', `${base(b.slug)}/${paid._id}/write-off`, b.admin.headers, { reason: 'x' });
    expect(nothing.statusCode).toBe(409);
    expect(nothing.json().code).toBe('nothing_outstanding');
    for (const body of [{}, { reason: '  ' }, { reason: 'x', more: 1 }]) {
      expect((await call('POST', `${base(b.slug)}/${paid._id}/write-off`, b.admin.headers, body)).statusCode).toBe(400);
    }
    expect((await call('POST', `${base(b.slug)}/${MISSING}/write-off`, b.admin.headers, { reason: 'x' })).statusCode).toBe(404);
  });
});

describe('aging', () => {
  it('puts the outstanding of open and partial receivables in five buckets by days overdue on the tenant’s today', async () => {
    const b = await books();
    const due = async (days: number, amount: number) =>
      create(b, { amount, issueDate: addDays(today(), Math.min(days, 0) - 1), dueDate: addDays(today(), days) });
    await due(10, 1); // not yet due
    await due(0, 2); // due today: not yet due
    await due(-1, 4); // 1 day overdue: up to 30
    await due(-30, 8); // up to 30
    await due(-31, 16); // 31-60
    await due(-60, 32); // 31-60
    await due(-61, 64); // 61-90
    await due(-90, 128); // 61-90
    await due(-91, 256); // over 90
    const partial = await due(-200, 512);
    await settle(b, partial._id, { amount: 12, paymentMethod: 'cash' }); // 500 outstanding, over 90
    const settled = await due(-5, 1000);
    await settle(b, settled._id, { amount: 1000, paymentMethod: 'cash' }); // not counted
    const off = await due(-5, 2000);
    await call('POST', `${base(b.slug)}/${off._id}/write-off`, b.admin.headers, { reason: 'x' }); // not counted

    const res = await call('GET', `${base(b.slug)}/aging`, b.admin.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      asOf: today(),
      grandTotal: 1011,
      buckets: [
        { label: 'overdue over 90 days', total: 756, count: 2 },
        { label: 'overdue 61-90 days', total: 192, count: 2 },
        { label: 'overdue 31-60 days', total: 48, count: 2 },
        { label: 'overdue up to 30 days', total: 12, count: 2 },
        { label: 'not yet due', total: 3, count: 2 },
      ],
    });
    // Ten days later the same receivables move buckets.
    t.clock.advance(10 * 86_400_000);
    const token = await t.app.deps.jwt.sign(b.admin.id); // signed on the new day
    expect((await call('GET', `${base(b.slug)}/aging`, { authorization: `Bearer ${token}` })).json().buckets).toEqual([
      { label: 'overdue over 90 days', total: 500 + 256 + 128, count: 3 },
      { label: 'overdue 61-90 days', total: 64 + 32, count: 2 },
      { label: 'overdue 31-60 days', total: 16 + 8, count: 2 },
      { label: 'overdue up to 30 days', total: 4 + 2, count: 2 },
      { label: 'not yet due', total: 1, count: 1 },
    ]);
    const empty = await books();
    expect((await call('GET', `${base(empty.slug)}/aging`, empty.admin.headers)).json()).toMatchObject({
      grandTotal: 0,
      buckets: [
        { label: 'overdue over 90 days', total: 0, count: 0 },
        { label: 'overdue 61-90 days', total: 0, count: 0 },
        { label: 'overdue 31-60 days', total: 0, count: 0 },
        { label: 'overdue up to 30 days', total: 0, count: 0 },
        { label: 'not yet due', total: 0, count: 0 },
      ],
    });
  });
});

describe('who', () => {
  it('is admin or superadmin: 401 without a token, 403 for the accountant and staff, nothing changes', async () => {
    const b = await books();
    const r = await create(b);
    const requests: [Method, string, object?][] = [
      ['GET', base(b.slug)],
      ['GET', `${base(b.slug)}/aging`],
      ['POST', base(b.slug), { customerName: 'X', description: 'Y', amount: 1, dueDate: today() }],
      ['POST', `${base(b.slug)}/${r._id}/settle`, { amount: 1, paymentMethod: 'cash' }],
      ['POST', `${base(b.slug)}/${r._id}/write-off`, { reason: 'x' }],
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
    expect((await call('POST', `${base(b.slug)}/${r._id}/settle`, sa.headers, { amount: 1, paymentMethod: 'cash' })).statusCode).toBe(200);
  });

  it("keeps a tenant's receivables from another tenant (404 through its slug, 403 through the owner's)", async () => {
    const a = await books();
    const b = await books();
    const r = await create(a);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: a.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [
        { method: 'POST', path: `/t/:slug/accounting/receivables/${r._id}/settle`, payload: { amount: 1, paymentMethod: 'cash' } },
        { method: 'POST', path: `/t/:slug/accounting/receivables/${r._id}/write-off`, payload: { reason: 'x' } },
      ],
      snapshot: () => list(a),
    });
    expect((await list(b)).total).toBe(0);
    expect((await call('GET', `${base(b.slug)}/aging`, b.admin.headers)).json().grandTotal).toBe(0);
  });
});

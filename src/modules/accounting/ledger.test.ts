import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam, type TestUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

/** Balancete, razão and periods (spec 4.11), figures worked out by hand. */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
const fieldsOf = (res: { json(): { details?: { field: string }[] } }) => (res.json().details ?? []).map((d) => d.field);

async function call(team: { slug: string }, user: TestUser, method: 'GET' | 'POST', path: string, payload?: object) {
  return t.app.inject({ method, url: `/t/${team.slug}/accounting${path}`, headers: user.headers, payload });
}

async function ok<T = unknown>(team: { slug: string }, user: TestUser, method: 'GET' | 'POST', path: string, payload?: object, status = method === 'POST' ? [200, 201] : [200]): Promise<T> {
  const res = await call(team, user, method, path, payload);
  expect(status, `${method} ${path}: ${res.body}`).toContain(res.statusCode);
  return res.json() as T;
}

let codeSeq = 0;
async function account(team: Team, nature: string, type: 'analitica' | 'sintetica' = 'analitica', name = `${nature} ${codeSeq}`) {
  const normalBalance = ['ativo', 'custo', 'despesa'].includes(nature) ? 'debit' : 'credit';
  const a = await ok<{ _id: string; code: string }>(team, team.admin, 'POST', '/chart', { code: `8.${++codeSeq}`, name, nature, type, normalBalance });
  return a._id;
}

interface Entry {
  _id: string;
  entryNumber: string;
  status: string;
}

async function entry(team: Team, date: string, debit: string, credit: string, amount: number, opts: { post?: boolean; description?: string } = {}) {
  const e = await ok<Entry>(team, team.admin, 'POST', '/journal', {
    competenceDate: date,
    description: opts.description ?? `Lançamento ${date}`,
    lines: [
      { accountId: debit, debit: amount },
      { accountId: credit, credit: amount },
    ],
  });
  if (opts.post !== false) await ok(team, team.admin, 'POST', `/journal/${e._id}/post`);
  return e;
}

/**
 * The books of the hand-worked example:
 *   JE-1 2026-03-05 caixa 100.00 / receita       posted
 *   JE-2 2026-03-10 despesa 30.50 / caixa        posted
 *   JE-3 2026-03-12 caixa 20.00 / fornecedores   draft (never counts)
 *   JE-4 2026-03-15 caixa 7.25 / receita         posted, then reversed by JE-7 (same date, lines swapped)
 *   JE-5 2026-02-20 caixa 50.00 / receita        posted (before March: the razão's opening)
 *   JE-6 2026-04-01 caixa 1.00 / receita         posted (after March)
 */
async function books() {
  const team = await makeTenantWithTeam(t.app);
  const caixa = await account(team, 'ativo', 'analitica', 'Caixa');
  const receita = await account(team, 'receita', 'analitica', 'Receita de vendas');
  const despesa = await account(team, 'despesa', 'analitica', 'Energia');
  const fornecedores = await account(team, 'passivo', 'analitica', 'Fornecedores');
  const grupo = await account(team, 'ativo', 'sintetica', 'Ativo circulante');
  const je1 = await entry(team, '2026-03-05', caixa, receita, 100, { description: 'Vendas do dia 5' });
  const je2 = await entry(team, '2026-03-10', despesa, caixa, 30.5, { description: 'Conta de luz' });
  const je3 = await entry(team, '2026-03-12', caixa, fornecedores, 20, { post: false });
  const je4 = await entry(team, '2026-03-15', caixa, receita, 7.25, { description: 'Venda lançada em dobro' });
  const je5 = await entry(team, '2026-02-20', caixa, receita, 50);
  const je6 = await entry(team, '2026-04-01', caixa, receita, 1);
  const je7 = await ok<Entry>(team, team.admin, 'POST', `/journal/${je4._id}/reverse`, { reason: 'duplicada' });
  return { team, caixa, receita, despesa, fornecedores, grupo, je1, je2, je3, je4, je5, je6, je7 };
}

describe('balancete', () => {
  it('sums the posted lines of the month per account, by the balance rule, and sums to zero', async () => {
    const b = await books();
    const rows = await ok<{ accountId: string; accountName: string; nature: string; totalDebit: number; totalCredit: number; balance: number }[]>(
      b.team, b.team.admin, 'GET', '/ledger/balancete?year=2026&month=3',
    );
    const byId = new Map(rows.map((r) => [r.accountId, r]));
    expect(rows).toHaveLength(3); // fornecedores has only a draft line; the synthetic group none
    expect(byId.get(b.caixa)).toMatchObject({ accountName: 'Caixa', nature: 'ativo', totalDebit: 107.25, totalCredit: 37.75, balance: 69.5 });
    expect(byId.get(b.receita)).toMatchObject({ accountName: 'Receita de vendas', nature: 'receita', totalDebit: 7.25, totalCredit: 107.25, balance: 100 });
    expect(byId.get(b.despesa)).toMatchObject({ nature: 'despesa', totalDebit: 30.5, totalCredit: 0, balance: 30.5 });
    expect(byId.has(b.fornecedores)).toBe(false);
    // By code: the accounts were created caixa, receita, despesa.
    expect(rows.map((r) => r.accountId)).toEqual([b.caixa, b.receita, b.despesa]);

    const feb = await ok<{ accountId: string; balance: number }[]>(b.team, b.team.admin, 'GET', '/ledger/balancete?year=2026&month=2');
    expect(feb.map((r) => [r.accountId, r.balance])).toEqual([[b.caixa, 50], [b.receita, 50]]);
    expect(await ok(b.team, b.team.admin, 'GET', '/ledger/balancete?year=2026&month=5')).toEqual([]);
  });

  it('counts an account of the system chart, under its current name', async () => {
    const team = await makeTenantWithTeam(t.app);
    const sa = await makeSuperadmin(t.app);
    await ok(team, sa, 'POST', '/chart/seed/defaults');
    const chart = await ok<{ _id: string; code: string; nature: string; type: string; tenant: string | null; name: string }[]>(team, team.admin, 'GET', '/chart');
    const system = chart.find((a) => a.tenant === null && a.type === 'analitica' && a.nature === 'ativo')!;
    expect(system).toBeDefined();
    const receita = await account(team, 'receita');
    await entry(team, '2026-07-09', system._id, receita, 12.34);
    const rows = await ok<{ accountId: string; accountCode: string; accountName: string; balance: number }[]>(team, sa, 'GET', '/ledger/balancete?year=2026&month=7');
    expect(rows.find((r) => r.accountId === system._id)).toMatchObject({ accountCode: system.code, accountName: system.name, balance: 12.34 });
    const razao = await ok<{ runningBalance: number }[]>(team, team.admin, 'GET', `/ledger/razao?accountId=${system._id}&startDate=2026-07-01&endDate=2026-07-31`);
    expect(razao.map((l) => l.runningBalance)).toEqual([12.34]);
  });

  it('is 400 without year or month, or out of range', async () => {
    const team = await makeTenantWithTeam(t.app);
    for (const [qs, field] of [
      ['month=3', 'querystring.year'],
      ['year=2026', 'querystring.month'],
      ['year=2026&month=13', 'querystring.month'],
      ['year=2026&month=0', 'querystring.month'],
      ['year=1999&month=1', 'querystring.year'],
      ['year=abc&month=1', 'querystring.year'],
    ] as const) {
      const res = await call(team, team.admin, 'GET', `/ledger/balancete?${qs}`);
      expect(res.statusCode, qs).toBe(400);
      expect(fieldsOf(res), qs).toContain(field);
    }
  });
});

describe('razão', () => {
  it('lists the posted lines by date then number, the running balance from the balance before startDate', async () => {
    const b = await books();
    const caixa = await ok(b.team, b.team.admin, 'GET', `/ledger/razao?accountId=${b.caixa}&startDate=2026-03-01&endDate=2026-03-31`);
    expect(caixa).toEqual([
      { entryNumber: b.je1.entryNumber, competenceDate: '2026-03-05', description: 'Vendas do dia 5', debit: 100, credit: 0, runningBalance: 150 },
      { entryNumber: b.je2.entryNumber, competenceDate: '2026-03-10', description: 'Conta de luz', debit: 0, credit: 30.5, runningBalance: 119.5 },
      { entryNumber: b.je4.entryNumber, competenceDate: '2026-03-15', description: 'Venda lançada em dobro', debit: 7.25, credit: 0, runningBalance: 126.75 },
      { entryNumber: b.je7.entryNumber, competenceDate: '2026-03-15', description: expect.stringContaining('duplicada'), debit: 0, credit: 7.25, runningBalance: 119.5 },
    ]);
    // A credit-natured account runs credits - debits.
    const receita = await ok<{ entryNumber: string; runningBalance: number }[]>(b.team, b.team.admin, 'GET', `/ledger/razao?accountId=${b.receita}&startDate=2026-03-01&endDate=2026-04-30`);
    expect(receita.map((l) => [l.entryNumber, l.runningBalance])).toEqual([
      [b.je1.entryNumber, 150],
      [b.je4.entryNumber, 157.25],
      [b.je7.entryNumber, 150],
      [b.je6.entryNumber, 151],
    ]);
    // A range in the middle opens with everything before it; both ends are included.
    const middle = await ok<{ entryNumber: string; runningBalance: number }[]>(b.team, b.team.admin, 'GET', `/ledger/razao?accountId=${b.caixa}&startDate=2026-03-11&endDate=2026-03-15`);
    expect(middle.map((l) => [l.entryNumber, l.runningBalance])).toEqual([[b.je4.entryNumber, 126.75], [b.je7.entryNumber, 119.5]]);
    const oneDay = await ok<{ entryNumber: string }[]>(b.team, b.team.admin, 'GET', `/ledger/razao?accountId=${b.caixa}&startDate=2026-02-20&endDate=2026-02-20`);
    expect(oneDay.map((l) => l.entryNumber)).toEqual([b.je5.entryNumber]);
    // The draft never shows.
    expect(await ok(b.team, b.team.admin, 'GET', `/ledger/razao?accountId=${b.fornecedores}&startDate=2026-01-01&endDate=2026-12-31`)).toEqual([]);
  });

  it('is 400 for a synthetic account, bad or missing parameters; 404 for an unknown account', async () => {
    const b = await books();
    const synthetic = await call(b.team, b.team.admin, 'GET', `/ledger/razao?accountId=${b.grupo}&startDate=2026-03-01&endDate=2026-03-31`);
    expect(synthetic.statusCode).toBe(400);
    expect(fieldsOf(synthetic)).toEqual(['querystring.accountId']);
    const good = `accountId=${b.caixa}&startDate=2026-03-01&endDate=2026-03-31`;
    for (const [qs, field] of [
      ['startDate=2026-03-01&endDate=2026-03-31', 'querystring.accountId'],
      [`accountId=xyz&startDate=2026-03-01&endDate=2026-03-31`, 'querystring.accountId'],
      [`accountId=${b.caixa}&endDate=2026-03-31`, 'querystring.startDate'],
      [`accountId=${b.caixa}&startDate=2026-03-01`, 'querystring.endDate'],
      [`accountId=${b.caixa}&startDate=2026-02-30&endDate=2026-03-31`, 'querystring.startDate'],
      [`accountId=${b.caixa}&startDate=2026-03-31&endDate=2026-03-01`, 'querystring.endDate'],
    ] as const) {
      const res = await call(b.team, b.team.admin, 'GET', `/ledger/razao?${qs}`);
      expect(res.statusCode, qs).toBe(400);
      expect(fieldsOf(res), qs).toContain(field);
    }
    expect((await call(b.team, b.team.admin, 'GET', `/ledger/razao?${good}`)).statusCode).toBe(200);
    const missing = await call(b.team, b.team.admin, 'GET', `/ledger/razao?accountId=ffffffffffffffffffffffff&startDate=2026-03-01&endDate=2026-03-31`);
    expect(missing.statusCode).toBe(404);
  });
});

interface Period {
  year: number;
  month: number;
  status: string;
  closedAt: string | null;
  closedBy: string | null;
  reopenedAt: string | null;
  reopenedBy: string | null;
  trialBalanceSnapshot: unknown[] | null;
}

describe('periods', () => {
  it('lists every month with entries, closes with the balancete as snapshot, refuses work in it, reopens', async () => {
    const b = await books();
    const { team } = b;
    const list = await ok<Period[]>(team, team.admin, 'GET', '/ledger/periods');
    expect(list.map((p) => [p.year, p.month, p.status])).toEqual([[2026, 2, 'open'], [2026, 3, 'open'], [2026, 4, 'open']]);
    expect(list[0]).toEqual({ year: 2026, month: 2, status: 'open', closedAt: null, closedBy: null, reopenedAt: null, reopenedBy: null, trialBalanceSnapshot: null });

    // March has a draft (JE-3): the close is allowed, the draft stays out of the snapshot.
    const march = await ok(team, team.admin, 'GET', '/ledger/balancete?year=2026&month=3');
    const closed = await ok<Period>(team, team.admin, 'POST', '/ledger/close', { year: 2026, month: 3 });
    expect(closed).toMatchObject({ year: 2026, month: 3, status: 'closed', closedBy: team.admin.id, reopenedAt: null, reopenedBy: null, trialBalanceSnapshot: march });
    expect(Date.parse(closed.closedAt!)).not.toBeNaN();

    const again = await call(team, team.admin, 'POST', '/ledger/close', { year: 2026, month: 3 });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('period_already_closed');

    // Nothing posted, reversed or dated in March now (the journal's assertPeriodOpen).
    for (const [path, payload] of [
      [`/journal/${b.je3._id}/post`, undefined],
      [`/journal/${b.je1._id}/reverse`, { reason: 'erro' }],
      ['/journal', { competenceDate: '2026-03-31', description: 'x', lines: [{ accountId: b.caixa, debit: 1 }, { accountId: b.receita, credit: 1 }] }],
    ] as const) {
      const res = await call(team, team.admin, 'POST', path, payload);
      expect(res.statusCode, path).toBe(409);
      expect(res.json().code, path).toBe('period_closed');
    }
    // April is open.
    await entry(team, '2026-04-02', b.caixa, b.receita, 2);

    const periods = await ok<Period[]>(team, team.admin, 'GET', '/ledger/periods');
    expect(periods.map((p) => [p.month, p.status])).toEqual([[2, 'open'], [3, 'closed'], [4, 'open']]);
    expect(periods[1]).toEqual(closed);

    const reopened = await ok<Period>(team, team.admin, 'POST', '/ledger/reopen', { year: 2026, month: 3 });
    expect(reopened).toMatchObject({ status: 'reopened', closedAt: closed.closedAt, reopenedBy: team.admin.id, trialBalanceSnapshot: march });
    const twice = await call(team, team.admin, 'POST', '/ledger/reopen', { year: 2026, month: 3 });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe('period_not_closed');

    // The correction, then the close again: a new snapshot; the last reopening is kept.
    await ok(team, team.admin, 'POST', `/journal/${b.je3._id}/post`);
    const corrected = await ok<{ accountId: string; balance: number }[]>(team, team.admin, 'GET', '/ledger/balancete?year=2026&month=3');
    expect(corrected.find((r) => r.accountId === b.fornecedores)?.balance).toBe(20);
    expect(corrected.find((r) => r.accountId === b.caixa)?.balance).toBe(89.5);
    const reclosed = await ok<Period>(team, team.admin, 'POST', '/ledger/close', { year: 2026, month: 3 });
    expect(reclosed).toMatchObject({ status: 'closed', reopenedAt: reopened.reopenedAt, trialBalanceSnapshot: corrected });
  });

  it('closes a month without entries (then listed) and refuses to reopen a month never closed', async () => {
    const team = await makeTenantWithTeam(t.app);
    expect(await ok(team, team.admin, 'GET', '/ledger/periods')).toEqual([]);
    const never = await call(team, team.admin, 'POST', '/ledger/reopen', { year: 2026, month: 5 });
    expect(never.statusCode).toBe(409);
    expect(never.json().code).toBe('period_not_closed');
    const closed = await ok<Period>(team, team.admin, 'POST', '/ledger/close', { year: 2025, month: 12 });
    expect(closed).toMatchObject({ year: 2025, month: 12, status: 'closed', trialBalanceSnapshot: [] });
    expect(await ok(team, team.admin, 'GET', '/ledger/periods')).toEqual([closed]);
  });

  it('serialises two closes of one month: one closes, the other is 409', async () => {
    const team = await makeTenantWithTeam(t.app);
    const answers = await Promise.all([1, 2].map(() => call(team, team.admin, 'POST', '/ledger/close', { year: 2026, month: 1 })));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });

  it("takes into a month's first close every posting that beat it, and refuses the others", async () => {
    const team = await makeTenantWithTeam(t.app);
    const caixa = await account(team, 'ativo');
    const receita = await account(team, 'receita');
    const drafts = [];
    for (let i = 1; i <= 6; i++) drafts.push(await entry(team, `2026-08-0${i}`, caixa, receita, i, { post: false }));
    const [close, ...posts] = await Promise.all([
      call(team, team.admin, 'POST', '/ledger/close', { year: 2026, month: 8 }),
      ...drafts.map((d) => call(team, team.admin, 'POST', `/journal/${d._id}/post`)),
    ]);
    expect(close.statusCode, close.body).toBe(200);
    for (const p of posts) expect([[200], [409, 'period_closed']]).toContainEqual(p.statusCode === 200 ? [200] : [p.statusCode, p.json().code]);
    const posted = posts.filter((p) => p.statusCode === 200).reduce((s, p) => s + (p.json() as { totalAmount: number }).totalAmount, 0);
    const balancete = await ok<{ accountId: string; balance: number }[]>(team, team.admin, 'GET', '/ledger/balancete?year=2026&month=8');
    expect(close.json().trialBalanceSnapshot).toEqual(balancete);
    expect(balancete.find((r) => r.accountId === caixa)?.balance ?? 0).toBe(posted);
  });

  it('is 400 for a bad body', async () => {
    const team = await makeTenantWithTeam(t.app);
    for (const path of ['/ledger/close', '/ledger/reopen']) {
      for (const [payload, field] of [
        [{ year: 2026 }, 'body.month'],
        [{ month: 3 }, 'body.year'],
        [{ year: 2026, month: 13 }, 'body.month'],
        [{ year: 2100, month: 1 }, 'body.year'],
        [{ year: 2026, month: 1.5 }, 'body.month'],
        [{ year: 2026, month: 1, note: 'x' }, 'body.note'],
      ] as const) {
        const res = await call(team, team.admin, 'POST', path, payload);
        expect(res.statusCode, `${path} ${JSON.stringify(payload)}`).toBe(400);
        expect(fieldsOf(res), `${path} ${JSON.stringify(payload)}`).toContain(field);
      }
    }
  });
});

describe('who may', () => {
  const routes = (accountId: string) =>
    [
      ['GET', '/ledger/balancete?year=2026&month=3', undefined],
      ['GET', `/ledger/razao?accountId=${accountId}&startDate=2026-03-01&endDate=2026-03-31`, undefined],
      ['GET', '/ledger/periods', undefined],
      ['POST', '/ledger/close', { year: 2026, month: 3 }],
      ['POST', '/ledger/reopen', { year: 2026, month: 3 }],
    ] as const;

  it('is 401 without a token, 403 for staff and the accountant, 404 for an unknown tenant; the superadmin may', async () => {
    const b = await books();
    const sa = await makeSuperadmin(t.app);
    for (const [method, path, payload] of routes(b.caixa)) {
      const url = `/t/${b.team.slug}/accounting${path}`;
      expect((await t.app.inject({ method, url, payload })).statusCode, `${method} ${path} anonymous`).toBe(401);
      for (const [who, user] of [['staff', b.team.staff], ['accountant', b.team.accountant]] as const) {
        const res = await t.app.inject({ method, url, payload, headers: user.headers });
        expect(res.statusCode, `${method} ${path} ${who}`).toBe(403);
      }
      const unknown = await t.app.inject({ method, url: `/t/no-such-tenant-x/accounting${path}`, payload, headers: sa.headers });
      expect(unknown.statusCode, `${method} ${path} unknown tenant`).toBe(404);
    }
    // Nothing was closed by the refused calls; the superadmin closes and reopens.
    expect((await ok<Period[]>(b.team, b.team.admin, 'GET', '/ledger/periods')).every((p) => p.status === 'open')).toBe(true);
    expect((await ok<Period>(b.team, sa, 'POST', '/ledger/close', { year: 2026, month: 3 })).closedBy).toBe(sa.id);
    expect((await ok<Period>(b.team, sa, 'POST', '/ledger/reopen', { year: 2026, month: 3 })).status).toBe('reopened');
    expect(await ok(b.team, sa, 'GET', '/ledger/balancete?year=2026&month=3')).toHaveLength(3);
  });

  it("keeps another tenant out: its account is 404 through the outsider's slug, 403 through the owner's", async () => {
    const b = await books();
    const outsider = await makeTenantWithTeam(t.app);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: b.team.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [{ method: 'GET', path: `/t/:slug/accounting/ledger/razao?accountId=${b.caixa}&startDate=2026-03-01&endDate=2026-03-31` }],
      snapshot: async () => [
        await ok(b.team, b.team.admin, 'GET', '/ledger/periods'),
        await ok(b.team, b.team.admin, 'GET', '/ledger/balancete?year=2026&month=3'),
      ],
    });
    // The outsider's own books show none of the owner's; closing its March touches only its own.
    expect(await ok(outsider, outsider.admin, 'GET', '/ledger/balancete?year=2026&month=3')).toEqual([]);
    expect(await ok(outsider, outsider.admin, 'POST', '/ledger/close', { year: 2026, month: 3 })).toMatchObject({ trialBalanceSnapshot: [] });
    expect((await ok<Period[]>(b.team, b.team.admin, 'GET', '/ledger/periods')).find((p) => p.month === 3)?.status).toBe('open');
    const viaOwner = await call(b.team, outsider.admin, 'POST', '/ledger/close', { year: 2026, month: 4 });
    expect(viaOwner.statusCode).toBe(403);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeTenantWithTeam, seedDefaultChart } from '../../../test/factories.js';
import { newId } from '../../db/ids.js';
import { bankAccounts } from '../../db/schema/accounting.js';
import { localDate } from '../../platform/time.js';
import { Rng } from '../../../test/rng.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await seedDefaultChart(t.app);
});
afterAll(() => t.close());

type Headers = Record<string, string>;
type Line = { code: string; name: string; balance: number };
type Sheet = {
  asOf: string;
  ativo: { circulante: Line[]; naoCirculante: Line[]; total: number };
  passivoEPatrimonio: { circulante: Line[]; naoCirculante: Line[]; patrimonioLiquido: Line[]; total: number };
};
type FlowLine = { description: string; amount: number };
type Activity = { entradas: FlowLine[]; saidas: FlowLine[]; total: number };
type Flow = {
  period: { start: string; end: string };
  method: string;
  operacional: Activity;
  investimento: Activity;
  financiamento: Activity;
  saldoInicial: number;
  saldoFinal: number;
};

const get = (url: string, headers: Headers = {}) => t.app.inject({ method: 'GET', url, headers });
const reports = (slug: string) => `/t/${slug}/admin/accounting`;

/** A tenant whose accounts are known by code (the system chart's and its own), posting entries through the journal routes. */
async function books() {
  const team = await makeTenantWithTeam(t.app);
  const chart = (await get(`/t/${team.slug}/accounting/chart`, team.admin.headers)).json() as { _id: string; code: string }[];
  const ids = new Map(chart.map((a) => [a.code, a._id]));
  const id = (code: string) => ids.get(code) ?? expect.fail(`no account ${code}`);
  const call = (method: 'POST', url: string, payload?: object) => t.app.inject({ method, url, headers: team.admin.headers, ...(payload ? { payload } : {}) });
  const account = async (body: { code: string; name: string; nature: string; parent?: string }) => {
    const res = await call('POST', `/t/${team.slug}/accounting/chart`, {
      type: 'analitica',
      normalBalance: body.nature === 'ativo' ? 'debit' : 'credit',
      ...body,
      ...(body.parent ? { parent: id(body.parent) } : {}),
    });
    expect(res.statusCode, res.body).toBe(201);
    ids.set(body.code, res.json()._id);
  };
  /** A draft: `[code, debit (units), credit (units)]` per line. */
  const draft = async (date: string, lines: [string, number, number][], description = 'Lançamento') => {
    const res = await call('POST', `/t/${team.slug}/accounting/journal`, {
      competenceDate: date,
      description,
      lines: lines.map(([code, debit, credit]) => ({ accountId: id(code), ...(debit ? { debit } : {}), ...(credit ? { credit } : {}) })),
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { _id: string; entryNumber: string };
  };
  const posted = async (date: string, lines: [string, number, number][], description?: string) => {
    const entry = await draft(date, lines, description);
    const res = await call('POST', `/t/${team.slug}/accounting/journal/${entry._id}/post`);
    expect(res.statusCode, res.body).toBe(200);
    return entry;
  };
  const reverse = async (entryId: string) => {
    const res = await call('POST', `/t/${team.slug}/accounting/journal/${entryId}/reverse`, { reason: 'lançado por engano' });
    expect(res.statusCode, res.body).toBe(201);
  };
  const sheet = async (query = '', headers: Headers = team.admin.headers) => {
    const res = await get(`${reports(team.slug)}/balance-sheet${query}`, headers);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Sheet;
  };
  const flow = async (query = '', headers: Headers = team.admin.headers) => {
    const res = await get(`${reports(team.slug)}/cash-flow${query}`, headers);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Flow;
  };
  return { ...team, id, account, draft, posted, reverse, sheet, flow };
}

describe('GET /t/:slug/admin/accounting/balance-sheet', () => {
  it('groups the posted balances up to asOf by the chart, shows the unclosed results in equity, and balances', async () => {
    const b = await books();
    await b.account({ code: '1.1.20', name: 'Vale-refeição a receber', nature: 'ativo', parent: '1.1' });
    await b.account({ code: '1.9', name: 'Depósitos judiciais', nature: 'ativo' }); // no parent: outside 1.1 and 1.2
    await b.posted('2025-12-10', [['1.1.01', 20, 0], ['4.1', 0, 20]]); // an earlier year's result, never closed
    await b.posted('2026-01-05', [['1.1.02', 1000, 0], ['3.1', 0, 1000]]);
    await b.posted('2026-01-10', [['1.2.01', 300, 0], ['1.1.02', 0, 300]]);
    await b.posted('2026-02-01', [['1.1.02', 200, 0], ['2.1.05', 0, 200]]);
    await b.posted('2026-02-10', [['1.1.01', 500, 0], ['4.1', 0, 500]]);
    await b.posted('2026-02-11', [['1.1.06', 80, 0], ['2.1.01', 0, 80]]);
    await b.posted('2026-02-12', [['5.1', 50, 0], ['1.1.06', 0, 50]]);
    await b.posted('2026-02-15', [['6.1', 70, 0], ['1.1.02', 0, 70]]);
    await b.posted('2026-02-16', [['1.1.20', 30, 0], ['4.1', 0, 30]]);
    const wrong = await b.posted('2026-02-17', [['1.1.01', 99.99, 0], ['4.1', 0, 99.99]]);
    await b.reverse(wrong._id);
    await b.draft('2026-02-18', [['1.1.01', 123.45, 0], ['4.1', 0, 123.45]]); // a draft never counts
    await b.posted('2026-02-19', [['1.9', 15, 0], ['1.1.02', 0, 15]]);
    await b.posted('2026-02-20', [['1.1.02', 400, 0], ['2.2.01', 0, 400]]);
    await b.posted('2026-02-28', [['6.9', 5, 0], ['1.2.02', 0, 5]]);
    await b.posted('2026-03-05', [['1.1.01', 11.11, 0], ['4.1', 0, 11.11]]); // after asOf

    expect(await b.sheet('?asOf=2026-02-28')).toEqual({
      asOf: '2026-02-28',
      ativo: {
        circulante: [
          { code: '1.1.01', name: 'Caixa', balance: 52000 },
          { code: '1.1.02', name: 'Bancos conta movimento', balance: 121500 },
          { code: '1.1.06', name: 'Estoques de mercadorias e insumos', balance: 3000 },
          { code: '1.1.20', name: 'Vale-refeição a receber', balance: 3000 },
        ],
        naoCirculante: [
          { code: '1.2.01', name: 'Imobilizado', balance: 30000 },
          { code: '1.2.02', name: 'Depreciação acumulada', balance: -500 },
          { code: '1.9', name: 'Depósitos judiciais', balance: 1500 },
        ],
        total: 210500,
      },
      passivoEPatrimonio: {
        circulante: [
          { code: '2.1.01', name: 'Fornecedores', balance: 8000 },
          { code: '2.1.05', name: 'Empréstimos e financiamentos', balance: 20000 },
        ],
        naoCirculante: [{ code: '2.2.01', name: 'Empréstimos e financiamentos de longo prazo', balance: 40000 }],
        patrimonioLiquido: [
          { code: '3.1', name: 'Capital social', balance: 100000 },
          { code: '3.2', name: 'Lucros ou prejuízos acumulados', balance: 2000 },
          // 2026 up to asOf: 500 + 30 sales - 50 CMV - 70 rent - 5 depreciation
          { code: '3.3', name: 'Resultado do exercício', balance: 40500 },
        ],
        total: 210500,
      },
    });

    // The end of 2025: the year's result is 3.3; nothing of 2026.
    expect(await b.sheet('?asOf=2025-12-31')).toEqual({
      asOf: '2025-12-31',
      ativo: { circulante: [{ code: '1.1.01', name: 'Caixa', balance: 2000 }], naoCirculante: [], total: 2000 },
      passivoEPatrimonio: { circulante: [], naoCirculante: [], patrimonioLiquido: [{ code: '3.3', name: 'Resultado do exercício', balance: 2000 }], total: 2000 },
    });

    // Default: the tenant's local today, every posted entry so far (the 2026-03-05 sale too).
    const today = await b.sheet();
    expect(today.asOf).toBe(localDate(t.clock.now(), 'America/Sao_Paulo'));
    expect(today.ativo.total).toBe(210500 + 1111);
    expect(today.passivoEPatrimonio.total).toBe(today.ativo.total);
  });

  it('keeps the result in the 3.3 account once a closing entry moved it there, without counting it twice', async () => {
    const b = await books();
    await b.posted('2026-01-10', [['1.1.01', 100, 0], ['4.1', 0, 100]]);
    await b.posted('2026-01-11', [['6.1', 40, 0], ['1.1.01', 0, 40]]);
    // Closing the result accounts into 3.3 by hand.
    await b.posted('2026-01-31', [['4.1', 100, 0], ['6.1', 0, 40], ['3.3', 0, 60]]);
    await b.posted('2026-02-01', [['1.1.01', 10, 0], ['4.1', 0, 10]]);
    const sheet = await b.sheet('?asOf=2026-02-28');
    expect(sheet.passivoEPatrimonio.patrimonioLiquido).toEqual([{ code: '3.3', name: 'Resultado do exercício', balance: 7000 }]);
    expect(sheet.ativo.total).toBe(7000);
    expect(sheet.passivoEPatrimonio.total).toBe(7000);
  });

  it('is empty for a tenant without entries and never shows another tenant’s books', async () => {
    const a = await books();
    await a.posted('2026-01-10', [['1.1.01', 100, 0], ['4.1', 0, 100]]);
    const other = await books();
    expect(await other.sheet('?asOf=2026-12-31')).toEqual({
      asOf: '2026-12-31',
      ativo: { circulante: [], naoCirculante: [], total: 0 },
      passivoEPatrimonio: { circulante: [], naoCirculante: [], patrimonioLiquido: [], total: 0 },
    });
    // Another tenant's admin through the owner's slug: not a member.
    expect((await get(`${reports(a.slug)}/balance-sheet`, other.admin.headers)).statusCode).toBe(403);
  });

  it('admits the admin and the accountant, not staff nor anonymous callers, and refuses bad dates', async () => {
    const b = await books();
    expect((await b.sheet('?asOf=2026-01-31', b.accountant.headers)).asOf).toBe('2026-01-31');
    expect((await get(`${reports(b.slug)}/balance-sheet`, b.staff.headers)).statusCode).toBe(403);
    expect((await get(`${reports(b.slug)}/balance-sheet`)).statusCode).toBe(401);
    for (const bad of ['2026-02-30', 'yesterday', '1999-12-31', '26-01-01']) {
      const res = await get(`${reports(b.slug)}/balance-sheet?asOf=${bad}`, b.admin.headers);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().message).toContain('asOf');
    }
  });
});

describe('GET /t/:slug/admin/accounting/cash-flow', () => {
  /**
   * February 2026 of a restaurant: opening cash 1000.00 in the bank; loans, equipment bought in cash and on
   * credit, sales in cash (with the card fee), in a bank account of its own and on credit, purchases,
   * payments, a transfer between cash accounts, depreciation, a withdrawal, a reversed sale, a draft and
   * an entry after the period.
   */
  async function february() {
    const b = await books();
    await b.account({ code: '1.1.21', name: 'Conta Inter', nature: 'ativo', parent: '1.1' });
    await t.app.deps.tenantDb(b.tenant._id).run((tx) =>
      tx.db.insert(bankAccounts).values({
        tenantId: b.tenant._id,
        id: newId(),
        name: 'Inter',
        bank: '077',
        agency: '0001',
        account: '123456-7',
        type: 'checking',
        ledgerAccountId: b.id('1.1.21'),
      }),
    );
    await b.posted('2026-01-05', [['1.1.02', 1000, 0], ['3.1', 0, 1000]]);
    await b.posted('2026-02-01', [['1.1.02', 200, 0], ['2.1.05', 0, 200]]);
    await b.posted('2026-02-02', [['1.1.02', 400, 0], ['2.2.01', 0, 400]]);
    await b.posted('2026-02-03', [['1.2.01', 300, 0], ['1.1.02', 0, 300]]);
    await b.posted('2026-02-04', [['1.2.01', 100, 0], ['2.1.01', 0, 100]]); // equipment on credit: no cash
    await b.posted('2026-02-10', [['1.1.01', 485, 0], ['6.6', 15, 0], ['4.1', 0, 500]]);
    await b.posted('2026-02-11', [['1.1.06', 80, 0], ['2.1.01', 0, 80]]);
    await b.posted('2026-02-12', [['5.1', 50, 0], ['1.1.06', 0, 50]]);
    await b.posted('2026-02-13', [['2.1.01', 60, 0], ['1.1.02', 0, 60]]);
    await b.posted('2026-02-15', [['6.1', 70, 0], ['1.1.01', 0, 70]]);
    await b.posted('2026-02-20', [['1.1.02', 200, 0], ['1.1.01', 0, 200]]); // deposit: cash to cash
    await b.posted('2026-02-21', [['1.1.21', 100, 0], ['1.1.02', 0, 100]]); // to the bank account: cash to cash
    await b.posted('2026-02-22', [['1.1.21', 25, 0], ['4.1', 0, 25]]);
    await b.posted('2026-02-23', [['1.1.03', 30, 0], ['4.1', 0, 30]]);
    await b.posted('2026-02-24', [['1.1.01', 10, 0], ['1.1.03', 0, 10]]);
    await b.posted('2026-02-25', [['6.9', 5, 0], ['1.2.02', 0, 5]]);
    await b.posted('2026-02-26', [['3.2', 40, 0], ['1.1.02', 0, 40]]);
    const wrong = await b.posted('2026-02-27', [['1.1.01', 9.99, 0], ['4.1', 0, 9.99]]);
    await b.reverse(wrong._id);
    await b.draft('2026-02-27', [['1.1.01', 55.55, 0], ['4.1', 0, 55.55]]);
    await b.posted('2026-03-01', [['1.1.01', 12.34, 0], ['4.1', 0, 12.34]]);
    return b;
  }

  it('direct: the cash each counterpart account moved, by activity; the totals add up to the change in cash', async () => {
    const b = await february();
    const flow = await b.flow('?start=2026-02-01&end=2026-02-28');
    expect(flow).toEqual({
      period: { start: '2026-02-01', end: '2026-02-28' },
      method: 'direct',
      operacional: {
        entradas: [
          { description: 'Clientes', amount: 1000 },
          { description: 'Receita de vendas', amount: 52500 },
        ],
        saidas: [
          { description: 'Fornecedores', amount: -6000 },
          { description: 'Aluguel', amount: -7000 },
          { description: 'Taxas de cartão', amount: -1500 },
        ],
        total: 39000,
      },
      investimento: { entradas: [], saidas: [{ description: 'Imobilizado', amount: -30000 }], total: -30000 },
      financiamento: {
        entradas: [
          { description: 'Empréstimos e financiamentos', amount: 20000 },
          { description: 'Empréstimos e financiamentos de longo prazo', amount: 40000 },
        ],
        saidas: [{ description: 'Lucros ou prejuízos acumulados', amount: -4000 }],
        total: 56000,
      },
      saldoInicial: 100000,
      // Bancos 1300.00 + Caixa 225.00 + Conta Inter 125.00
      saldoFinal: 165000,
    });
  });

  it('indirect: the result, the non-cash items and the working capital give the direct totals, and both match the change in cash', async () => {
    const b = await february();
    const query = '?start=2026-02-01&end=2026-02-28';
    const direct = await b.flow(query);
    const indirect = await b.flow(`${query}&method=indirect`);
    expect(indirect.method).toBe('indirect');
    expect(indirect.operacional).toEqual({
      entradas: [
        // 555.00 of sales - 50 CMV - 70 rent - 15 card fees - 5 depreciation
        { description: 'Resultado do período', amount: 41500 },
        { description: 'Depreciação', amount: 500 },
        { description: 'Variação em Fornecedores', amount: 12000 },
      ],
      saidas: [
        { description: 'Outras transações sem efeito caixa (investimento e financiamento)', amount: -10000 },
        { description: 'Variação em Clientes', amount: -2000 },
        { description: 'Variação em Estoques de mercadorias e insumos', amount: -3000 },
      ],
      total: 39000,
    });
    expect(indirect.investimento).toEqual(direct.investimento);
    expect(indirect.financiamento).toEqual(direct.financiamento);
    const change = direct.saldoFinal - direct.saldoInicial;
    for (const f of [direct, indirect]) {
      expect(f.operacional.total + f.investimento.total + f.financiamento.total).toBe(change);
      expect(f.saldoFinal).toBe(165000);
    }
    expect(indirect.operacional.total).toBe(direct.operacional.total);
  });

  it('both methods agree over any window of the month', async () => {
    const b = await february();
    for (const [start, end] of [
      ['2026-02-01', '2026-02-10'],
      ['2026-02-11', '2026-02-24'],
      ['2026-01-01', '2026-03-31'],
      ['2026-02-20', '2026-02-20'],
    ]) {
      const direct = await b.flow(`?start=${start}&end=${end}`);
      const indirect = await b.flow(`?start=${start}&end=${end}&method=indirect`);
      const change = direct.saldoFinal - direct.saldoInicial;
      for (const key of ['operacional', 'investimento', 'financiamento'] as const) expect(indirect[key].total, `${start} ${end} ${key}`).toBe(direct[key].total);
      expect(direct.operacional.total + direct.investimento.total + direct.financiamento.total, `${start} ${end}`).toBe(change);
      expect(indirect.saldoFinal).toBe(direct.saldoFinal);
    }
  });

  it('defaults to the current month up to today, admits the accountant, refuses staff, anonymous callers and bad input', async () => {
    const b = await books();
    const today = localDate(t.clock.now(), 'America/Sao_Paulo');
    const flow = await b.flow('', b.accountant.headers);
    expect(flow.period).toEqual({ start: `${today.slice(0, 7)}-01`, end: today });
    expect(flow.method).toBe('direct');
    expect(flow.saldoFinal).toBe(0);
    expect((await b.flow('?end=2026-02-15')).period).toEqual({ start: '2026-02-01', end: '2026-02-15' });
    expect((await get(`${reports(b.slug)}/cash-flow`, b.staff.headers)).statusCode).toBe(403);
    expect((await get(`${reports(b.slug)}/cash-flow`)).statusCode).toBe(401);
    const before = await get(`${reports(b.slug)}/cash-flow?start=2026-02-10&end=2026-02-01`, b.admin.headers);
    expect(before.statusCode).toBe(400);
    expect(before.json().details).toEqual([{ field: 'querystring.end', message: 'must not be before start' }]);
    for (const bad of ['method=both', 'start=2026-02-30', 'end=tomorrow']) {
      const res = await get(`${reports(b.slug)}/cash-flow?${bad}`, b.admin.headers);
      expect(res.statusCode, bad).toBe(400);
    }
  });

  it('never shows another tenant’s cash', async () => {
    const a = await february();
    const other = await books();
    const flow = await other.flow('?start=2026-01-01&end=2026-03-31');
    expect(flow.saldoFinal).toBe(0);
    for (const x of [flow.operacional, flow.investimento, flow.financiamento]) expect(x).toEqual({ entradas: [], saidas: [], total: 0 });
    expect((await get(`${reports(a.slug)}/cash-flow`, other.admin.headers)).statusCode).toBe(403);
  });
});

describe('random books', () => {
  const seed = Number(process.env.ACCOUNTING_REPORTS_SEED ?? 20261126);
  it(`the balance sheet balances and both cash-flow methods agree with the change in cash (seed ${seed})`, async () => {
    const rng = new Rng(seed);
    const b = await books();
    await b.account({ code: '1.9', name: 'Depósitos judiciais', nature: 'ativo' });
    const pool = ['1.1.01', '1.1.02', '1.1.03', '1.1.06', '1.2.01', '1.2.02', '1.9', '2.1.01', '2.1.05', '2.2.01', '3.1', '3.2', '3.3', '4.1', '4.3', '5.1', '6.1', '6.9', '6.10'];
    const cash = new Set(['1.1.01', '1.1.02']);
    const dates = ['2025-11-20', '2025-12-31', '2026-01-01', '2026-01-15', '2026-02-01', '2026-02-14', '2026-02-28', '2026-03-10'];
    /** Posted lines in cents, as the model keeps them. */
    const posted: { date: string; code: string; net: number }[] = [];
    for (let i = 0; i < 40; i++) {
      const shuffled = [...pool];
      for (let k = shuffled.length - 1; k > 0; k--) {
        const r = rng.int(0, k);
        [shuffled[k], shuffled[r]] = [shuffled[r]!, shuffled[k]!];
      }
      const codes = shuffled.slice(0, rng.int(2, 4));
      const debits = rng.int(1, codes.length - 1);
      const lines: [string, number, number][] = codes.slice(0, debits).map((c) => [c, rng.int(1, 500_00), 0]);
      const total = lines.reduce((s, l) => s + l[1], 0);
      const credits = codes.slice(debits);
      let left = total;
      credits.forEach((c, k) => {
        const cents = k === credits.length - 1 ? left : rng.int(1, left - (credits.length - 1 - k));
        left -= cents;
        lines.push([c, 0, cents]);
      });
      const date = rng.pick(dates);
      const units = lines.map(([c, d, cr]): [string, number, number] => [c, d / 100, cr / 100]);
      const kind = rng.weighted({ posted: 6, draft: 1, reversed: 1 });
      if (kind === 'draft') {
        await b.draft(date, units);
        continue;
      }
      const entry = await b.posted(date, units);
      if (kind === 'reversed') await b.reverse(entry._id);
      else for (const [code, d, c] of lines) posted.push({ date, code, net: d - c });
    }
    const netOf = (pred: (l: { date: string; code: string }) => boolean) => posted.filter(pred).reduce((s, l) => s + l.net, 0);

    for (const asOf of ['2025-12-31', '2026-01-31', '2026-02-28', '2026-12-31']) {
      const sheet = await b.sheet(`?asOf=${asOf}`);
      expect(sheet.ativo.total, asOf).toBe(netOf((l) => l.code.startsWith('1.') && l.date <= asOf));
      expect(sheet.passivoEPatrimonio.total, asOf).toBe(sheet.ativo.total);
    }
    for (const [start, end] of [
      ['2025-11-01', '2025-12-31'],
      ['2026-01-01', '2026-01-31'],
      ['2026-01-15', '2026-02-28'],
      ['2025-01-01', '2026-12-31'],
    ]) {
      const direct = await b.flow(`?start=${start}&end=${end}`);
      const indirect = await b.flow(`?start=${start}&end=${end}&method=indirect`);
      const change = netOf((l) => cash.has(l.code) && l.date >= start && l.date <= end);
      expect(direct.saldoFinal, `${start} ${end}`).toBe(netOf((l) => cash.has(l.code) && l.date <= end));
      expect(direct.saldoFinal - direct.saldoInicial).toBe(change);
      for (const key of ['operacional', 'investimento', 'financiamento'] as const) expect(indirect[key].total, `${start} ${end} ${key}`).toBe(direct[key].total);
      expect(direct.operacional.total + direct.investimento.total + direct.financiamento.total, `${start} ${end}`).toBe(change);
    }
  });
});

import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeTenantWithTeam, type TestUser, seedDefaultChart } from '../../../test/factories.js';
import { csvField, decimal, pairsOf } from './exports.service.js';

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  sa = await seedDefaultChart(t.app);
});
afterAll(() => t.close());

type Headers = Record<string, string>;
type ErpA = {
  layout: string;
  version: number;
  company: { name: string; slug: string; cnpj: string | null };
  period: { start: string; end: string };
  currency: string;
  amountUnit: string;
  entries: {
    number: string;
    date: string;
    description: string;
    reverses: string | null;
    source: string | null;
    lines: { line: number; account: string; accountName: string; debitCents: number; creditCents: number; memo: string | null }[];
  }[];
  totals: { entries: number; lines: number; debitCents: number; creditCents: number };
};
type ErpB = {
  layout: string;
  versao: number;
  empresa: { nome: string; cnpj: string | null };
  periodo: { inicio: string; fim: string };
  lancamentos: { documento: string; data: string; contaDebito: string; contaCredito: string; valor: string; historico: string }[];
  totalLancamentos: number;
  valorTotal: string;
};

const get = (url: string, headers: Headers = {}) => t.app.inject({ method: 'GET', url, headers });
const exportUrl = (slug: string, query: string) => `/t/${slug}/admin/accounting/export?${query}`;
const cents = (s: string) => Math.round(Number(s) * 100);

/** A tenant with March 2026 entries: a three-line sale, a reversed one (both posted), a draft, and entries just outside the month. */
async function march() {
  const team = await makeTenantWithTeam(t.app);
  const chart = (await get(`/t/${team.slug}/accounting/chart`, team.admin.headers)).json() as { _id: string; code: string }[];
  const id = (code: string) => chart.find((a) => a.code === code)!._id;
  const call = (url: string, payload?: object) => t.app.inject({ method: 'POST', url, headers: team.admin.headers, ...(payload ? { payload } : {}) });
  const draft = async (date: string, lines: [string, number, number][], description = 'Lançamento') => {
    const res = await call(`/t/${team.slug}/accounting/journal`, {
      competenceDate: date,
      description,
      lines: lines.map(([code, debit, credit]) => ({ accountId: id(code), ...(debit ? { debit } : {}), ...(credit ? { credit } : {}), memo: 'obs, "aspas"' })),
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { _id: string; entryNumber: string };
  };
  const posted = async (date: string, lines: [string, number, number][], description?: string) => {
    const entry = await draft(date, lines, description);
    expect((await call(`/t/${team.slug}/accounting/journal/${entry._id}/post`)).statusCode).toBe(200);
    return entry;
  };
  const before = await posted('2026-02-28', [['1.1.01', 1, 0], ['4.1', 0, 1]]);
  const sale = await posted('2026-03-10', [['1.1.01', 97, 0], ['6.6', 3, 0], ['4.1', 0, 100]], 'Venda do dia, "mesa 4"');
  const wrong = await posted('2026-03-15', [['6.1', 1234.56, 0], ['1.1.02', 0, 1234.56]], 'Aluguel');
  const reversal = await call(`/t/${team.slug}/accounting/journal/${wrong._id}/reverse`, { reason: 'em duplicidade' });
  expect(reversal.statusCode).toBe(201);
  const drafted = await draft('2026-03-16', [['1.1.01', 5, 0], ['4.1', 0, 5]]);
  const after = await posted('2026-04-01', [['1.1.01', 2, 0], ['4.1', 0, 2]]);
  return { ...team, sale, wrong, counter: reversal.json() as { entryNumber: string }, outside: [before.entryNumber, drafted.entryNumber, after.entryNumber] };
}
type March = Awaited<ReturnType<typeof march>>;

async function download(m: March, format: string, headers: Headers = m.admin.headers, range = 'start=2026-03-01&end=2026-03-31') {
  const res = await get(exportUrl(m.slug, `format=${format}&${range}`), headers);
  expect(res.statusCode, res.body).toBe(200);
  return res;
}

describe('GET /t/:slug/admin/accounting/export', () => {
  let m: March;
  beforeAll(async () => {
    m = await march();
  });

  it('erp_a: the posted entries of the period with their lines, as an attachment', async () => {
    const res = await download(m, 'erp_a');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="razao-${m.slug}-2026-03-01-2026-03-31-erp_a.json"`);
    const file = res.json() as ErpA;
    expect(file).toMatchObject({
      layout: 'erp_a',
      version: 1,
      company: { slug: m.slug, name: m.tenant.name, cnpj: null },
      period: { start: '2026-03-01', end: '2026-03-31' },
      currency: 'BRL',
      amountUnit: 'cents',
    });
    expect(file.entries.map((e) => e.number)).toEqual([m.sale.entryNumber, m.wrong.entryNumber, m.counter.entryNumber]);
    expect(file.entries[0]).toEqual({
      number: m.sale.entryNumber,
      date: '2026-03-10',
      description: 'Venda do dia, "mesa 4"',
      reverses: null,
      source: null,
      lines: [
        { line: 1, account: '1.1.01', accountName: 'Caixa', debitCents: 9700, creditCents: 0, memo: 'obs, "aspas"' },
        { line: 2, account: '6.6', accountName: 'Taxas de cartão', debitCents: 300, creditCents: 0, memo: 'obs, "aspas"' },
        { line: 3, account: '4.1', accountName: 'Receita de vendas', debitCents: 0, creditCents: 10000, memo: 'obs, "aspas"' },
      ],
    });
    expect(file.entries[2]!.reverses).toBe(m.wrong.entryNumber);
    expect(file.entries[2]!.lines.map((l) => [l.account, l.debitCents, l.creditCents])).toEqual([
      ['6.1', 0, 123456],
      ['1.1.02', 123456, 0],
    ]);
    const lines = file.entries.flatMap((e) => e.lines);
    expect(file.totals).toEqual({ entries: 3, lines: 7, debitCents: 10000 + 2 * 123456, creditCents: 10000 + 2 * 123456 });
    for (const e of file.entries) expect(e.lines.reduce((s, l) => s + l.debitCents - l.creditCents, 0)).toBe(0);
    expect(lines.reduce((s, l) => s + l.debitCents, 0)).toBe(file.totals.creditCents);
  });

  it('erp_b: one row per debit/credit pair, dd/mm/yyyy dates and decimal strings', async () => {
    const res = await download(m, 'erp_b');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="razao-${m.slug}-2026-03-01-2026-03-31-erp_b.json"`);
    const file = res.json() as ErpB;
    expect(file).toEqual({
      layout: 'erp_b',
      versao: 1,
      empresa: { nome: m.tenant.name, cnpj: null },
      periodo: { inicio: '01/03/2026', fim: '31/03/2026' },
      lancamentos: [
        { documento: m.sale.entryNumber, data: '10/03/2026', contaDebito: '1.1.01', contaCredito: '4.1', valor: '97.00', historico: 'Venda do dia, "mesa 4"' },
        { documento: m.sale.entryNumber, data: '10/03/2026', contaDebito: '6.6', contaCredito: '4.1', valor: '3.00', historico: 'Venda do dia, "mesa 4"' },
        { documento: m.wrong.entryNumber, data: '15/03/2026', contaDebito: '6.1', contaCredito: '1.1.02', valor: '1234.56', historico: 'Aluguel' },
        {
          documento: m.counter.entryNumber,
          data: '15/03/2026',
          contaDebito: '1.1.02',
          contaCredito: '6.1',
          valor: '1234.56',
          historico: `Estorno de ${m.wrong.entryNumber}: em duplicidade`,
        },
      ],
      totalLancamentos: 4,
      valorTotal: '2569.12',
    });
    expect(file.lancamentos.reduce((s, l) => s + cents(l.valor), 0)).toBe(cents(file.valorTotal));
  });

  it('erp_c: an RFC 4180 CSV, one row per journal line, that parses back and balances', async () => {
    const res = await download(m, 'erp_c');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="razao-${m.slug}-2026-03-01-2026-03-31.csv"`);
    expect(res.body.startsWith('Account,Debit,Credit,Date,Ref\r\n')).toBe(true);
    expect(res.body.endsWith('\r\n')).toBe(true);
    const rows = parse(res.body, { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(['Account', 'Debit', 'Credit', 'Date', 'Ref']);
    expect(rows).toHaveLength(7);
    expect(rows.slice(0, 3)).toEqual([
      { Account: '1.1.01', Debit: '97.00', Credit: '0.00', Date: '2026-03-10', Ref: m.sale.entryNumber },
      { Account: '6.6', Debit: '3.00', Credit: '0.00', Date: '2026-03-10', Ref: m.sale.entryNumber },
      { Account: '4.1', Debit: '0.00', Credit: '100.00', Date: '2026-03-10', Ref: m.sale.entryNumber },
    ]);
    expect(rows.reduce((s, r) => s + cents(r.Debit!), 0)).toBe(rows.reduce((s, r) => s + cents(r.Credit!), 0));
    expect(new Set(rows.map((r) => r.Ref))).toEqual(new Set([m.sale.entryNumber, m.wrong.entryNumber, m.counter.entryNumber]));
    expect(rows.every((r) => r.Date! >= '2026-03-01' && r.Date! <= '2026-03-31')).toBe(true);
  });

  it('leaves out drafts and the entries outside the period in every format', async () => {
    for (const format of ['erp_a', 'erp_b', 'erp_c']) {
      const body = (await download(m, format)).body;
      for (const number of m.outside) expect(body, `${format} ${number}`).not.toContain(number);
    }
    // One day: only that day's entries.
    const day = (await download(m, 'erp_a', m.admin.headers, 'start=2026-03-15&end=2026-03-15')).json() as ErpA;
    expect(day.entries.map((e) => e.number)).toEqual([m.wrong.entryNumber, m.counter.entryNumber]);
    // A period without entries: an empty file of the layout.
    const empty = await download(m, 'erp_c', m.admin.headers, 'start=2025-01-01&end=2025-12-31');
    expect(empty.body).toBe('Account,Debit,Credit,Date,Ref\r\n');
  });

  it('admits the accountant, refuses staff and anonymous callers', async () => {
    for (const format of ['erp_a', 'erp_b', 'erp_c']) expect((await download(m, format, m.accountant.headers)).headers['content-disposition']).toMatch(/^attachment; /);
    expect((await get(exportUrl(m.slug, 'format=erp_a&start=2026-03-01&end=2026-03-31'), m.staff.headers)).statusCode).toBe(403);
    expect((await get(exportUrl(m.slug, 'format=erp_a&start=2026-03-01&end=2026-03-31'))).statusCode).toBe(401);
  });

  it('answers 400 for a missing or bad format, a missing or bad date, and an end before the start', async () => {
    const cases: [string, string][] = [
      ['start=2026-03-01&end=2026-03-31', 'querystring.format'],
      ['format=xml&start=2026-03-01&end=2026-03-31', 'querystring.format'],
      ['format=erp_a&end=2026-03-31', 'querystring.start'],
      ['format=erp_a&start=2026-03-01', 'querystring.end'],
      ['format=erp_a&start=2026-02-30&end=2026-03-31', 'querystring.start'],
      ['format=erp_c&start=2026-03-01&end=31/03/2026', 'querystring.end'],
      ['format=erp_b&start=2026-03-31&end=2026-03-01', 'querystring.end'],
    ];
    for (const [query, says] of cases) {
      const res = await get(exportUrl(m.slug, query), m.admin.headers);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message, query).toContain(says);
    }
    const reversed = await get(exportUrl(m.slug, 'format=erp_b&start=2026-03-31&end=2026-03-01'), m.admin.headers);
    expect(reversed.json().details).toEqual([{ field: 'querystring.end', message: 'must not be before start' }]);
  });

  it('never exports another tenant’s entries', async () => {
    const other = await makeTenantWithTeam(t.app);
    const file = (await download({ ...m, slug: other.slug }, 'erp_a', other.admin.headers)).json() as ErpA;
    expect(file.company.slug).toBe(other.slug);
    expect(file.entries).toEqual([]);
    const csv = (await download({ ...m, slug: other.slug }, 'erp_c', other.admin.headers)).body;
    expect(csv).toBe('Account,Debit,Credit,Date,Ref\r\n');
    expect((await get(exportUrl(m.slug, 'format=erp_a&start=2026-03-01&end=2026-03-31'), other.admin.headers)).statusCode).toBe(403);
  });
});

describe('GET /t/:slug/admin/accounting/export?format=sped', () => {
  it('answers the SPED ECD file of the period as an ISO-8859-1 attachment, posted entries only', async () => {
    const m = await march();
    // Without the restaurant's CNPJ there is no ECD: 400 with the generator's code.
    const refused = await get(exportUrl(m.slug, 'format=sped&start=2026-03-01&end=2026-03-31'), m.admin.headers);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('cnpj_required');
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/superadmin/tenants/${m.tenant._id}`,
      headers: sa.headers,
      payload: { cnpj: '11.222.333/0001-81', state: 'SP', city: 'São Paulo', inscricaoEstadual: '110042490114' },
    });
    expect(put.statusCode, put.body).toBe(200);
    const res = await download(m, 'sped', m.accountant.headers);
    expect(res.headers['content-type']).toBe('text/plain; charset=iso-8859-1');
    expect(res.headers['content-disposition']).toBe('attachment; filename="SPED-ECD-11222333000181-2026-03-01-2026-03-31.txt"');
    const text = res.rawPayload.toString('latin1');
    expect(text.startsWith('|0000|LECD|01032026|31032026|')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    for (const number of [m.sale.entryNumber, m.wrong.entryNumber, m.counter.entryNumber]) expect(text).toContain(`|I200|${number}|`);
    for (const number of m.outside) expect(text).not.toContain(number);
    // The generator's own rules on the period: whole months of one year.
    const partial = await get(exportUrl(m.slug, 'format=sped&start=2026-03-02&end=2026-03-31'), m.admin.headers);
    expect(partial.statusCode).toBe(400);
    expect(partial.json().details).toEqual([expect.objectContaining({ field: 'querystring.start' })]);
    expect((await get(exportUrl(m.slug, 'format=sped&start=2026-03-01&end=2026-03-31'), m.staff.headers)).statusCode).toBe(403);
  });
});

describe('export helpers', () => {
  it('pairs the debits and credits of an entry so every pair sums back to its total', () => {
    expect(
      pairsOf([
        { accountCode: 'a', debitCents: 700, creditCents: 0 },
        { accountCode: 'b', debitCents: 300, creditCents: 0 },
        { accountCode: 'x', debitCents: 0, creditCents: 500 },
        { accountCode: 'y', debitCents: 0, creditCents: 500 },
      ]),
    ).toEqual([
      { debit: 'a', credit: 'x', cents: 500 },
      { debit: 'a', credit: 'y', cents: 200 },
      { debit: 'b', credit: 'y', cents: 300 },
    ]);
  });

  it('writes decimals with a point and quotes CSV fields as RFC 4180 says', () => {
    expect([decimal(0), decimal(5), decimal(123456), decimal(-5), decimal(100)]).toEqual(['0.00', '0.05', '1234.56', '-0.05', '1.00']);
    expect([csvField('1.1.01'), csvField('a,b'), csvField('say "hi"'), csvField('two\r\nlines')]).toEqual(['1.1.01', '"a,b"', '"say ""hi"""', '"two\r\nlines"']);
    const row = ['x,y', 'q"q', 'plain'].map(csvField).join(',');
    expect(parse(`${row}\r\n`)).toEqual([['x,y', 'q"q', 'plain']]);
  });
});

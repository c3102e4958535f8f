import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeTenantWithTeam, type TestUser, seedDefaultChart } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

const OFX_DIR = join(import.meta.dirname, '../../../../shared/data/ofx');
const CSV_DIR = join(import.meta.dirname, '../../../../shared/data/bank_csv');
const ofxFile = (name: string) => readFileSync(join(OFX_DIR, name));
const csvFile = (name: string) => readFileSync(join(CSV_DIR, name));

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  sa = await seedDefaultChart(t.app);
});
afterAll(() => t.close());

type Method = 'GET' | 'POST';
type BankAccount = {
  _id: string;
  name: string;
  bank: string;
  agency: string;
  account: string;
  type: string;
  ledgerAccount: { id: string; code: string; name: string };
  unmatchedLines: number;
};
type Line = {
  _id: string;
  date: string;
  amount: number;
  description: string;
  fitId: string;
  status: string;
  matchedEntry: { _id: string; entryNumber: string; competenceDate: string; description: string } | null;
  ignoredReason: string | null;
};
const MISSING = 'ffffffffffffffffffffffff';

const call = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
const base = (slug: string) => `/t/${slug}/accounting/bank`;

/** A multipart/form-data body with the statement in `file` (or another field). */
function form(file: string | Buffer | undefined, field = 'file', extra: Record<string, string> = {}) {
  const boundary = `----bank${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  const push = (s: string | Buffer) => chunks.push(typeof s === 'string' ? Buffer.from(s) : s);
  for (const [k, v] of Object.entries(extra)) push(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  if (file !== undefined) {
    push(`--${boundary}\r\ncontent-disposition: form-data; name="${field}"; filename="extrato"\r\ncontent-type: application/octet-stream\r\n\r\n`);
    push(file);
    push('\r\n');
  }
  push(`--${boundary}--\r\n`);
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
function upload(slug: string, bankId: string, headers: Record<string, string>, file: string | Buffer | undefined, field?: string) {
  const body = form(file, field);
  return t.app.inject({ method: 'POST', url: `${base(slug)}/${bankId}/import`, headers: { ...headers, ...body.headers }, payload: body.payload });
}

/** A tenant with the chart's ids by code. */
async function books() {
  const team = await makeTenantWithTeam(t.app);
  const chart = (await call('GET', `/t/${team.slug}/accounting/chart`, team.admin.headers)).json() as { _id: string; code: string }[];
  const id = (code: string) => chart.find((a) => a.code === code)!._id;
  return { ...team, caixa: id('1.1.01'), bancos: id('1.1.02'), vendas: id('4.1'), aluguel: id('6.1'), circulante: id('1.1') };
}
type Books = Awaited<ReturnType<typeof books>>;

async function account(b: Books, body: Partial<Record<string, string>> = {}): Promise<BankAccount> {
  const res = await call('POST', base(b.slug), b.admin.headers, { name: 'Conta movimento', bank: '237', agency: '1234', account: '99999', type: 'checking', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
async function importOk(b: Books, bankId: string, file: string | Buffer) {
  const res = await upload(b.slug, bankId, b.admin.headers, file);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { importId: string; format: string; linesRead: number; linesAdded: number; duplicates: number; skipped: number };
}
async function statement(b: Books, bankId: string, query = ''): Promise<Line[]> {
  const res = await call('GET', `${base(b.slug)}/${bankId}/statement${query}`, b.admin.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
/** A posted entry: `amount` > 0 debits the bank (a receipt), < 0 credits it (a payment). */
async function entry(b: Books, date: string, amount: number, bankLedger = b.bancos) {
  const lines =
    amount > 0
      ? [
          { accountId: bankLedger, debit: amount },
          { accountId: b.vendas, credit: amount },
        ]
      : [
          { accountId: b.aluguel, debit: -amount },
          { accountId: bankLedger, credit: -amount },
        ];
  const created = await call('POST', `/t/${b.slug}/accounting/journal`, b.admin.headers, { competenceDate: date, description: `Movimento ${date} ${amount}`, lines });
  expect(created.statusCode, created.body).toBe(201);
  const posted = await call('POST', `/t/${b.slug}/accounting/journal/${created.json()._id}/post`, b.admin.headers);
  expect(posted.statusCode, posted.body).toBe(200);
  return posted.json() as { _id: string; entryNumber: string };
}
/** A `;` CSV of [dd/mm/yyyy, description, amount] rows. */
const csv = (rows: [string, string, string][]) => ['Data;Histórico;Valor', ...rows.map((r) => r.join(';'))].join('\r\n');

describe('bank accounts', () => {
  it('creates accounts on the bancos ledger account or a given asset account, lists them, refuses duplicates and bad ledgers', async () => {
    const b = await books();
    const first = await account(b, { name: '  Bradesco ' });
    expect(first).toEqual({
      _id: expect.any(String),
      name: 'Bradesco',
      bank: '237',
      agency: '1234',
      account: '99999',
      type: 'checking',
      ledgerAccount: { id: b.bancos, code: '1.1.02', name: expect.any(String) },
      active: true,
      unmatchedLines: 0,
      createdAt: expect.any(String),
    });
    const own = await call('POST', `/t/${b.slug}/accounting/chart`, b.admin.headers, {
      code: '1.1.09',
      name: 'Banco Itaú',
      nature: 'ativo',
      type: 'analitica',
      normalBalance: 'debit',
      parent: b.circulante,
    });
    expect(own.statusCode, own.body).toBe(201);
    const second = await account(b, { name: 'Itaú', bank: '341', account: '55555-1', type: 'savings', ledgerAccountId: own.json()._id });
    expect(second.ledgerAccount).toEqual({ id: own.json()._id, code: '1.1.09', name: 'Banco Itaú' });

    const dup = await call('POST', base(b.slug), b.admin.headers, { name: 'Outra', bank: '237', agency: ' 1234', account: '99999 ', type: 'checking' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().code).toBe('bank_account_exists');
    for (const [ledgerAccountId, why] of [
      [b.vendas, /asset/],
      [b.circulante, /analytic/],
      [MISSING, /not an account/],
    ] as const) {
      const res = await call('POST', base(b.slug), b.admin.headers, { name: 'X', bank: '1', agency: '1', account: '1', type: 'checking', ledgerAccountId });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(why);
    }
    for (const body of [{}, { name: 'X', bank: '1', agency: '1', account: '1', type: 'credit' }, { name: ' ', bank: '1', agency: '1', account: '1', type: 'checking' }]) {
      expect((await call('POST', base(b.slug), b.admin.headers, body)).statusCode).toBe(400);
    }
    const list = (await call('GET', base(b.slug), b.admin.headers)).json() as BankAccount[];
    expect(list.map((a) => a.name)).toEqual(['Bradesco', 'Itaú']);
  });
});

/** Each OFX sample: the bank account it belongs to, what it reads as, and some of its lines. */
const OFX_SAMPLES = [
  {
    file: 'bradesco.ofx',
    account: { bank: '237', agency: '1234', account: '99999' },
    read: 3,
    added: 3,
    lines: [
      { date: '2019-04-30', amount: 10, description: 'RESGATE INVEST', fitId: 'N1013F' },
      { date: '2019-04-30', amount: 24783.31, description: 'RESGATE INVEST', fitId: 'N10153' },
      { date: '2019-04-30', amount: -22785.76, description: 'APLICACAO EM FUNDOS', fitId: 'N10167' },
    ],
  },
  {
    file: 'itau.ofx',
    account: { bank: '341', agency: '9999', account: '99999-9' },
    read: 3,
    added: 3,
    lines: [
      { date: '2013-12-09', amount: -666.66, description: 'RSHOP', fitId: '20131209001' },
      { date: '2013-12-09', amount: 99.99, description: 'REND PAGO APLIC AUT MAIS', fitId: '20131209002' },
      { date: '2013-12-10', amount: -77.77, description: 'SISDEB', fitId: '20131210001' },
    ],
  },
  {
    file: 'ofxdata-bb.ofx',
    account: { bank: '001', agency: '0001', account: '455000-5' },
    read: 1,
    added: 1,
    lines: [{ date: '2015-11-03', amount: 239.55, description: 'DOC CRÉDITO EM CONTA', fitId: '20151103023955' }],
  },
  {
    file: 'ofxdata.ofx',
    account: { bank: '987654321', agency: '1', account: '098-121' },
    read: 3,
    added: 3,
    lines: [
      { date: '2007-03-15', amount: 200, description: 'DEPOSIT - automatic deposit', fitId: '980315001' },
      { date: '2007-03-29', amount: 150, description: 'TRANSFER - Transfer from checking', fitId: '980310001' },
      { date: '2007-07-09', amount: -100, description: 'John Hancock', fitId: '980309001' },
    ],
  },
  {
    file: 'ofxdata-xml.ofx',
    account: { bank: 'MYBANK', agency: '1', account: '098-121' },
    read: 3,
    added: 3,
    lines: [
      { date: '2007-03-15', amount: 200, description: 'DEPOSIT - automatic deposit', fitId: '980315001' },
      { date: '2007-03-29', amount: 150, description: 'TRANSFER - Transfer from checking', fitId: '980310001' },
      { date: '2007-07-09', amount: -100, description: 'Cheque', fitId: '980309001' },
    ],
  },
  // Its only transaction is `*snipped*`: read, skipped.
  { file: 'ofxdata-banking-xml200.ofx', account: { bank: '000000', agency: '1', account: '12345678901' }, read: 1, added: 0, lines: [] },
];

const CSV_SAMPLES = [
  {
    file: 'bb.csv',
    lines: [
      { date: '2024-01-15', amount: 1000, description: 'PIX RECEBIDO - JOAO' },
      { date: '2024-01-16', amount: -200, description: 'PAGAMENTO BOLETO' },
    ],
  },
  {
    file: 'bradesco.csv',
    lines: [
      { date: '2024-01-15', amount: 1000, description: 'TED RECEBIDA' },
      { date: '2024-01-16', amount: -200, description: 'DÉBITO EM CONTA' },
    ],
  },
  {
    file: 'itau.csv',
    lines: [
      { date: '2024-01-15', amount: 1000, description: 'PIX RECEBIDO - JOAO' },
      { date: '2024-01-16', amount: -150, description: 'COMPRA SUPERMERCADO' },
    ],
  },
  {
    file: 'nubank.csv',
    lines: [
      { date: '2024-01-15', amount: 1000, description: 'PIX recebido' },
      { date: '2024-01-16', amount: -45.9, description: 'iFood*RESTAURANTE' },
    ],
  },
];

describe('statement import', () => {
  it.each(OFX_SAMPLES)('imports $file, and a re-import adds nothing', async (sample) => {
    const b = await books();
    const bank = await account(b, sample.account);
    const first = await importOk(b, bank._id, ofxFile(sample.file));
    expect(first).toEqual({ importId: expect.any(String), format: 'ofx', linesRead: sample.read, linesAdded: sample.added, duplicates: 0, skipped: sample.read - sample.added });
    const lines = await statement(b, bank._id);
    expect(lines.map(({ date, amount, description, fitId }) => ({ date, amount, description, fitId }))).toEqual(
      [...sample.lines].sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : 0)),
    );
    expect(lines.every((l) => l.status === 'unmatched' && l.matchedEntry === null)).toBe(true);
    const again = await importOk(b, bank._id, ofxFile(sample.file));
    expect(again).toMatchObject({ linesRead: sample.read, linesAdded: 0, duplicates: sample.added });
    expect(again.importId).not.toBe(first.importId);
    expect(await statement(b, bank._id)).toEqual(lines);
  });

  it.each(CSV_SAMPLES)('imports $file from its header row, and a re-import adds nothing', async (sample) => {
    const b = await books();
    const bank = await account(b);
    const first = await importOk(b, bank._id, csvFile(sample.file));
    expect(first).toMatchObject({ format: 'csv', linesRead: 2, linesAdded: 2, duplicates: 0, skipped: 0 });
    const lines = await statement(b, bank._id);
    expect(lines.map(({ date, amount, description }) => ({ date, amount, description }))).toEqual(sample.lines);
    expect(lines.every((l) => /^h:[0-9a-f]{32}$/.test(l.fitId))).toBe(true);
    expect(await importOk(b, bank._id, csvFile(sample.file))).toMatchObject({ linesRead: 2, linesAdded: 0, duplicates: 2 });
    expect(await statement(b, bank._id)).toEqual(lines);
  });

  it('reads the SGML and the XML version of one statement as the same lines (same FITIDs): the second adds nothing', async () => {
    const b = await books();
    const bank = await account(b, { bank: '987654321', account: '098-121' });
    expect(await importOk(b, bank._id, ofxFile('ofxdata.ofx'))).toMatchObject({ linesAdded: 3 });
    expect(await importOk(b, bank._id, ofxFile('ofxdata-xml.ofx'))).toMatchObject({ linesRead: 3, linesAdded: 0, duplicates: 3 });
  });

  it('reads Windows-1252 (latin1) files and a decimal comma; a longer statement adds only its new lines', async () => {
    const b = await books();
    const bank = await account(b, { bank: '001', account: '455000-5' });
    const latin1 = Buffer.from(ofxFile('ofxdata-bb.ofx').toString('utf8').replace('<TRNAMT>239.55', '<TRNAMT>1.239,55'), 'latin1');
    expect(latin1.includes(Buffer.from('CRÉDITO', 'utf8'))).toBe(false);
    expect(await importOk(b, bank._id, latin1)).toMatchObject({ linesAdded: 1 });
    expect((await statement(b, bank._id)).map((l) => [l.amount, l.description])).toEqual([[1239.55, 'DOC CRÉDITO EM CONTA']]);

    const csvBank = await account(b, { bank: '341', account: '11111-1' });
    const itau = Buffer.from(csvFile('itau.csv').toString('utf8'), 'latin1');
    expect(await importOk(b, csvBank._id, itau)).toMatchObject({ linesAdded: 2 });
    // The same file with a third line and the same purchase twice on one day: three new lines.
    const longer = Buffer.concat([itau, Buffer.from('\n17/01/2024;PADARIA;;;12,50;4837,50\n17/01/2024;PADARIA;;;12,50;4825,00\n17/01/2024;Saldo do dia;;;;4825,00\n', 'latin1')]);
    expect(await importOk(b, csvBank._id, longer)).toEqual(expect.objectContaining({ linesRead: 5, linesAdded: 2, duplicates: 2, skipped: 1 }));
    const lines = await statement(b, csvBank._id);
    expect(lines.map((l) => [l.date, l.amount, l.description])).toEqual([
      ['2024-01-15', 1000, 'PIX RECEBIDO - JOAO'],
      ['2024-01-16', -150, 'COMPRA SUPERMERCADO'],
      ['2024-01-17', -12.5, 'PADARIA'],
      ['2024-01-17', -12.5, 'PADARIA'],
    ]);
    expect(new Set(lines.map((l) => l.fitId)).size).toBe(4);
  });

  it('refuses another account’s OFX, a credit-card statement and unreadable files with 400, adding nothing', async () => {
    const b = await books();
    const bank = await account(b, { bank: '341', account: '99999-9' });
    const cases: [Buffer | string | undefined, string, string?][] = [
      [ofxFile('bradesco.ofx'), 'wrong_account'],
      [ofxFile('ofxdata-credit-card.ofx'), 'credit_card_statement'],
      ['just some words\nand more', 'unknown_csv_layout'],
      ['Data;Histórico;Valor\n32/01/2024;X;10,00\n', 'unreadable_statement'],
      ['Data;Histórico;Valor\n15/01/2024;X;dez reais\n', 'unreadable_statement'],
      ['OFXHEADER:100\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST><STMTTRN><DTPOSTED>2024<TRNAMT>1.00</STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>', 'unreadable_statement'],
      ['OFXHEADER:100\n<OFX><SIGNONMSGSRSV1></SIGNONMSGSRSV1></OFX>', 'no_statement'],
      [undefined, 'validation'],
      ['', 'validation'],
      ['Data;Valor\n15/01/2024;1,00\n', 'validation', 'other'],
    ];
    for (const [file, code, field] of cases) {
      const res = await upload(b.slug, bank._id, b.admin.headers, file, field);
      expect(res.statusCode, `${code}: ${res.body}`).toBe(400);
      expect(res.json().code).toBe(code);
    }
    const bradesco = await upload(b.slug, bank._id, b.admin.headers, ofxFile('bradesco.ofx'));
    expect(bradesco.json().message).toMatch(/bank 0237 account 99999/);
    const json = await call('POST', `${base(b.slug)}/${bank._id}/import`, b.admin.headers, { file: 'x' });
    expect(json.statusCode).toBe(400);
    const big = await upload(b.slug, bank._id, b.admin.headers, Buffer.alloc(2 * 1024 * 1024 + 10, 'a'));
    expect(big.statusCode).toBe(413);
    expect(await statement(b, bank._id)).toEqual([]);
    expect((await upload(b.slug, MISSING, b.admin.headers, csvFile('bb.csv'))).statusCode).toBe(404);
  });

  it('adds each line once when the same file is imported twice at once', async () => {
    const b = await books();
    const bank = await account(b);
    const results = await Promise.all([1, 2, 3].map(() => upload(b.slug, bank._id, b.admin.headers, ofxFile('bradesco.ofx'))));
    expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(results.reduce((s, r) => s + r.json().linesAdded, 0)).toBe(3);
    expect(results.reduce((s, r) => s + r.json().duplicates, 0)).toBe(6);
    expect(await statement(b, bank._id)).toHaveLength(3);
    expect(((await call('GET', base(b.slug), b.admin.headers)).json() as BankAccount[])[0]!.unmatchedLines).toBe(3);
  });
});

describe('reconciliation', () => {
  it('auto-matches by amount within 3 days (in at 3, out at 4), debits as negative lines, each entry once, nearest date first', async () => {
    const b = await books();
    const bank = await account(b);
    const inside = await entry(b, '2026-03-13', 100); // 3 days after the line
    await entry(b, '2026-03-14', 200); // 4 days after: out
    const before = await entry(b, '2026-03-07', -50); // 3 days before, a payment
    const far = await entry(b, '2026-03-08', 75); // 2 days before the 75 line...
    const near = await entry(b, '2026-03-10', 75); // ...this one is on the day: it wins
    await entry(b, '2026-03-10', 60); // one entry, two lines of 60: one line matched
    const reversed = await entry(b, '2026-03-10', 33);
    expect((await call('POST', `/t/${b.slug}/accounting/journal/${reversed._id}/reverse`, b.admin.headers, { reason: 'lançado errado' })).statusCode).toBe(201);
    await importOk(
      b,
      bank._id,
      csv([
        ['10/03/2026', 'DEP 100', '100,00'],
        ['10/03/2026', 'DEP 200', '200,00'],
        ['10/03/2026', 'ALUGUEL', '-50,00'],
        ['10/03/2026', 'DEP 75', '75,00'],
        ['10/03/2026', 'DEP 60 A', '60,00'],
        ['10/03/2026', 'DEP 60 B', '60,00'],
        ['10/03/2026', 'ESTORNADO', '33,00'],
        ['10/03/2026', 'DEP -100', '-100,00'],
      ]),
    );
    const res = await call('POST', `${base(b.slug)}/${bank._id}/auto-match`, b.admin.headers);
    expect(res.statusCode, res.body).toBe(200);
    const result = res.json() as { matched: number; unmatched: number; pairs: { amount: number; entryId: string; date: string }[] };
    expect(result.matched).toBe(4);
    expect(result.unmatched).toBe(4);
    const byAmount = Object.fromEntries(result.pairs.map((p) => [p.amount, p.entryId]));
    expect(byAmount).toEqual({ 100: inside._id, [-50]: before._id, 75: near._id, 60: expect.any(String) });
    const lines = await statement(b, bank._id);
    expect(lines.find((l) => l.description === 'DEP 100')!.matchedEntry).toEqual({ _id: inside._id, entryNumber: inside.entryNumber, competenceDate: '2026-03-13', description: 'Movimento 2026-03-13 100' });
    expect(lines.filter((l) => l.status === 'matched').map((l) => l.description).sort()).toEqual(['ALUGUEL', 'DEP 100', 'DEP 60 A', 'DEP 75']);
    expect((await statement(b, bank._id, '?status=unmatched')).map((l) => l.description).sort()).toEqual(['DEP -100', 'DEP 200', 'DEP 60 B', 'ESTORNADO']);
    // A second run finds nothing new; the other 75 entry pairs with a new 75 line two days later.
    expect((await call('POST', `${base(b.slug)}/${bank._id}/auto-match`, b.admin.headers)).json()).toMatchObject({ matched: 0, unmatched: 4, pairs: [] });
    await importOk(b, bank._id, csv([['10/03/2026', 'DEP 75 B', '75,00']]));
    const again = (await call('POST', `${base(b.slug)}/${bank._id}/auto-match`, b.admin.headers)).json();
    expect(again).toMatchObject({ matched: 1, unmatched: 4, pairs: [{ entryId: far._id, amount: 75 }] });
  });

  it('never pairs one entry twice when auto-matches run at once, on one bank account or two sharing the ledger account', async () => {
    const b = await books();
    const one = await account(b);
    const two = await account(b, { account: '88888' });
    for (let i = 1; i <= 6; i++) await entry(b, '2026-04-10', i * 10);
    const rows: [string, string, string][] = Array.from({ length: 6 }, (_, i) => ['11/04/2026', `DEP ${i}`, `${(i + 1) * 10},00`]);
    await importOk(b, one._id, csv(rows));
    await importOk(b, two._id, csv(rows));
    const runs = await Promise.all([one, two, one, two].map((a) => call('POST', `${base(b.slug)}/${a._id}/auto-match`, b.admin.headers)));
    expect(runs.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(runs.reduce((s, r) => s + r.json().matched, 0)).toBe(6);
    const matched = [...(await statement(b, one._id, '?status=matched')), ...(await statement(b, two._id, '?status=matched'))];
    expect(matched).toHaveLength(6);
    expect(new Set(matched.map((l) => l.matchedEntry!._id)).size).toBe(6);
  });

  it('matches, ignores and unmatches by hand', async () => {
    const b = await books();
    const bank = await account(b);
    const e = await entry(b, '2026-05-02', 90);
    const draft = await call('POST', `/t/${b.slug}/accounting/journal`, b.admin.headers, {
      competenceDate: '2026-05-02',
      description: 'Rascunho',
      lines: [
        { accountId: b.bancos, debit: 5 },
        { accountId: b.vendas, credit: 5 },
      ],
    });
    const cashOnly = await call('POST', `/t/${b.slug}/accounting/journal`, b.admin.headers, {
      competenceDate: '2026-05-02',
      description: 'Caixa',
      lines: [
        { accountId: b.caixa, debit: 5 },
        { accountId: b.vendas, credit: 5 },
      ],
    });
    await call('POST', `/t/${b.slug}/accounting/journal/${cashOnly.json()._id}/post`, b.admin.headers);
    await importOk(b, bank._id, csv([['20/05/2026', 'DEP', '91,00'], ['21/05/2026', 'TARIFA', '-12,00']]));
    const [dep, fee] = await statement(b, bank._id);
    const url = (lineId: string, action: string) => `${base(b.slug)}/${bank._id}/statement/${lineId}/${action}`;

    // A different amount and date: the person decides.
    const matched = await call('POST', url(dep!._id, 'match'), b.admin.headers, { entryId: e._id });
    expect(matched.statusCode, matched.body).toBe(200);
    expect(matched.json()).toMatchObject({ status: 'matched', matchedEntry: { _id: e._id, entryNumber: e.entryNumber } });
    const cases: [string, string, object, number, string][] = [
      [fee!._id, 'match', { entryId: e._id }, 409, 'entry_matched'],
      [fee!._id, 'match', { entryId: draft.json()._id }, 409, 'entry_not_posted'],
      [fee!._id, 'match', { entryId: cashOnly.json()._id }, 400, 'validation'],
      [fee!._id, 'match', { entryId: MISSING }, 400, 'validation'],
      [fee!._id, 'match', { entryId: 'nope' }, 400, 'validation'],
      [dep!._id, 'match', { entryId: e._id }, 409, 'line_not_unmatched'],
      [dep!._id, 'ignore', {}, 409, 'line_matched'],
      [fee!._id, 'ignore', { reason: 'x'.repeat(501) }, 400, 'validation'],
      [MISSING, 'ignore', {}, 404, 'not_found'],
      [MISSING, 'unmatch', {}, 404, 'not_found'],
    ];
    for (const [lineId, action, body, status, code] of cases) {
      const res = await call('POST', url(lineId, action), b.admin.headers, body);
      expect(res.statusCode, `${action} ${JSON.stringify(body)}: ${res.body}`).toBe(status);
      expect(res.json().code).toBe(code);
    }
    // No body at all: no reason.
    expect((await call('POST', url(fee!._id, 'ignore'), b.admin.headers)).json()).toMatchObject({ status: 'ignored', ignoredReason: null });
    const ignored = await call('POST', url(fee!._id, 'ignore'), b.admin.headers, { reason: ' tarifa lançada no fechamento ' });
    expect(ignored.json()).toMatchObject({ status: 'ignored', ignoredReason: 'tarifa lançada no fechamento', matchedEntry: null });
    const back = await call('POST', url(dep!._id, 'unmatch'), b.admin.headers);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json()).toMatchObject({ status: 'unmatched', matchedEntry: null });
    expect((await call('POST', url(fee!._id, 'unmatch'), b.admin.headers)).json()).toMatchObject({ status: 'unmatched', ignoredReason: null });
    // The entry is free again.
    expect((await call('POST', url(fee!._id, 'match'), b.admin.headers, { entryId: e._id })).statusCode).toBe(200);
    // A line of another bank account of the tenant is not found under this one.
    const other = await account(b, { account: '77777' });
    expect((await call('POST', `${base(b.slug)}/${other._id}/statement/${dep!._id}/ignore`, b.admin.headers, {})).statusCode).toBe(404);
    expect((await call('POST', `${base(b.slug)}/${MISSING}/auto-match`, b.admin.headers)).statusCode).toBe(404);
    expect((await call('GET', `${base(b.slug)}/${MISSING}/statement`, b.admin.headers)).statusCode).toBe(404);
    expect((await call('GET', `${base(b.slug)}/${bank._id}/statement?status=lost`, b.admin.headers)).statusCode).toBe(400);
  });
});

describe('who', () => {
  it('is admin or superadmin: 401 without a token, 403 for the accountant and staff, nothing changes', async () => {
    const b = await books();
    const bank = await account(b);
    await importOk(b, bank._id, csvFile('bb.csv'));
    const [line] = await statement(b, bank._id);
    const requests: [Method, string, object?][] = [
      ['GET', base(b.slug)],
      ['POST', base(b.slug), { name: 'Y', bank: '1', agency: '2', account: '3', type: 'checking' }],
      ['GET', `${base(b.slug)}/${bank._id}/statement`],
      ['POST', `${base(b.slug)}/${bank._id}/auto-match`],
      ['POST', `${base(b.slug)}/${bank._id}/statement/${line!._id}/ignore`, {}],
      ['POST', `${base(b.slug)}/${bank._id}/statement/${line!._id}/unmatch`],
      ['POST', `${base(b.slug)}/${bank._id}/statement/${line!._id}/match`, { entryId: MISSING }],
    ];
    const before = await statement(b, bank._id);
    for (const [method, url, body] of requests) {
      expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
      for (const who of [b.accountant, b.staff]) expect((await call(method, url, who.headers, body)).statusCode, `${method} ${url}`).toBe(403);
    }
    expect((await upload(b.slug, bank._id, {}, csvFile('bb.csv'))).statusCode).toBe(401);
    for (const who of [b.accountant, b.staff]) expect((await upload(b.slug, bank._id, who.headers, csvFile('itau.csv'))).statusCode).toBe(403);
    expect(await statement(b, bank._id)).toEqual(before);
    expect(((await call('GET', base(b.slug), b.admin.headers)).json() as BankAccount[]).length).toBe(1);
    expect((await call('GET', base(b.slug), sa.headers)).statusCode).toBe(200);
  });

  it("keeps a tenant's bank accounts and lines from another tenant (404 through its slug, 403 through the owner's)", async () => {
    const a = await books();
    const b = await books();
    const bank = await account(a);
    await importOk(a, bank._id, csvFile('bb.csv'));
    const [line] = await statement(a, bank._id);
    const e = await entry(a, '2024-01-15', 1000);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: a.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [
        { method: 'GET', path: `/t/:slug/accounting/bank/${bank._id}/statement` },
        { method: 'POST', path: `/t/:slug/accounting/bank/${bank._id}/auto-match` },
        { method: 'POST', path: `/t/:slug/accounting/bank/${bank._id}/statement/${line!._id}/match`, payload: { entryId: e._id } },
        { method: 'POST', path: `/t/:slug/accounting/bank/${bank._id}/statement/${line!._id}/ignore`, payload: {} },
        { method: 'POST', path: `/t/:slug/accounting/bank/${bank._id}/statement/${line!._id}/unmatch` },
      ],
      snapshot: () => statement(a, bank._id),
    });
    const viaOwn = await upload(b.slug, bank._id, b.admin.headers, csvFile('itau.csv'));
    expect(viaOwn.statusCode).toBe(404);
    expect(await statement(a, bank._id)).toHaveLength(2);
    expect((await call('GET', base(b.slug), b.admin.headers)).json()).toEqual([]);
    // B's line cannot be matched to A's entry.
    const bBank = await account(b);
    await importOk(b, bBank._id, csvFile('bb.csv'));
    const [bLine] = await statement(b, bBank._id);
    const res = await call('POST', `${base(b.slug)}/${bBank._id}/statement/${bLine!._id}/match`, b.admin.headers, { entryId: e._id });
    expect(res.statusCode).toBe(400);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeTenantWithTeam, type TestUser, seedDefaultChart } from '../../../test/factories.js';
import { DomainError } from '../../platform/domain-errors.js';
import { spedEcd } from './sped.js';
import { checkEcd } from './sped.check.js';

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  sa = await seedDefaultChart(t.app);
});
afterAll(() => t.close());

const CNPJ = '11222333000181';
type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;

/** A tenant with its registration, the chart's ids by code, and ways to write its books through HTTP. */
async function restaurant(registration: object = { cnpj: '11.222.333/0001-81', state: 'SP', city: 'São Paulo', inscricaoEstadual: '110042490114' }) {
  const team = await makeTenantWithTeam(t.app, { name: 'Cantina Dona Conceição Ltda' });
  const put = await t.app.inject({ method: 'PUT', url: `/api/superadmin/tenants/${team.tenant._id}`, headers: sa.headers, payload: registration });
  expect(put.statusCode, put.body).toBe(200);
  const chart = (await t.app.inject({ method: 'GET', url: `/t/${team.slug}/accounting/chart`, headers: team.admin.headers })).json() as { _id: string; code: string }[];
  const id = (code: string) => chart.find((a) => a.code === code)!._id;
  const draft = async (date: string, description: string, lines: [string, number, number, string?][]) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/t/${team.slug}/accounting/journal`,
      headers: team.admin.headers,
      payload: { competenceDate: date, description, lines: lines.map(([code, debit, credit, memo]) => ({ accountId: id(code), debit, credit, memo })) },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { _id: string; entryNumber: string };
  };
  const post = async (date: string, description: string, lines: [string, number, number, string?][]) => {
    const e = await draft(date, description, lines);
    const res = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/accounting/journal/${e._id}/post`, headers: team.admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    return e;
  };
  const reverse = async (entryId: string) => {
    const res = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/accounting/journal/${entryId}/reverse`, headers: team.admin.headers, payload: { reason: 'lançado em dobro' } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { _id: string; entryNumber: string };
  };
  return { ...team, id, draft, post, reverse };
}

async function exportOf(team: Team, start: string, end: string) {
  const tenant = await t.app.services.tenants.findById(team.tenant._id);
  return t.app.deps.tenantDb(team.tenant._id).run((tx) => spedEcd(tx, t.app.deps, { start, end, tenant: tenant! }));
}

async function refusal(p: Promise<unknown>) {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError & { problems?: { field: string }[] };
}

const linesOf = (body: Buffer) => body.toString('latin1').split('\r\n').filter(Boolean);
const regs = (body: Buffer, reg: string) => linesOf(body).filter((l) => l.startsWith(`|${reg}|`)).map((l) => l.slice(1, -1).split('|'));

describe('SPED ECD of a month', () => {
  it('holds the posted entries of the month only, balances and passes the structural check', async () => {
    const b = await restaurant();
    await b.post('2026-02-02', 'Integralização de capital', [['1.1.02', 5000, 0], ['3.1', 0, 5000]]);
    const sale = await b.post('2026-03-05', 'Vendas do dia – salão 🍕', [['1.1.01', 1200.5, 0, 'gaveta | PDV 1'], ['4.1', 0, 1200.5]]);
    const rent = await b.post('2026-03-10', 'Aluguel de março', [['6.1', 800, 0], ['1.1.02', 0, 800]]);
    const twice = await b.post('2026-03-12', 'Venda lançada em dobro', [['1.1.01', 90, 0], ['4.1', 0, 90]]);
    const counter = await b.reverse(twice._id);
    const draft = await b.draft('2026-03-20', 'Rascunho que não vai ao livro', [['6.3', 70, 0], ['1.1.01', 0, 70]]);
    const april = await b.post('2026-04-02', 'Venda de abril', [['1.1.01', 300, 0], ['4.1', 0, 300]]);

    const file = await exportOf(b, '2026-03-01', '2026-03-31');
    expect(file.filename).toBe(`SPED-ECD-${CNPJ}-2026-03-01-2026-03-31.txt`);
    const check = checkEcd(file.body);
    expect(check.errors).toEqual([]);
    expect(check.ok).toBe(true);

    const text = file.body.toString('latin1');
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    // ISO-8859-1: "ç" is one byte 0xE7; the en dash becomes "-", the emoji "?", the pipe of the memo a space.
    expect(file.body.includes(Buffer.from([0xe7]))).toBe(true);
    expect(file.body.includes(Buffer.from('Conceição', 'utf8'))).toBe(false);
    expect(text).toContain('Vendas do dia - salão ? - gaveta PDV 1');

    expect(regs(file.body, '0000')[0]).toEqual([
      '0000', 'LECD', '01032026', '31032026', 'Cantina Dona Conceição Ltda', CNPJ, 'SP', '110042490114', '', '', '', '0', '0', '0', '', '0', '0', '', 'N', 'N', '0', '0', '',
    ]);
    expect(regs(file.body, '0007')).toEqual([['0007', 'SP', '110042490114']]);
    expect(regs(file.body, 'I010')).toEqual([['I010', 'G', '8.00']]);
    const numbers = regs(file.body, 'I200').map((f) => f[1]);
    expect(numbers).toEqual([sale.entryNumber, rent.entryNumber, twice.entryNumber, counter.entryNumber]);
    expect(numbers).not.toContain(draft.entryNumber);
    expect(numbers).not.toContain(april.entryNumber);
    expect(regs(file.body, 'I200')[0]).toEqual(['I200', sale.entryNumber, '05032026', '1200,50', 'N', '']);
    expect(regs(file.body, 'I250').slice(0, 2)).toEqual([
      ['I250', '1.1.01', '', '1200,50', 'D', '', '', 'Vendas do dia - salão ? - gaveta PDV 1', ''],
      ['I250', '4.1', '', '1200,50', 'C', '', '', 'Vendas do dia - salão ?', ''],
    ]);
    // One month: the February capital is the opening balance; the reversal cancels out on caixa and vendas.
    expect(regs(file.body, 'I150')).toEqual([['I150', '01032026', '31032026']]);
    const i155 = Object.fromEntries(regs(file.body, 'I155').map((f) => [f[1], f.slice(3)]));
    expect(i155).toEqual({
      '1.1.01': ['0,00', 'D', '1290,50', '90,00', '1200,50', 'D'],
      '1.1.02': ['5000,00', 'D', '0,00', '800,00', '4200,00', 'D'],
      '3.1': ['5000,00', 'C', '0,00', '0,00', '5000,00', 'C'],
      '4.1': ['0,00', 'D', '90,00', '1290,50', '1200,50', 'C'],
      '6.1': ['0,00', 'D', '800,00', '0,00', '800,00', 'D'],
    });
    // The plan: the accounts used and their synthetic parents, natures mapped, levels from the tree.
    const i050 = regs(file.body, 'I050').map((f) => [f[2], f[3], f[4], f[5], f[6]]);
    expect(i050).toEqual([
      ['01', 'S', '1', '1', ''],
      ['01', 'S', '2', '1.1', '1'],
      ['01', 'A', '3', '1.1.01', '1.1'],
      ['01', 'A', '3', '1.1.02', '1.1'],
      ['03', 'S', '1', '3', ''],
      ['03', 'A', '2', '3.1', '3'],
      ['04', 'S', '1', '4', ''],
      ['04', 'A', '2', '4.1', '4'],
      ['04', 'S', '1', '6', ''],
      ['04', 'A', '2', '6.1', '6'],
    ]);
    // Not a fiscal year end: no closing, no statements; the J block has its terms.
    for (const reg of ['I350', 'I355', 'I052', 'J005', 'J100', 'J150']) expect(regs(file.body, reg)).toEqual([]);
    const total = String(linesOf(file.body).length);
    expect(regs(file.body, '9999')).toEqual([['9999', total]]);
    expect(regs(file.body, 'I030')[0]).toEqual(['I030', 'TERMO DE ABERTURA', '1', 'Diário Geral', total, 'Cantina Dona Conceição Ltda', '', CNPJ, '', '', 'São Paulo', '31122026']);
    expect(regs(file.body, 'J900')).toEqual([['J900', 'TERMO DE ENCERRAMENTO', '1', 'Diário Geral', 'Cantina Dona Conceição Ltda', total, '01032026', '31032026']]);
    expect(regs(file.body, 'J930')[0]!.slice(2, 5)).toEqual([CNPJ, 'Pessoa Jurídica (e-CNPJ ou e-PJ)', '001']);
    expect(check.warnings.some((w) => w.includes('REGRA_OBRIGATORIO_ASSIN_CONTADOR'))).toBe(true);
  });

  it('follows several months with each opening the previous closing', async () => {
    const b = await restaurant();
    await b.post('2026-01-03', 'Capital', [['1.1.01', 1000, 0], ['3.1', 0, 1000]]);
    await b.post('2026-01-20', 'Venda', [['1.1.01', 150, 0], ['4.1', 0, 150]]);
    await b.post('2026-03-15', 'Compra de estoque', [['1.1.06', 400, 0], ['2.1.01', 0, 400]]);
    const file = await exportOf(b, '2026-01-01', '2026-03-31');
    expect(checkEcd(file.body).errors).toEqual([]);
    expect(regs(file.body, 'I150').map((f) => f[1])).toEqual(['01012026', '01022026', '01032026']);
    // February has no movement: the accounts with a balance still carry it.
    const feb = linesOf(file.body).join('\n').split('|I150|01022026|28022026|')[1]!.split('|I150|')[0]!;
    expect(feb).toContain('|I155|1.1.01||1150,00|D|0,00|0,00|1150,00|D|');
  });

  it('refuses what the ECD cannot be made from', async () => {
    const none = await restaurant({ state: 'SP' });
    await none.post('2026-03-05', 'Venda', [['1.1.01', 10, 0], ['4.1', 0, 10]]);
    expect(await refusal(exportOf(none, '2026-03-01', '2026-03-31'))).toMatchObject({ code: 'cnpj_required' });
    const noState = await restaurant({ cnpj: CNPJ });
    await noState.post('2026-03-05', 'Venda', [['1.1.01', 10, 0], ['4.1', 0, 10]]);
    expect(await refusal(exportOf(noState, '2026-03-01', '2026-03-31'))).toMatchObject({ code: 'state_required' });
    expect(await refusal(exportOf(noState, '2026-03-02', '2026-03-31'))).toMatchObject({ code: 'sped_period', problems: [{ field: 'start' }] });
    expect(await refusal(exportOf(noState, '2026-03-01', '2026-03-30'))).toMatchObject({ code: 'sped_period', problems: [{ field: 'end' }] });
    expect(await refusal(exportOf(noState, '2025-12-01', '2026-01-31'))).toMatchObject({ code: 'sped_period' });
    expect(await refusal(exportOf(noState, '2026-02-30', '2026-03-31'))).toMatchObject({ code: 'validation', problems: [{ field: 'start' }] });
    const quiet = await restaurant();
    expect(await refusal(exportOf(quiet, '2026-03-01', '2026-03-31'))).toMatchObject({ code: 'no_posted_entries' });
  });
});

describe('SPED ECD of a fiscal year', () => {
  it('closes the result accounts at December 31st, with I350/I355 and the statements', async () => {
    const b = await restaurant();
    await b.post('2025-01-02', 'Capital', [['1.1.02', 10000, 0], ['3.1', 0, 10000]]);
    await b.post('2025-03-10', 'Vendas', [['1.1.04', 3000, 0], ['4.1', 0, 2800], ['4.2', 0, 200]]);
    await b.post('2025-03-11', 'Desconto', [['4.3', 100, 0], ['1.1.04', 0, 100]]);
    await b.post('2025-06-30', 'CMV', [['5.1', 900, 0], ['1.1.06', 0, 900]]);
    await b.post('2025-06-30', 'Compra', [['1.1.06', 1500, 0], ['2.1.01', 0, 1500]]);
    await b.post('2025-11-05', 'Aluguel', [['6.1', 1200, 0], ['1.1.02', 0, 1200]]);

    const file = await exportOf(b, '2025-01-01', '2025-12-31');
    const check = checkEcd(file.body);
    expect(check.errors).toEqual([]);
    // The result: 2800 + 200 - 100 - 900 - 1200 = 800 (profit), closed into 3.3 by the generated entry.
    expect(regs(file.body, 'I350')).toEqual([['I350', '31122025']]);
    expect(regs(file.body, 'I355').map((f) => [f[1], f[3], f[4]])).toEqual([
      ['4.1', '2800,00', 'C'], ['4.2', '200,00', 'C'], ['4.3', '100,00', 'D'], ['5.1', '900,00', 'D'], ['6.1', '1200,00', 'D'],
    ]);
    const closing = regs(file.body, 'I200').at(-1)!;
    expect(closing).toEqual(['I200', 'ENC-2025', '31122025', '3000,00', 'E', '']);
    const dec = linesOf(file.body).join('\n').split('|I150|01122025|31122025|')[1]!.split('|I200|')[0]!;
    expect(dec).toContain('|I155|3.3||0,00|D|0,00|800,00|800,00|C|');
    expect(dec).toContain('|I155|4.1||2800,00|C|2800,00|0,00|0,00|D|');
    // J block: J005 for the year, the balance sheet balancing, the DRE from I355.
    expect(regs(file.body, 'J005')).toEqual([['J005', '01012025', '31122025', '1', '']]);
    const j100 = Object.fromEntries(regs(file.body, 'J100').map((f) => [f[1], f.slice(2)]));
    expect(j100.A).toEqual(['T', '1', '', 'A', 'Ativo', '0,00', 'D', '12300,00', 'D', '']);
    expect(j100.P).toEqual(['T', '1', '', 'P', 'Passivo e patrimônio líquido', '0,00', 'D', '12300,00', 'C', '']);
    expect(j100['3.3']).toEqual(['D', '3', '3', 'P', 'Resultado do exercício', '0,00', 'D', '800,00', 'C', '']);
    const j150 = regs(file.body, 'J150');
    expect(j150[0]).toEqual(['J150', '1', 'R', 'T', '1', '', 'Resultado do exercício', '', '', '800,00', 'C', 'R', '']);
    expect(regs(file.body, 'I052').length).toBe(regs(file.body, 'I050').filter((f) => f[3] === 'A').length);
  });

  it('recognises a closing entry of the books and closes only what it leaves open; the next year opens from the closing', async () => {
    const b = await restaurant();
    await b.post('2025-05-02', 'Capital', [['1.1.01', 2000, 0], ['3.1', 0, 2000]]);
    await b.post('2025-05-03', 'Venda', [['1.1.01', 500, 0], ['4.1', 0, 500]]);
    await b.post('2025-05-04', 'Gás', [['6.5', 120, 0], ['1.1.01', 0, 120]]);
    const own = await b.post('2025-12-31', 'Encerramento das receitas', [['4.1', 500, 0], ['3.3', 0, 500]]);
    await b.post('2026-01-15', 'Venda de janeiro', [['1.1.01', 80, 0], ['4.1', 0, 80]]);

    const year = await exportOf(b, '2025-05-01', '2025-12-31');
    expect(checkEcd(year.body).errors).toEqual([]);
    const i200 = regs(year.body, 'I200');
    expect(i200.find((f) => f[1] === own.entryNumber)![4]).toBe('E');
    expect(i200.at(-1)).toEqual(['I200', 'ENC-2025', '31122025', '120,00', 'E', '']);
    expect(regs(year.body, 'I355').map((f) => [f[1], f[3], f[4]])).toEqual([['4.1', '500,00', 'C'], ['6.5', '120,00', 'D']]);

    // 2026: the books never closed 6.5; the file opens it at zero and 3.3 with the whole 2025 result (380 C).
    const jan = await exportOf(b, '2026-01-01', '2026-01-31');
    expect(checkEcd(jan.body).errors).toEqual([]);
    const i155 = Object.fromEntries(regs(jan.body, 'I155').map((f) => [f[1], f.slice(3)]));
    expect(i155['3.3']).toEqual(['380,00', 'C', '0,00', '0,00', '380,00', 'C']);
    expect(i155['6.5']).toBeUndefined();
    expect(regs(jan.body, 'I030')[0]![2]).toBe('2');
  });
});

describe('GET /t/:slug/admin/accounting/export?format=sped', () => {
  const url = (slug: string, start: string, end: string) => `/t/${slug}/admin/accounting/export?format=sped&start=${start}&end=${end}`;

  it('downloads a file that passes the structural check, with this tenant\'s books only', async () => {
    const a = await restaurant();
    const other = await restaurant({ cnpj: '11.444.777/0001-61', state: 'MG' });
    const mine = await a.post('2025-10-01', 'Capital', [['1.1.02', 700, 0], ['3.1', 0, 700]]);
    await a.post('2025-12-20', 'Venda', [['1.1.01', 250, 0], ['4.1', 0, 250]]);
    const theirs = await other.post('2025-11-11', 'Venda de outro restaurante', [['1.1.01', 99, 0], ['4.1', 0, 99]]);

    const res = await t.app.inject({ method: 'GET', url: url(a.slug, '2025-10-01', '2025-12-31'), headers: a.accountant.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="SPED-ECD-${CNPJ}-2025-10-01-2025-12-31.txt"`);
    const check = checkEcd(res.rawPayload);
    expect(check.errors).toEqual([]);
    expect(regs(res.rawPayload, 'I200').map((f) => f[1])).toEqual([mine.entryNumber, expect.stringMatching(/^JE-2025-/), 'ENC-2025']);
    expect(res.rawPayload.toString('latin1')).not.toContain('Venda de outro restaurante');
    expect(regs(res.rawPayload, 'J005')).toHaveLength(1);

    // The other tenant's file: its own CNPJ and entry, none of ours.
    const theirsFile = await t.app.inject({ method: 'GET', url: url(other.slug, '2025-11-01', '2025-11-30'), headers: other.admin.headers });
    expect(theirsFile.statusCode, theirsFile.body).toBe(200);
    expect(checkEcd(theirsFile.rawPayload).errors).toEqual([]);
    expect(regs(theirsFile.rawPayload, '0000')[0]!.slice(5, 7)).toEqual(['11444777000161', 'MG']);
    expect(regs(theirsFile.rawPayload, 'I200').map((f) => f[1])).toEqual([theirs.entryNumber]);
    expect(theirsFile.rawPayload.toString('latin1')).not.toContain('Capital');

    // Refusals: the period (400 naming the field), no token (401), staff (403), another tenant's admin (403).
    const december = await t.app.inject({ method: 'GET', url: url(a.slug, '2025-12-01', '2026-01-31'), headers: a.admin.headers });
    expect(december.statusCode).toBe(400);
    expect(december.json()).toMatchObject({ code: 'sped_period', details: [expect.objectContaining({ field: 'querystring.end' })] });
    expect((await t.app.inject({ method: 'GET', url: url(a.slug, '2025-10-01', '2025-12-31') })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: url(a.slug, '2025-10-01', '2025-12-31'), headers: a.staff.headers })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: url(a.slug, '2025-10-01', '2025-12-31'), headers: other.admin.headers })).statusCode).toBe(403);
    const empty = await t.app.inject({ method: 'GET', url: url(a.slug, '2025-01-01', '2025-01-31'), headers: a.admin.headers });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().code).toBe('no_posted_entries');
  });
});

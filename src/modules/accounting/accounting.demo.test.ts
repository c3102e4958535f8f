import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { seedDemoTenant } from '../../../test/demo.js';
import { localDate } from '../../platform/time.js';
import { accountingJobs } from './accounting.jobs.js';

let t: TestApp;
let demo: Awaited<ReturnType<typeof seedDemoTenant>>;
beforeAll(async () => {
  t = await createTestApp();
  demo = await seedDemoTenant(t);
  // What the queue of a running service does a moment after the seed.
  expect(await t.app.jobs.drain({ names: [accountingJobs.post], includeDelayed: true })).toMatchObject({ failed: 0 });
});
afterAll(() => t.close());
const get = (url: string) => demo.get(url);

type Entry = { competenceDate: string; status: string; source: { type: string } | null; lines: { debit: number; credit: number }[] };

describe('the demo books', () => {
  // The demo's week of sales is seeded before the kitchen's recipes (module order), so it moved no stock: no
  // cost of sales among them; postings.test.ts covers it.
  it('posted the week of sales, purchases and expenses, every entry balanced', async () => {
    const journal = (await get('/t/demo/accounting/journal?limit=100')) as { data: Entry[]; total: number };
    expect(journal.total).toBeGreaterThan(50);
    const all: Entry[] = [];
    for (let page = 1; page <= Math.ceil(journal.total / 100); page++) all.push(...((await get(`/t/demo/accounting/journal?limit=100&page=${page}`)) as { data: Entry[] }).data);
    const kinds = new Set(all.map((e) => e.source?.type ?? 'manual'));
    for (const kind of ['manual', 'payment', 'purchase_receipt', 'operating_expense', 'receivable', 'receivable_settlement']) expect(kinds).toContain(kind);
    for (const e of all) {
      const cents = (f: 'debit' | 'credit') => e.lines.reduce((s, l) => s + Math.round(l[f] * 100), 0);
      expect(cents('debit')).toBe(cents('credit'));
    }
  });

  it('balances: assets equal liabilities and equity, and both cash-flow methods agree', async () => {
    const sheet = await get('/t/demo/admin/accounting/balance-sheet');
    expect(sheet.ativo.total).toBeGreaterThan(0);
    expect(sheet.ativo.total).toBe(sheet.passivoEPatrimonio.total);
    const today = localDate(new Date(), 'America/Sao_Paulo');
    const start = `${Number(today.slice(0, 4)) - 1}${today.slice(4, 7)}-01`;
    const direct = await get(`/t/demo/admin/accounting/cash-flow?start=${start}&end=${today}`);
    const indirect = await get(`/t/demo/admin/accounting/cash-flow?start=${start}&end=${today}&method=indirect`);
    expect(indirect.operacional.total).toBe(direct.operacional.total);
    expect(direct.saldoFinal).toBe(indirect.saldoFinal);
  });

  it('has a bank statement matched but for the bank fee, a closed month, and receivables in two aging buckets', async () => {
    const [bank] = (await get('/t/demo/accounting/bank')) as { _id: string }[];
    const lines = (await get(`/t/demo/accounting/bank/${bank!._id}/statement`)) as { status: string; description: string }[];
    expect(lines.filter((l) => l.status === 'matched')).toHaveLength(3);
    expect(lines.filter((l) => l.status === 'unmatched').map((l) => l.description)).toEqual(['TARIFA PACOTE SERVICOS']);
    const periods = (await get('/t/demo/accounting/ledger/periods')) as { status: string }[];
    expect(periods.filter((p) => p.status === 'closed')).toHaveLength(1);
    const aging = (await get('/t/demo/accounting/receivables/aging')) as { grandTotal: number; buckets: { count: number }[] };
    expect(aging.buckets.filter((b) => b.count > 0).length).toBeGreaterThanOrEqual(2);
    expect(aging.grandTotal).toBeGreaterThanOrEqual(3300 + 1250);
  });

  it('has last month’s expenses in the DRE and a cost sheet for every dish with a recipe', async () => {
    const d = new Date();
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() - 1);
    const dre = await get(`/t/demo/dre?year=${d.getUTCFullYear()}&month=${d.getUTCMonth() + 1}`);
    expect(dre.despesasOperacionais).toBeGreaterThanOrEqual(6500 + 18400);
    expect(dre.da).toBe(150);
    const sheets = (await get('/t/demo/bom')) as { hasRecipe: boolean; latestSnapshot: unknown }[];
    const withRecipe = sheets.filter((s) => s.hasRecipe);
    expect(withRecipe.length).toBeGreaterThan(0);
    for (const s of withRecipe) expect(s.latestSnapshot).not.toBeNull();
  });
});

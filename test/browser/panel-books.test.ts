import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasChromium, phoneContext, screenshot, seriousAxeViolations } from '../browser.js';
import { startBrowserApp, type BrowserHarness } from './harness.js';

/**
 * The books in the panel (issue 21, the accountant's day): the admin closes last month (the demo's sales, rent and
 * bank entries) and sees its balancete; the accountant downloads that month's SPED ECD file; axe on the main pages.
 */
let h: BrowserHarness;
const ACCOUNTANT = { email: 'contador@demo.local', password: 'contador-senha-123', name: 'Clara Contadora' };

/** `YYYY-MM` of last month in São Paulo. */
function lastMonth() {
  const now = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());
  const d = new Date(`${now.slice(0, 7)}-01T12:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - 1);
  return d.toISOString().slice(0, 7);
}

async function loginAs(page: Page, email: string, password: string) {
  await page.goto(`${h.base}/admin/login?next=${encodeURIComponent('/admin/t/demo')}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Senha').fill(password);
  await page.getByTestId('login').click();
  await page.waitForURL(`${h.base}/admin/t/demo`);
}

describe.skipIf(!hasChromium)('admin panel: books (browser)', () => {
  beforeAll(async () => {
    h = await startBrowserApp();
    const res = await h.t.app.inject({ method: 'POST', url: '/t/demo/users', headers: h.demo.headers, payload: { ...ACCOUNTANT, role: 'accountant' } });
    expect(res.statusCode, res.body).toBe(201);
    // The demo names its company (CNPJ, state) for the SPED files; emitting NFC-e needs the fiscal provider's token.
    const fiscal = await h.t.app.inject({ method: 'PUT', url: '/t/demo/tenants', headers: h.demo.headers, payload: { fiscalProviderToken: 'demo-fiscal-token' } });
    expect(fiscal.statusCode, fiscal.body).toBe(200);
  });
  afterAll(() => h?.close());

  test('the admin closes last month and sees its balancete; the accountant downloads the SPED ECD of that month', async () => {
    const month = lastMonth();
    const context = await h.tablet();
    const page = await context.newPage();
    await h.login(page, 'demo admin');
    await page.getByRole('link', { name: 'Períodos' }).first().click();
    await page.getByRole('heading', { name: 'Períodos contábeis' }).waitFor();
    await page.getByTestId('periods').waitFor();
    expect(await seriousAxeViolations(page), 'axe-core on the periods').toEqual([]);
    // A month in the future is refused on the form.
    await page.getByLabel('Mês', { exact: true }).fill('2099-01');
    await page.getByRole('button', { name: 'Fechar mês' }).click();
    await page.getByText('Não é possível fechar um mês futuro.').waitFor();
    await page.getByLabel('Mês', { exact: true }).fill(month);
    await page.getByRole('button', { name: 'Fechar mês' }).click();
    await page.getByRole('status').filter({ hasText: 'fechado' }).waitFor();
    const snapshot = page.getByTestId('snapshot');
    await snapshot.getByText('Pagamento do aluguel').or(snapshot.locator('tbody tr').first()).first().waitFor();
    expect(await snapshot.locator('tbody tr').count()).toBeGreaterThan(0);
    const [year, mm] = month.split('-').map(Number);
    const periods = await h.demo.get('/t/demo/accounting/ledger/periods');
    expect(periods.find((p: { year: number; month: number }) => p.year === year && p.month === mm)?.status).toBe('closed');
    await screenshot(page, 'books-periods');

    await page.goto(`${h.base}/admin/t/demo/books/journal`);
    await page.getByTestId('journal').waitFor();
    expect(await seriousAxeViolations(page), 'axe-core on the journal').toEqual([]);

    await page.goto(`${h.base}/admin/t/demo/books/reports`);
    await page.locator('figure.chart').nth(1).waitFor();
    await page.getByRole('heading', { name: 'Balanço patrimonial' }).waitFor();
    await screenshot(page, 'books-reports');
    expect(await seriousAxeViolations(page), 'axe-core on the reports').toEqual([]);
    await context.close();

    // The accountant: reports and exports only; the SPED ECD of the closed month.
    const accountant = await h.tablet();
    const apage = await accountant.newPage();
    await loginAs(apage, ACCOUNTANT.email, ACCOUNTANT.password);
    await expect.poll(() => apage.getByRole('link', { name: 'Períodos' }).count()).toBe(0);
    await apage.getByRole('link', { name: 'Exportações' }).first().click();
    await apage.getByRole('heading', { name: 'Exportações' }).waitFor();
    expect(await seriousAxeViolations(apage), 'axe-core on the exports').toEqual([]);
    await apage.getByLabel('Formato').selectOption('sped');
    await apage.getByLabel('Do mês').fill(month);
    await apage.getByLabel('Até o mês').fill(month);
    const [file] = await Promise.all([apage.waitForEvent('download'), apage.getByTestId('export-books').click()]);
    const text = await readFile((await file.path())!, 'latin1');
    expect(text.startsWith('|0000|'), text.slice(0, 80)).toBe(true);
    await apage.getByRole('status').filter({ hasText: 'baixado' }).waitFor();
    await screenshot(apage, 'books-exports-accountant');
    await accountant.close();
  }, 120_000);

  test('the admin posts a balanced manual entry (an unbalanced one is refused) and reverses it; every books page passes axe', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    await h.login(page, 'demo admin');
    await page.goto(`${h.base}/admin/t/demo/books/journal`);
    await page.getByTestId('journal').waitFor();
    await page.getByLabel('Histórico').fill('Ajuste de caixa (teste)');
    await page.getByLabel('Conta 1', { exact: true }).selectOption({ index: 1 });
    await page.getByLabel('Conta 2', { exact: true }).selectOption({ index: 2 });
    await page.getByLabel('Débito 1', { exact: true }).fill('100');
    await page.getByLabel('Crédito 2', { exact: true }).fill('90');
    await page.getByRole('button', { name: 'Lançar', exact: true }).click();
    await page.getByText('Débitos e créditos devem ser iguais.').waitFor();
    await page.getByLabel('Crédito 2', { exact: true }).fill('100,00');
    await page.getByRole('button', { name: 'Lançar', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'efetivado' }).waitFor();
    const row = page.getByTestId('journal').locator('tr', { hasText: 'Ajuste de caixa (teste)' });
    await row.getByRole('button', { name: 'Estornar' }).click();
    await page.getByRole('button', { name: 'Confirmar estorno' }).click();
    await page.getByText('Informe o motivo.').waitFor();
    await page.getByLabel('Motivo do estorno').fill('Lançado por engano');
    await page.getByRole('button', { name: 'Confirmar estorno' }).click();
    await page.getByRole('status').filter({ hasText: 'Estorno' }).waitFor();
    const journal = await h.demo.get('/t/demo/accounting/journal?limit=100');
    const entry = journal.data.find((e: { description: string; reverses: string | null }) => e.description === 'Ajuste de caixa (teste)' && !e.reverses);
    expect(entry?.totalAmount).toBe(100);
    expect(entry?.reversedBy).toBeTruthy();

    const pages: [string, string][] = [
      ['accounts', 'Plano de contas'],
      ['trial-balance', 'Balancete'],
      ['ledger', 'Razão'],
      ['receivables', 'Contas a receber'],
      ['bank', 'Conciliação bancária'],
      ['exports', 'Exportações'],
      ['fiscal', 'Documentos fiscais'],
    ];
    for (const [path, heading] of pages) {
      await page.goto(`${h.base}/admin/t/demo/books/${path}`);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
      expect(await seriousAxeViolations(page), `axe-core on books/${path}`).toEqual([]);
    }
    // A sale on credit: checked on the form, then posted.
    await page.goto(`${h.base}/admin/t/demo/books/receivables`);
    await page.getByRole('button', { name: 'Lançar venda a prazo' }).click();
    await page.getByText('Informe um valor maior que zero.').waitFor();
    await page.getByLabel('Cliente').fill('Empresa Alfa');
    await page.getByLabel('Histórico').fill('Almoço de confraternização');
    await page.getByLabel('Valor', { exact: true }).fill('350,00');
    await page.getByLabel('Vencimento').fill('2099-12-31');
    await page.getByRole('button', { name: 'Lançar venda a prazo' }).click();
    await page.getByRole('status').filter({ hasText: 'Venda a prazo lançada' }).waitFor();
    await page.getByText('Empresa Alfa').first().waitFor();
    // The bank: the demo's statement has a fee the books lack; auto-match answers, the fee is set aside.
    await page.goto(`${h.base}/admin/t/demo/books/bank`);
    await page.getByRole('button', { name: 'Conciliar automaticamente' }).click();
    await page.getByRole('status').filter({ hasText: 'conciliada' }).waitFor();
    await page.locator('tr', { hasText: 'TARIFA' }).getByRole('button', { name: 'Ignorar' }).click();
    await page.getByRole('status').filter({ hasText: 'Linha ignorada.' }).waitFor();
    await screenshot(page, 'books-bank');
    await context.close();

    // A phone: the periods and the journal form fit 375 px.
    const phone = await phoneContext(h.browser);
    const small = await phone.newPage();
    await h.login(small, 'demo admin');
    await small.goto(`${h.base}/admin/t/demo/books/periods`);
    await small.getByTestId('periods').waitFor();
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousAxeViolations(small), 'axe-core on the periods at 375 px').toEqual([]);
    await screenshot(small, 'books-periods-phone');
    await phone.close();
  }, 120_000);

  test('the admin emits the NFC-e of a paid order, downloads its XML and cancels it', async () => {
    // A takeout order paid in cash today (the first dish that needs no modifier).
    const menu = await h.demo.get('/t/demo/menu/items');
    let orderId: string | null = null;
    for (const item of (Array.isArray(menu) ? menu : menu.data) as { _id: string }[]) {
      const res = await h.t.app.inject({
        method: 'POST',
        url: '/t/demo/orders',
        headers: h.demo.headers,
        payload: { orderType: 'takeout', customerName: 'Nota Fiscal', items: [{ menuItem: item._id, quantity: 1 }] },
      });
      if (res.statusCode === 201) {
        orderId = res.json()._id;
        break;
      }
    }
    expect(orderId).toBeTruthy();
    const paid = await h.t.app.inject({
      method: 'POST',
      url: `/t/demo/orders/${orderId}/process-payment`,
      headers: h.demo.headers,
      payload: { method: 'cash', gateway: 'mock' },
    });
    expect(paid.statusCode, paid.body).toBe(200);
    const context = await h.tablet();
    const page = await context.newPage();
    await h.login(page, 'demo admin');
    await page.goto(`${h.base}/admin/t/demo/books/fiscal`);
    await page.getByRole('heading', { name: 'Documentos fiscais', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Emitir', exact: true }).click();
    await page.getByText('Escolha o pedido.').waitFor();
    const order = page.getByLabel('Pedido', { exact: true });
    await expect.poll(() => order.locator('option').count()).toBeGreaterThan(1);
    await order.selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Emitir', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'emitida' }).waitFor();
    const xmlButton = page.getByRole('button', { name: /^XML / }).first();
    const [xml] = await Promise.all([page.waitForEvent('download'), xmlButton.click()]);
    expect(await readFile((await xml.path())!, 'utf8')).toContain('nfeProc');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Cancelar nota' }).first().click();
    await page.getByRole('status').filter({ hasText: 'Nota cancelada.' }).waitFor();
    await screenshot(page, 'books-fiscal');
    await context.close();
  }, 120_000);
});

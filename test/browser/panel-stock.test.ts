import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasChromium, screenshot, seriousAxeViolations } from '../browser.js';
import { startBrowserApp, type BrowserHarness } from './harness.js';

/**
 * The panel's stock area (issue 21), main path: the admin imports a supplier NF-e: uploads the XML, reviews
 * the dry run line by line (one line matched to an existing item by EAN, one left out), confirms, and
 * finds the entries in the stock. Also: a low-stock alert arrives over the socket without a reload.
 */
let h: BrowserHarness;
// A real authorised NF-e (16 lines of granola, oats and sugar; recipient CNPJ 97493746000116).
const NFE = join(import.meta.dirname, '../../../shared/data/nfe/35180834128745000152550010000476491552806942-nfe.xml');

async function inject(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  const res = await h.t.app.inject({ method, url, headers: h.demo.headers, payload: payload as never });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}

describe.skipIf(!hasChromium)('admin panel stock (browser)', () => {
  beforeAll(async () => {
    h = await startBrowserApp();
    // The invoice is addressed to this CNPJ; the demo tenant takes it so the import accepts the file.
    await inject('PUT', '/t/demo/tenants', { cnpj: '97493746000116' });
  });
  afterAll(() => h?.close());

  test('an NF-e is uploaded, reviewed line by line, confirmed, and its entries appear in the stock', async () => {
    // Oats the restaurant already stocks: the invoice's line 2 (EAN 7897846900181) matches it.
    const oats = await inject('POST', '/t/demo/inventory', {
      name: 'Aveia em flocos finos 500g',
      sku: 'AVEIA-FINA-500',
      ean: '7897846900181',
      unit: 'un',
      currentStock: 2,
      minStock: 0,
      cost: 400,
    });
    const context = await h.tablet();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await h.login(page, 'demo admin');
    await page.getByRole('link', { name: 'Importar NF-e' }).first().click();
    await page.getByRole('heading', { name: 'Importar NF-e de fornecedor' }).waitFor();
    expect(await seriousAxeViolations(page), 'axe-core on the import page').toEqual([]);

    // Sending without a file is refused on the form.
    await page.getByTestId('nfe-review').click();
    await page.getByText('Escolha o arquivo XML.').waitFor();
    await page.getByLabel('Arquivo XML da NF-e').setInputFiles(NFE);
    await page.getByTestId('nfe-review').click();
    const review = page.getByTestId('nfe-review-screen');
    await review.waitFor();
    expect(await review.textContent()).toContain('35180834128745000152550010000476491552806942');
    const line2 = page.getByTestId('nfe-line-2');
    await expect.poll(() => line2.textContent()).toContain('Associado');
    expect(await line2.textContent()).toContain('Aveia em flocos finos 500g');
    expect(await line2.textContent()).toContain('pelo EAN');
    expect(await page.getByTestId('nfe-line-1').textContent()).toContain('Novo item');
    await screenshot(page, 'panel-stock-nfe-review', { fullPage: true });
    expect(await seriousAxeViolations(page), 'axe-core on the review').toEqual([]);

    // Line 6 (demerara sugar) is left out: the choice is sent as a mapping and reviewed again before confirming.
    await page.getByLabel(/Item do estoque: ACUCAR DEMERARA/).first().selectOption('skip');
    await page.getByText('Você mudou escolhas').waitFor();
    expect(await page.getByTestId('nfe-confirm').isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Revisar com minhas escolhas' }).click();
    await page.getByText('Tudo certo').waitFor();
    const skipped = page.locator('tr', { hasText: 'ACUCAR DEMERARA' }).first();
    expect(await skipped.textContent()).toContain('Ignorado');

    await page.getByTestId('nfe-confirm').click();
    const result = page.getByTestId('nfe-result');
    await result.waitFor();
    const summary = (await result.textContent()) ?? '';
    expect(summary).toMatch(/1 atualizado/);
    expect(summary).toMatch(/1 linha\(s\) ignorada/);

    // The oats got the invoice's 12 units at its cost (R$ 4,36); the new items are in the list.
    const after = (await inject('GET', '/t/demo/inventory')) as { _id: string; currentStock: number; cost: number; sku: string }[];
    expect(after.find((i) => i._id === oats._id)).toMatchObject({ currentStock: 14, cost: 436 });
    expect(after.some((i) => i.sku === '1094')).toBe(true);

    await result.getByRole('link', { name: 'Ver o estoque' }).click();
    await page.getByTestId('stock-items').waitFor();
    await page.getByLabel('Buscar').fill('aveia em flocos finos');
    const row = page.locator('[data-testid=stock-items] tr', { hasText: 'Aveia em flocos finos 500g' });
    await expect.poll(() => row.textContent()).toContain('14');
    await page.getByLabel('Buscar').fill('');
    await screenshot(page, 'panel-stock-items', { fullPage: true });
    expect(await seriousAxeViolations(page), 'axe-core on the items').toEqual([]);

    // The item's movements show the purchase entry from the invoice.
    await row.getByRole('link').click();
    await page.getByTestId('item-movements').waitFor();
    const moves = (await page.getByTestId('item-movements').textContent()) ?? '';
    expect(moves).toContain('Compra');
    expect(moves).toMatch(/R\$\s4,36/);
    expect(await page.getByTestId('item-stock').textContent()).toContain('14');
    expect(await seriousAxeViolations(page), 'axe-core on an item').toEqual([]);
    await context.close();
  }, 90_000);

  test('a low-stock alert arrives on the items page without a reload', async () => {
    const item = await inject('POST', '/t/demo/inventory', { name: 'Fermento biológico 500g', sku: 'FERMENTO-500', unit: 'un', currentStock: 10, minStock: 5, cost: 900 });
    const context = await h.tablet();
    const page = await context.newPage();
    await h.login(page, 'demo admin');
    await page.goto(`${h.base}/admin/t/demo/stock`);
    await page.getByText('Ao vivo').waitFor();
    await inject('POST', `/t/demo/inventory/${item._id}/movements`, { type: 'exit', reason: 'loss', quantity: 6 });
    await page.getByTestId('stock-alerts').getByText(/Fermento biológico 500g/).waitFor();
    await context.close();
  });

  test('a supplier, a purchase order sent and received into stock, a PDV count and a transfer', async () => {
    const flour = await inject('POST', '/t/demo/inventory', { name: 'Farinha de trigo 5kg', sku: 'FARINHA-5KG', unit: 'un', currentStock: 1, minStock: 0, cost: 2250 });
    const context = await h.tablet();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await h.login(page, 'demo admin');

    await page.goto(`${h.base}/admin/t/demo/stock/suppliers`);
    await page.getByRole('button', { name: 'Novo fornecedor' }).click();
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Preencha este campo.').waitFor();
    await page.getByLabel('Nome').fill('Moinho Paulista');
    await page.getByLabel('CNPJ').fill('123');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('CNPJ com 14 dígitos.').waitFor();
    await page.getByLabel('CNPJ').fill('11.222.333/0001-81');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByTestId('suppliers').getByText('Moinho Paulista').waitFor();
    expect(await seriousAxeViolations(page), 'axe-core on suppliers').toEqual([]);

    await page.goto(`${h.base}/admin/t/demo/stock/purchase-orders`);
    await page.getByRole('button', { name: 'Novo pedido' }).click();
    await page.getByLabel('Fornecedor').selectOption({ label: 'Moinho Paulista' });
    await page.getByLabel('Item 1').selectOption(flour._id);
    await page.getByLabel('Quantidade').fill('5');
    await page.getByRole('button', { name: 'Criar rascunho' }).click();
    const row = page.getByTestId('purchase-orders').locator('tr', { hasText: 'Moinho Paulista' });
    await expect.poll(() => row.textContent()).toContain('Rascunho');
    expect(await row.textContent()).toMatch(/R\$\s112,50/);
    await row.getByRole('button', { name: 'Marcar como enviado' }).click();
    await expect.poll(() => row.textContent()).toContain('Enviado');
    expect(await seriousAxeViolations(page), 'axe-core on purchase orders').toEqual([]);
    await row.getByRole('button', { name: /^Receber/ }).click();
    await page.getByRole('button', { name: 'Confirmar recebimento' }).click();
    await page.getByText('Recebimento registrado').waitFor();
    await expect.poll(() => row.textContent()).toContain('Recebido');
    const items = (await inject('GET', '/t/demo/inventory')) as { _id: string; currentStock: number }[];
    expect(items.find((i) => i._id === flour._id)?.currentStock).toBe(6);

    await page.goto(`${h.base}/admin/t/demo/stock/branches`);
    await page.getByRole('heading', { name: 'Estoque por PDV' }).waitFor();
    const count = page.locator('form', { hasText: 'Registrar contagem no PDV' });
    await expect.poll(() => count.getByLabel('PDV', { exact: true }).locator('option').count()).toBeGreaterThan(2);
    await count.getByLabel('PDV', { exact: true }).selectOption({ index: 1 });
    await count.getByLabel('Item', { exact: true }).selectOption(flour._id);
    await count.getByLabel('Quantidade física').fill('4');
    await count.getByRole('button', { name: 'Salvar' }).click();
    await count.getByText('Salvo.').waitFor();
    const transfer = page.locator('form', { hasText: 'Transferir entre PDVs' });
    await transfer.getByLabel('De', { exact: true }).selectOption({ index: 1 });
    await transfer.getByLabel('Para', { exact: true }).selectOption({ index: 1 });
    await transfer.getByLabel('Item', { exact: true }).selectOption(flour._id);
    await transfer.getByLabel('Quantidade', { exact: true }).fill('3');
    await transfer.getByRole('button', { name: 'Transferir' }).click();
    await transfer.getByText('Escolha PDVs diferentes.').waitFor();
    await transfer.getByLabel('Para', { exact: true }).selectOption({ index: 2 });
    await transfer.getByRole('button', { name: 'Transferir' }).click();
    await transfer.getByText('Transferência feita.').waitFor();
    await expect.poll(() => page.getByTestId('branch-stock').locator('tr', { hasText: 'Farinha de trigo 5kg' }).count()).toBe(2);
    expect(await seriousAxeViolations(page), 'axe-core on branch stock').toEqual([]);

    // A phone (375 px) still shows the items page.
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`${h.base}/admin/t/demo/stock`);
    await page.getByTestId('stock-items').waitFor();
    await screenshot(page, 'panel-stock-items-phone', { fullPage: false });
    await context.close();
  }, 90_000);
});

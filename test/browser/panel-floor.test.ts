import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasChromium, screenshot, seriousAxeViolations } from '../browser.js';
import { startBrowserApp, type BrowserHarness } from './harness.js';

/**
 * The waiter's day on the panel (issue 21): the floor live, a tab opened on a table with a dish whose
 * modifier groups are required, paid in cash with change, closed; the table is free again.
 */
let h: BrowserHarness;

describe.skipIf(!hasChromium)('panel floor: the waiter (browser)', () => {
  beforeAll(async () => {
    h = await startBrowserApp();
  });
  afterAll(() => h?.close());

  test('the waiter opens a tab on table 3, adds a round with modifiers, takes cash with change and closes it; the table is free again', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    try {
      await h.login(page, 'demo staff');
      await page.getByRole('link', { name: 'Salão' }).first().click();
      await page.waitForURL(/\/admin\/t\/demo\/floor$/);
      const tile = (n: number) => page.getByRole('link', { name: new RegExp(`^Mesa ${n} `) });
      await tile(3).waitFor();
      await expect.poll(() => tile(3).textContent()).toContain('Livre');
      await page.getByText('Ao vivo').waitFor();
      expect(await seriousAxeViolations(page), 'axe-core on the floor').toEqual([]);

      // Live: a tab opened elsewhere (the admin, through the API) shows on the floor without a reload.
      const tables = await h.demo.get('/t/demo/tables');
      const table5 = tables.find((x: { number: number }) => x.number === 5);
      const items = await h.demo.get('/t/demo/menu/items');
      const guarana = items.find((i: { name: string }) => i.name.startsWith('Guaraná'));
      const other = await h.t.app.inject({
        method: 'POST',
        url: '/t/demo/orders',
        headers: h.demo.headers,
        payload: { orderType: 'dine_in', table: table5._id, items: [{ menuItem: guarana._id, quantity: 2 }] },
      });
      expect(other.statusCode, other.body).toBe(201);
      await expect.poll(() => tile(5).textContent()).toContain('Ocupada');
      await screenshot(page, 'panel-floor', { fullPage: false });

      // Table 3: a new tab at the Salão PDV for 2 people.
      await tile(3).click();
      await page.waitForURL(/\/floor\/tables\//);
      await page.getByRole('heading', { name: 'Abrir comanda' }).waitFor();
      await page.getByLabel('Ponto de venda').selectOption({ label: 'Salão · Matriz Pinheiros' });
      await page.getByLabel('Pessoas na mesa').fill('2');
      // Sending an empty round is refused on the page.
      await page.getByTestId('send-round').click();
      await page.getByText('Escolha os pratos no cardápio ao lado', { exact: false }).first().waitFor();

      // The picanha has three groups: "Ponto" and "Acompanhamento" required, "Adicionais" up to 3.
      await page.locator('button[data-name="Picanha na chapa (400 g)"]').click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      const adicionais = dialog.getByTestId('group-Adicionais');
      for (const o of ['Bacon', 'Queijo coalho', 'Ovo frito', 'Farofa da casa']) await adicionais.getByLabel(o, { exact: false }).check();
      await dialog.getByTestId('add-to-round').click();
      await dialog.getByText('Escolha no máximo 3.').waitFor();
      await adicionais.getByLabel('Farofa da casa', { exact: false }).uncheck();
      await dialog.getByTestId('group-Ponto da carne').getByLabel('Mal passada').check();
      await dialog.getByTestId('group-Acompanhamento').getByLabel('Batata frita').check();
      await dialog.getByTestId('add-to-round').click();
      await dialog.waitFor({ state: 'detached' });
      await page.locator('button[data-name="Guaraná (lata 350 ml)"]').click();
      await expect.poll(() => page.getByTestId('round').textContent()).toContain('Ponto da carne: Mal passada');
      await page.getByTestId('send-round').click();

      const bill = page.getByTestId('bill');
      await bill.getByText('Picanha na chapa (400 g)').waitFor();
      expect(await bill.textContent()).toContain('Acompanhamento: Batata frita');
      expect(await bill.textContent()).toContain('Adicionais: Bacon, Queijo coalho, Ovo frito');
      expect(await seriousAxeViolations(page), 'axe-core on the tab').toEqual([]);
      await screenshot(page, 'panel-tab');

      // The order the API holds: the table, the PDV, the modifiers, the cover count.
      const tableId = page.url().split('/').pop()!;
      const tab = await h.demo.get(`/t/demo/orders/open-tab/${tableId}`);
      expect(tab.items.map((l: { name: string }) => l.name)).toEqual(['Picanha na chapa (400 g)', 'Guaraná (lata 350 ml)']);
      expect(tab.items[0].price).toBe(11990 + 600 + 700 + 300);
      expect(tab.covers).toBe(2);
      const due: number = tab.amountDue;

      // Cash: the customer hands over more than the bill; the change is shown; then the tab closes.
      const pay = page.getByTestId('pay-tab');
      await pay.getByLabel('Valor recebido (R$)').fill('1');
      await pay.getByTestId('pay').click();
      await pay.getByText('O valor recebido é menor que o valor a cobrar.').waitFor();
      const tendered = Math.ceil((due + 1) / 5000) * 5000;
      await pay.getByLabel('Valor recebido (R$)').fill((tendered / 100).toFixed(2).replace('.', ','));
      await pay.getByTestId('pay').click();
      const status = page.getByTestId('pay-status');
      await expect.poll(() => status.textContent()).toContain('Conta paga.');
      const change = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format((tendered - due) / 100);
      expect(await status.textContent()).toContain(`Troco: ${change}`);
      await page.getByTestId('close-tab').click();
      await page.getByTestId('tab-notice').getByText('Comanda fechada').waitFor();

      const closed = (await h.demo.get('/t/demo/orders')).find((o: { _id: string }) => o._id === tab._id);
      expect(closed).toMatchObject({ status: 'delivered', amountDue: 0, paymentMethod: 'cash' });
      expect((await h.demo.get('/t/demo/tables')).find((x: { _id: string }) => x._id === tableId).status).toBe('available');

      await page.getByRole('link', { name: 'Voltar ao salão' }).click();
      await expect.poll(() => tile(3).textContent()).toContain('Livre');
    } catch (err) {
      await screenshot(page, 'panel-floor-failure');
      throw err;
    }
    await context.close();
  }, 180_000);

  test('the cashier opens the shift with sangria and suprimento, splits a bill paid by PIX and the card terminal (live), and closes the shift with the count', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    try {
      await h.login(page, 'demo admin');
      await page.goto(`${h.base}/admin/t/demo/floor/shift`);
      await page.getByLabel('Ponto de venda').selectOption({ label: 'Salão · Matriz Pinheiros' });
      await page.getByLabel('Fundo de troco (R$)').fill('abc');
      await page.getByRole('button', { name: 'Abrir caixa' }).click();
      await page.getByText('Informe um valor em reais, como 12,50.').waitFor();
      await page.getByLabel('Fundo de troco (R$)').fill('100,00');
      await page.getByRole('button', { name: 'Abrir caixa' }).click();
      await page.getByText('Aberto por Ana Admin', { exact: false }).waitFor();
      await page.getByLabel('Valor (R$)').fill('20,00');
      await page.getByRole('button', { name: 'Registrar' }).click();
      await page.getByText('Preencha este campo.').waitFor();
      await page.getByLabel('Motivo').fill('Depósito no banco');
      await page.getByRole('button', { name: 'Registrar' }).click();
      await page.getByRole('cell', { name: 'Depósito no banco' }).waitFor();
      await page.getByLabel('Tipo').selectOption('addition');
      await page.getByLabel('Valor (R$)').fill('10');
      await page.getByLabel('Motivo').fill('Troco extra');
      await page.getByRole('button', { name: 'Registrar' }).click();
      await page.getByRole('cell', { name: 'Troco extra' }).waitFor();
      expect(await seriousAxeViolations(page), 'axe-core on the shift').toEqual([]);

      // A tab on table 4 at the Salão PDV, two rounds, split in two.
      const tables = await h.demo.get('/t/demo/tables');
      const table4 = tables.find((x: { number: number }) => x.number === 4);
      await page.goto(`${h.base}/admin/t/demo/floor/tables/${table4._id}`);
      await page.getByLabel('Ponto de venda').selectOption({ label: 'Salão · Matriz Pinheiros' });
      await page.locator('button[data-name="Feijoada completa"]').click();
      await page.locator('button[data-name="Guaraná (lata 350 ml)"]').click();
      await page.getByTestId('send-round').click();
      await page.getByTestId('bill').getByText('Feijoada completa').waitFor();
      await page.locator('button[data-name="Pudim de leite condensado"]').click();
      await page.getByTestId('send-round').click();
      await page.getByTestId('bill').getByText('Pudim de leite condensado').waitFor();
      await page.getByLabel('Em quantas partes').fill('2');
      await page.getByRole('button', { name: 'Dividir a conta' }).click();
      await page.getByText('A conta foi dividida').waitFor();

      // Part 1 by PIX: the QR and the "copia e cola", confirmed by hand.
      const part1 = page.getByTestId('pay-part1');
      await part1.getByText('PIX', { exact: true }).click();
      await part1.getByRole('button', { name: 'Gerar QR do PIX' }).click();
      await part1.getByRole('img', { name: /QR Code do PIX/ }).waitFor();
      expect(await part1.getByLabel('PIX copia e cola').inputValue()).toMatch(/^000201/);
      await part1.getByRole('button', { name: 'Confirmar PIX recebido' }).click();
      await expect.poll(() => page.getByTestId('pay-status').first().textContent()).toContain('Conta paga.');

      // Part 2 on the linked card terminal: processing, then approved live when the terminal answers.
      const part2 = page.getByTestId('pay-part2');
      await part2.getByText('Cartão de crédito', { exact: true }).click();
      await part2.getByTestId('pay').click();
      await part2.getByTestId('pay-status').waitFor();
      const tab = await h.demo.get(`/t/demo/orders/open-tab/${table4._id}`);
      const parts = (await h.demo.get('/t/demo/orders')).filter((o: { splitBillReference: string | null }) => o.splitBillReference === tab.orderNumber);
      const second = parts.find((o: { paymentStatus: string | null }) => o.paymentStatus === 'processing');
      expect(second, JSON.stringify(parts)).toBeTruthy();
      const [payment] = await h.demo.get(`/t/demo/orders/${second._id}/payments`);
      await h.t.app.integrations.gatewayA.simulator!.approve(payment.intentId);
      await expect.poll(() => page.getByTestId('pay-status').nth(1).textContent()).toContain('Conta paga.');
      await page.getByTestId('close-tab').click();
      await page.getByTestId('tab-notice').getByText('Comanda fechada').waitFor();
      expect((await h.demo.get('/t/demo/tables')).find((x: { _id: string }) => x._id === table4._id).status).toBe('available');

      // The shift closes with the count: 100 + 10 - 20 in cash, the card and PIX of the part payments.
      await page.goto(`${h.base}/admin/t/demo/floor/shift`);
      await page.getByRole('button', { name: 'Fechar caixa' }).click();
      await page.getByText('Preencha este campo.').waitFor();
      await page.getByLabel('Contado em Dinheiro (R$)').fill('90,00');
      await page.getByRole('button', { name: 'Fechar caixa' }).click();
      const report = page.getByTestId('shift-report');
      await report.waitFor();
      // Cash expected 100 + 10 - 20 = 90, counted 90: no difference in the drawer.
      expect((await report.getByRole('row', { name: /^Dinheiro/ }).textContent())?.replace(/\s/g, ' ')).toBe('DinheiroR$ 90,00R$ 90,00R$ 0,00');
      await page.getByRole('button', { name: 'Abrir caixa' }).waitFor();
    } catch (err) {
      await screenshot(page, 'panel-floor-cashier-failure');
      throw err;
    }
    await context.close();
  }, 180_000);

  test('at 375 px the floor and the shift fit the phone and pass axe; the waiter opens the counter shift', async () => {
    const context = await h.browser.newContext({ viewport: { width: 375, height: 740 }, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    const page = await context.newPage();
    await h.login(page, 'demo staff');
    await page.goto(`${h.base}/admin/t/demo/floor`);
    await page.getByRole('link', { name: /^Mesa 1 / }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousAxeViolations(page), 'axe-core on the floor at 375 px').toEqual([]);
    await screenshot(page, 'panel-floor-phone', { fullPage: false });
    // The waiter opens the counter's shift from the phone (their PDVs and branches come from GET /t/:slug/pdvs).
    await page.goto(`${h.base}/admin/t/demo/floor/shift`);
    await page.getByLabel('Ponto de venda').selectOption({ label: 'Balcão · Matriz Pinheiros' });
    await page.getByLabel('Fundo de troco (R$)').fill('50,00');
    await page.getByRole('button', { name: 'Abrir caixa' }).click();
    await page.getByText('Aberto por Bruno Garçom', { exact: false }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousAxeViolations(page), 'axe-core on the shift at 375 px').toEqual([]);
    await context.close();
  }, 120_000);
});

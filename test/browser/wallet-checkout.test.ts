import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TestApp } from '../app.js';
import { hasChromium, phoneContext, screenshot, seriousAxeViolations } from '../browser.js';
import { addDish, startBrowserApp, type BrowserHarness } from './harness.js';

/**
 * Issue 19, the online card (wallet) on the customer QR menu, in Debian's chromium: the demo tenant has the
 * wallet simulator's account, so the page offers "Cartão online". The browser tokenizes the card at the
 * simulator (same origin, `/__sim/wallet/v1/card_tokens`) and pays with the token; the simulator decides by
 * the cardholder name (APRO approves, FUND is refused for insufficient funds) for any Luhn-valid number.
 */
const CARD_NUMBER = '5031 4332 1540 6351';
const CARD_DIGITS = CARD_NUMBER.replace(/ /g, '');

let h: BrowserHarness;
let t: TestApp;
let base: string;
let browser: Browser;
let demo: BrowserHarness['demo'];

describe.skipIf(!hasChromium)('customer menu: online card (wallet) checkout (browser)', () => {
  beforeAll(async () => {
    h = await startBrowserApp();
    ({ t, base, browser, demo } = h);
  });
  afterAll(() => h?.close());

  test('a guest pays a dish with the approved test card and follows the paid order', async () => {
    const context = await phoneContext(browser);
    const page = await context.newPage();
    const sent = watchRequests(page);
    await page.goto(`${base}/t/demo/b/salao/menu?table=5`);
    await addDish(page, 'Fraldinha grelhada', ['Mal passada', 'Batata frita']);
    await page.getByTestId('open-cart').click();
    await page.getByTestId('checkout').click();

    await page.getByLabel('Nome', { exact: true }).fill('Paula Online');
    await page.locator('input[value="wallet"]').check();
    await page.getByTestId('card-fields').waitFor();
    // Fields the browser can autofill, numeric keyboards where it helps.
    expect(await page.locator('#f-card-number').getAttribute('autocomplete')).toBe('cc-number');
    expect(await page.locator('#f-card-number').getAttribute('inputmode')).toBe('numeric');
    expect(await page.locator('#f-card-holder').getAttribute('autocomplete')).toBe('cc-name');
    expect(await page.locator('#f-card-expiry').getAttribute('autocomplete')).toBe('cc-exp');
    expect(await page.locator('#f-card-cvv').getAttribute('autocomplete')).toBe('cc-csc');

    // The e-mail is required for the online card: the page says so before any call.
    await fillCard(page, 'APRO');
    await page.getByTestId('place-order').click();
    await page.getByText('Informe seu e-mail para pagar com cartão online.').waitFor();
    expect(sent.tokenCalls).toBe(0);
    await page.locator('#f-email').fill('paula@example.com');
    await screenshot(page, 'wallet-checkout');
    expect(await seriousAxeViolations(page), 'axe-core on the card form').toEqual([]);

    await page.getByTestId('place-order').click();
    const status = page.getByTestId('payment-status');
    await status.waitFor();
    await expect.poll(() => status.getAttribute('data-status')).toBe('approved');
    const orderNumber = (await page.getByTestId('order-number').textContent())!.trim();
    await screenshot(page, 'wallet-tracking');

    const tracked = await t.app.inject({ url: `/t/demo/orders/${orderNumber}/track` });
    expect(tracked.statusCode, tracked.body).toBe(200);
    expect(tracked.json()).toMatchObject({ paymentStatus: 'approved', items: [{ name: 'Fraldinha grelhada' }] });
    const charged = t.app.integrations.wallet.simulator!.listPayments();
    expect(charged.map((p) => p.status)).toEqual(['approved']);
    expect(charged[0].transaction_amount * 100).toBe(tracked.json().total);

    // The card went to the gateway only: never to the service, never to storage.
    expect(sent.tokenCalls).toBe(1);
    expect(sent.toService.some((body) => body.includes(CARD_DIGITS) || body.includes('APRO'))).toBe(false);
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(stored).not.toContain(CARD_DIGITS);
    await context.close();
  });

  test('a declined card shows why beside the card fields, keeps the cart and creates no order', async () => {
    const before = await ordersToday();
    const paymentsBefore = t.app.integrations.wallet.simulator!.listPayments().length;
    const context = await phoneContext(browser);
    const page = await context.newPage();
    await page.goto(`${base}/t/demo/b/salao/menu`);
    await addDish(page, 'Fraldinha grelhada', ['Mal passada', 'Batata frita']);
    await page.getByTestId('open-cart').click();
    await page.getByTestId('checkout').click();
    await page.getByLabel('Nome', { exact: true }).fill('Carlos Sem Saldo');
    await page.locator('#f-email').fill('carlos@example.com');
    await page.locator('input[value="wallet"]').check();
    await fillCard(page, 'FUND');
    await page.getByTestId('place-order').click();

    const error = page.getByTestId('card-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Pagamento recusado: saldo ou limite insuficiente.');
    expect(await page.getByTestId('card-fields').isVisible()).toBe(true);
    await screenshot(page, 'wallet-declined');

    const payments = t.app.integrations.wallet.simulator!.listPayments().slice(paymentsBefore);
    expect(payments.map((p) => [p.status, p.status_detail])).toEqual([['rejected', 'cc_rejected_insufficient_amount']]);
    expect(await ordersToday()).toBe(before);
    // The cart is still there: back to the cart, the dish is listed.
    await page.getByRole('button', { name: /Voltar ao cardápio/ }).click();
    await expect.poll(() => page.locator('.cart-lines li').count()).toBe(1);
    await context.close();
  });

  test('an expired card is flagged on its field before any call, and nothing is charged', async () => {
    const paymentsBefore = t.app.integrations.wallet.simulator!.listPayments().length;
    const context = await phoneContext(browser);
    const page = await context.newPage();
    await page.goto(`${base}/t/demo/b/salao/menu`);
    await addDish(page, 'Fraldinha grelhada', ['Mal passada', 'Batata frita']);
    await page.getByTestId('open-cart').click();
    await page.getByTestId('checkout').click();
    await page.getByLabel('Nome', { exact: true }).fill('Ana');
    await page.locator('#f-email').fill('ana@example.com');
    await page.locator('input[value="wallet"]').check();
    await fillCard(page, 'APRO', '01/20');
    await page.getByTestId('place-order').click();
    await page.getByText('Cartão vencido.').waitFor();
    expect(await page.locator('#f-card-expiry').getAttribute('aria-invalid')).toBe('true');
    expect(t.app.integrations.wallet.simulator!.listPayments().length).toBe(paymentsBefore);
    await context.close();
  });
});

async function ordersToday(): Promise<number> {
  return ((await demo.get('/t/demo/orders')) as unknown[]).length;
}

async function fillCard(page: Page, holder: string, expiry = '11/39') {
  await page.locator('#f-card-number').fill(CARD_NUMBER);
  await page.locator('#f-card-holder').fill(holder);
  await page.locator('#f-card-expiry').fill(expiry);
  await page.locator('#f-card-cvv').fill('123');
}

/** The bodies the page sends to the service (not the gateway), and how many card tokens it asked for. */
function watchRequests(page: Page) {
  const seen = { toService: [] as string[], tokenCalls: 0 };
  page.on('request', (req) => {
    const path = new URL(req.url()).pathname;
    if (path.endsWith('/v1/card_tokens')) seen.tokenCalls++;
    else seen.toService.push(req.postData() ?? '');
  });
  return seen;
}

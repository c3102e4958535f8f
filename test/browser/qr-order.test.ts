import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TestApp } from '../app.js';
import {
  crc16,
  emvFields,
  hasChromium,
  keepMeasurement,
  phoneContext,
  screenshot,
  seriousAxeViolations,
  throttleAsMobile,
} from '../browser.js';
import { addDish, startBrowserApp, type BrowserHarness } from './harness.js';

/**
 * Issue 19 end to end, in Debian's chromium: a guest scans a table's QR code, orders two dishes with
 * required choices, pays by PIX, and follows the order while the kitchen display bumps it.
 */
let h: BrowserHarness;
let t: TestApp;
let base: string;
let browser: Browser;
let demo: BrowserHarness['demo'];

function decodeQr(png: Buffer): string {
  const img = PNG.sync.read(png);
  // jsqr is CommonJS with `export default` types: under NodeNext the function is the default import's `default`.
  const code = jsqr.default(new Uint8ClampedArray(img.data), img.width, img.height);
  if (!code) throw new Error('no QR code in the image');
  return code.data;
}

async function pdvId(slug: string): Promise<string> {
  const res = await t.app.inject({ url: `/t/demo/storefront?pdv=${slug}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().pdv.id;
}

describe.skipIf(!hasChromium)('customer QR menu and kitchen display (browser)', () => {
  beforeAll(async () => {
    h = await startBrowserApp();
    ({ t, base, browser, demo } = h);
  });
  afterAll(() => h?.close());

  test('a guest orders from a table QR code, pays by PIX and sees the kitchen bump the order', async () => {
    // The admin's printable QR for table 3 of the dining room PDV points at the menu with table=3.
    const qr = await t.app.inject({ url: `/t/demo/pdvs/${await pdvId('salao')}/table-qr?format=png&table=3`, headers: demo.headers });
    expect(qr.statusCode, qr.body).toBe(200);
    const menuUrl = new URL(decodeQr(qr.rawPayload));
    expect(menuUrl.pathname).toBe('/t/demo/b/salao/menu');
    expect(menuUrl.searchParams.get('table')).toBe('3');

    // The guest, on a throttled phone: first view size and time to interactive are kept in the output.
    const guestContext = await phoneContext(browser);
    const guest = await guestContext.newPage();
    const net = await throttleAsMobile(guest);
    const started = Date.now();
    await guest.goto(`${base}${menuUrl.pathname}${menuUrl.search}`);
    await guest.getByTestId('item').first().waitFor();
    await guest.evaluate(() => new Promise((r) => requestIdleCallback(() => r(null))));
    const interactiveMs = Date.now() - started;
    await guest.waitForLoadState('networkidle');
    const transferred = net.transferred();
    keepMeasurement('menu-first-view', {
      profile: 'Slow 4G (150 ms RTT, 1.6 Mbit/s down), CPU 4x slower, 375 px',
      transferredBytes: transferred,
      timeToInteractiveMs: interactiveMs,
      perUrl: net.perUrl(),
    });
    expect(transferred, 'first view transferred size (goal: under 150 KB compressed)').toBeLessThan(150 * 1024);
    await net.release();
    await expect.poll(() => guest.getByText('Mesa 3').first().isVisible()).toBe(true);
    await screenshot(guest, 'menu', { fullPage: false });
    expect(await seriousAxeViolations(guest), 'axe-core on the menu').toEqual([]);

    await addDish(guest, 'Fraldinha grelhada', ['Mal passada', 'Batata frita'], {
      beforeAdding: async () => {
        await screenshot(guest, 'item-sheet', { fullPage: false });
        expect(await seriousAxeViolations(guest), 'axe-core on the item sheet').toEqual([]);
      },
    });
    await addDish(guest, 'Costela no bafo', ['Purê de batata']);

    await guest.getByTestId('open-cart').click();
    await guest.getByTestId('checkout').click();
    await guest.getByLabel('Nome').waitFor();
    expect(await seriousAxeViolations(guest), 'axe-core on the checkout form').toEqual([]);
    await guest.getByLabel('Nome').fill('Maria Cliente');
    await guest.locator('input[value="pix"]').check();
    await guest.getByTestId('place-order').click();

    // PIX: the "copia e cola" payload is a valid BR Code for the order's total, and its QR image says the same.
    const payloadEl = guest.getByTestId('pix-payload');
    await payloadEl.waitFor();
    const payload = (await payloadEl.textContent())!.trim();
    const orderNumber = (await guest.getByTestId('order-number').first().textContent())!.trim();
    const tracked = await t.app.inject({ url: `/t/demo/orders/${orderNumber}/track` });
    expect(tracked.statusCode, tracked.body).toBe(200);
    const order = tracked.json();
    expect(order.items.map((i: { name: string }) => i.name).sort()).toEqual(['Costela no bafo', 'Fraldinha grelhada']);
    expect(payload.slice(-4)).toBe(crc16(payload.slice(0, -4)));
    const fields = emvFields(payload);
    expect(fields.get('00')).toBe('01');
    expect(fields.get('54')).toBe((order.total / 100).toFixed(2));
    expect(fields.get('26')).toContain('br.gov.bcb.pix');
    const qrSrc = await guest.locator('img[src^="data:image/png;base64,"]').first().getAttribute('src');
    expect(decodeQr(Buffer.from(qrSrc!.split(',')[1], 'base64'))).toBe(payload);
    await screenshot(guest, 'pix');
    expect(await seriousAxeViolations(guest), 'axe-core on the PIX and tracking view').toEqual([]);

    const status = guest.getByTestId('order-status');
    await expect.poll(() => status.getAttribute('data-status')).toBe('pending');

    // The kitchen display, in a second browser context (a tablet), as the demo waiter.
    const kitchenContext = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'pt-BR' });
    const kitchen = await kitchenContext.newPage();
    await kitchen.goto(`${base}/t/demo/kitchen`);
    const staff = demo.logins.find((l) => l.who === 'demo staff')!;
    await kitchen.getByLabel('E-mail').waitFor();
    expect(await seriousAxeViolations(kitchen), 'axe-core on the kitchen login').toEqual([]);
    await kitchen.getByLabel('E-mail').fill(staff.email);
    await kitchen.getByLabel('Senha').fill(staff.password!);
    await kitchen.getByTestId('login').click();
    const card = kitchen.locator(`[data-testid="order-card"][data-order-number="${orderNumber}"]`);
    await card.waitFor();
    await expect.poll(() => kitchen.getByTestId('connection').getAttribute('data-state')).toBe('connected');
    await screenshot(kitchen, 'kitchen');
    expect(await seriousAxeViolations(kitchen), 'axe-core on the kitchen display').toEqual([]);

    // Bump: the guest's tracking view changes without a reload.
    await card.getByTestId('bump').click();
    await expect.poll(() => card.getAttribute('data-status')).toBe('confirmed');
    await expect.poll(() => status.getAttribute('data-status')).toBe('confirmed');
    await screenshot(guest, 'tracking');

    // Recall undoes it, on both screens.
    await card.getByTestId('recall').click();
    await expect.poll(() => card.getAttribute('data-status')).toBe('pending');
    await expect.poll(() => status.getAttribute('data-status')).toBe('pending');

    // After a network drop the kitchen reconnects by itself and catches up on what it missed.
    await kitchenContext.setOffline(true);
    await expect.poll(() => kitchen.getByTestId('connection').getAttribute('data-state'), { timeout: 20_000 }).toBe('reconnecting');
    const bumped = await t.app.inject({ method: 'PUT', url: `/t/demo/orders/${order._id ?? (await orderId(orderNumber))}/status`, headers: demo.headers, payload: { status: 'confirmed' } });
    expect(bumped.statusCode, bumped.body).toBe(200);
    await kitchenContext.setOffline(false);
    await expect.poll(() => kitchen.getByTestId('connection').getAttribute('data-state'), { timeout: 20_000 }).toBe('connected');
    await expect.poll(() => card.getAttribute('data-status')).toBe('confirmed');

    // The bar's screen shows only bar lines: a drinks order appears there first (presence), the dishes order does not.
    const menuItems = (await t.app.inject({ url: '/t/demo/menu/items' })).json() as { _id: string; station: string }[];
    const drink = menuItems.find((i) => i.station === 'bar')!;
    const drinks = await t.app.inject({
      method: 'POST',
      url: '/t/demo/orders',
      headers: demo.headers,
      payload: { items: [{ menuItem: drink._id, quantity: 2 }], orderType: 'takeout', customerName: 'Balcão' },
    });
    expect(drinks.statusCode, drinks.body).toBe(201);
    await kitchen.goto(`${base}/t/demo/kitchen?station=bar`);
    await kitchen.locator(`[data-testid="order-card"][data-order-number="${drinks.json().orderNumber}"]`).waitFor();
    expect(await kitchen.locator(`[data-testid="order-card"][data-order-number="${orderNumber}"]`).count()).toBe(0);

    await kitchenContext.close();
    await guestContext.close();
  });

  test('a market has no kitchen display: the page says so and offers no login', async () => {
    const market = await t.app.services.tenants.create({ name: 'Mercadinho Teste', slug: 'mercadinho-teste', businessType: 'mercado' });
    const context = await browser.newContext({ locale: 'pt-BR' });
    const page = await context.newPage();
    await page.goto(`${base}/t/${market.slug}/kitchen`);
    await page.getByText('O painel da cozinha é para restaurantes').waitFor();
    expect(await page.getByLabel('Senha').count()).toBe(0);
    await context.close();
  });
});

async function orderId(orderNumber: string): Promise<string> {
  const list = (await demo.get('/t/demo/orders')) as { _id: string; orderNumber: string }[];
  return list.find((o) => o.orderNumber === orderNumber)!._id;
}

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { createTestApp, type TestApp } from '../app.js';
import { ensureWebBuilt, launchBrowser } from '../browser.js';
import { seedDemoTenant } from '../demo.js';

/**
 * What the browser tests start with: a test app with the demo tenant seeded, listening on a port, and a
 * chromium. `login` signs a page in to the admin panel as one of the demo logins and waits for the
 * tenant's home.
 */
export interface BrowserHarness {
  t: TestApp;
  base: string;
  browser: Browser;
  demo: Awaited<ReturnType<typeof seedDemoTenant>>;
  /** A 10-inch tablet in landscape, pt-BR, São Paulo time. */
  tablet(): Promise<BrowserContext>;
  /** Logs `page` in as the demo login `who` (`demo admin`, `demo staff`...) and opens the demo tenant's home. */
  login(page: Page, who: string): Promise<void>;
  close(): Promise<void>;
}

export async function startBrowserApp(opts: { jobs?: { workers: boolean } } = {}): Promise<BrowserHarness> {
  ensureWebBuilt();
  const t = await createTestApp({}, { jobs: opts.jobs });
  const demo = await seedDemoTenant(t);
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const browser = await launchBrowser();
  return {
    t,
    base,
    browser,
    demo,
    tablet: () => browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo', acceptDownloads: true }),
    async login(page, who) {
      const account = demo.logins.find((l) => l.who === who);
      if (!account?.password) throw new Error(`no demo login ${who}`);
      await page.goto(`${base}/admin/login?next=${encodeURIComponent('/admin/t/demo')}`);
      await page.getByLabel('E-mail').fill(account.email);
      await page.getByLabel('Senha').fill(account.password);
      await page.getByTestId('login').click();
      await page.waitForURL(`${base}/admin/t/demo`);
      await expect.poll(() => page.locator('main#main h1').first().textContent()).toContain('Olá');
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/** On the customer menu: opens a dish's sheet, picks the named options and adds it to the cart. */
export async function addDish(page: Page, name: string, options: string[], { beforeAdding }: { beforeAdding?: () => Promise<void> } = {}) {
  const item = page.locator(`[data-testid="item"][data-name="${name}"]`);
  await item.getByTestId('add-item').click();
  const sheet = page.getByRole('dialog');
  await sheet.waitFor();
  for (const option of options) await sheet.getByLabel(option, { exact: false }).first().check();
  await beforeAdding?.();
  await sheet.getByTestId('sheet-add').click();
  await sheet.waitFor({ state: 'hidden' });
}

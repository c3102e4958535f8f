import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasChromium, keepMeasurement, screenshot, seriousAxeViolations, throttleAsMobile } from '../browser.js';
import { startBrowserApp, type BrowserHarness } from './harness.js';

/** The admin panel's shell: login, the role's menu, an unknown page, "forgot password", logout. */
let h: BrowserHarness;

describe.skipIf(!hasChromium)('admin panel shell (browser)', () => {
  beforeAll(async () => {
    h = await startBrowserApp();
  });
  afterAll(() => h?.close());

  test('a wrong password is refused on the form; the right one opens the tenant home; logout returns to the login', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    // The first view (the login) on a slow network: only the shell's chunks, each page loads on its first visit.
    const net = await throttleAsMobile(page);
    await page.goto(`${h.base}/admin`);
    await page.waitForURL(/\/admin\/login\?next=/);
    await page.getByTestId('login').waitFor();
    await page.waitForLoadState('networkidle');
    keepMeasurement('panel-first-view', { transferredBytes: net.transferred(), perUrl: net.perUrl() });
    expect(net.transferred(), 'the panel login view on the wire').toBeLessThan(60 * 1024);
    await net.release();
    expect(await seriousAxeViolations(page), 'axe-core on the login').toEqual([]);
    await page.getByTestId('login').click();
    await page.getByText('Preencha este campo.').first().waitFor();
    await page.getByLabel('E-mail').fill('admin@demo.local');
    await page.getByLabel('Senha').fill('wrong-password');
    await page.getByTestId('login').click();
    await page.getByText('E-mail ou senha incorretos.').waitFor();

    await h.login(page, 'demo admin');
    await screenshot(page, 'panel-home', { fullPage: false });
    expect(await seriousAxeViolations(page), 'axe-core on the home').toEqual([]);
    // The tokens survive a reload; an unknown page says so inside the shell.
    await page.goto(`${h.base}/admin/t/demo/no-such-page`);
    await page.getByText('Página não encontrada.').waitFor();
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(/\/admin\/login/);
    await page.goto(`${h.base}/admin/t/demo`);
    await page.waitForURL(/\/admin\/login\?next=/);
    await context.close();
  });

  test('"forgot password" mails a reset link to an account', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    await page.goto(`${h.base}/admin/login`);
    await page.getByRole('link', { name: 'Esqueci minha senha' }).click();
    await page.getByLabel('E-mail').fill('staff@demo.local');
    await page.getByRole('button', { name: 'Enviar link' }).click();
    await page.getByText('Se o e-mail tiver uma conta').waitFor();
    // The mail goes out from the job queue (this test app runs its jobs on demand).
    await expect
      .poll(async () => {
        await h.t.app.jobs.drain();
        return h.t.mail.to('staff@demo.local').some((m) => /reset-password#token=/.test(m.text));
      })
      .toBe(true);
    await context.close();
  });
});

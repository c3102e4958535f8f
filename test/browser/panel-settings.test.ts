import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasChromium, phoneContext, screenshot, seriousAxeViolations } from '../browser.js';
import { startBrowserApp, type BrowserHarness } from './harness.js';

/**
 * Issue 21, the admin's settings area: settings (bill and PIX, secrets write-only, Apps and their token shown
 * once), users and roles, branches and PDVs, branch reports.
 */
let h: BrowserHarness;

async function open(page: Page, path: string, heading: string) {
  await page.goto(`${h.base}/admin/t/demo/${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
}

/** Signs `page` in as an account made here (not a demo login) and waits for the tenant home. */
async function loginAs(page: Page, email: string, password: string) {
  await page.goto(`${h.base}/admin/login?next=${encodeURIComponent('/admin/t/demo')}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Senha').fill(password);
  await page.getByTestId('login').click();
  await page.waitForURL(`${h.base}/admin/t/demo`);
}

/** No sideways scroll on the page itself (wide tables scroll inside their own box). */
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

describe.skipIf(!hasChromium)('admin panel: settings, users, branches, reports (browser)', () => {
  beforeAll(async () => {
    h = await startBrowserApp();
  });
  afterAll(() => h?.close());

  test('the admin sets the service charge and the PIX key, installs the demo App and sees its token once, and finds the staff', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    await h.login(page, 'demo admin');
    await page.getByRole('navigation', { name: 'Menu' }).getByRole('link', { name: 'Configurações' }).click();
    await page.getByRole('heading', { level: 1, name: 'Configurações' }).waitFor();
    await page.getByRole('heading', { name: 'Exemplo de integração' }).waitFor();
    expect(await seriousAxeViolations(page), 'axe-core on settings').toEqual([]);
    // Secrets are shown only as set or not.
    await expect.poll(() => page.getByTestId('fiscalProviderToken-state').textContent()).toMatch(/definido/);

    // The page's own check: a service charge above 30% is refused next to the field, nothing sent.
    const charge = page.getByLabel('Taxa de serviço (%)');
    await charge.fill('45');
    await page.getByTestId('save-settings').click();
    await page.getByText('Informe um percentual de 0 a 30').waitFor();
    expect((await h.demo.get('/t/demo/tenants')).serviceChargePercent).not.toBe(45);
    // An API field error lands under its field: a PIX key that is no key.
    await charge.fill('12,5');
    await page.getByLabel('Chave PIX').fill('não é chave');
    await page.getByTestId('save-settings').click();
    await expect.poll(() => page.locator('.field-invalid').count()).toBeGreaterThan(0);
    expect(await page.locator('.field-invalid label').first().textContent()).toBe('Chave PIX');

    await page.getByLabel('Chave PIX').fill('pix@demo.local');
    await page.getByTestId('save-settings').click();
    await page.getByText('Configurações salvas.').waitFor();
    const tenant = await h.demo.get('/t/demo/tenants');
    expect(tenant.serviceChargePercent).toBe(12.5);
    expect(tenant.pixKey).toBe('pix@demo.local');
    await page.reload();
    await expect.poll(() => page.getByLabel('Taxa de serviço (%)').inputValue()).toBe('12,5');

    // The demo App: installed from the catalog, its token shown once in a dialog with a copy button.
    await page.getByRole('button', { name: 'Instalar Exemplo de integração' }).click();
    const dialog = page.getByRole('dialog', { name: /Token de acesso/ });
    await dialog.waitFor();
    const token = await page.getByTestId('app-token').inputValue();
    expect(token).toMatch(/^[0-9a-f]{128}$/);
    await dialog.getByRole('button', { name: 'Copiar token' }).waitFor();
    expect(await seriousAxeViolations(page), 'axe-core on the token dialog').toEqual([]);
    await dialog.getByRole('button', { name: 'Já guardei, fechar' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('installations').getByText('Exemplo de integração').waitFor();
    expect(await page.content()).not.toContain(token);
    const installs = await h.demo.get('/t/demo/admin/marketplace/installations');
    expect(installs.map((i: { app: { slug: string } }) => i.app.slug)).toContain('exemplo-integracao');
    // The token works against the public API.
    const me = await h.t.app.inject({ url: '/public/v1/menu/items', headers: { authorization: `Bearer ${token}` } });
    expect(me.statusCode, me.body).toBe(200);
    await screenshot(page, 'panel-settings');

    // Users and roles: the demo staff is listed.
    await page.getByRole('navigation', { name: 'Menu' }).getByRole('link', { name: 'Usuários e papéis' }).click();
    await page.getByTestId('users').getByText('staff@demo.local').waitFor();
    await screenshot(page, 'panel-users');
    expect(await seriousAxeViolations(page), 'axe-core on users').toEqual([]);

    await open(page, 'branches', 'Filiais e PDVs');
    await page.getByTestId('branches').waitFor();
    expect(await seriousAxeViolations(page), 'axe-core on branches').toEqual([]);

    await open(page, 'reports', 'Relatórios das filiais');
    await page.getByTestId('daily-report').waitFor();
    await page.getByTestId('compare-report').waitFor();
    expect(await seriousAxeViolations(page), 'axe-core on reports').toEqual([]);
    await screenshot(page, 'panel-reports');
    await context.close();
  });

  test('users: the form checks before sending, shows the API refusal by the field, adds a branch manager and changes a role', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    await h.login(page, 'demo admin');
    await open(page, 'users', 'Usuários e papéis');
    await page.getByRole('button', { name: 'Adicionar usuário' }).click();
    const form = page.getByRole('form', { name: 'Adicionar usuário' });
    await form.getByRole('button', { name: 'Adicionar usuário' }).click();
    await form.getByText('Preencha este campo.').waitFor();
    await form.getByText('Informe um e-mail válido.').waitFor();

    // Already a member: the API's 409 is shown under the e-mail.
    await form.getByLabel('Nome').fill('Outra Equipe');
    await form.getByLabel('E-mail').fill('staff@demo.local');
    await form.getByLabel('Senha inicial').fill('senha-segura-1');
    await form.getByLabel('Papel').selectOption('accountant');
    await form.getByRole('button', { name: 'Adicionar usuário' }).click();
    await form.getByText('Esta pessoa já é membro do estabelecimento.').waitFor();

    await form.getByLabel('Nome').fill('Gerente Centro');
    await form.getByLabel('E-mail').fill('gerente@demo.local');
    await form.getByLabel('Papel').selectOption('branch_manager');
    await form.getByRole('button', { name: 'Adicionar usuário' }).click();
    await form.getByText('Escolha ao menos uma filial.').waitFor();
    await form.getByRole('checkbox').first().check();
    await form.getByRole('button', { name: 'Adicionar usuário' }).click();
    await page.getByText('Usuário adicionado.').waitFor();
    await page.getByTestId('users').getByText('gerente@demo.local').waitFor();
    const users = await h.demo.get('/t/demo/users');
    const manager = users.find((u: { email: string }) => u.email === 'gerente@demo.local');
    expect(manager.role).toBe('branch_manager');
    expect(manager.assignedBranchIds).toHaveLength(1);

    // Change the role to accountant in the edit dialog.
    await page.getByRole('button', { name: 'Editar Gerente Centro' }).click();
    const dialog = page.getByRole('dialog', { name: 'Editar Gerente Centro' });
    await dialog.getByLabel('Papel').selectOption('accountant');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Usuário atualizado.').waitFor();
    const after = (await h.demo.get('/t/demo/users')).find((u: { email: string }) => u.email === 'gerente@demo.local');
    expect(after.role).toBe('accountant');
    await context.close();
  });

  test('branches: a new PDV with its terminal serial, checked on the form first; the phone layout does not scroll sideways', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    await h.login(page, 'demo admin');
    await open(page, 'branches', 'Filiais e PDVs');
    await page.getByRole('button', { name: 'Ver PDVs' }).first().click();
    await page.getByRole('button', { name: /^Novo PDV em / }).click();
    const dialog = page.getByRole('dialog', { name: 'Novo PDV' });
    await dialog.getByLabel('Nome').fill('Varanda');
    await expect.poll(() => dialog.getByLabel('Identificador (slug)').inputValue()).toBe('varanda');
    await dialog.getByLabel('Nº de série da maquininha').fill('abc');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText(/Formato T-/).waitFor();
    await dialog.getByLabel('Nº de série da maquininha').fill('T-VAR-0001');
    await dialog.getByLabel('Modo de atendimento').selectOption('mesa');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('cell', { name: 'Varanda', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'T-VAR-0001' }).waitFor();

    const phone = await phoneContext(h.browser);
    const small = await phone.newPage();
    await h.login(small, 'demo admin');
    for (const [path, heading] of [
      ['settings', 'Configurações'],
      ['users', 'Usuários e papéis'],
      ['branches', 'Filiais e PDVs'],
      ['reports', 'Relatórios das filiais'],
    ] as const) {
      await open(small, path, heading);
      expect(await fitsWidth(small), `${path} fits 375 px`).toBe(true);
    }
    await screenshot(small, 'panel-settings-phone');
    await phone.close();
    await context.close();
  });
  test('a branch manager sees only their branch and its reports; an accountant reads the reports without the branch list', async () => {
    const branches = (await h.demo.get('/api/t/demo/admin/branches')).data as { _id: string; name: string; isHQ: boolean }[];
    const other = branches.find((b) => !b.isHQ)!;
    for (const [email, role, assignedBranchIds] of [
      ['gerente.vila@demo.local', 'branch_manager', [other._id]],
      ['contador@demo.local', 'accountant', []],
    ] as const) {
      const res = await h.t.app.inject({
        method: 'POST',
        url: '/t/demo/users',
        headers: h.demo.headers,
        payload: { email, name: email.split('@')[0], password: 'senha-segura-1', role, assignedBranchIds },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const context = await h.tablet();
    const page = await context.newPage();
    await loginAs(page, 'gerente.vila@demo.local', 'senha-segura-1');
    await open(page, 'branches', 'Filiais e PDVs');
    await expect.poll(() => page.getByTestId('branches').locator(':scope > li').count()).toBe(1);
    await page.getByTestId('branches').getByText(other.name).waitFor();
    expect(await page.getByRole('button', { name: 'Nova filial' }).count()).toBe(0);
    await open(page, 'reports', 'Relatórios das filiais');
    await page.getByTestId('daily-report').waitFor();
    await expect.poll(() => page.getByLabel('Filial').locator('option').allTextContents()).toEqual([other.name]);
    expect(await page.getByRole('navigation', { name: 'Menu' }).getByRole('link', { name: 'Usuários e papéis' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(/\/admin\/login/);

    await loginAs(page, 'contador@demo.local', 'senha-segura-1');
    await open(page, 'reports', 'Relatórios das filiais');
    await page.getByTestId('daily-report').waitFor();
    await page.getByTestId('compare-report').waitFor();
    await expect.poll(() => page.getByLabel('Filial').locator('option').count()).toBe(branches.length);
    // A range the API would refuse is caught on the form.
    await page.getByLabel('De').fill('2026-01-10');
    await page.getByLabel('Até').fill('2026-01-01');
    await page.getByRole('button', { name: 'Comparar' }).click();
    await page.getByText('A data final deve ser igual ou posterior à inicial.').waitFor();
    await context.close();
  });

  test('settings: a delivery integration is deactivated and activated again, and an App is revoked', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    await h.login(page, 'demo admin');
    await open(page, 'settings', 'Configurações');
    const card = page.locator('li.card', { has: page.getByRole('heading', { name: /Plataforma C/ }) });
    await card.getByRole('button', { name: 'Alterar credenciais' }).click();
    await card.getByLabel('URL das chaves (JWKS)').fill('não é url');
    await card.getByRole('button', { name: 'Salvar' }).click();
    await card.getByText('Informe um endereço http(s).').waitFor();
    await card.getByRole('button', { name: 'Cancelar' }).click();
    await card.getByRole('button', { name: 'Desativar' }).click();
    await card.getByRole('button', { name: 'Ativar' }).waitFor();
    const list = async () => (await h.demo.get('/t/demo/marketplace/integrations')) as { provider: string; active: boolean }[];
    expect((await list()).find((i) => i.provider === 'provider_c')?.active).toBe(false);
    await card.getByRole('button', { name: 'Ativar' }).click();
    await card.getByRole('button', { name: 'Desativar' }).waitFor();
    expect((await list()).find((i) => i.provider === 'provider_c')?.active).toBe(true);

    // Install (if the first test did not) and revoke: the App is back in the catalog.
    const install = page.getByRole('button', { name: 'Instalar Exemplo de integração' });
    if (await install.count()) {
      await install.click();
      await page.getByRole('button', { name: 'Já guardei, fechar' }).click();
    }
    await page.getByTestId('installations').getByRole('button', { name: 'Revogar' }).click();
    await install.waitFor();
    expect(await h.demo.get('/t/demo/admin/marketplace/installations')).toEqual([]);
    await context.close();
  });
});

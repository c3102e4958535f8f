import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasChromium, phoneContext, screenshot, seriousAxeViolations } from '../browser.js';
import { startBrowserApp, type BrowserHarness } from './harness.js';

/** The manager's day in the panel: today's dashboard, the menu editor (a new dish reaches the public menu), tables, reservations. */
let h: BrowserHarness;

interface Category {
  _id: string;
  name: string;
  order: number;
}

describe.skipIf(!hasChromium)('admin panel, manager pages (browser)', () => {
  beforeAll(async () => {
    h = await startBrowserApp();
  });
  afterAll(() => h?.close());

  test('the manager creates a dish in a category and guests see it on the public menu', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    await h.login(page, 'demo admin');

    // Today's dashboard: numbers, charts, stock alerts, live.
    await page.getByRole('link', { name: 'Painel do dia', exact: true }).click();
    await page.getByRole('heading', { name: 'Painel do dia' }).waitFor();
    await page.getByText('Ao vivo').waitFor();
    await page.getByRole('heading', { name: 'Alertas de estoque' }).waitFor();
    await page.getByRole('figure', { name: 'Vendas por forma de pagamento' }).waitFor();
    // Live: a tab opened at a table (kitchen room event) shows up without a reload.
    const openTabs = page.getByTestId('open-tabs');
    const before = Number(await openTabs.textContent());
    const menu = (await h.t.app.inject({ url: '/t/demo/menu/items' })).json() as { _id: string }[];
    const tab = await h.t.app.inject({
      method: 'POST',
      url: '/t/demo/orders',
      headers: h.demo.headers,
      payload: { items: [{ menuItem: menu[0]._id, quantity: 1 }], orderType: 'dine_in', table: 9, pdv: 'salao' },
    });
    expect(tab.statusCode, tab.body).toBe(201);
    await expect.poll(async () => Number(await openTabs.textContent())).toBe(before + 1);
    await screenshot(page, 'manager-dashboard', { fullPage: true });
    expect(await seriousAxeViolations(page), 'axe-core on the dashboard').toEqual([]);

    // The menu editor: pick a category, the form checks before sending, then the dish is created.
    await page.getByRole('link', { name: 'Cardápio', exact: true }).click();
    await page.getByRole('button', { name: 'Pratos principais', exact: true }).click();
    await page.getByRole('heading', { name: 'Pratos de Pratos principais' }).waitFor();
    await page.getByRole('button', { name: 'Novo prato' }).click();
    await page.getByRole('button', { name: 'Salvar' }).click();
    await expect.poll(() => page.getByText('Preencha este campo.').count()).toBe(2);
    await page.getByLabel('Nome', { exact: true }).fill('Moqueca de caju');
    await page.getByLabel('Preço (R$)').fill('12,3,4');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Informe um preço válido, como 39,90.').waitFor();
    await page.getByLabel('Preço (R$)').fill('58,90');
    await page.getByLabel('Descrição').fill('Caju, leite de coco e dendê, com arroz e farofa.');
    await page.getByLabel('Tempo de preparo (min)').fill('25');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Prato “Moqueca de caju” criado.').waitFor();
    // Now editing it: its recipe section is there.
    await page.getByRole('heading', { name: 'Ficha técnica (receita)' }).waitFor();
    await page.getByLabel('Insumo').selectOption({ index: 1 });
    await page.getByLabel('Quantidade').fill('0,25');
    await page.getByRole('button', { name: 'Adicionar à receita' }).click();
    await page.getByRole('button', { name: /^Excluir .* da receita$/ }).waitFor();
    await screenshot(page, 'manager-menu-editor', { fullPage: true });
    expect(await seriousAxeViolations(page), 'axe-core on the menu editor').toEqual([]);

    const items = (await h.t.app.inject({ url: '/t/demo/menu/items' })).json() as { name: string; price: number; preparationTime: number | null }[];
    const dish = items.find((i) => i.name === 'Moqueca de caju');
    expect(dish).toMatchObject({ price: 5890, preparationTime: 25 });

    // A guest's page: the public menu of the dining room lists it.
    const guest = await context.newPage();
    await guest.goto(`${h.base}/t/demo/b/salao/menu`);
    await guest.getByText('Moqueca de caju').first().waitFor();
    await guest.close();
    await context.close();
  });

  test('categories and dishes reorder with the keyboard buttons; availability toggles; a modifier group is created', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    await h.login(page, 'demo admin');
    await page.goto(`${h.base}/admin/t/demo/menu`);
    const down = page.getByRole('button', { name: 'Descer Entradas' });
    await down.focus();
    await page.keyboard.press('Enter');
    await page.getByText('Salvo.').waitFor();
    await expect
      .poll(async () => {
        const cats = (await h.t.app.inject({ url: '/t/demo/menu/categories' })).json() as Category[];
        return cats.map((c) => c.name).slice(0, 2);
      })
      .toEqual(['Pratos principais', 'Entradas']);

    // Dishes reorder too: the second dish of Entradas moved up is first on the public menu.
    await page.getByRole('button', { name: 'Entradas', exact: true }).click();
    type Listed = { name: string; category: string };
    const entradas = async () => {
      const cats = (await h.t.app.inject({ url: '/t/demo/menu/categories' })).json() as Category[];
      const id = cats.find((c) => c.name === 'Entradas')!._id;
      return ((await h.t.app.inject({ url: '/t/demo/menu/items' })).json() as Listed[]).filter((i) => i.category === id).map((i) => i.name);
    };
    const [first, second] = await entradas();
    await page.getByRole('button', { name: `Subir ${second}` }).click();
    await expect.poll(async () => (await entradas()).slice(0, 2)).toEqual([second, first]);

    // Availability: off hides the item from the public menu.
    const toggle = page.getByRole('checkbox', { name: /^Disponibilidade de / }).first();
    const label = await toggle.getAttribute('aria-label');
    const name = label!.replace('Disponibilidade de ', '');
    await toggle.uncheck();
    await expect
      .poll(async () => ((await h.t.app.inject({ url: '/t/demo/menu/items' })).json() as { name: string }[]).some((i) => i.name === name))
      .toBe(false);

    await page.getByRole('tab', { name: 'Adicionais' }).click();
    await page.getByRole('button', { name: 'Novo grupo' }).click();
    await page.getByLabel('Nome do grupo').fill('Acompanhamento extra');
    await page.getByLabel('Tipo').selectOption('multiple');
    await page.getByLabel('Máximo de escolhas').fill('2');
    await page.getByLabel('Nome da opção 1').fill('Farofa');
    await page.getByLabel('Acréscimo (R$)').first().fill('4,50');
    await page.getByRole('button', { name: 'Adicionar opção' }).click();
    await page.getByLabel('Nome da opção 2').fill('Vinagrete');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Farofa (+R$').waitFor();
    const groups = (await h.t.app.inject({ url: '/t/demo/menu/modifier-groups' })).json() as { name: string; type: string; options: { priceAdjustment: number }[] }[];
    expect(groups.find((g) => g.name === 'Acompanhamento extra')).toMatchObject({ type: 'multiple', options: [{ priceAdjustment: 450 }, { priceAdjustment: 0 }] });
    await context.close();
  });

  test('tables are created; reservations of a day are created and confirmed', async () => {
    const context = await h.tablet();
    const page = await context.newPage();
    await h.login(page, 'demo admin');
    await page.goto(`${h.base}/admin/t/demo/tables`);
    await page.getByRole('button', { name: 'Nova mesa' }).click();
    await page.getByLabel('Número').fill('0');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Informe um número entre 1 e 9999.').waitFor();
    await page.getByLabel('Número').fill('77');
    await page.getByLabel('Lugares').fill('6');
    await page.getByLabel('Local').fill('Varanda');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByRole('cell', { name: 'Mesa 77', exact: true }).waitFor();
    await page.getByRole('button', { name: /^Imprimir QR codes/ }).first().waitFor();
    expect(await seriousAxeViolations(page), 'axe-core on the tables').toEqual([]);

    await page.goto(`${h.base}/admin/t/demo/reservations`);
    await page.getByRole('button', { name: 'Nova reserva' }).click();
    await page.getByLabel('Cliente').fill('Joana Prado');
    await page.getByLabel('Telefone').fill('12');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Informe um telefone com DDD').waitFor();
    await page.getByLabel('Telefone').fill('(11) 98765-4321');
    await page.getByLabel('Horário').fill('23:30');
    await page.getByLabel('Pessoas').fill('4');
    await page.getByRole('button', { name: 'Salvar' }).click();
    const row = page.getByRole('row', { name: /Joana Prado/ });
    await row.getByText('Pendente').waitFor();
    await row.getByRole('button', { name: 'Confirmar' }).click();
    await row.getByText('Confirmada').waitFor();
    expect(await seriousAxeViolations(page), 'axe-core on the reservations').toEqual([]);
    await screenshot(page, 'manager-reservations', { fullPage: false });
    await context.close();
  });

  test('a branch manager, on a phone, sees the dashboard of their branch and edits the menu without the admin-only controls', async () => {
    const branches = (await h.demo.get('/api/t/demo/admin/branches')) as { data: { _id: string; isHQ: boolean; name: string }[] };
    const hq = branches.data.find((b) => b.isHQ)!;
    const email = 'gerente@demo.local';
    const created = await h.t.app.inject({
      method: 'POST',
      url: '/t/demo/users',
      headers: h.demo.headers,
      payload: { email, name: 'Gina Gerente', password: 'gerente-senha-123', role: 'branch_manager', assignedBranchIds: [hq._id] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const context = await phoneContext(h.browser);
    const page = await context.newPage();
    await page.goto(`${h.base}/admin/login?next=${encodeURIComponent('/admin/t/demo/dashboard')}`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Senha').fill('gerente-senha-123');
    await page.getByTestId('login').click();
    await page.getByRole('heading', { name: 'Painel do dia' }).waitFor();
    await page.getByText('Ao vivo').waitFor();
    await page.getByRole('figure', { name: 'Vendas por hora' }).waitFor();
    const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth && document.querySelector('main')!.scrollWidth <= window.innerWidth);
    expect(await fits(), 'the dashboard fits 375 px').toBe(true);
    await page.getByRole('button', { name: 'Menu' }).click();
    const nav = page.getByRole('navigation', { name: 'Menu' });
    await nav.getByRole('link', { name: 'Cardápio', exact: true }).waitFor();
    expect(await nav.getByRole('link', { name: 'Reservas', exact: true }).count()).toBe(0);
    await nav.getByRole('link', { name: 'Cardápio', exact: true }).click();
    await page.getByRole('heading', { name: /^Pratos de / }).waitFor();
    expect(await page.getByRole('button', { name: 'Novo prato' }).count()).toBe(0);
    expect(await fits(), 'the menu editor fits 375 px').toBe(true);
    await page.getByRole('button', { name: /^Editar / }).first().click();
    await page.getByLabel('Preço (R$)').fill('19,50');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Salvo.').waitFor();
    expect(await page.getByRole('heading', { name: 'Ficha técnica (receita)' }).count()).toBe(0);
    await screenshot(page, 'manager-menu-phone', { fullPage: false });
    await context.close();
  });
});

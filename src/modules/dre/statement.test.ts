import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeCategory, makeMenuItem, makeTenantWithTeam, type TestUser } from '../../../test/factories.js';
import { percentOf, salesTaxBp } from './statement.service.js';

/**
 * The DRE of a month (spec 4.12 `GET /dre`) against a hand calculation, over HTTP, in America/Sao_Paulo
 * (UTC-3 all year). Simples Nacional: 4% on sales less discounts. Dish R$ 45,90 (recipe: 180 g of fish at
 * R$ 79,90/kg and 120 g of rice at R$ 6,55/kg), soda R$ 6,95 (no recipe).
 *
 * April 2030:
 * - #1 dine-in, 2 covers at R$ 8,00, 2 dishes + 1 soda = 98,75, discount 8,75, service 10% of 90,00 = 9,00, paid 10/04
 * - #2 takeout, 10 dishes = 459,00; #6 takeout, 100 sodas = 695,00; both paid on 30/04 at 23:30 (02:30 UTC of 01/05)
 * - #5 1 dish paid then cancelled on 12/04 (its sale and its return cancel out); #3 1 dish never paid
 * - not April: #0 paid 31/03 at 23:50; #4 made 30/04, paid 01/05 at 00:10
 * - a production exit of 0.5 kg of fish (no unit cost on the movement: the item's 79,90)
 * - the supplier NF-e imported on 15/04 (R$ 500,00)
 * - expenses: other revenue 100,10; returns (revenue_deduction) 120,50; inputs (cogs) 45,00; packaging (tenant cogs)
 *   10,00; rent (opex, center A) 250,00; energy (opex, center B) 45,35; depreciation (da) 20,00; bank fees
 *   (financial, center A) 3,51; not April: rent 999,99 on 01/05 and 77,77 on 31/03.
 *
 * By hand, in cents:
 *   receitaBruta = 9875 + 45900 + 69500 (items) + 900 (service) + 1600 (cover) + 10010 (other revenue) = 137785
 *   taxes = 4% of (137785 - 875) = 5476.4 -> 5476; deducoes = 875 + 5476 + 12050 = 18401; receitaLiquida = 119384
 *   stock: fish (360 + 1800 + 500) x 7990 + rice (240 + 1200) x 655 = 22196.6 cents -> 22197 (rounded once)
 *   cmv = 22197 + 4500 + 1000 + 50000 = 77697; margemBruta = 41687 (34.918...% -> 34.92)
 *   opex = 25000 + 4535 = 29535; ebitda = 12152 (10.1789% -> 10.18); ebit = 12152 - 2000 = 10152
 *   lucroLiquido = 10152 - 351 = 9801 (8.2096% -> 8.21)
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
function ok<T = Record<string, unknown>>(res: { statusCode: number; body: string; json: () => unknown }, status = 200): T {
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as T;
}

const SYS = {
  revenue: '5eedca7e0000000000000001',
  returns: '5eedca7e0000000000000003',
  inputs: '5eedca7e0000000000000004',
  rent: '5eedca7e0000000000000005',
  energy: '5eedca7e0000000000000007',
  depreciation: '5eedca7e0000000000000014',
  fees: '5eedca7e0000000000000015',
};

/** Moves the clock and signs the team's tokens again at the new time (they last 15 minutes). */
async function travel(users: TestUser[], iso: string) {
  t.clock.set(new Date(iso));
  for (const u of users) u.headers.authorization = `Bearer ${await t.app.deps.jwt.sign(u.id)}`;
}

async function restaurant(settings: object) {
  const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
  ok(await call('PUT', `/t/${team.slug}/tenants`, team.admin.headers, settings));
  const category = await makeCategory(t.app, team.tenant);
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 4590, category: category._id });
  const soda = await makeMenuItem(t.app, team.tenant, { name: 'Guaraná', price: 695, category: category._id });
  const orders = `/t/${team.slug}/orders`;
  const order = async (body: object) => ok<{ _id: string; total: number }>(await call('POST', orders, team.admin.headers, body), 201);
  const pay = async (id: string) => expect(ok<{ status: string }>(await call('POST', `${orders}/${id}/process-payment`, team.admin.headers, { gateway: 'mock', method: 'cash' })).status).toBe('approved');
  const takeout = (items: { menuItem: string; quantity: number }[]) => order({ orderType: 'takeout', items });
  const expense = async (body: object) => ok<{ _id: string }>(await call('POST', `/t/${team.slug}/dre/expenses`, team.admin.headers, body), 201);
  const dre = async (query: string) => ok<Record<string, unknown>>(await call('GET', `/t/${team.slug}/dre?${query}`, team.admin.headers));
  const users = [team.admin, team.staff, team.accountant];
  return { ...team, dish, soda, orders, order, pay, takeout, expense, dre, users };
}

describe('GET /dre: a month of known orders, movements, invoices and expenses', () => {
  let r: Awaited<ReturnType<typeof restaurant>>;
  let centerA: string;

  beforeAll(async () => {
    t.clock.set(new Date('2030-03-20T15:00:00Z'));
    r = await restaurant({ regimeTributario: 'simples_nacional', serviceChargePercent: 10, coverCharge: 800, cnpj: '58716523000119' });
    const item = async (name: string, cost: number) =>
      ok<{ _id: string }>(
        await call('POST', `/t/${r.slug}/inventory`, r.admin.headers, { name, sku: `SKU-${randomInt(1e12)}`, unit: 'kg', currentStock: 50, minStock: 0, cost }),
        201,
      )._id;
    const fish = await item('Peixe', 7990);
    const rice = await item('Arroz', 655);
    for (const [inventoryItemId, quantityPerUnit] of [
      [fish, 180],
      [rice, 120],
    ] as const) {
      ok(await call('POST', `/t/${r.slug}/inventory/ingredients`, r.admin.headers, { menuItemId: r.dish._id, inventoryItemId, quantityPerUnit, unit: 'g' }), 201);
    }
    centerA = ok<{ _id: string }>(await call('POST', `/t/${r.slug}/dre/cost-centers`, r.admin.headers, { code: 'salao', name: 'Salão' }), 201)._id;
    const centerB = ok<{ _id: string }>(await call('POST', `/t/${r.slug}/dre/cost-centers`, r.admin.headers, { code: 'cozinha', name: 'Cozinha' }), 201)._id;
    const packaging = ok<{ _id: string }>(
      await call('POST', `/t/${r.slug}/dre/categories`, r.admin.headers, { code: 'cmv-emb', name: 'Embalagens', dreGroup: 'cogs' }),
      201,
    )._id;

    // #0: paid at 23:50 of 31/03 (02:50 UTC of 01/04): March.
    await travel(r.users, '2030-04-01T02:50:00Z');
    await r.pay((await r.takeout([{ menuItem: r.dish._id, quantity: 1 }]))._id);

    // #1 on 10/04: dine-in with covers, a discount and the service charge.
    await travel(r.users, '2030-04-10T15:00:00Z');
    const one = await r.order({ orderType: 'dine_in', covers: 2, items: [{ menuItem: r.dish._id, quantity: 2 }, { menuItem: r.soda._id, quantity: 1 }] });
    const discounted = ok(await call('PUT', `${r.orders}/${one._id}/discount`, r.admin.headers, { kind: 'amount', value: 875, reason: 'aniversário' }));
    expect(discounted).toMatchObject({ itemsTotal: 9875, discountTotal: 875, serviceCharge: 900, coverCharge: 1600, total: 11500 });
    await r.pay(one._id);

    // #5 on 12/04: paid, then cancelled.
    await travel(r.users, '2030-04-12T15:00:00Z');
    const five = await r.takeout([{ menuItem: r.dish._id, quantity: 1 }]);
    await r.pay(five._id);
    ok(await call('PUT', `${r.orders}/${five._id}/status`, r.admin.headers, { status: 'cancelled' }));

    // The supplier invoice, imported on 15/04.
    await travel(r.users, '2030-04-15T15:00:00Z');
    const xml = readFileSync(join(import.meta.dirname, '../../../../shared/data/nfe/nfe_layout4_com_prot.xml'), 'utf8');
    const boundary = 'dre-nfe-boundary';
    const imported = await t.app.inject({
      method: 'POST',
      url: `/t/${r.slug}/inventory/import-nfs`,
      headers: { ...r.admin.headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="nfe.xml"\r\ncontent-type: text/xml\r\n\r\n${xml}\r\n--${boundary}--\r\n`,
    });
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json().total).toBe(50000);

    // A production exit without a unit cost (the item's cost counts), and #3 never paid.
    await travel(r.users, '2030-04-18T15:00:00Z');
    ok(await call('POST', `/t/${r.slug}/inventory/${fish}/movements`, r.admin.headers, { type: 'exit', quantity: 0.5, reason: 'production' }), 201);
    await r.takeout([{ menuItem: r.dish._id, quantity: 1 }]);

    // 30/04 18:00: #4 is made (paid on 01/05); #2 and #6 paid at 23:30.
    await travel(r.users, '2030-04-30T21:00:00Z');
    const four = await r.takeout([{ menuItem: r.dish._id, quantity: 1 }]);
    await travel(r.users, '2030-05-01T02:30:00Z');
    await r.pay((await r.takeout([{ menuItem: r.dish._id, quantity: 10 }]))._id);
    await r.pay((await r.takeout([{ menuItem: r.soda._id, quantity: 100 }]))._id);
    await travel(r.users, '2030-05-01T03:10:00Z');
    await r.pay(four._id);

    const book = (description: string, amount: number, competenceDate: string, categoryId: string, costCenterId?: string) =>
      r.expense({ description, amount, competenceDate, categoryId, ...(costCenterId ? { costCenterId } : {}) });
    await book('Evento fechado', 100.1, '2030-04-05', SYS.revenue);
    await book('Devoluções', 120.5, '2030-04', SYS.returns);
    await book('Insumos avulsos', 45, '2030-04-30', SYS.inputs);
    await book('Caixas de isopor', 10, '2030-04-22', packaging);
    await book('Aluguel de abril', 250, '2030-04-10', SYS.rent, centerA);
    await book('Conta de luz', 45.35, '2030-04-20', SYS.energy, centerB);
    await book('Depreciação', 20, '2030-04-30', SYS.depreciation);
    await book('Tarifas bancárias', 3.51, '2030-04-15', SYS.fees, centerA);
    await book('Aluguel de maio', 999.99, '2030-05-01', SYS.rent, centerA);
    await book('Aluguel de março', 77.77, '2030-03-31', SYS.rent);
  });

  it('equals the hand calculation to the cent', async () => {
    expect(await r.dre('year=2030&month=4')).toEqual({
      period: { year: 2030, month: 4 },
      receitaBruta: 1377.85,
      deducoes: 184.01,
      receitaLiquida: 1193.84,
      cmv: 776.97,
      margemBruta: 416.87,
      margemBrutaPercent: 34.92,
      despesasOperacionais: 295.35,
      ebitda: 121.52,
      ebitdaPercent: 10.18,
      da: 20,
      ebit: 101.52,
      despesasFinanceiras: 3.51,
      lucroLiquido: 98.01,
      lucroLiquidoPercent: 8.21,
      byCategory: [
        { categoryName: 'Outras receitas operacionais', dreGroup: 'revenue', total: 100.1 },
        { categoryName: 'Devoluções e cancelamentos', dreGroup: 'revenue_deduction', total: 120.5 },
        { categoryName: 'Embalagens', dreGroup: 'cogs', total: 10 },
        { categoryName: 'Insumos e mercadorias', dreGroup: 'cogs', total: 45 },
        { categoryName: 'Aluguel e condomínio', dreGroup: 'opex', total: 250 },
        { categoryName: 'Energia elétrica', dreGroup: 'opex', total: 45.35 },
        { categoryName: 'Depreciação e amortização', dreGroup: 'da', total: 20 },
        { categoryName: 'Juros, multas e tarifas bancárias', dreGroup: 'financial', total: 3.51 },
      ],
    });
  });

  it('puts the orders paid across midnight in the month of their local day', async () => {
    // March: #0 (45,90; its fish and rice: 180 x 7990 + 120 x 655 = 1516.8 -> 1517) and the rent of 31/03.
    const march = await r.dre('year=2030&month=3');
    const marchTaxes = Math.round(4590 * 0.04); // 183.6 -> 184
    expect(march).toMatchObject({ receitaBruta: 45.9, deducoes: marchTaxes / 100, cmv: 15.17, despesasOperacionais: 77.77 });
    // May: #4 (made on 30/04, paid at 00:10 of 01/05) and the rent of 01/05.
    expect(await r.dre('year=2030&month=5')).toMatchObject({ receitaBruta: 45.9, cmv: 15.17, despesasOperacionais: 999.99 });
  });

  it('with a cost center, counts only what is booked on it (no revenue, no stock or invoice costs; percentages 0)', async () => {
    expect(await r.dre(`year=2030&month=4&costCenterId=${centerA}`)).toEqual({
      period: { year: 2030, month: 4 },
      receitaBruta: 0,
      deducoes: 0,
      receitaLiquida: 0,
      cmv: 0,
      margemBruta: 0,
      margemBrutaPercent: 0,
      despesasOperacionais: 250,
      ebitda: -250,
      ebitdaPercent: 0,
      da: 0,
      ebit: -250,
      despesasFinanceiras: 3.51,
      lucroLiquido: -253.51,
      lucroLiquidoPercent: 0,
      byCategory: [
        { categoryName: 'Aluguel e condomínio', dreGroup: 'opex', total: 250 },
        { categoryName: 'Juros, multas e tarifas bancárias', dreGroup: 'financial', total: 3.51 },
      ],
    });
  });

  it('a month without revenue has percentages of 0, never NaN', async () => {
    expect(await r.dre('year=2030&month=6')).toMatchObject({ receitaBruta: 0, receitaLiquida: 0, margemBrutaPercent: 0, ebitdaPercent: 0, lucroLiquidoPercent: 0, byCategory: [] });
    const june = await r.expense({ description: 'Manutenção', amount: 80, competenceDate: '2030-06-02', categoryId: '5eedca7e0000000000000011' });
    expect(await r.dre('year=2030&month=6')).toMatchObject({ despesasOperacionais: 80, ebitda: -80, lucroLiquido: -80, margemBrutaPercent: 0, ebitdaPercent: 0, lucroLiquidoPercent: 0 });
    ok(await call('DELETE', `/t/${r.slug}/dre/expenses/${june._id}`, r.admin.headers));
  });
});

describe('taxes on sales by regimeTributario', () => {
  it('regime normal: PIS 0.65% + COFINS 3% + ICMS 3.2% on sales less discounts; no regime: none', async () => {
    t.clock.set(new Date('2030-07-10T15:00:00Z'));
    const normal = await restaurant({ regimeTributario: 'regime_normal' });
    await normal.pay((await normal.takeout([{ menuItem: normal.dish._id, quantity: 1 }]))._id);
    // 4590 x 6.85% = 314.415 -> 314.
    expect(await normal.dre('year=2030&month=7')).toMatchObject({ receitaBruta: 45.9, deducoes: 3.14, receitaLiquida: 42.76, cmv: 0, margemBruta: 42.76, margemBrutaPercent: 100 });

    const none = await restaurant({ regimeTributario: null });
    await none.pay((await none.takeout([{ menuItem: none.soda._id, quantity: 3 }]))._id);
    expect(await none.dre('year=2030&month=7')).toMatchObject({ receitaBruta: 20.85, deducoes: 0, receitaLiquida: 20.85, lucroLiquidoPercent: 100 });

    // MEI (a fixed monthly DAS, booked as an expense) and an unknown regime: 0; Simples: 4%.
    expect([salesTaxBp('mei'), salesTaxBp('simples_nacional'), salesTaxBp('simples_nacional_excesso_sublimite'), salesTaxBp('x'), salesTaxBp(null)]).toEqual([0, 400, 400, 0, 0]);
  });

  it('rounds percentages half away from zero to 2 decimals, 0 over a base of 0 or less', () => {
    expect(percentOf(1, 3)).toBe(33.33);
    expect(percentOf(2, 3)).toBe(66.67);
    expect(percentOf(-2, 3)).toBe(-66.67);
    expect(percentOf(5, 0)).toBe(0);
    expect(percentOf(5, -10)).toBe(0);
  });
});

describe('GET /dre input', () => {
  it('needs year (2000-2099) and month (1-12); an unknown cost center is 404', async () => {
    t.clock.set(new Date('2030-07-10T15:00:00Z'));
    const team = await makeTenantWithTeam(t.app);
    const other = await makeTenantWithTeam(t.app);
    const foreign = ok<{ _id: string }>(await call('POST', `/t/${other.slug}/dre/cost-centers`, other.admin.headers, { code: 'X', name: 'X' }), 201)._id;
    for (const q of ['', 'year=2030', 'month=4', 'year=2030&month=13', 'year=2030&month=0', 'year=1999&month=1', 'year=2030&month=4&costCenterId=nope']) {
      const res = await call('GET', `/t/${team.slug}/dre?${q}`, team.admin.headers);
      expect(res.statusCode, q).toBe(400);
    }
    expect((await call('GET', `/t/${team.slug}/dre?year=2030&month=4&costCenterId=${foreign}`, team.admin.headers)).statusCode).toBe(404);
    expect((await call('GET', `/t/${team.slug}/dre?year=2030&month=4`)).statusCode).toBe(401);
    expect((await call('GET', `/t/${team.slug}/dre?year=2030&month=4`, team.staff.headers)).statusCode).toBe(403);
    expect((await call('GET', `/t/${team.slug}/dre?year=2030&month=4`, team.accountant.headers)).statusCode).toBe(403);
  });
});

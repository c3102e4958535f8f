import type { DemoSeedContext } from '../../platform/module.js';
import { addDays, localDate } from '../../platform/time.js';
import type { UsersService } from '../users/index.js';
import type { DreService } from './dre.service.js';

/**
 * The demo's operating expenses: three cost centers and a restaurant's month of bills (rent, payroll,
 * energy, water, gas, marketing, depreciation) for last month, and this month's so far.
 */
export async function seedDemoExpenses(s: { dre: DreService; users: UsersService }, demo: DemoSeedContext) {
  const t = demo.tenant.db;
  const admin = await s.users.findByEmail('admin@demo.local');
  if (!admin) return;
  const today = localDate(demo.clock.now(), demo.tenant.timezone);
  const thisMonth = `${today.slice(0, 7)}-01`;
  const d = new Date(`${thisMonth}T12:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - 1);
  const lastMonth = d.toISOString().slice(0, 10);

  const categories = new Map((await s.dre.listCategories(t)).map((c) => [c.code, c._id]));
  const centers = new Map<string, string>();
  for (const [code, name] of [
    ['SALAO', 'Salão'],
    ['COZINHA', 'Cozinha'],
    ['DELIVERY', 'Delivery'],
  ]) {
    centers.set(code!, (await s.dre.createCostCenter(t, { code: code!, name: name! }))._id);
  }
  const bills: [day: number, description: string, amount: number, category: string, center?: string][] = [
    [5, 'Aluguel do salão', 6500, 'OPEX-ALUGUEL', 'SALAO'],
    [5, 'Folha de pagamento', 18400, 'OPEX-PESSOAL'],
    [10, 'Conta de energia', 1840.35, 'OPEX-ENERGIA', 'COZINHA'],
    [10, 'Conta de água', 412.8, 'OPEX-AGUA', 'COZINHA'],
    [12, 'Gás (2 cilindros P45)', 690, 'OPEX-GAS', 'COZINHA'],
    [15, 'Anúncios nas plataformas de delivery', 900, 'OPEX-MARKETING', 'DELIVERY'],
    [27, 'Depreciação do forno (1/120)', 150, 'DA-DEPRECIACAO', 'COZINHA'],
  ];
  for (const [day, description, amount, category, center] of bills) {
    const input = { description, amount, categoryId: categories.get(category)!, ...(center ? { costCenterId: centers.get(center)! } : {}) };
    await s.dre.createExpense(t, { userId: admin.id }, { ...input, competenceDate: addDays(lastMonth, day - 1) });
    // This month's bills so far.
    if (addDays(thisMonth, day - 1) <= today) await s.dre.createExpense(t, { userId: admin.id }, { ...input, competenceDate: addDays(thisMonth, day - 1) });
  }
}

import type { DemoSeedContext } from '../../platform/module.js';
import type { UsersService } from '../users/index.js';
import type { BomService } from './bom.service.js';

/**
 * The demo's cost sheets: every dish with a recipe gets its kitchen labour (15% of the direct cost) and,
 * for the takeaway ones, a package; then a cost snapshot at a 65% target margin.
 */
export async function seedDemoCostSheets(s: { bom: BomService; users: UsersService }, demo: DemoSeedContext) {
  const t = demo.tenant.db;
  const admin = await s.users.findByEmail('admin@demo.local');
  if (!admin) return;
  for (const dish of (await s.bom.list(t)).entries.filter((d) => d.hasRecipe)) {
    await s.bom.createIndirect(t, { menuItemId: dish.menuItemId, type: 'labor', label: 'Mão de obra da cozinha', valuePerUnit: 0.15, unitType: 'percentage_of_direct' });
    if (/feijoada|moqueca|picanha/i.test(dish.name)) {
      await s.bom.createIndirect(t, { menuItemId: dish.menuItemId, type: 'packaging', label: 'Embalagem para viagem', valuePerUnit: 180, unitType: 'fixed' });
    }
    await s.bom.calculate(t, { userId: admin.id }, dish.menuItemId, { targetMargin: 0.65 });
  }
}

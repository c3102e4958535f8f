import type { StockUnit } from '../../db/schema/inventory.js';
import type { DemoSeedContext } from '../../platform/module.js';
import { addDays, localDate } from '../../platform/time.js';
import type { BranchesService } from '../branches/index.js';
import type { MenuService } from '../menu/index.js';
import type { UsersService } from '../users/index.js';
import type { InventoryService } from './inventory.service.js';

/**
 * The demo kitchen's stock: items for the demo menu's best sellers, their recipes (so a sale deducts
 * them), two items under their minimum (alerts), two expiring within a week and one expired, and a
 * drink counted at the counters of both branches (one under its minimum).
 */

type DemoStock = [sku: string, name: string, unit: StockUnit, stock: number, min: number, costCents: number, expiresInDays?: number];

const ITEMS: DemoStock[] = [
  ['FEI-PRETO', 'Feijão preto', 'kg', 12, 5, 899],
  ['ARROZ-T1', 'Arroz branco tipo 1', 'kg', 25, 10, 549],
  ['CARNE-SECA', 'Carne seca', 'kg', 3.2, 4, 5990],
  ['LING-CALAB', 'Linguiça calabresa', 'kg', 6, 2, 2890],
  ['FAR-MAND', 'Farinha de mandioca', 'kg', 8, 2, 790],
  ['COUVE', 'Couve manteiga', 'kg', 1.5, 1, 1290, 3],
  ['LARANJA', 'Laranja pera', 'un', 40, 20, 80, 10],
  ['PICANHA', 'Picanha bovina', 'kg', 9.6, 4, 8990],
  ['CEBOLA', 'Cebola', 'kg', 4, 2, 499],
  ['LEITE-COND', 'Leite condensado (lata 395 g)', 'un', 24, 6, 799],
  ['LEITE', 'Leite integral', 'l', 18, 6, 549, 5],
  ['OVOS', 'Ovos', 'un', 60, 30, 90],
  ['ACUCAR', 'Açúcar refinado', 'kg', 5, 2, 459],
  ['PDQ-CONG', 'Pão de queijo congelado', 'kg', 0.8, 2, 3290, -2],
  ['GUARANA-LT', 'Guaraná lata 350 ml', 'un', 48, 24, 320],
];

/** Menu item name -> [sku, quantity per unit sold, unit of that quantity]. */
const RECIPES: Record<string, [string, number, string][]> = {
  'Feijoada completa': [
    ['FEI-PRETO', 150, 'g'],
    ['CARNE-SECA', 80, 'g'],
    ['LING-CALAB', 60, 'g'],
    ['ARROZ-T1', 120, 'g'],
    ['FAR-MAND', 30, 'g'],
    ['COUVE', 50, 'g'],
    ['LARANJA', 1, 'un'],
  ],
  'Picanha na chapa (400 g)': [
    ['PICANHA', 0.4, 'kg'],
    ['CEBOLA', 50, 'g'],
    ['ARROZ-T1', 150, 'g'],
  ],
  'Pudim de leite condensado': [
    ['LEITE-COND', 0.25, 'un'],
    ['LEITE', 200, 'ml'],
    ['OVOS', 0.5, 'un'],
    ['ACUCAR', 30, 'g'],
  ],
  'Pão de queijo (8 unidades)': [['PDQ-CONG', 200, 'g']],
  'Suco natural de laranja (500 ml)': [
    ['LARANJA', 4, 'un'],
    ['ACUCAR', 10, 'g'],
  ],
  'Guaraná (lata 350 ml)': [['GUARANA-LT', 1, 'un']],
};

/** Cans counted at each counter: [PDV slug, stock, minimum]. */
const COUNTERS: [string, number, number][] = [
  ['balcao', 12, 6],
  ['vila-balcao', 3, 6],
];

export async function seedDemoInventory(
  s: { inventory: InventoryService; menu: MenuService; branches: BranchesService; users: UsersService },
  demo: DemoSeedContext,
) {
  const t = demo.tenant.db;
  const admin = await s.users.findByEmail('admin@demo.local');
  if (!admin) return;
  const caller = { userId: admin.id, branchScope: { all: true as const } };
  const today = localDate(demo.clock.now(), demo.tenant.timezone);
  const ids = new Map<string, string>();
  for (const [sku, name, unit, stock, min, cost, expires] of ITEMS) {
    const item = await s.inventory.createItem(t, caller, {
      name,
      sku,
      unit,
      currentStock: stock,
      minStock: min,
      cost,
      expirationDate: expires === undefined ? null : addDays(today, expires),
    });
    ids.set(sku, item._id);
  }
  const menuItems = new Map((await s.menu.listItems(t)).map((m) => [m.name, m._id]));
  for (const [dish, lines] of Object.entries(RECIPES)) {
    const menuItemId = menuItems.get(dish);
    if (!menuItemId) continue;
    for (const [sku, quantityPerUnit, unit] of lines) {
      await s.inventory.createIngredient(t, { menuItemId, inventoryItemId: ids.get(sku)!, quantityPerUnit, unit: unit as never });
    }
  }
  for (const [slug, stock, min] of COUNTERS) {
    const pdv = await s.branches.findPdv(t, slug);
    if (!pdv) continue;
    await s.inventory.upsertBranchStock(
      { db: t, branchScope: { all: true }, user: { id: admin.id } },
      pdv._id,
      { itemId: ids.get('GUARANA-LT')!, physicalQuantity: stock, minQuantity: min },
    );
  }
}

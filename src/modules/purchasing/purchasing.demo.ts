import { salesSnapshots } from '../../db/schema/purchasing.js';
import type { DemoSeedContext } from '../../platform/module.js';
import { addDays, localDate } from '../../platform/time.js';
import type { InventoryService } from '../inventory/index.js';
import type { MenuService } from '../menu/index.js';
import type { UsersService } from '../users/index.js';
import type { PurchasingService } from './purchasing.service.js';

/**
 * The demo's purchasing: three suppliers, purchase orders in each state (received, partly received,
 * sent, and a draft from the items under their minimum), and 60 days of daily sales per dish (the
 * snapshots demand prediction reads), with the weekly rhythm of a restaurant: Friday and Saturday
 * busy, Monday quiet.
 */

const SUPPLIERS = [
  { name: 'Distribuidora Grãos do Vale', cnpj: '45217893000160', categories: ['mercearia'], contactName: 'Márcia', phone: '(11) 3333-1200' },
  { name: 'Frigorífico Boi Bom', cnpj: '12883047000120', categories: ['carnes'], contactName: 'Juvenal', phone: '(11) 3444-5500' },
  { name: 'Laticínios Serra Azul', cnpj: '60314522000190', categories: ['laticínios', 'ovos'], contactName: 'Tereza', phone: '(35) 3221-0099' },
];

/** Dish -> average portions a day; a dish with a third value grows by that share over the 60 days. */
const DAILY: [dish: string, perDay: number, growth?: number][] = [
  ['Feijoada completa', 14, 0.3],
  ['Picanha na chapa (400 g)', 9],
  ['Pudim de leite condensado', 11],
  ['Pão de queijo (8 unidades)', 16],
  ['Suco natural de laranja (500 ml)', 20],
  ['Guaraná (lata 350 ml)', 30],
  ['Moqueca de peixe', 6],
  ['Caipirinha de limão', 12],
];

/** Sunday to Saturday. */
const WEEKDAY = [1.3, 0.6, 0.7, 0.8, 1.0, 1.6, 1.8];

/** A small deterministic noise in [-0.15, 0.15] (the same history for the same first day). */
function noise(seed: number): number {
  const x = Math.sin(seed * 12.9898) * 43758.5453;
  return ((x - Math.floor(x)) - 0.5) * 0.3;
}

export async function seedDemoPurchasing(
  s: { purchasing: PurchasingService; inventory: InventoryService; menu: MenuService; users: UsersService },
  demo: DemoSeedContext,
) {
  const t = demo.tenant.db;
  const admin = await s.users.findByEmail('admin@demo.local');
  if (!admin) return;
  const caller = { userId: admin.id, timezone: demo.tenant.timezone };
  const today = localDate(demo.clock.now(), demo.tenant.timezone);

  const suppliers = [];
  for (const supplier of SUPPLIERS) suppliers.push(await s.purchasing.createSupplier(t, supplier));
  const bySku = new Map((await s.inventory.listItems(t, {})).map((i) => [i.sku, i]));
  const line = (sku: string, quantity: number) => {
    const item = bySku.get(sku)!;
    return { inventoryItemId: item._id, quantity, unitCost: item.cost };
  };

  // Received in full: what the pantry got last week.
  const received = await s.purchasing.createPurchaseOrder(t, caller, {
    supplierId: suppliers[0]!._id,
    items: [line('ACUCAR', 10), line('CEBOLA', 8)],
    expectedDelivery: addDays(today, -5),
    notes: 'Compra semanal da mercearia',
  });
  await s.purchasing.updatePurchaseOrder(t, received._id, { status: 'sent' });
  await s.purchasing.receivePurchaseOrder(t, caller, received._id, {
    items: received.items.map((i) => ({ inventoryItemId: i.inventoryItemId, receivedQuantity: i.quantity })),
  });
  // Partly received: half the condensed milk came, the rest is due.
  const partial = await s.purchasing.createPurchaseOrder(t, caller, {
    supplierId: suppliers[2]!._id,
    items: [line('LEITE-COND', 24), line('OVOS', 60)],
    expectedDelivery: addDays(today, -1),
  });
  await s.purchasing.updatePurchaseOrder(t, partial._id, { status: 'sent' });
  await s.purchasing.receivePurchaseOrder(t, caller, partial._id, { items: [{ inventoryItemId: partial.items[0]!.inventoryItemId, receivedQuantity: 12 }] });
  // Sent, awaiting delivery.
  const sent = await s.purchasing.createPurchaseOrder(t, caller, {
    supplierId: suppliers[1]!._id,
    items: [line('PICANHA', 10), line('LING-CALAB', 5)],
    expectedDelivery: addDays(today, 2),
  });
  await s.purchasing.updatePurchaseOrder(t, sent._id, { status: 'sent' });
  // A draft for what is under its minimum now.
  await s.purchasing.generateFromLowStock(t, caller, { supplierId: suppliers[1]!._id });

  // 60 days of sales, yesterday back.
  const dishes = new Map((await s.menu.listItems(t)).map((m) => [m.name, m._id]));
  const rows: (typeof salesSnapshots.$inferInsert)[] = [];
  for (let back = 60; back >= 1; back--) {
    const day = addDays(today, -back);
    const weekday = new Date(`${day}T12:00:00Z`).getUTCDay();
    for (const [i, [dish, perDay, growth = 0]] of DAILY.entries()) {
      const menuItemId = dishes.get(dish);
      if (!menuItemId) continue;
      const trend = 1 + growth * ((60 - back) / 59);
      const units = Math.max(0, Math.round(perDay * WEEKDAY[weekday]! * trend * (1 + noise(back * 31 + i))));
      rows.push({ tenantId: demo.tenant.id, day, menuItemId, quantityMilli: units * 1000, orders: Math.ceil(units / 2) });
    }
  }
  await t.run((tx) => tx.db.insert(salesSnapshots).values(rows));
}

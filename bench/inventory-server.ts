/**
 * Deduction-on-sale benchmark server, forked by bench/inventory-run.ts (never on its own: it needs the
 * IPC channel). The real app (`buildApp`) on PostgreSQL, seeded with the demo tenant by `seedFirstStart`,
 * plus what the benchmark orders: a category with dishes of the same price, one with a recipe of 10
 * inventory items (kg items in g, l items in ml, unit items, a box), one without recipe, one with the
 * first of those ingredients only (the breakdown), and the 10
 * items with stock enough for any run. The recipes go through the real route
 * (`POST /t/demo/inventory/ingredients`); the items are written straight to their table (the bench does
 * not measure them). Nothing in src/ is changed; for the what-if target the runner can switch off the
 * `/inventory` room's socket.io emits (IPC `inventory-emits`), wrapped in this process only.
 */
import { randomBytes } from 'node:crypto';
import { newId } from '../src/db/ids.js';
import { inventoryItems } from '../src/db/schema/inventory.js';
import { QUANTITY, RECIPE, SINGLE, START_MILLI, type InventoryReadyMessage, type OrderBody } from './inventory-shared.js';
import { answerRunner, demoApp, fail, failed, listenLocal, login } from './lib-server.js';

const ADMIN = 'admin@demo.local';

async function main() {
  if (!process.send) fail('bench/inventory-server.ts is started by bench/inventory-run.ts');
  /** What-if switch of the runner: the `/inventory` room's socket.io emits on or off. */
  let inventoryEmits = true;
  answerRunner((msg: { type?: string; on?: boolean }) => {
    if (msg?.type === 'inventory-emits') {
      inventoryEmits = msg.on ?? true;
      process.send!({ type: 'inventory-emits', on: inventoryEmits });
    }
  });
  try {
    const { app, password } = await demoApp('ro-bench-inventory-');
    // The stock core holds this very object: wrapping its method is enough (this process only).
    const realtime = app.deps.realtime;
    const toInventory = realtime.toInventory.bind(realtime);
    realtime.toInventory = (...args) => void (inventoryEmits && toInventory(...args));
    const tenant = (await app.deps.tenants.bySlug('demo')) ?? fail('demo tenant missing');
    const token = await login(app, ADMIN, password);
    const headers = { authorization: `Bearer ${token}` };
    const t = app.deps.tenantDb(tenant.id);

    const category = await app.services.menu.createCategory(t, { name: 'Bench', order: 99 });
    const dish = (name: string) => app.services.menu.createItem(t, { name, price: 8990, category: category._id });
    const withRecipe = await dish('Bench prato com receita');
    const plain = await dish('Bench prato sem receita');
    const single = await dish('Bench prato de um ingrediente');

    const itemIds: string[] = [];
    const addLine = async (menuItemId: string, inventoryItemId: string, r: (typeof RECIPE)[number]) => {
      const res = await app.inject({
        method: 'POST',
        url: '/t/demo/inventory/ingredients',
        headers,
        payload: { menuItemId, inventoryItemId, quantityPerUnit: r.quantity, unit: r.in },
      });
      if (res.statusCode !== 201) fail(`recipe line ${r.name}: ${res.statusCode} ${res.body}`);
    };
    for (const r of RECIPE) {
      const id = newId();
      await t.run((tx) =>
        tx.db.insert(inventoryItems).values({
          tenantId: tenant.id,
          id,
          name: r.name,
          sku: `BENCH-${randomBytes(4).toString('hex')}`,
          unit: r.unit,
          packSize: r.packSize === undefined ? null : r.packSize * 1000,
          physicalMilli: START_MILLI,
          costCents: 1000,
        }),
      );
      itemIds.push(id);
      await addLine(withRecipe._id, id, r);
    }
    await addLine(single._id, itemIds[SINGLE], RECIPE[SINGLE]);

    const body = (menuItem: string, customerName: string): OrderBody => ({ orderType: 'takeout', customerName, items: [{ menuItem, quantity: QUANTITY }] });
    const ready: InventoryReadyMessage = {
      type: 'ready',
      appUrl: await listenLocal(app),
      token,
      tenantId: tenant.id,
      bodies: {
        recipe: body(withRecipe._id, 'Bench com receita'),
        plain: body(plain._id, 'Bench sem receita'),
        single: body(single._id, 'Bench um ingrediente'),
      },
      itemIds,
    };
    process.send!(ready);
  } catch (err) {
    await failed('inventory bench server', err);
  }
}

void main();

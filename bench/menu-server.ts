/**
 * Menu benchmark server, forked by bench/menu-items.ts (it needs the IPC channel). From one
 * process, so both get the same CPU budget, it serves:
 *
 * - the real app (`buildApp`) on PostgreSQL with a tenant `bench` whose menu has 200 items
 *   (8 categories, 3 modifier groups, allergens), plus one bench-only route outside the guarded
 *   scope and hidden from OpenAPI: the same listing built from the database on every request
 *   (no body cache), to show what the cache buys;
 * - a bare Fastify instance (no hooks, no plugins, no schema) whose one route returns the very
 *   same array of 200 items, serialized by Fastify's default JSON.stringify on each request.
 */
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openPostgres } from '../src/db/client.js';
import { MenuItem } from '../src/modules/menu/menu.schemas.js';

export interface MenuReadyMessage {
  type: 'ready';
  appUrl: string;
  bareUrl: string;
  items: number;
  bytes: number;
}

export const BENCH_SLUG = 'bench';
export const ITEM_COUNT = 200;

const CATEGORIES = ['Entradas', 'Saladas', 'Pratos principais', 'Grelhados', 'Massas', 'Sobremesas', 'Bebidas', 'Cervejas e drinks'];
const DISHES = ['Picanha', 'Feijoada', 'Moqueca', 'Escondidinho', 'Strogonoff', 'Baião de dois', 'Frango à parmegiana', 'Tilápia', 'Costela', 'Coxinha'];
const ALLERGENS = [['glúten'], ['lactose'], ['glúten', 'lactose', 'ovo'], [], ['peixe'], ['crustáceos'], []];

async function main() {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is required');
  const database = await openPostgres(url, { poolSize: 10 });
  const config = { ...loadConfig(), seedDemo: false };
  const app = await buildApp({ database, config, logger: false });

  const { menu, tenants } = app.services;
  const tenant = await tenants.create({ name: 'Bench Restaurante', slug: BENCH_SLUG });
  const tdb = app.deps.tenantDb(tenant._id);
  const ponto = await menu.createGroup(tdb, {
    name: 'Ponto da carne',
    type: 'single',
    required: true,
    options: [{ name: 'Mal passada' }, { name: 'Ao ponto', isDefault: true }, { name: 'Bem passada' }],
  });
  const acomp = await menu.createGroup(tdb, {
    name: 'Acompanhamento',
    type: 'single',
    required: true,
    options: [{ name: 'Arroz branco' }, { name: 'Batata frita' }, { name: 'Salada verde' }, { name: 'Purê', priceAdjustment: 300 }],
  });
  const extras = await menu.createGroup(tdb, {
    name: 'Adicionais',
    type: 'multiple',
    maxSelections: 3,
    options: [{ name: 'Bacon', priceAdjustment: 600 }, { name: 'Queijo coalho', priceAdjustment: 700 }, { name: 'Ovo frito', priceAdjustment: 300 }],
  });
  const groupSets = [[], [ponto._id, acomp._id, extras._id], [acomp._id], [extras._id], []];
  const categoryIds: string[] = [];
  for (const [i, name] of CATEGORIES.entries()) categoryIds.push((await menu.createCategory(tdb, { name, order: i * 10 }))._id);
  for (let i = 0; i < ITEM_COUNT; i++) {
    await menu.createItem(tdb, {
      name: `${DISHES[i % DISHES.length]} da casa nº ${i + 1}`,
      description: 'Preparado na hora com ingredientes frescos da feira, servido com o acompanhamento do dia.',
      price: 1490 + ((i * 731) % 12000),
      category: categoryIds[i % categoryIds.length],
      preparationTime: 5 + (i % 30),
      allergens: ALLERGENS[i % ALLERGENS.length],
      modifierGroupIds: groupSets[i % groupSets.length],
    });
  }

  // The same listing without the body cache: the database and the serializer on every request.
  app.get('/bench/uncached/t/:slug/menu/items', {
    schema: { hide: true, response: { 200: Type.Array(MenuItem) } },
    handler: () => menu.listItems(tdb),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });

  const listing = await app.inject({ url: `/t/${BENCH_SLUG}/menu/items` });
  if (listing.statusCode !== 200) throw new Error(`listing answered ${listing.statusCode}`);
  const payload = listing.json() as unknown[];
  if (payload.length !== ITEM_COUNT) throw new Error(`listing has ${payload.length} items, expected ${ITEM_COUNT}`);

  const bare = Fastify({ logger: false });
  bare.get('/bare/menu/items', async () => payload);
  await bare.listen({ host: '127.0.0.1', port: 0 });

  const addr = (a: ReturnType<typeof bare.server.address>) => (typeof a === 'object' && a ? a.port : 0);
  const ready: MenuReadyMessage = {
    type: 'ready',
    appUrl: `http://127.0.0.1:${addr(app.server.address())}`,
    bareUrl: `http://127.0.0.1:${addr(bare.server.address())}`,
    items: payload.length,
    bytes: listing.rawPayload.length,
  };
  process.send!(ready);

  process.on('message', async (msg: { type?: string }) => {
    if (msg?.type !== 'stop') return;
    await bare.close();
    await app.close();
    await database.close();
    process.exit(0);
  });
  process.on('disconnect', () => process.exit(0));
}

main().catch((err) => {
  process.stderr.write(`menu bench server failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

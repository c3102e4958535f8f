/**
 * Order-creation benchmark server, forked by bench/orders-run.ts (never on its own: it needs the
 * IPC channel). From one process, so both targets get the same CPU budget, it serves:
 *
 * - the real app (`buildApp`) on PostgreSQL, seeded with the demo tenant by `seedFirstStart`:
 *   target A is its `POST /t/demo/orders` as a staff order (admin token from a real login);
 * - a bare Fastify instance (no hooks, no plugins, no schemas) on another port whose one route,
 *   the baseline B, does the same database work directly with `pg`, in ONE transaction per
 *   request, on its own pool of the same size as the app's (10): read the items' name, price and
 *   availability by id for the tenant, upsert the daily counter (the app's SQL shape), insert the
 *   order row with the same columns and jsonb lines, answer 201 with the row.
 *
 * Nothing in src/ is changed. For the what-if targets (BENCH_BREAKDOWN=1) the runner can switch
 * off the app's socket.io emits, all or the order-tracking room's only (IPC `emits`): the two
 * methods of the app's realtime object are wrapped in this process only.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { newId } from '../src/db/ids.js';
import type { OrderLine } from '../src/db/schema/orders.js';
import { localDate } from '../src/platform/time.js';
import { answerRunner, demoApp, fail, failed, listenLocal, login, onStop } from './lib-server.js';

const ORDERS_ADMIN = 'admin@demo.local';
/** Demo items without modifier groups (none required), with and without allergens. */
const ORDER_ITEMS = [
  { name: 'Feijoada completa', quantity: 2 },
  { name: 'Guaraná (lata 350 ml)', quantity: 3 },
  { name: 'Pudim de leite condensado', quantity: 1 },
];
/** The daily counter starts here, so the checks cross 9999 -> 10000 and every measured order has 5+ digits. */
const COUNTER_START = 9997;
/** Same size as the app's pool (`openPostgres` default). */
const POOL_SIZE = 10;

export interface OrdersReadyMessage {
  type: 'ready';
  appUrl: string;
  bareUrl: string;
  token: string;
  tenantId: string;
  /** Today in the tenant's time zone (YYYY-MM-DD), the day of the counter. */
  day: string;
  /** The counter's value before the first order (COUNTER_START). */
  counterStart: number;
  /** The request body both targets receive. */
  body: { orderType: 'takeout'; customerName: string; items: { menuItem: string; quantity: number }[] };
}

// The baseline's SQL: the same statements the app's drizzle queries send, minus the columns it
// does not need to price a line (description, timestamps, modifier links).
const SELECT_ITEMS = `select id, name, price, is_active, is_available, allergens
  from menu_items where tenant_id = $1 and id = any($2) and deleted_at is null`;
const NEXT_NUMBER = `insert into order_counters (tenant_id, day, last) values ($1, $2, 1)
  on conflict (tenant_id, day) do update set last = order_counters.last + 1 returning last`;
const INSERT_ORDER = `insert into orders (tenant_id, id, order_number, source, type, table_id, pdv_id, items, total,
  customer_name, customer_phone, customer_email, payment_method, is_tab, created_by)
  values ($1, $2, $3, 'staff', $4, null, null, $5, $6, $7, null, null, null, false, $8)
  returning *`;

/** snake_case columns -> the camelCase names of the app's answer (keys computed once per column). */
const camelKeys = new Map<string, string>();
function camel(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in row) {
    let name = camelKeys.get(key);
    if (name === undefined) camelKeys.set(key, (name = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())));
    out[name] = row[key];
  }
  return out;
}

/**
 * What-if (BENCH_BREAKDOWN=1): the number and the row in one autocommit statement, so the day's
 * counter row stays locked for that statement and its commit only, with no client round trip in
 * between. `lpad` would cut a number past 9999 to 4 digits, hence the `greatest`.
 */
const INSERT_NUMBERED_ORDER = `with n as (${NEXT_NUMBER})
  insert into orders (tenant_id, id, order_number, source, type, table_id, pdv_id, items, total,
    customer_name, customer_phone, customer_email, payment_method, is_tab, created_by)
  select $1, $3, $4 || '-' || lpad(n.last::text, greatest(4, length(n.last::text)), '0'), 'staff', $5, null, null, $6, $7, $8,
    null, null, null, false, $9 from n
  returning *`;

interface ItemRow {
  id: string;
  name: string;
  price: string;
  is_active: boolean;
  is_available: boolean;
  allergens: string[];
}

function bareServer(pool: pg.Pool, tenantId: string, timeZone: string, userId: string): FastifyInstance {
  const bare = Fastify({ logger: false });
  const dayOf = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  /** Priced lines, or null when an item is unknown or unavailable. */
  function price(body: OrdersReadyMessage['body'], rows: ItemRow[]): OrderLine[] | null {
    const byId = new Map(rows.map((r) => [r.id, r]));
    const lines: OrderLine[] = [];
    for (const l of body.items) {
      const item = byId.get(l.menuItem);
      if (!item || !item.is_active || !item.is_available) return null;
      const allergens = item.allergens.length ? { allergens: item.allergens } : {};
      lines.push({ menuItem: item.id, name: item.name, price: Number(item.price), quantity: l.quantity, ...allergens });
    }
    return lines;
  }

  bare.post('/bare/orders', async (req, reply) => {
    const body = req.body as OrdersReadyMessage['body'];
    const ids = body.items.map((l) => l.menuItem);
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query<ItemRow>(SELECT_ITEMS, [tenantId, ids]);
      const lines = price(body, rows);
      if (!lines) {
        await client.query('rollback');
        return reply.code(422).send({ error: 'an item is not available' });
      }
      const day = dayOf.format(new Date());
      const { rows: [counter] } = await client.query<{ last: number }>(NEXT_NUMBER, [tenantId, day]);
      const orderNumber = `${day.replaceAll('-', '')}-${String(counter.last).padStart(4, '0')}`;
      const total = lines.reduce((s, l) => s + l.price * l.quantity, 0);
      const { rows: [order] } = await client.query<Record<string, unknown>>(INSERT_ORDER, [
        tenantId,
        newId(),
        orderNumber,
        body.orderType,
        JSON.stringify(lines),
        total,
        body.customerName ?? null,
        userId,
      ]);
      await client.query('commit');
      return reply.code(201).send(camel(order));
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  });

  bare.post('/bare/orders-single', async (req, reply) => {
    const body = req.body as OrdersReadyMessage['body'];
    const { rows } = await pool.query<ItemRow>(SELECT_ITEMS, [tenantId, body.items.map((l) => l.menuItem)]);
    const lines = price(body, rows);
    if (!lines) return reply.code(422).send({ error: 'an item is not available' });
    const day = dayOf.format(new Date());
    const total = lines.reduce((s, l) => s + l.price * l.quantity, 0);
    const { rows: [order] } = await pool.query<Record<string, unknown>>(INSERT_NUMBERED_ORDER, [
      tenantId,
      day,
      newId(),
      day.replaceAll('-', ''),
      body.orderType,
      JSON.stringify(lines),
      total,
      body.customerName ?? null,
      userId,
    ]);
    return reply.code(201).send(camel(order));
  });
  return bare;
}

async function main() {
  if (!process.send) fail('bench/orders-server.ts is started by bench/orders-run.ts');
  /** What-if switch of the runner: all emits, the kitchen's only, or none. */
  let emits: 'all' | 'kitchen' | 'none' = 'all';
  answerRunner((msg: { type?: string; emits?: typeof emits }) => {
    if (msg?.type === 'emits') {
      emits = msg.emits ?? 'all';
      process.send!({ type: 'emits', emits });
    }
  });

  try {
    const { app, database, url, password } = await demoApp('ro-bench-orders-');

    // What-if switch: the orders service holds this very object, so wrapping its methods is enough.
    const realtime = app.deps.realtime;
    const toKitchen = realtime.toKitchen.bind(realtime);
    const toOrder = realtime.toOrder.bind(realtime);
    realtime.toKitchen = (...args) => void (emits !== 'none' && toKitchen(...args));
    realtime.toOrder = (...args) => void (emits === 'all' && toOrder(...args));

    const tenant = (await app.deps.tenants.bySlug('demo')) ?? fail('demo tenant missing');
    const admin = (await app.services.users.findByEmail(ORDERS_ADMIN)) ?? fail('demo admin missing');
    const all = await app.inject({ url: '/t/demo/menu/items' });
    if (all.statusCode !== 200) fail(`menu listing answered ${all.statusCode}`);
    const menu = all.json() as { _id: string; name: string; modifierGroups?: unknown[] }[];
    const items = ORDER_ITEMS.map(({ name, quantity }) => {
      const found = menu.find((m) => m.name === name) ?? fail(`demo item ${name} missing`);
      return { menuItem: found._id, quantity };
    });

    const day = localDate(new Date(), tenant.timezone);
    await database.db.execute(
      sql`insert into order_counters (tenant_id, day, last) values (${tenant.id}, ${day}, ${COUNTER_START})
          on conflict (tenant_id, day) do update set last = ${COUNTER_START}`,
    );

    const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, connectionTimeoutMillis: 5000 });
    pool.on('error', () => {});
    onStop(() => pool.end());
    const bare = bareServer(pool, tenant.id, tenant.timezone, admin.id);
    onStop(() => bare.close());

    const token = await login(app, ORDERS_ADMIN, password);

    const appUrl = await listenLocal(app);
    const bareUrl = await listenLocal(bare);
    const ready: OrdersReadyMessage = {
      type: 'ready',
      appUrl,
      bareUrl,
      token,
      tenantId: tenant.id,
      day,
      counterStart: COUNTER_START,
      body: { orderType: 'takeout', customerName: 'Cliente Bench', items },
    };
    process.send!(ready);
  } catch (err) {
    await failed('orders bench server', err);
  }
}

void main();

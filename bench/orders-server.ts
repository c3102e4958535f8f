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
 *   order row with the same columns and jsonb lines, answer 201 with the row. Like the app, it works
 *   under row-level security: its connections are the tenant role bound to the demo tenant, and each
 *   transaction opens with the app's tenant prelude in the same message as `begin`.
 *
 * The payment path (issue 10) adds a second bare route, the baseline of `processPayment` with the mock
 * gateway: in a second transaction bound the same way, lock the order, read its payments, insert the
 * payment row, write the order's payment fields, commit; answer like the app's process-payment.
 *
 * Nothing in src/ is changed. For the what-if targets (BENCH_BREAKDOWN=1) the runner can switch
 * off the app's socket.io emits, all or the order-tracking room's only (IPC `emits`): the two
 * methods of the app's realtime object are wrapped in this process only.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { newId } from '../src/db/ids.js';
import { TENANT_ROLE, tenantPrelude } from '../src/db/scopes.js';
import type { OrderLine, PaymentMethod } from '../src/db/schema/orders.js';
import { RECEIPT_TTL_MS } from '../src/modules/orders/index.js';
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

// The payment path's baseline: the statements `processPayment` (gateway `mock`) sends, in the same
// transaction shape: the order locked first, its ledger read, the payment inserted, the order's
// payment fields written from the ledger (amount_paid, status, method, attempts, receipt).
const LOCK_ORDER = `select total, amount_paid, status, split_at, payment_status
  from orders where tenant_id = $1 and id = $2 for update`;
const PAYMENTS_OF_ORDER = `select attempt, method, amount, status from payments where tenant_id = $1 and order_id = $2 order by attempt`;
const INSERT_PAYMENT = `insert into payments (tenant_id, id, order_id, attempt, method, gateway, amount, tip, tendered, status,
  transaction_id, terminal_serial, created_by, settled_at)
  values ($1, $2, $3, $4, $5, 'mock', $6, 0, null, 'approved', $7, null, $8, $9)`;
// payment_started_at is the new payment's created_at: both are the transaction's now().
const PAY_ORDER = `update orders set payment_status = $3, payment_method = $4, payment_gateway = 'mock', payment_transaction_id = $5,
  payment_intent_id = null, payment_terminal_serial = null, payment_attempts = $6, payment_started_at = now(), amount_paid = $7,
  paid_at = $8, receipt_token = coalesce($9, receipt_token), receipt_expires_at = coalesce($10, receipt_expires_at), updated_at = now()
  where tenant_id = $1 and id = $2`;

/** The body of both payment routes in the bench: the whole amount due, by the mock gateway. */
export interface PayBody {
  method: PaymentMethod;
  gateway: 'mock';
}

/** What the app's process-payment answers for an approved payment (the baseline answers the same). */
export interface PayAnswer {
  status: 'approved';
  transactionId: string;
  paymentId: string;
  amount: number;
  tip: number;
  change: number;
  amountDue: number;
}

interface LockedOrder {
  total: string;
  amount_paid: string;
  status: string;
  split_at: Date | null;
  payment_status: string | null;
}

interface LedgerRow {
  attempt: number;
  method: PaymentMethod;
  amount: string;
  status: string;
}

/** A bare route's answer: status code and body. */
interface Answer {
  code: number;
  body: unknown;
}

/** Why a payment cannot start on this (locked) order, as `assertPayable`; null when it can. */
function notPayable(order: LockedOrder | undefined): Answer | null {
  const refuse = (code: number, error: string) => ({ code, body: { error } });
  if (!order) return refuse(404, 'order not found');
  if (order.status === 'cancelled' || order.split_at) return refuse(409, 'order closed');
  if (order.payment_status === 'processing') return refuse(409, 'payment in progress');
  if (Number(order.total) - Number(order.amount_paid) <= 0) return refuse(409, 'already paid');
  return null;
}

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
  const prelude = tenantPrelude(tenantId);
  /** Priced lines, or null when an item is unknown or unavailable. */
  function price(body: OrdersReadyMessage['body'], rows: ItemRow[]): OrderLine[] | null {
    const byId = new Map(rows.map((r) => [r.id, r]));
    const lines: OrderLine[] = [];
    for (const l of body.items) {
      const item = byId.get(l.menuItem);
      if (!item || !item.is_active || !item.is_available) return null;
      const allergens = item.allergens.length ? { allergens: item.allergens } : {};
      // As the app writes a line since issue 10: its unit and its amount (whole units here: price x quantity exactly).
      const price = Number(item.price);
      lines.push({ menuItem: item.id, name: item.name, price, quantity: l.quantity, unit: 'un', amount: price * l.quantity, ...allergens });
    }
    return lines;
  }

  /**
   * One transaction opened as the app's tenant transactions open theirs: `begin` and the tenant binding
   * in one round trip. It commits when `fn` answers 2xx and rolls back on a refusal or a throw.
   */
  async function inTenantTx(fn: (client: pg.PoolClient) => Promise<Answer>): Promise<Answer> {
    const client = await pool.connect();
    try {
      await client.query(`begin; ${prelude}`);
      const answer = await fn(client);
      await client.query(answer.code < 300 ? 'commit' : 'rollback');
      return answer;
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  bare.post('/bare/orders', async (req, reply) => {
    const body = req.body as OrdersReadyMessage['body'];
    const ids = body.items.map((l) => l.menuItem);
    const { code, body: answer } = await inTenantTx(async (client) => {
      const { rows } = await client.query<ItemRow>(SELECT_ITEMS, [tenantId, ids]);
      const lines = price(body, rows);
      if (!lines) return { code: 422, body: { error: 'an item is not available' } };
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
      return { code: 201, body: camel(order) };
    });
    return reply.code(code).send(answer);
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

  bare.post('/bare/orders/:id/pay', async (req, reply) => {
    const { id } = req.params as { id: string };
    const { method } = req.body as PayBody;
    const { code, body: answer } = await inTenantTx(async (client) => {
      const { rows: [order] } = await client.query<LockedOrder>(LOCK_ORDER, [tenantId, id]);
      const refused = notPayable(order);
      if (refused) return refused;
      const { rows: ledger } = await client.query<LedgerRow>(PAYMENTS_OF_ORDER, [tenantId, id]);
      const total = Number(order.total);
      const amount = total - Number(order.amount_paid);
      const attempt = (ledger.at(-1)?.attempt ?? 0) + 1;
      const paymentId = newId();
      const transactionId = `mock-${randomBytes(8).toString('hex')}`;
      const now = new Date();
      await client.query(INSERT_PAYMENT, [tenantId, paymentId, id, attempt, method, amount, transactionId, userId, now]);
      // The ledger with the new payment, as `deriveOrderPayment` reads it (nothing processing: checked above).
      const approved = [...ledger.filter((p) => p.status === 'approved'), { method, amount }];
      const amountPaid = approved.reduce((sum, p) => sum + Number(p.amount), 0);
      const paid = total - amountPaid <= 0;
      const receipt = paid && order.payment_status !== 'approved';
      await client.query(PAY_ORDER, [
        tenantId,
        id,
        paid ? 'approved' : null,
        new Set(approved.map((p) => p.method)).size > 1 ? 'mixed' : method,
        transactionId,
        attempt,
        amountPaid,
        paid ? now : null,
        receipt ? randomBytes(16).toString('hex') : null,
        receipt ? new Date(now.getTime() + RECEIPT_TTL_MS) : null,
      ]);
      const body: PayAnswer = { status: 'approved', transactionId, paymentId, amount, tip: 0, change: 0, amountDue: Math.max(0, total - amountPaid) };
      return { code: 200, body };
    });
    return reply.code(code).send(answer);
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
    const { app, url, password } = await demoApp('ro-bench-orders-');

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
    // order_counters is a tenant table: the shared handle cannot write it, the tenant's handle can.
    await tenant.db.run((tx) =>
      tx.db.execute(
        sql`insert into order_counters (tenant_id, day, last) values (${tenant.id}, ${day}, ${COUNTER_START})
            on conflict (tenant_id, day) do update set last = ${COUNTER_START}`,
      ),
    );

    // The baseline's connections are the tenant role bound to the demo tenant for the session (as the
    // app's pool is the tenant role), so its statements pass the same row-level security policies;
    // the one-statement what-if, outside any transaction, relies on this session binding.
    const pool = new pg.Pool({
      connectionString: url,
      max: POOL_SIZE,
      connectionTimeoutMillis: 5000,
      options: `-c role=${TENANT_ROLE} -c app.tenant_id=${tenant.id}`,
    });
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

import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderASimulator } from '../src/integrations/provider-a/simulator/index.js';
import { createTestDatabase, type TestDatabase } from './app.js';
import { startService, type ServiceProcess } from './service-process.js';

/**
 * Faults under load (issue 20): two API processes and a worker on one PostgreSQL database take orders, payments,
 * stock movements and delivery webhooks from retrying clients while the test terminates every database session
 * (`pg_terminate_backend`) now and then and kills an API process (`kill -9`) and starts it again. Afterwards:
 * every acknowledged write exists exactly once, nothing is half-written, the books balance, the stock adds up,
 * and the queued jobs complete. CI runs it short (FAULT_SECONDS, default 15); bench/README.md has a longer run.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const SECONDS = Number(process.env.FAULT_SECONDS ?? 15);
const CLIENTS = Number(process.env.FAULT_CLIENTS ?? 6);
const DEMO_PASSWORD = 'fault-demo-password';
const WEBHOOK_SECRET = randomBytes(32).toString('hex');

let db: TestDatabase;
let dataDir: string;
let inspect: pg.Client;
const apis: (ServiceProcess | null)[] = [null, null];
let worker: ServiceProcess | null = null;
const exitedApis: ServiceProcess[] = [];

const env = { DEMO_PASSWORD, PROVIDER_A_WEBHOOK_SECRET: WEBHOOK_SECRET, SEED_DEMO: 'true' };
const startApi = (i: number) => startService({ role: 'api', dataDir, databaseUrl: db.url!, env }).then((p) => (apis[i] = p));

beforeAll(async () => {
  if (!onPostgres) return;
  db = await createTestDatabase();
  await db.database.close();
  dataDir = mkdtempSync(join(tmpdir(), 'ro-faults-'));
  await startApi(0); // seeds the demo tenant first
  await startApi(1);
  worker = await startService({ role: 'worker', dataDir, databaseUrl: db.url!, env });
  inspect = new pg.Client({ connectionString: db.url! });
  await inspect.connect();
}, 180_000);

afterAll(async () => {
  if (!onPostgres) return;
  await Promise.all([...apis, worker].map((p) => p?.stop('SIGKILL')));
  // The processes' logs, for a failure's post-mortem (test-artifacts/ is not committed).
  const dir = join('test-artifacts', 'faults');
  mkdirSync(dir, { recursive: true });
  [...exitedApis, ...apis, worker].forEach((p, i) => p && writeFileSync(join(dir, `process-${i}-${p.pid}.log`), p.output()));
  await inspect?.end().catch(() => {});
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const rows = async <T>(text: string, values: unknown[] = []): Promise<T[]> => (await inspect.query(text, values)).rows as T[];

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** Answers that are not a decision yet: the client tries again (as a cashier's app or a platform does). */
const retryable = (a: Answer) => a.status === 503 || a.status === 502 || (a.status === 409 && a.body.code === 'idempotency_in_progress');

const stats = { requests: 0, retries: 0, connectionErrors: 0, unavailable: 0, serverErrors: [] as string[] };
let next = 0;

/** One request, retried with the same body and key until it gets an answer, spread over the live API processes. */
async function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}, raw?: string): Promise<Answer> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const live = apis.filter((p): p is ServiceProcess => p !== null && p.proc.exitCode === null && p.proc.signalCode === null);
    const target = live[next++ % Math.max(live.length, 1)];
    stats.requests++;
    try {
      if (!target) throw new Error('no API process is running');
      const res = await fetch(target.base + path, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      const answer = { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      if (answer.status >= 500 && answer.status !== 503) stats.serverErrors.push(`${method} ${path} ${answer.status} ${text.slice(0, 300)}`);
      if (!retryable(answer) && answer.status !== 500) return answer;
      if (answer.status === 503) stats.unavailable++;
    } catch {
      stats.connectionErrors++; // the process was killed, or the connection cut: the request may or may not have been written
    }
    if (Date.now() > deadline) throw new Error(`${method} ${path}: no answer within 60 s`);
    stats.retries++;
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 200));
  }
}

async function login(email: string) {
  const res = await send('POST', '/auth/login', { email, password: DEMO_PASSWORD });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { authorization: `Bearer ${res.body.accessToken as string}` };
}

describe.runIf(onPostgres)('faults under load', () => {
  it('keeps every acknowledged order, payment, movement and webhook exactly once through killed sessions and a killed process', async () => {
    const staff = await login('staff@demo.local');
    const admin = await login('admin@demo.local');
    const menu = (await send('GET', '/t/demo/menu/items', undefined)).body as unknown as { _id: string; price: number }[];
    const dishes = menu.filter((m) => m.price > 0).slice(0, 6);
    const stock = (await send('GET', '/t/demo/inventory', undefined, admin)).body as unknown as { _id: string }[];
    expect(dishes.length).toBeGreaterThan(1);
    expect(stock.length).toBeGreaterThan(1);
    const items = stock.slice(0, 4).map((i) => i._id);
    const tables = (await send('GET', '/t/demo/tables', undefined, admin)).body as unknown as { _id: string }[];
    expect(tables.length).toBeGreaterThanOrEqual(CLIENTS);
    const physicalBefore = await rows<{ id: string; physical_milli: string }>('select id, physical_milli from inventory_items where id = any($1)', [items]);
    const startedAt = new Date();

    // provider_a's PLACED event with its whole order, from its simulator (not sent: the clients send copies).
    const sim = createProviderASimulator({});
    const template = (await sim.placeOrder({ payment: { method: 'CREDIT', prepaid: true } }, { shape: 'full' })).event;
    await sim.close();

    const acked = {
      orders: new Set<string>(),
      payments: new Set<string>(),
      movements: new Set<string>(),
      events: new Set<string>(),
      tables: new Set<string>(),
    };
    const keys = { orders: new Set<string>(), payments: new Set<string>(), movements: new Set<string>() };
    const refused: string[] = [];
    const stopAt = Date.now() + SECONDS * 1000;

    async function client(n: number) {
      for (let round = 0; Date.now() < stopAt; round++) {
        const dish = dishes[(n + round) % dishes.length];
        const orderKey = `fault-order-${n}-${round}-${randomUUID()}`;
        keys.orders.add(orderKey);
        // Every third round is a round of the client's own table: the first opens its tab, the next join it (200).
        const dineIn = round % 3 === 2;
        const where = dineIn ? { orderType: 'dine_in', table: tables[n]._id } : { orderType: 'takeout' };
        const order = await send('POST', '/t/demo/orders', { ...where, customerName: `Cliente ${n}`, items: [{ menuItem: dish._id, quantity: 1 }] }, {
          ...staff,
          'idempotency-key': orderKey,
        });
        if (order.status !== 201 && order.status !== 200) {
          refused.push(`order ${order.status} ${JSON.stringify(order.body)}`);
          continue;
        }
        const orderId = order.body._id as string;
        acked.orders.add(orderId);
        if (dineIn) acked.tables.add(tables[n]._id);

        const payKey = `fault-pay-${orderId}-${round}`;
        keys.payments.add(payKey);
        const paid = await send('POST', `/t/demo/orders/${orderId}/process-payment`, { method: 'card', gateway: 'mock' }, { ...staff, 'idempotency-key': payKey });
        if (paid.status === 200) acked.payments.add(paid.body.paymentId as string);
        else refused.push(`payment ${paid.status} ${JSON.stringify(paid.body)}`);

        const moveKey = `fault-move-${n}-${round}-${randomUUID()}`;
        keys.movements.add(moveKey);
        const item = items[(n + round) % items.length];
        const moved = await send('POST', `/t/demo/inventory/${item}/movements`, { type: 'entry', reason: 'purchase', quantity: 1 }, { ...admin, 'idempotency-key': moveKey });
        if (moved.status === 201) acked.movements.add(moved.body._id as string);
        else refused.push(`movement ${moved.status} ${JSON.stringify(moved.body)}`);

        const eventId = randomUUID();
        const raw = JSON.stringify({ ...template, id: eventId, orderId: `fault-${eventId}`, order: { ...(template.order as object), id: `fault-${eventId}` } });
        const signature = createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('hex');
        const hook = await send('POST', '/t/demo/webhooks/provider_a', undefined, { 'x-provider-a-hmac-sha256': signature }, raw);
        if (hook.status === 200) acked.events.add(eventId);
        else refused.push(`webhook ${hook.status} ${JSON.stringify(hook.body)}`);
      }
    }

    async function faults() {
      let killed = false;
      while (Date.now() < stopAt - 1000) {
        await new Promise((r) => setTimeout(r, 1500 + Math.random() * 1500));
        await inspect.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
        if (!killed && Date.now() > stopAt - (SECONDS * 1000) / 2) {
          killed = true;
          const victim = apis[0]!;
          exitedApis.push(victim);
          apis[0] = null;
          await victim.stop('SIGKILL');
          await startApi(0);
        }
      }
      return killed;
    }

    const [killed] = await Promise.all([faults(), ...Array.from({ length: CLIENTS }, (_, n) => client(n))]);
    expect(killed).toBe(true);
    // A 500 names its request id; the processes' log lines of those requests say what failed.
    const outputs = [...apis, worker, ...exitedApis].map((p) => p?.output() ?? '').join('\n').split('\n');
    const logsOf = (line: string) => outputs.filter((l) => l.includes(/request ([0-9a-f-]{36})/.exec(line)?.[1] ?? '-none-')).map((l) => l.slice(0, 1500));
    expect(stats.serverErrors.map((e) => [e, ...logsOf(e)])).toEqual([]);
    expect(refused).toEqual([]);
    expect(acked.orders.size).toBeGreaterThan(CLIENTS);
    expect(stats.connectionErrors + stats.unavailable).toBeGreaterThan(0); // the faults hit requests in flight

    // The queued jobs complete (delivery orders, postings, stock deductions): presence first, then nothing pending.
    const hooks = [...acked.events];
    const settleBy = Date.now() + 120_000;
    for (;;) {
      if (Date.now() > settleBy) {
        const stuckJobs = await rows("select name, state, retry_count, output from pgboss.job where state in ('created', 'retry', 'active') limit 10");
        const stuckEvents = await rows("select status, error, attempts from delivery_events where payload->>'id' = any($1) and status <> 'created' limit 10", [hooks]);
        const workerLog = worker!.output().split('\n').slice(-15).map((l) => l.slice(0, 600));
        expect({ stuckJobs, stuckEvents, workerExit: worker!.proc.exitCode, workerLog }).toEqual({ stuckJobs: [], stuckEvents: [] });
      }
      const [{ pending }] = await rows<{ pending: string }>(
        "select count(*) as pending from pgboss.job where state in ('created', 'retry', 'active')",
      );
      const [{ done }] = await rows<{ done: string }>(
        "select count(*) as done from delivery_events where payload->>'id' = any($1) and status = 'created'",
        [hooks],
      );
      if (Number(pending) === 0 && Number(done) === hooks.length) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await rows("select name, state, output from pgboss.job where state = 'failed'")).toEqual([]);

    // Orders: each acknowledged one exists, and every order of the run came from one key (none twice, none without).
    const orders = await rows<{ id: string; items: unknown[]; total: string; source: string; payment_status: string }>(
      'select id, items, total, source, payment_status from orders where created_at >= $1',
      [startedAt],
    );
    const staffOrders = orders.filter((o) => o.source === 'staff');
    const orderKeys = await rows<{ key: string; ref: string }>("select key, ref from idempotency_keys where scope like '%:orders.create'");
    expect(orderKeys.every((k) => keys.orders.has(k.key))).toBe(true);
    expect(new Set(staffOrders.map((o) => o.id))).toEqual(new Set(orderKeys.map((k) => k.ref)));
    // A takeout order has one key; a tab has one key per round, and one unit per round on its lines (a round counted twice or lost shows).
    for (const o of staffOrders) {
      const rounds = orderKeys.filter((k) => k.ref === o.id).length;
      const units = (o.items as { quantity: number }[]).reduce((sum, l) => sum + l.quantity, 0);
      expect({ order: o.id, units }).toEqual({ order: o.id, units: rounds });
    }
    // Tabs: one open per table at most, and its table is occupied.
    const tabs = await rows<{ table_id: string; open: string; status: string }>(
      `select o.table_id, count(*) as open, min(t.status) as status from orders o join dining_tables t on t.tenant_id = o.tenant_id and t.id = o.table_id
       where o.is_tab and o.status not in ('delivered', 'cancelled') group by o.table_id`,
    );
    expect(tabs.filter((tab) => Number(tab.open) !== 1 || tab.status !== 'occupied')).toEqual([]);
    expect(new Set(tabs.map((tab) => tab.table_id))).toEqual(acked.tables);
    for (const id of acked.orders) expect(staffOrders.some((o) => o.id === id), id).toBe(true);
    // Nothing half-written: every order has its lines and a total.
    expect(orders.filter((o) => !Array.isArray(o.items) || o.items.length === 0 || Number(o.total) <= 0)).toEqual([]);

    // Payments: one per key; the acknowledged ones approved; no order paid beyond its total.
    const payments = await rows<{ id: string; order_id: string; status: string; amount: string }>(
      'select id, order_id, status, amount from payments where created_at >= $1',
      [startedAt],
    );
    const payKeys = await rows<{ ref: string }>("select ref from idempotency_keys where scope like '%:payments.process:%'");
    const staffPayments = payments.filter((p) => staffOrders.some((o) => o.id === p.order_id));
    expect(new Set(staffPayments.map((p) => p.id))).toEqual(new Set(payKeys.map((k) => k.ref)));
    for (const id of acked.payments) expect(staffPayments.find((p) => p.id === id)?.status, id).toBe('approved');
    const overpaid = await rows(
      `select o.id from orders o join payments p on p.order_id = o.id and p.tenant_id = o.tenant_id and p.status = 'approved'
       group by o.id, o.total having sum(p.amount) > o.total`,
    );
    expect(overpaid).toEqual([]);

    // Webhooks: each acknowledged event stored once and made one order.
    const events = await rows<{ event_id: string; n: string; order_id: string | null }>(
      "select payload->>'id' as event_id, count(*) as n, min(order_id) as order_id from delivery_events where payload->>'id' = any($1) group by 1",
      [hooks],
    );
    expect(events).toHaveLength(hooks.length);
    expect(events.filter((e) => Number(e.n) !== 1 || !e.order_id)).toEqual([]);
    const marketplace = orders.filter((o) => o.source === 'marketplace');
    expect(marketplace).toHaveLength(hooks.length);

    // Stock: one movement per key, and each item's stock moved by exactly the sum of its movements.
    const moveKeys = await rows<{ ref: string }>("select ref from idempotency_keys where scope like '%:inventory.movement:%'");
    const moves = await rows<{ id: string }>("select id from inventory_movements where created_at >= $1 and reason = 'purchase'", [startedAt]);
    expect(new Set(moves.map((m) => m.id))).toEqual(new Set(moveKeys.map((k) => k.ref)));
    for (const id of acked.movements) expect(moves.some((m) => m.id === id), id).toBe(true);
    const after = await rows<{ id: string; physical_milli: string; moved: string | null }>(
      `select i.id, i.physical_milli, (select sum(m.delta_milli) from inventory_movements m where m.tenant_id = i.tenant_id and m.item_id = i.id
         and m.pdv_id is null and m.type <> 'reservation' and m.created_at >= $2) as moved
       from inventory_items i where i.id = any($1)`,
      [items, startedAt],
    );
    const drift = after.filter((a) => {
      const before = physicalBefore.find((b) => b.id === a.id)!;
      return Number(a.physical_milli) - Number(before.physical_milli) !== Number(a.moved ?? 0);
    });
    expect(drift).toEqual([]);

    // The books: every journal entry balances, and so does the whole ledger.
    const unbalanced = await rows('select entry_id from journal_lines group by tenant_id, entry_id having sum(debit_cents) <> sum(credit_cents)');
    expect(unbalanced).toEqual([]);
    const empty = await rows(
      'select e.id from journal_entries e where not exists (select 1 from journal_lines l where l.tenant_id = e.tenant_id and l.entry_id = e.id)',
    );
    expect(empty).toEqual([]);
    // Each approved payment of the run was posted once.
    const [{ posted }] = await rows<{ posted: string }>(
      "select count(distinct source_id) as posted from journal_entries where source_type = 'payment' and source_id = any($1)",
      [[...acked.payments]],
    );
    expect(Number(posted)).toBe(acked.payments.size);

    // The service still answers on every process.
    for (const p of apis) expect((await fetch(`${p!.base}/ready`)).status).toBe(200);
    process.stdout.write(
      `faults: ${SECONDS}s, ${CLIENTS} clients: ${acked.orders.size} orders, ${acked.payments.size} payments, ${acked.movements.size} movements, ` +
        `${hooks.length} webhooks; ${stats.requests} requests, ${stats.retries} retries (${stats.connectionErrors} cut, ${stats.unavailable} x 503)\n`,
    );
  }, 300_000);
});

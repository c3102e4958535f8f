/**
 * `npx tsx bench/inventory-run.ts` (`npm run bench:inventory`): what deduction on sale costs, on
 * PostgreSQL, in one run, with autocannon. Each connection creates a staff order of 2 dishes through
 * `POST /t/demo/orders`, then pays it: `POST /t/demo/orders/:id/process-payment { method: 'cash',
 * gateway: 'mock' }` (the payment makes the order consumed, so its recipe is deducted in the payment's
 * transaction); the unit is the paid order (two requests). Two sides, the same requests and price:
 *
 *   recipe  the dish has a recipe of 10 inventory items (kg in g, l in ml, units, a box): each payment
 *           writes 10 `sale` movements, 10 stock rows and 10 `order_stock` rows
 *   plain   the dish has no recipe: the payment only looks for it (the deduction's cheapest path)
 *
 * at max throughput (BENCH_CONNECTIONS connections, closed loop: every order of the recipe side locks
 * the same 10 item rows, so this is the contended case) and on one connection (the cost of one sale
 * without waiting). Rounds alternate the order of the targets. It creates a dedicated database
 * (ro_bench_inventory), serves the app from one child process (bench/inventory-server.ts) on
 * 127.0.0.1, checks afterwards that every paid order of the recipe side took exactly its recipe once
 * (stock to the thousandth) and the plain side nothing, prints a markdown table and drops the database.
 * BENCH_BREAKDOWN=1 adds, on one connection, a dish of one ingredient (the deduction's fixed cost against its
 * cost per ingredient) and the recipe without the `/inventory` socket.io emits.
 * See bench/README.md, "Inventory: deduction on sale".
 */
import { loadavg } from 'node:os';
import type pg from 'pg';
import type { Context } from 'autocannon';
import {
  DEMO_ENV, ask, backendsCpu, backendsCpuSince, cannon, checkLocal, cleaner, connect, createDb, dbUrl, fail, fmt, inRounds, logger, machine,
  metaLines, pct, percentile, pickTargets, printReport, readSettings, runMain, serverCpu, startServer, table, watchdog,
} from './lib-run.js';
import { RECIPE, SINGLE, START_MILLI, type InventoryReadyMessage } from './inventory-shared.js';

const opts = { ...readSettings({ duration: 5, warmup: 1, rounds: 3 }), dbName: 'ro_bench_inventory' };

type Side = 'recipe' | 'plain' | 'single';
interface Target {
  id: string;
  side: Side;
  connections: number;
  label: string;
  breakdown?: boolean;
  /** The what-if without the `/inventory` socket.io emits (stockUpdate per item changed). */
  quiet?: true;
}

const TARGETS: Target[] = [
  { id: 'plain-max', side: 'plain', connections: opts.connections, label: `plain: dish without recipe, ${opts.connections} connections` },
  { id: 'recipe-max', side: 'recipe', connections: opts.connections, label: `recipe: dish with 10 ingredients, ${opts.connections} connections` },
  { id: 'plain-1', side: 'plain', connections: 1, label: 'plain, 1 connection' },
  { id: 'recipe-1', side: 'recipe', connections: 1, label: 'recipe, 1 connection' },
  { id: 'single-1', side: 'single', connections: 1, label: 'what-if: a recipe of 1 ingredient, 1 connection', breakdown: true },
  { id: 'recipe-quiet-1', side: 'recipe', connections: 1, label: 'what-if: recipe without the `/inventory` emits, 1 connection', breakdown: true, quiet: true },
];

interface Sample {
  seconds: number;
  paid: number;
  bad: number;
  /** Order sent -> payment answered, ms. */
  latencies: number[];
  /** The payment request alone, ms. */
  payLatencies: number[];
  load: number;
  cpu: number;
  pgCpu: number | null;
  lockWait: number;
  samples: number;
}

const log = logger('inventory-bench');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let benchDb: pg.Client | null = null;

/** Samples pg_stat_activity of the bench database every 100 ms: backends waiting for a lock (here: the items' rows). */
function sampleLocks() {
  const db = benchDb ?? fail('no bench database connection');
  const acc = { samples: 0, lockWait: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const r = await db
        .query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")
        .catch(() => null);
      if (!r) break;
      acc.samples++;
      acc.lockWait += r.rows[0].n;
      await sleep(100);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return acc;
  };
}

interface PayContext extends Context {
  start?: number;
  ordered?: number;
  orderId?: string | null;
}

/** One autocannon run of the paid-order sequence: the order, then (once answered 201) its payment. */
async function drive(ready: InventoryReadyMessage, side: Side, connections: number, duration: number, lat: { unit: number[]; pay: number[] } | null) {
  const n = { orders: 0, paid: 0 };
  const r = await cannon({
    url: `${ready.appUrl}/t/demo/orders`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ready.token}` },
    connections,
    duration,
    requests: [
      {
        body: JSON.stringify(ready.bodies[side]),
        setupRequest: (req, ctx: PayContext) => {
          ctx.start = performance.now();
          return req;
        },
        onResponse: (status, body, ctx: PayContext) => {
          if (status !== 201) return;
          n.orders++;
          ctx.ordered = performance.now();
          ctx.orderId = (JSON.parse(body) as { _id?: string })._id ?? null;
        },
      },
      {
        body: JSON.stringify({ method: 'cash', gateway: 'mock' }),
        setupRequest: (req, ctx: PayContext) => (ctx.orderId ? { ...req, path: `/t/demo/orders/${ctx.orderId}/process-payment` } : null),
        onResponse: (status, _body, ctx: PayContext) => {
          if (status < 200 || status >= 300) return;
          n.paid++;
          const now = performance.now();
          lat?.unit.push(now - ctx.start!);
          lat?.pay.push(now - ctx.ordered!);
        },
      },
    ],
  });
  return { paid: n.paid, bad: r.non2xx + r.errors + r.timeouts, seconds: r.duration };
}

async function measure(ready: InventoryReadyMessage, t: Target): Promise<Sample> {
  await ask({ type: 'inventory-emits', on: !t.quiet }, 'inventory-emits');
  if (opts.warmup > 0) await drive(ready, t.side, t.connections, opts.warmup, null);
  const lat = { unit: [] as number[], pay: [] as number[] };
  const load = loadavg()[0];
  const cpuBefore = await serverCpu();
  const pgBefore = await backendsCpu(benchDb!);
  const stopSampling = sampleLocks();
  const r = await drive(ready, t.side, t.connections, opts.duration, lat);
  const locks = await stopSampling();
  const pgAfter = await backendsCpu(benchDb!);
  const cpu = (await serverCpu()) - cpuBefore;
  const pgCpu = backendsCpuSince(pgBefore, pgAfter);
  return { ...r, latencies: lat.unit, payLatencies: lat.pay, load, cpu, pgCpu, lockWait: locks.lockWait, samples: locks.samples };
}

function aggregate(target: Target, samples: Sample[]) {
  const sum = (f: (s: Sample) => number) => samples.reduce((acc, s) => acc + f(s), 0);
  const paid = sum((s) => s.paid);
  const lat = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const pay = samples.flatMap((s) => s.payLatencies).sort((a, b) => a - b);
  const pg = samples.every((s) => s.pgCpu !== null) ? sum((s) => s.pgCpu!) : null;
  return {
    target,
    perSec: paid / sum((s) => s.seconds),
    perRound: samples.map((s) => s.paid / s.seconds),
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    payP50: percentile(pay, 50),
    payP99: percentile(pay, 99),
    paid,
    bad: sum((s) => s.bad),
    load: sum((s) => s.load) / samples.length,
    cpu: paid ? sum((s) => s.cpu) / paid : 0,
    pgCpu: paid && pg !== null ? pg / paid : null,
    lockWait: sum((s) => s.lockWait) / Math.max(1, sum((s) => s.samples)),
  };
}
type Row = ReturnType<typeof aggregate>;

/**
 * After the load: every paid order of the recipe side has exactly its 10 `sale` movements, each item's
 * stock fell by exactly (paid orders x its quantity per order), to the thousandth; the plain side and
 * the unpaid orders (in flight when autocannon stopped) moved nothing.
 */
async function checkStock(ready: InventoryReadyMessage): Promise<string> {
  const db = benchDb ?? fail('no bench database connection');
  const paidOf = async (side: Side) =>
    (
      await db.query<{ n: number }>("select count(*)::int as n from orders where tenant_id = $1 and customer_name = $2 and payment_status = 'approved'", [
        ready.tenantId,
        ready.bodies[side].customerName,
      ])
    ).rows[0].n;
  const paid = await paidOf('recipe');
  const single = await paidOf('single');
  const { rows: perOrder } = await db.query<{ customer: string; paid: boolean; n: number; sales: number }>(
    `select o.customer_name as customer, o.payment_status = 'approved' as paid, count(m.id)::int as n,
            count(m.id) filter (where m.type = 'exit' and m.reason = 'sale')::int as sales
       from orders o left join inventory_movements m on m.tenant_id = o.tenant_id and m.order_id = o.id
      where o.tenant_id = $1 and o.customer_name in ($2, $3, $4)
      group by o.id, o.customer_name, o.payment_status`,
    [ready.tenantId, ready.bodies.recipe.customerName, ready.bodies.plain.customerName, ready.bodies.single.customerName],
  );
  const lines = (customer: string) =>
    customer === ready.bodies.recipe.customerName ? RECIPE.length : customer === ready.bodies.single.customerName ? 1 : 0;
  const wrong = perOrder.filter((o) => (o.paid ? !(o.n === lines(o.customer) && o.sales === o.n) : o.n !== 0));
  if (wrong.length) throw new Error(`${wrong.length} orders with the wrong movements (a paid order has one sale per recipe line, an unpaid one none)`);
  const { rows: stock } = await db.query<{ id: string; physical: string }>('select id, physical_milli as physical from inventory_items where tenant_id = $1 and id = any($2)', [
    ready.tenantId,
    ready.itemIds,
  ]);
  RECIPE.forEach((r, i) => {
    const now = Number(stock.find((s) => s.id === ready.itemIds[i])?.physical);
    const orders = paid + (i === SINGLE ? single : 0);
    const want = START_MILLI - orders * r.perOrderMilli;
    if (now !== want) throw new Error(`${r.name}: stock ${now} milli, expected ${want} (${orders} paid orders x ${r.perOrderMilli})`);
  });
  return `${fmt(paid)} paid orders with the recipe, each with exactly ${RECIPE.length} sale movements, every item's stock down by exactly paid x its quantity (to the thousandth); ${fmt(await paidOf('plain'))} paid orders without recipe and every unpaid order moved nothing`;
}

/** A difference with its sign: +1,234 or -56. */
const signed = (n: number) => `${n < 0 ? '-' : '+'}${fmt(Math.abs(n))}`;
const msf = (n: number) => (Number.isNaN(n) ? '-' : n < 10 ? n.toFixed(2) : n.toFixed(1));

function report(rows: Row[], meta: Record<string, string>): string {
  const by = (id: string) => rows.find((r) => r.target.id === id);
  const lines = metaLines(meta);
  lines.push(
    ...table(
      ['target (unit: a paid order = order + payment)', 'paid orders/s', 'p50 ms', 'p99 ms', 'payment p50 / p99 ms', 'paid orders', 'server CPU µs/paid order', 'PG backends CPU µs/paid order', 'lock waits', 'non-2xx/errors', 'load 1m', 'vs plain'],
      rows.map((r) => {
        const base = by(r.target.connections === 1 ? 'plain-1' : 'plain-max');
        return [
          r.target.label, fmt(r.perSec), msf(r.p50), msf(r.p99), `${msf(r.payP50)} / ${msf(r.payP99)}`, fmt(r.paid), fmt(r.cpu),
          r.pgCpu === null ? '-' : fmt(r.pgCpu), r.lockWait.toFixed(1), r.bad, r.load.toFixed(1), base ? pct(r.perSec / base.perSec) : '-',
        ];
      }),
    ),
    '',
  );
  for (const [recipe, plain, what] of [['recipe-max', 'plain-max', `${opts.connections} connections`], ['recipe-1', 'plain-1', 'one connection']] as const) {
    const a = by(recipe);
    const b = by(plain);
    if (!a || !b) continue;
    const pg = a.pgCpu !== null && b.pgCpu !== null ? `, ${signed(a.pgCpu - b.pgCpu)} µs PostgreSQL backends' CPU` : '';
    lines.push(
      `- **${what}: with the recipe ${pct(a.perSec / b.perSec)} of the paid orders/s without** (${fmt(a.perSec)} vs ${fmt(b.perSec)}; per round ` +
        `${a.perRound.map((x, i) => pct(x / b.perRound[i])).join(', ')}); the deduction adds ${signed(a.cpu - b.cpu)} µs server CPU per paid order${pg}; ` +
        `payment request p50 ${msf(b.payP50)} -> ${msf(a.payP50)} ms, p99 ${msf(b.payP99)} -> ${msf(a.payP99)} ms`,
    );
  }
  const one = by('single-1');
  const ten = by('recipe-1');
  const none = by('plain-1');
  if (one && ten && none) {
    const perItem = (ten.cpu - one.cpu) / (RECIPE.length - 1);
    const pgPerItem = ten.pgCpu !== null && one.pgCpu !== null ? (ten.pgCpu - one.pgCpu) / (RECIPE.length - 1) : null;
    lines.push(
      `- breakdown (one connection): a recipe of 1 ingredient adds ${signed(one.cpu - none.cpu)} µs server CPU per paid order, each further ingredient ` +
        `${signed(perItem)} µs${pgPerItem === null ? '' : ` (PostgreSQL ${signed(pgPerItem)} µs)`}; payment p50 ${msf(none.payP50)} -> ${msf(one.payP50)} -> ${msf(ten.payP50)} ms (0, 1, 10 ingredients)`,
    );
  }
  const quiet = by('recipe-quiet-1');
  if (quiet && ten) {
    lines.push(
      `- what-if without the \`/inventory\` emits (one \`stockUpdate\` per item changed, a NOTIFY through the PostgreSQL adapter each): ` +
        `${signed(quiet.cpu - ten.cpu)} µs server CPU per paid order${quiet.pgCpu !== null && ten.pgCpu !== null ? `, ${signed(quiet.pgCpu - ten.pgCpu)} µs PostgreSQL` : ''}; ` +
        `payment p50 ${msf(ten.payP50)} -> ${msf(quiet.payP50)} ms`,
    );
  }
  return lines.join('\n');
}

const cleanup = cleaner(opts.adminUrl, opts.dbName, log, async () => {
  await benchDb?.end().catch(() => {});
  benchDb = null;
});

async function main() {
  checkLocal(opts.adminUrl, 'BENCH_PG_URL');
  const targets = pickTargets(TARGETS, opts.breakdown, opts.only);
  const watch = watchdog(targets.length * opts.rounds * (opts.warmup + opts.duration + 3) + 180, cleanup, log);
  const loadBefore = loadavg();
  const pgVersion = await createDb(opts.adminUrl, opts.dbName);
  log(`database ${opts.dbName} created; starting the server (migrations, demo seed, the recipe)`);
  const ready = await startServer<InventoryReadyMessage>('inventory-server.ts', { ...DEMO_ENV, BENCH_DATABASE_URL: dbUrl(opts.adminUrl, opts.dbName) }, {
    name: 'inventory bench server',
    seconds: 90,
  });
  checkLocal(ready.appUrl, 'app');
  benchDb = await connect(dbUrl(opts.adminUrl, opts.dbName));

  const runs = await inRounds(targets, opts.rounds, (t, round) => {
    log(`round ${round + 1}/${opts.rounds}: ${t.id} (${opts.warmup} s warm-up + ${opts.duration} s, ${t.connections} connection(s))`);
    return measure(ready, t);
  });
  const loadAfter = loadavg();
  const rows = runs.map((samples, i) => aggregate(targets[i], samples));
  await sleep(500); // a payment in flight when autocannon stopped commits
  const landed = await checkStock(ready);
  await cleanup();
  clearTimeout(watch);

  const meta = {
    ...machine(pgVersion, loadBefore, loadAfter),
    load: `closed loop, ${opts.rounds} round(s) in alternating order, each slice ${opts.warmup} s warm-up + ${opts.duration} s measured; 2 dishes per order, cash on the mock gateway`,
    stock: landed,
  };
  printReport(report(rows, meta), rows, log, { out: opts.out, profDir: null });
}

runMain(main, cleanup, log);

/**
 * `npm run bench:reports`: the branch reports (issue 11) on a busy tenant, in one run on PostgreSQL, with
 * autocannon, against the same aggregates written by hand in one `pg` statement each:
 *
 *   app-daily      GET /api/t/demo/admin/branches/:id/daily-report?date=D   (D turning over the 90 days)
 *   base-daily     the same report: one hand-written statement on a bare Fastify route, raw `pg`
 *   app-compare    GET /api/t/demo/admin/branches/compare?from=<first day>&to=<last day>  (90 days)
 *   base-compare   the same comparison by hand
 *   (BENCH_BREAKDOWN=1) tx-daily, tx-compare: the hand-written statements inside a tenant transaction
 *                  as app_tenant (row-level security on), as the app's handle runs its statement
 *
 * Data: 90 local days (America/Sao_Paulo) before today of the demo tenant, 500 orders a day over 4 PDVs in
 * 2 branches, paid in cash, card, PIX, voucher or card + PIX (tips on a third of the card payments), 2%
 * cancelled and refunded, 2% part paid; 2 shifts a day per PDV. Inserted by the runner in bulk (unnest,
 * as the owner); the same generator computes the expected sums, which both sides must answer before the
 * load. See bench/README.md, "Branch reports".
 */
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { addDays, localDate, startOfLocalDay } from '../src/platform/time.js';
import {
  DEMO_ENV, backendsCpu, backendsCpuSince, cannon, checkLocal, cleaner, connect, createDb, dbUrl, envInt, fail, fmt, inRounds, logger,
  machine, median, metaLines, pct, pickTargets, printReport, readSettings, runMain, serverCpu, startServerChild, table, watchdog,
} from './lib-run.js';
import type { ReportsReadyMessage } from './reports-server.js';
import { BASELINE_COMPARE, BASELINE_DAILY } from './reports-sql.js';

const opts = {
  ...readSettings({ duration: 5, warmup: 1, rounds: 3 }),
  days: envInt('BENCH_DAYS', 90, 1, 366),
  perDay: envInt('BENCH_ORDERS_PER_DAY', 500, 10, 5000),
  dbName: 'ro_bench_reports',
};

const log = logger('reports-bench');

// ---- targets --------------------------------------------------------------------------------

type Report = 'daily' | 'compare';
type Side = 'app' | 'base' | 'tx';
interface Target {
  id: string;
  label: string;
  report: Report;
  side: Side;
  breakdown?: boolean;
}

const TARGETS: Target[] = [
  { id: 'app-daily', report: 'daily', side: 'app', label: 'A app `GET …/branches/:id/daily-report?date=D` (D over the 90 days)' },
  { id: 'base-daily', report: 'daily', side: 'base', label: 'B hand-written statement, raw `pg`, same day report' },
  { id: 'app-compare', report: 'compare', side: 'app', label: 'A app `GET …/branches/compare?from&to` (90 days)' },
  { id: 'base-compare', report: 'compare', side: 'base', label: 'B hand-written statement, raw `pg`, same comparison' },
  { id: 'tx-daily', report: 'daily', side: 'tx', breakdown: true, label: 'what-if: B in a tenant transaction as app_tenant, day report' },
  { id: 'tx-compare', report: 'compare', side: 'tx', breakdown: true, label: 'what-if: B in a tenant transaction as app_tenant, comparison' },
];

let ready: ReportsReadyMessage | null = null;
let proc: ChildProcess | null = null;
let db: pg.Client | null = null;
const server = () => ready ?? fail('the bench server is not running');
const client = () => db ?? fail('no database connection');

// ---- data -----------------------------------------------------------------------------------

interface Money {
  revenue: number;
  cash: number;
  card: number;
  pix: number;
  other: number;
  tips: number;
  orders: number;
  shifts: number;
}
const zero = (): Money => ({ revenue: 0, cash: 0, card: 0, pix: 0, other: 0, tips: 0, orders: 0, shifts: 0 });
const MONEY_KEYS = Object.keys(zero()) as (keyof Money)[];

const COLUMN: Record<string, 'cash' | 'card' | 'pix' | 'other'> = { cash: 'cash', credit_card: 'card', debit_card: 'card', card: 'card', pix: 'pix' };
const column = (method: string) => COLUMN[method] ?? 'other';
const SINGLE = ['cash', 'cash', 'cash', 'credit_card', 'credit_card', 'debit_card', 'pix', 'pix', 'pix', 'voucher'];

/** What the generator expects: by `pdvId|day`, and by branch over the whole period. */
const expected = { byPdvDay: new Map<string, Money>(), byBranch: new Map<string, Money>() };
let days: string[] = [];

const hexId = (prefix: string, n: number) => prefix + n.toString(16).padStart(23, '0');
const iso = (ms: number) => new Date(ms).toISOString();

/** Generates the 90 days, inserts them in bulk as the owner and fills `expected`. */
async function insertData() {
  const { tenantId, timezone, adminId, branches } = server();
  const pdvs = branches.flatMap((b) => b.pdvs.map((p) => ({ ...p, branchId: b.id })));
  if (pdvs.length !== 4) fail(`expected 4 PDVs in 2 branches, found ${pdvs.length}`);
  // The demo's own week of sales would add to the sums the generator expects: start from none.
  for (const table of ['cash_movements', 'payments', 'orders', 'shifts', 'order_counters']) {
    await client().query(`delete from ${table} where tenant_id = $1`, [tenantId]);
  }
  const today = localDate(new Date(), timezone);
  days = Array.from({ length: opts.days }, (_, i) => addDays(today, i - opts.days));
  for (const b of branches) expected.byBranch.set(b.id, zero());
  const add = (m: Money, col: keyof Money, v: number) => void (m[col] += v);
  const bucket = (pdvId: string, day: string) => {
    const key = `${pdvId}|${day}`;
    let m = expected.byPdvDay.get(key);
    if (!m) expected.byPdvDay.set(key, (m = zero()));
    return m;
  };

  type Col = (string | number | null)[];
  /** Column arrays for `unnest`, one per name. */
  const columns = <K extends string>(...names: K[]) => Object.fromEntries(names.map((n) => [n, [] as Col])) as Record<K, Col>;
  const o = columns('id', 'number', 'status', 'pdv', 'total', 'method', 'payStatus', 'attempts', 'paid', 'paidAt', 'createdAt');
  const p = columns('id', 'order', 'attempt', 'method', 'amount', 'tip', 'status', 'settledAt', 'refundAt', 'reason');
  const s = columns('id', 'branch', 'pdv', 'startedAt', 'status', 'closedAt');
  let seq = 0;
  let paySeq = 0;
  const flush = async (force = false) => {
    if (!force && o.id.length < 5000) return;
    if (o.id.length) {
      await client().query(
        `insert into orders (tenant_id, id, order_number, source, status, type, pdv_id, items, items_total, total, payment_method,
           payment_gateway, payment_status, payment_attempts, amount_paid, paid_at, created_at, updated_at, created_by)
         select $1, u.id, u.number, 'staff', u.status, 'takeout', u.pdv,
           jsonb_build_array(jsonb_build_object('menuItem', null, 'name', 'Prato do dia', 'price', u.total, 'quantity', 1, 'amount', u.total)),
           u.total, u.total, u.method, 'mock', u.pay_status, u.attempts, u.paid, u.paid_at, u.created_at, u.created_at, $2::text
         from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::text[], $10::int[], $11::bigint[], $12::timestamptz[], $13::timestamptz[])
           as u(id, number, status, pdv, total, method, pay_status, attempts, paid, paid_at, created_at)`,
        [tenantId, adminId, o.id, o.number, o.status, o.pdv, o.total, o.method, o.payStatus, o.attempts, o.paid, o.paidAt, o.createdAt],
      );
      await client().query(
        `insert into payments (tenant_id, id, order_id, attempt, method, gateway, amount, tip, status, transaction_id, created_by,
           created_at, updated_at, settled_at, refund_requested_at, refund_reason, refund_id, refunded_at)
         select $1, u.id, u.order_id, u.attempt, u.method, 'mock', u.amount, u.tip, u.status, 'mock-' || u.id, $2::text,
           u.settled_at, u.settled_at, u.settled_at, u.refund_at, u.reason, case when u.refund_at is null then null else 'manual-' || u.id end, u.refund_at
         from unnest($3::text[], $4::text[], $5::int[], $6::text[], $7::bigint[], $8::bigint[], $9::text[], $10::timestamptz[], $11::timestamptz[], $12::text[])
           as u(id, order_id, attempt, method, amount, tip, status, settled_at, refund_at, reason)`,
        [tenantId, adminId, p.id, p.order, p.attempt, p.method, p.amount, p.tip, p.status, p.settledAt, p.refundAt, p.reason],
      );
    }
    for (const cols of [o, p]) for (const c of Object.values(cols)) c.length = 0;
  };

  for (const [i, day] of days.entries()) {
    const midnight = startOfLocalDay(day, timezone).getTime();
    for (let n = 0; n < opts.perDay; n++) {
      const pdv = pdvs[n % pdvs.length];
      // 10:00 to 23:59 local, the last orders of the day a few seconds before midnight.
      const at = midnight + (600 + Math.floor((n * 839) / (opts.perDay - 1))) * 60_000 + (n % 60) * 1000;
      const total = 1500 + ((n * 7919 + i * 104_729) % 18_000);
      const id = hexId('e', ++seq);
      let attempt = 0;
      const pay = (method: string, amount: number, tip: number, status = 'approved', refundAt: number | null = null) => {
        p.id.push(hexId('f', ++paySeq));
        p.order.push(id);
        p.attempt.push(++attempt);
        p.method.push(method);
        p.amount.push(amount);
        p.tip.push(tip);
        p.status.push(status);
        p.settledAt.push(iso(at));
        p.refundAt.push(refundAt === null ? null : iso(refundAt));
        p.reason.push(refundAt === null ? null : 'order_cancelled');
      };
      const k = n % 50;
      let order: { status: string; method: string; payStatus: string | null; attempts: number; paid: number; paidAt: number | null };
      const m = bucket(pdv.id, day);
      const b = expected.byBranch.get(pdv.branchId)!;
      const count = (col: 'cash' | 'card' | 'pix' | 'other' | 'tips' | 'revenue' | 'orders', v: number) => {
        add(m, col, v);
        add(b, col, v);
      };
      if (k === 0) {
        // Cancelled after a card payment, which was refunded.
        pay('debit_card', total, 0, 'refunded', at + 300_000);
        order = { status: 'cancelled', method: 'debit_card', payStatus: null, attempts: 1, paid: 0, paidAt: null };
      } else if (k === 1) {
        // Half paid in cash, the rest still due.
        pay('cash', Math.floor(total / 2), 0);
        order = { status: 'delivered', method: 'cash', payStatus: null, attempts: 1, paid: Math.floor(total / 2), paidAt: null };
      } else if (k <= 6) {
        const card = Math.floor(total * 0.6);
        const tip = n % 3 === 0 ? Math.round(card * 0.1) : 0;
        pay('credit_card', card, tip);
        pay('pix', total - card, 0);
        count('card', card);
        count('pix', total - card);
        count('tips', tip);
        order = { status: 'delivered', method: 'mixed', payStatus: 'approved', attempts: 2, paid: total, paidAt: at };
      } else {
        const method = SINGLE[n % SINGLE.length];
        const tip = column(method) === 'card' && n % 3 === 0 ? Math.round(total * 0.1) : 0;
        pay(method, total, tip);
        count(column(method), total);
        count('tips', tip);
        order = { status: 'delivered', method, payStatus: 'approved', attempts: 1, paid: total, paidAt: at };
      }
      if (order.payStatus === 'approved') {
        count('revenue', total);
        count('orders', 1);
      }
      o.id.push(id);
      o.number.push(`B${day.replaceAll('-', '')}-${String(n).padStart(4, '0')}`);
      o.status.push(order.status);
      o.pdv.push(pdv.id);
      o.total.push(total);
      o.method.push(order.method);
      o.payStatus.push(order.payStatus);
      o.attempts.push(order.attempts);
      o.paid.push(order.paid);
      o.paidAt.push(order.paidAt === null ? null : iso(order.paidAt));
      o.createdAt.push(iso(at - 20 * 60_000));
    }
    // Two shifts a day at each PDV; the evening one of the last day is still open.
    for (const pdv of pdvs) {
      for (const [start, end] of [[9 * 60 + 30, 16 * 60], [16 * 60 + 30, 23 * 60 + 59]]) {
        const open = i === days.length - 1 && start > 12 * 60;
        s.id.push(hexId('d', s.id.length + 1));
        s.branch.push(pdv.branchId);
        s.pdv.push(pdv.id);
        s.startedAt.push(iso(midnight + start * 60_000));
        s.status.push(open ? 'open' : 'closed');
        s.closedAt.push(open ? null : iso(midnight + end * 60_000));
        add(bucket(pdv.id, day), 'shifts', 1);
        add(expected.byBranch.get(pdv.branchId)!, 'shifts', 1);
      }
    }
    await flush();
  }
  await flush(true);
  await client().query(
    `insert into shifts (tenant_id, id, branch_id, pdv_id, user_id, opened_by, started_at, opening_float, status, closed_at, closed_by)
     select $1, u.id, u.branch, u.pdv, $2::text, $2::text, u.started_at, 20000, u.status, u.closed_at, case when u.closed_at is null then null else $2::text end
     from unnest($3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::timestamptz[]) as u(id, branch, pdv, started_at, status, closed_at)`,
    [tenantId, adminId, s.id, s.branch, s.pdv, s.startedAt, s.status, s.closedAt],
  );
  await client().query('analyze orders; analyze payments; analyze shifts; analyze pdvs; analyze branches');
  const counts = (await client().query<{ o: number; p: number; s: number }>(
    'select (select count(*)::int from orders where tenant_id = $1) as o, (select count(*)::int from payments where tenant_id = $1) as p, (select count(*)::int from shifts where tenant_id = $1) as s',
    [tenantId],
  )).rows[0];
  return { orders: counts.o, payments: counts.p, shifts: counts.s };
}

// ---- requests and checks --------------------------------------------------------------------

const mainBranch = () => server().branches.find((b) => b.name.startsWith('Matriz')) ?? server().branches[0];
let turn = 0;
/** The next day of the period, in turn (every connection takes the next one). */
const nextDay = () => days[turn++ % days.length];

function path(t: Pick<Target, 'report' | 'side'>, day = days[Math.floor(days.length / 2)]): string {
  const branch = mainBranch().id;
  const [from, to] = [days[0], days.at(-1)!];
  if (t.side === 'app') {
    return t.report === 'daily'
      ? `/api/t/demo/admin/branches/${branch}/daily-report?date=${day}`
      : `/api/t/demo/admin/branches/compare?from=${from}&to=${to}`;
  }
  const prefix = t.side === 'tx' ? '/tx' : '';
  return t.report === 'daily' ? `${prefix}/daily?branch=${branch}&date=${day}` : `${prefix}/compare?from=${from}&to=${to}`;
}

const urlOf = (side: Side) => (side === 'app' ? server().appUrl : server().baseUrl);
const headersOf = (side: Side): Record<string, string> => (side === 'app' ? { authorization: `Bearer ${server().token}` } : {});

async function fetchJson(side: Side, p: string): Promise<unknown> {
  const res = await fetch(urlOf(side) + p, { headers: headersOf(side) });
  const body = (await res.json()) as unknown;
  if (res.status !== 200) fail(`${side} ${p} answered ${res.status} ${JSON.stringify(body)}`);
  return body;
}

type Row = Record<string, unknown>;
/** The baseline's rows as money (pg gives bigint as text). */
const moneyOf = (r: Row): Money => Object.fromEntries(MONEY_KEYS.map((k) => [k, Number(r[k])])) as unknown as Money;
const sameMoney = (a: Money, b: Money) => MONEY_KEYS.every((k) => a[k] === b[k]);
const show = (m: Money) => JSON.stringify(m);

/**
 * Before the load: on the first, a middle and the last day, and a day before the period, the app's day
 * report and the baseline's give the generator's sums per PDV; the app's totals are the sum of its PDVs and
 * revenue = cash + card + pix + other; the comparison likewise per branch; without a token the app says 401.
 */
async function checkAnswers() {
  const branch = mainBranch();
  for (const day of [days[0], days[Math.floor(days.length / 2)], days.at(-1)!, addDays(days[0], -1)]) {
    const app = (await fetchJson('app', path({ report: 'daily', side: 'app' }, day))) as { date: string; totals: Money; byPdv: (Money & { pdvId: string })[] };
    const base = (await fetchJson('base', path({ report: 'daily', side: 'base' }, day))) as Row[];
    if (app.date !== day || app.byPdv.length !== branch.pdvs.length || base.length !== branch.pdvs.length) fail(`day ${day}: ${JSON.stringify(app)}`);
    const totals = zero();
    for (const [i, pdv] of branch.pdvs.entries()) {
      const want = expected.byPdvDay.get(`${pdv.id}|${day}`) ?? zero();
      const got = app.byPdv.find((x) => x.pdvId === pdv.id) ?? fail(`day ${day}: PDV ${pdv.name} missing from the app's report`);
      const { pdvId: _id, pdvName: _name, ...gotMoney } = got as Money & { pdvId: string; pdvName: string };
      if (!sameMoney(gotMoney, want)) fail(`day ${day}, ${pdv.name}: app ${show(gotMoney)}, expected ${show(want)}`);
      if (!sameMoney(moneyOf(base.find((r) => r.id === pdv.id) ?? base[i]), want)) fail(`day ${day}, ${pdv.name}: baseline ${JSON.stringify(base)}, expected ${show(want)}`);
      for (const k of MONEY_KEYS) totals[k] += want[k];
    }
    if (!sameMoney(app.totals, totals)) fail(`day ${day}: app totals ${show(app.totals)}, expected ${show(totals)}`);
    if (app.totals.cash + app.totals.card + app.totals.pix + app.totals.other !== app.totals.revenue) fail(`day ${day}: methods do not add up to revenue`);
  }
  const app = (await fetchJson('app', path({ report: 'compare', side: 'app' }))) as { branches: (Money & { branchId: string; averageTicket: number })[] };
  const base = (await fetchJson('base', path({ report: 'compare', side: 'base' }))) as Row[];
  for (const b of server().branches) {
    const want = expected.byBranch.get(b.id)!;
    const got = app.branches.find((x) => x.branchId === b.id) ?? fail(`compare: branch ${b.name} missing`);
    const { branchId: _id, branchName: _n, averageTicket, ...gotMoney } = got as Money & { branchId: string; branchName: string; averageTicket: number };
    if (!sameMoney(gotMoney, want)) fail(`compare, ${b.name}: app ${show(gotMoney)}, expected ${show(want)}`);
    if (averageTicket !== Math.round(want.revenue / want.orders)) fail(`compare, ${b.name}: average ticket ${averageTicket}`);
    const row = base.find((r) => r.id === b.id) ?? fail(`compare: branch ${b.name} missing from the baseline`);
    if (!sameMoney(moneyOf(row), want)) fail(`compare, ${b.name}: baseline ${JSON.stringify(row)}, expected ${show(want)}`);
  }
  const tx = (await fetchJson('tx', path({ report: 'compare', side: 'tx' }))) as Row[];
  if (JSON.stringify(tx) !== JSON.stringify(base)) fail('the baseline in a tenant transaction answers another comparison');
  const anon = await fetch(server().appUrl + path({ report: 'daily', side: 'app' }));
  if (anon.status !== 401) fail(`the day report without a token answered ${anon.status}`);
  const all = expected.byBranch.get(branch.id)!;
  log(`answers checked: ${branch.name} over the period ${fmt(all.orders)} orders, revenue ${fmt(all.revenue)} cents = cash + card + pix + other, tips ${fmt(all.tips)}`);
}

// ---- load -----------------------------------------------------------------------------------

interface Sample {
  seconds: number;
  ok: number;
  bad: number;
  p50: number;
  p99: number;
  load: number;
  cpu: number;
  pgCpu: number | null;
}

async function measure(t: Target): Promise<Sample> {
  const what = {
    url: urlOf(t.side),
    headers: headersOf(t.side),
    connections: opts.connections,
    requests: [{ setupRequest: (req: { path?: string }) => ({ ...req, path: t.report === 'daily' ? path(t, nextDay()) : path(t) }) }],
  };
  if (opts.warmup > 0) await cannon({ ...what, duration: opts.warmup });
  const load = loadavg()[0];
  const cpuBefore = await serverCpu(proc);
  const pgBefore = await backendsCpu(client());
  const r = await cannon({ ...what, duration: opts.duration });
  const pgAfter = await backendsCpu(client());
  const cpu = (await serverCpu(proc)) - cpuBefore;
  return { seconds: r.duration, ok: r['2xx'], bad: r.non2xx + r.errors + r.timeouts, p50: r.latency.p50, p99: r.latency.p99, load, cpu, pgCpu: backendsCpuSince(pgBefore, pgAfter) };
}

function aggregate(target: Target, samples: Sample[]) {
  const sum = (f: (s: Sample) => number) => samples.reduce((acc, s) => acc + f(s), 0);
  const ok = sum((s) => s.ok);
  const pgCpu = samples.every((s) => s.pgCpu !== null) ? sum((s) => s.pgCpu!) : null;
  return {
    target,
    reqPerSec: ok / sum((s) => s.seconds),
    perRound: samples.map((s) => s.ok / s.seconds),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    ok,
    bad: sum((s) => s.bad),
    load: sum((s) => s.load) / samples.length,
    cpuPerReq: ok ? sum((s) => s.cpu) / ok : 0,
    pgCpuPerReq: ok && pgCpu !== null ? pgCpu / ok : null,
  };
}
type Result = ReturnType<typeof aggregate>;

/** The hand-written statements alone, one after the other on the runner's connection: the database's share. */
async function sqlAlone() {
  const { tenantId, timezone } = server();
  const time = async (n: number, text: string, values: (i: number) => unknown[]) => {
    const msList: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await client().query(text, values(i));
      msList.push(performance.now() - t0);
    }
    msList.sort((a, b) => a - b);
    return { p50: median(msList), p99: msList[Math.min(msList.length - 1, Math.floor(msList.length * 0.99))] };
  };
  const daily = await time(200, BASELINE_DAILY, (i) => [tenantId, mainBranch().id, days[i % days.length], timezone]);
  const compare = await time(30, BASELINE_COMPARE, () => [tenantId, days[0], days.at(-1)!, timezone]);
  return { daily, compare };
}

// ---- report ---------------------------------------------------------------------------------

const ms = (n: number) => (n === 0 ? '<1' : String(Math.round(n * 100) / 100));

function report(rows: Result[], alone: Awaited<ReturnType<typeof sqlAlone>>, meta: Record<string, string>): string {
  const by = (id: string) => rows.find((r) => r.target.id === id);
  const lines = [
    ...metaLines(meta),
    ...table(
      ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'server CPU µs/req', 'PG backends CPU µs/req', 'non-2xx/errors', 'load 1m', 'req/s vs B'],
      rows.map((r) => {
        const b = by(`base-${r.target.report}`);
        return [
          r.target.label, fmt(r.reqPerSec), ms(r.p50), ms(r.p99), fmt(r.ok), fmt(r.cpuPerReq),
          r.pgCpuPerReq === null ? '-' : fmt(r.pgCpuPerReq), r.bad, r.load.toFixed(1), b ? pct(r.reqPerSec / b.reqPerSec) : '-',
        ];
      }),
    ),
    '',
    `- the hand-written statements alone, one after the other on one connection: day report p50 ${ms(alone.daily.p50)} ms (p99 ${ms(alone.daily.p99)}), ` +
      `90-day comparison p50 ${ms(alone.compare.p50)} ms (p99 ${ms(alone.compare.p99)})`,
  ];
  for (const report of ['daily', 'compare'] as const) {
    const a = by(`app-${report}`);
    const b = by(`base-${report}`);
    if (!a || !b) continue;
    lines.push(
      `- **${report === 'daily' ? 'day report' : '90-day comparison'}: A reaches ${pct(a.reqPerSec / b.reqPerSec)} of B (${fmt(a.reqPerSec)} vs ${fmt(b.reqPerSec)} req/s)**; ` +
        `per round ${a.perRound.map((x, i) => pct(x / b.perRound[i])).join(', ')}; p50 ${ms(b.p50)} -> ${ms(a.p50)} ms; ` +
        `server CPU ${fmt(b.cpuPerReq)} -> ${fmt(a.cpuPerReq)} µs/req; PG backends ${b.pgCpuPerReq === null ? '-' : fmt(b.pgCpuPerReq)} -> ${a.pgCpuPerReq === null ? '-' : fmt(a.pgCpuPerReq)} µs/req`,
    );
  }
  return lines.join('\n');
}

// ---- main -----------------------------------------------------------------------------------

const cleanup = cleaner(opts.adminUrl, opts.dbName, log, async () => {
  await db?.end().catch(() => {});
});

async function main() {
  checkLocal(opts.adminUrl, 'BENCH_PG_URL');
  const targets = pickTargets(TARGETS, opts.breakdown, opts.only);
  const watch = watchdog(targets.length * opts.rounds * (opts.warmup + opts.duration + 3) + 240, cleanup, log);
  const loadBefore = loadavg();
  const pgVersion = await createDb(opts.adminUrl, opts.dbName);
  const url = dbUrl(opts.adminUrl, opts.dbName);
  log(`database ${opts.dbName} created; starting the server (migrations, demo seed)`);
  const started = await startServerChild<ReportsReadyMessage>('reports-server.ts', { ...DEMO_ENV, BENCH_DATABASE_URL: url }, { name: 'reports bench server', seconds: 90 });
  proc = started.proc;
  ready = started.ready;
  checkLocal(ready.appUrl, 'app');
  checkLocal(ready.baseUrl, 'baseline');
  db = await connect(url);
  const t0 = performance.now();
  const counts = await insertData();
  log(`inserted ${fmt(counts.orders)} orders, ${fmt(counts.payments)} payments, ${fmt(counts.shifts)} shifts in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await checkAnswers();

  const runs = await inRounds(targets, opts.rounds, (t, round) => {
    log(`round ${round + 1}/${opts.rounds}: ${t.id} (${opts.warmup} s warm-up + ${opts.duration} s, ${opts.connections} connections)`);
    return measure(t);
  });
  const rows = runs.map((samples, i) => aggregate(targets[i], samples));
  const alone = await sqlAlone();
  const loadAfter = loadavg();
  await cleanup();
  clearTimeout(watch);

  const meta = {
    ...machine(pgVersion, loadBefore, loadAfter),
    load: `${opts.connections} connections closed loop; ${opts.rounds} round(s) in alternating order, each slice ${opts.warmup} s warm-up + ${opts.duration} s measured`,
    data: `${opts.days} days (${days[0]} to ${days.at(-1)}) x ${opts.perDay} orders over 4 PDVs in 2 branches: ${fmt(counts.orders)} orders, ${fmt(counts.payments)} payments, ${fmt(counts.shifts)} shifts; day report of ${mainBranch().name} (${mainBranch().pdvs.length} PDVs)`,
  };
  printReport(report(rows, alone, meta), rows, log, { out: opts.out, profDir: null });
}

runMain(main, cleanup, log);

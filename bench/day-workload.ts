/**
 * The mixed restaurant day (issue 20, "Load"): the operations, their weights, the open-loop generator at a fixed
 * arrival rate and the invariants checked after a run. Shared by `npm run bench:day` (bench/day-run.ts: real
 * processes, rates in steps, CPU and pool numbers) and the short CI run (test/load-day.test.ts), so both drive the
 * very same requests.
 *
 * Everything runs on the seeded demo tenant (`/t/demo/...`) over HTTP against the API processes given, spread
 * round-robin over them by this generator (there is no load balancer in front). The operations of a lunch rush:
 * public menu reads, guests ordering from a table's QR code (a dine-in order: the table's tab, or a new round of it),
 * staff opening tabs and adding rounds, the bill of a tab changed, counter (takeout) orders, payments of tabs and
 * counter orders (cash and card through the `mock` gateway: the synchronous path, money taken at the counter or on a
 * standalone card machine), tabs closed, manual stock movements (recipes deduct stock on every paid order), signed
 * provider_a webhooks (the simulator's PLACED event with the whole order, a third of them prepaid) and report reads.
 *
 * Open loop: request i is sent at start + i / rate whatever the answers, and its latency runs from that scheduled
 * instant, so a server that falls behind shows it as queueing (a closed loop would slow its own arrivals and hide it).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import hdr from 'hdr-histogram-js';
import type pg from 'pg';
import { createProviderASimulator } from '../src/integrations/provider-a/simulator/index.js';

export const DAY_SLUG = 'demo';
export const DAY_STAFF = 'staff@demo.local';
export const DAY_ADMIN = 'admin@demo.local';
/** Request timeout: past it the request counts as an error (`timeout`). 10 s, as autocannon's in the other benches. */
let requestTimeoutMs = 10_000;
export const setRequestTimeout = (ms: number) => void (requestTimeoutMs = ms);

/** The operation kinds, their share of the arrivals (per 100) and the route each one calls. */
export const OPERATIONS = {
  menu_read: { weight: 30, route: 'GET /t/:slug/menu/items (public)' },
  guest_order: { weight: 8, route: 'POST /t/:slug/orders (guest QR, dine-in)' },
  tab_open: { weight: 6, route: 'POST /t/:slug/orders (staff, dine-in: opens the tab)' },
  tab_round: { weight: 10, route: 'PATCH /t/:slug/orders/:id/add-items' },
  tab_update: { weight: 4, route: 'PUT /t/:slug/orders/:id/bill (covers)' },
  counter_order: { weight: 6, route: 'POST /t/:slug/orders (staff, takeout)' },
  payment: { weight: 14, route: 'POST /t/:slug/orders/:id/process-payment (mock: cash / card)' },
  tab_close: { weight: 7, route: 'POST /t/:slug/orders/:id/close-tab' },
  stock_movement: { weight: 4, route: 'POST /t/:slug/inventory/:id/movements' },
  delivery_webhook: { weight: 5, route: 'POST /t/:slug/webhooks/provider_a (signed)' },
  report_read: { weight: 6, route: 'GET /api/t/:slug/admin/branches/:id/stats, daily-report' },
} as const;
export type OpKind = keyof typeof OPERATIONS;
export const OP_KINDS = Object.keys(OPERATIONS) as OpKind[];

/**
 * What an arrival of a kind does when nothing it could act on is free (every table busy, no tab to pay...): the kind
 * it becomes instead. Counted as `substituted` per kind so the mix actually run is known.
 */
const FALLBACK: Partial<Record<OpKind, OpKind>> = {
  tab_close: 'payment',
  payment: 'tab_round',
  tab_update: 'tab_round',
  tab_round: 'menu_read',
  tab_open: 'guest_order',
  guest_order: 'menu_read',
};
// ---- HTTP -----------------------------------------------------------------------------------

export interface Answer {
  status: number;
  body: unknown;
  text: string;
}

/** One keep-alive agent per process, so requests reuse their connections as a browser or a POS would. */
const agents = new Map<string, http.Agent>();
function agentOf(base: string) {
  let a = agents.get(base);
  if (!a) agents.set(base, (a = new http.Agent({ keepAlive: true, maxSockets: 64 })));
  return a;
}
export function closeAgents() {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

export function send(
  base: string,
  method: string,
  path: string,
  o: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const url = new URL(path, base);
  const payload = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  const headers: Record<string, string> = { ...o.headers };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: agentOf(base), timeout: requestTimeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          body = null;
        }
        resolve({ status: res.statusCode ?? 0, body, text });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** A listing's rows, whether it answers an array or a page (`{ data }`). */
function rows<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  const page = body as { data?: T[] } | null;
  return page?.data ?? [];
}

async function must<T>(p: Promise<Answer>, what: string, ok = [200, 201]): Promise<T> {
  const a = await p;
  if (!ok.includes(a.status)) throw new Error(`${what}: ${a.status} ${a.text.slice(0, 300)}`);
  return a.body as T;
}

// ---- setup ----------------------------------------------------------------------------------

export interface DayTarget {
  /** `http://127.0.0.1:<port>` of each API process. */
  bases: string[];
  /** DEMO_PASSWORD of the processes. */
  password: string;
  /** PROVIDER_A_WEBHOOK_SECRET of the processes: the demo integration's secret. */
  webhookSecret: string;
}

interface Table {
  id: string;
  number: number;
  state: 'free' | 'open' | 'paid';
  tabId: string | null;
  busy: boolean;
  openedAt: number;
}

export interface DaySetup {
  target: DayTarget;
  staffToken: string;
  adminToken: string;
  hqId: string;
  today: string;
  /** Menu items without modifier groups, active and available (ids). */
  items: string[];
  stockItems: string[];
  tables: Table[];
}

/**
 * Logs in the demo staff and admin, reads what the workload needs (menu, stock items, the head office, tables) and
 * adds tables up to `tables` (the demo has 10; a lunch rush at tens of requests a second needs more to spread over).
 */
export async function prepareDay(target: DayTarget, o: { tables: number }): Promise<DaySetup> {
  const base = target.bases[0];
  const login = (email: string) => must<{ accessToken: string }>(send(base, 'POST', '/auth/login', { body: { email, password: target.password } }), `login ${email}`, [200]);
  const staffToken = (await login(DAY_STAFF)).accessToken;
  const adminToken = (await login(DAY_ADMIN)).accessToken;
  const menu = rows<{ _id: string; isActive: boolean; isAvailable: boolean; modifierGroupIds: string[] }>(
    await must(send(base, 'GET', `/t/${DAY_SLUG}/menu/items`), 'menu', [200]),
  );
  const items = menu.filter((m) => m.isActive && m.isAvailable && !m.modifierGroupIds.length).map((m) => m._id);
  if (items.length < 3) throw new Error(`the demo menu has ${items.length} items without options`);
  const stock = rows<{ _id: string }>(await must(send(base, 'GET', `/t/${DAY_SLUG}/inventory`, { token: adminToken }), 'inventory', [200]));
  const branches = rows<{ _id: string; isHQ: boolean }>(await must(send(base, 'GET', `/api/t/${DAY_SLUG}/admin/branches`, { token: adminToken }), 'branches', [200]));
  const hq = branches.find((b) => b.isHQ) ?? branches[0];
  type TableRow = { _id: string; number: number; status: string };
  const listTables = async () => rows<TableRow>(await must(send(base, 'GET', `/t/${DAY_SLUG}/tables`, { token: staffToken }), 'tables', [200]));
  let tables = await listTables();
  const created: TableRow[] = [];
  for (let n = 1; n <= o.tables; n++) {
    if (tables.some((t) => t.number === n)) continue;
    // 409: the number exists (a listing may show one page only).
    const t = await must<TableRow>(send(base, 'POST', `/t/${DAY_SLUG}/tables`, { token: adminToken, body: { number: n, capacity: 4, location: 'Bench' } }), `table ${n}`, [201, 409]);
    if (t?._id) created.push({ ...t, status: 'available' });
  }
  tables = [...(await listTables()), ...created].filter((t, i, all) => all.findIndex((x) => x._id === t._id) === i);
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  return {
    target,
    staffToken,
    adminToken,
    hqId: hq._id,
    today,
    items,
    stockItems: stock.map((s) => s._id),
    tables: tables
      .filter((t) => t.status === 'available')
      .map((t) => ({ id: t._id, number: t.number, state: 'free' as const, tabId: null, busy: false, openedAt: 0 })),
  };
}

/** New tokens for a long run (access tokens live 15 minutes). */
export async function renewTokens(s: DaySetup) {
  const base = s.target.bases[0];
  const login = (email: string) => must<{ accessToken: string }>(send(base, 'POST', '/auth/login', { body: { email, password: s.target.password } }), 'login', [200]);
  s.staffToken = (await login(DAY_STAFF)).accessToken;
  s.adminToken = (await login(DAY_ADMIN)).accessToken;
}

// ---- the workload's state -------------------------------------------------------------------

/** What the service acknowledged (2xx), to check after the run. */
export interface Acknowledged {
  orders: Set<string>;
  payments: Set<string>;
  movements: Set<string>;
  /** The delivery events (the service's ids) of the accepted webhooks. */
  webhookEvents: Set<string>;
}

interface CounterOrder {
  id: string;
  busy: boolean;
}

interface Op {
  kind: OpKind;
  run: (base: string) => Promise<Answer>;
  /** Updates the state from the answer (always called, also on errors: it releases what the op held). */
  done: (a: Answer | null) => void;
}

/** Smooth weighted round-robin: every kind gets its share in every window of 100 arrivals, deterministically. */
function weightedCycle() {
  const current = new Map<OpKind, number>(OP_KINDS.map((k) => [k, 0]));
  const total = OP_KINDS.reduce((s, k) => s + OPERATIONS[k].weight, 0);
  return () => {
    let best: OpKind = OP_KINDS[0];
    for (const k of OP_KINDS) {
      current.set(k, current.get(k)! + OPERATIONS[k].weight);
      if (current.get(k)! > current.get(best)!) best = k;
    }
    current.set(best, current.get(best)! - total);
    return best;
  };
}

export class DayWorkload {
  readonly ack: Acknowledged = { orders: new Set(), payments: new Set(), movements: new Set(), webhookEvents: new Set() };
  /** Per intended kind: arrivals that ran as another kind because nothing was free for it. */
  readonly substituted = new Map<OpKind, number>();
  private readonly next = weightedCycle();
  private readonly counter: CounterOrder[] = [];
  private seq = 0;
  private stockSeq = 0;
  private rr = 0;
  private readonly sim = createProviderASimulator();

  constructor(readonly setup: DaySetup) {}

  private lines(n: number, guest = false) {
    const items = this.setup.items;
    return Array.from({ length: n }, () => {
      const id = items[this.seq++ % items.length];
      return guest ? { menuItemId: id, quantity: 1 } : { menuItem: id, quantity: 1 + (this.seq % 2) };
    });
  }

  /** An idle table in `states`, the one opened longest ago first for the tab steps (a fair rotation otherwise). */
  private table(states: Table['state'][], oldest = false): Table | null {
    const free = this.setup.tables.filter((t) => !t.busy && states.includes(t.state));
    if (!free.length) return null;
    if (oldest) return free.reduce((a, b) => (b.openedAt < a.openedAt ? b : a));
    return free[this.rr++ % free.length];
  }

  private hold(t: { busy: boolean }) {
    t.busy = true;
  }

  /** The next arrival: its kind by weight, and what it acts on. */
  nextOp(): Op {
    const intended = this.next();
    let kind: OpKind = intended;
    for (;;) {
      const op = this.build(kind);
      if (op) {
        if (kind !== intended) this.substituted.set(intended, (this.substituted.get(intended) ?? 0) + 1);
        return op;
      }
      kind = FALLBACK[kind] ?? 'menu_read';
    }
  }

  private build(kind: OpKind): Op | null {
    const s = this.setup;
    const slug = DAY_SLUG;
    const id = (a: Answer | null) => (a && a.status < 300 ? ((a.body as { _id?: string })?._id ?? null) : null);
    switch (kind) {
      case 'menu_read':
        return { kind, run: (b) => send(b, 'GET', `/t/${slug}/menu/items`), done: () => {} };
      case 'guest_order': {
        // A guest on a free table or one with an open tab (a new round of it), as the QR menu sends it.
        const t = this.table(['free', 'open']);
        if (!t) return null;
        this.hold(t);
        const body = { orderType: 'dine_in', table: t.number, pdv: 'salao', customerName: `Mesa ${t.number}`, paymentMethod: 'cash', items: this.lines(1, true) };
        return {
          kind,
          run: (b) => send(b, 'POST', `/t/${slug}/orders`, { body }),
          done: (a) => {
            const tab = id(a);
            if (tab) {
              this.ack.orders.add(tab);
              if (t.state === 'free') Object.assign(t, { state: 'open', tabId: tab, openedAt: performance.now() });
            }
            t.busy = false;
          },
        };
      }
      case 'tab_open': {
        const t = this.table(['free']);
        if (!t) return null;
        this.hold(t);
        const body = { orderType: 'dine_in', table: t.id, pdv: 'salao', covers: 2, items: this.lines(2) };
        return {
          kind,
          run: (b) => send(b, 'POST', `/t/${slug}/orders`, { token: s.staffToken, body }),
          done: (a) => {
            const tab = id(a);
            if (tab) {
              this.ack.orders.add(tab);
              Object.assign(t, { state: 'open', tabId: tab, openedAt: performance.now() });
            }
            t.busy = false;
          },
        };
      }
      case 'tab_round':
      case 'tab_update': {
        const t = this.table(['open']);
        if (!t) return null;
        this.hold(t);
        const run =
          kind === 'tab_round'
            ? (b: string) => send(b, 'PATCH', `/t/${slug}/orders/${t.tabId}/add-items`, { token: s.staffToken, body: { items: this.lines(1) } })
            : (b: string) => send(b, 'PUT', `/t/${slug}/orders/${t.tabId}/bill`, { token: s.staffToken, body: { covers: 1 + (this.seq++ % 4) } });
        return { kind, run, done: () => void (t.busy = false) };
      }
      case 'counter_order': {
        const body = { orderType: 'takeout', pdv: 'balcao', customerName: 'Balcão', items: this.lines(2) };
        return {
          kind,
          run: (b) => send(b, 'POST', `/t/${slug}/orders`, { token: s.staffToken, body }),
          done: (a) => {
            const order = id(a);
            if (order) {
              this.ack.orders.add(order);
              this.counter.push({ id: order, busy: false });
            }
          },
        };
      }
      case 'payment': {
        // The tab open longest first, else the oldest counter order; cash and card (mock gateway) in turn.
        const method = this.seq++ % 2 ? 'cash' : 'credit_card';
        const pay = (orderId: string) => (b: string) =>
          send(b, 'POST', `/t/${slug}/orders/${orderId}/process-payment`, { token: s.staffToken, body: { method, gateway: 'mock' } });
        const paid = (a: Answer | null) => {
          const body = a && a.status < 300 ? (a.body as { status?: string; paymentId?: string; amountDue?: number }) : null;
          if (body?.status === 'approved' && body.paymentId) this.ack.payments.add(body.paymentId);
          return body?.status === 'approved' && body.amountDue === 0;
        };
        const t = this.table(['open'], true);
        if (t) {
          this.hold(t);
          return {
            kind,
            run: pay(t.tabId!),
            done: (a) => {
              if (paid(a)) t.state = 'paid';
              t.busy = false;
            },
          };
        }
        const o = this.counter.find((c) => !c.busy);
        if (!o) return null;
        this.hold(o);
        return {
          kind,
          run: pay(o.id),
          done: (a) => {
            if (paid(a)) this.counter.splice(this.counter.indexOf(o), 1);
            o.busy = false;
          },
        };
      }
      case 'tab_close': {
        const t = this.table(['paid'], true);
        if (!t) return null;
        this.hold(t);
        return {
          kind,
          run: (b) => send(b, 'POST', `/t/${slug}/orders/${t.tabId}/close-tab`, { token: s.staffToken, body: {} }),
          done: (a) => {
            if (a && a.status < 300) Object.assign(t, { state: 'free', tabId: null });
            t.busy = false;
          },
        };
      }
      case 'stock_movement': {
        // A delivery of goods, or a small loss, in turn (net positive, so the recipes' deductions never run dry).
        // Each item gets its delivery before its loss: the k-th item's entry, then its exit.
        const n = this.stockSeq++;
        const item = s.stockItems[Math.floor(n / 2) % s.stockItems.length];
        const body = n % 2 ? { type: 'exit', reason: 'loss', quantity: 0.05 } : { type: 'entry', reason: 'purchase', quantity: 2, unitCost: 1000 };
        return {
          kind,
          run: (b) => send(b, 'POST', `/t/${slug}/inventory/${item}/movements`, { token: s.adminToken, body }),
          done: (a) => {
            const m = id(a);
            if (m) this.ack.movements.add(m);
          },
        };
      }
      case 'delivery_webhook': {
        // The simulator's PLACED event with the whole order (nothing is sent by it: this generator posts it), signed
        // with the integration's secret; every third order prepaid at the platform (payment, posting, stock deduction).
        const n = this.seq++;
        const ready = this.sim.placeOrder({ payment: n % 3 === 0 ? { method: 'CREDIT', prepaid: true } : { method: 'CASH', prepaid: false } }, { shape: 'full' });
        return {
          kind,
          run: async (b) => {
            const raw = JSON.stringify((await ready).event);
            const signature = createHmac('sha256', s.target.webhookSecret).update(raw).digest('hex');
            return send(b, 'POST', `/t/${slug}/webhooks/provider_a`, { raw, headers: { 'x-provider-a-hmac-sha256': signature } });
          },
          done: (a) => {
            const body = a && a.status < 300 ? (a.body as { received?: boolean; eventId?: string }) : null;
            if (body?.received && body.eventId) this.ack.webhookEvents.add(body.eventId);
          },
        };
      }
      case 'report_read': {
        const path = this.seq++ % 2 ? `/api/t/${slug}/admin/branches/${s.hqId}/stats` : `/api/t/${slug}/admin/branches/${s.hqId}/daily-report?date=${s.today}`;
        return { kind, run: (b) => send(b, 'GET', path, { token: s.adminToken }), done: () => {} };
      }
    }
  }

  /** The API process of the next request: round-robin, no load balancer. */
  base(i: number) {
    const bases = this.setup.target.bases;
    return bases[i % bases.length];
  }

  close() {
    void this.sim.close();
  }
}

// ---- the open-loop generator ----------------------------------------------------------------

const newHist = () => hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
type Hist = ReturnType<typeof newHist>;

export interface KindStats {
  /** Arrivals measured (scheduled in the measured window). */
  sent: number;
  ok: number;
  /** Non-2xx by status, and `conn` (connection errors) / `timeout`. */
  errors: Map<string, number>;
  hist: Hist;
}

export interface StepResult {
  rate: number;
  seconds: number;
  perKind: Map<OpKind, KindStats>;
  all: KindStats;
  /** 2xx answers per second of the measured window (first arrival to last answer). */
  achieved: number;
  /** The generator's own lateness: how late requests left after their scheduled instant, ms. */
  lagP99: number;
  lagMax: number;
  /** A few error answers, to read. */
  samples: string[];
}

const emptyStats = (): KindStats => ({ sent: 0, ok: 0, errors: new Map(), hist: newHist() });

export function msAt(h: Hist, p: number) {
  return h.totalCount ? h.getValueAtPercentile(p) / 1000 : NaN;
}

export function destroyStep(r: StepResult) {
  for (const k of r.perKind.values()) k.hist.destroy();
  r.all.hist.destroy();
}

/**
 * Sends `rate` requests a second for `warmup` + `seconds` seconds on schedule and waits for the last answer. Only the
 * requests scheduled after the warm-up are counted. `onMeasure('start' | 'end')` is called at the measured window's
 * edges (the runner samples CPU there).
 */
export async function runOpenLoop(
  w: DayWorkload,
  o: { rate: number; seconds: number; warmup: number; onMeasure?: (edge: 'start' | 'end') => void },
): Promise<StepResult> {
  const period = 1000 / o.rate;
  const total = Math.round(o.rate * (o.warmup + o.seconds));
  const firstMeasured = Math.round(o.rate * o.warmup);
  const perKind = new Map<OpKind, KindStats>(OP_KINDS.map((k) => [k, emptyStats()]));
  const all = emptyStats();
  const lag = newHist();
  const samples: string[] = [];
  const inflight = new Set<Promise<void>>();
  const start = performance.now() + 20;
  let lastAnswer = start;
  let i = 0;

  const launch = (n: number, scheduled: number) => {
    const measured = n >= firstMeasured;
    if (measured) lag.recordValue(Math.max(1, Math.round((performance.now() - scheduled) * 1000)));
    const op = w.nextOp();
    const base = w.base(n);
    const p = op
      .run(base)
      .then(
        (a) => ({ a, err: a.status >= 200 && a.status < 300 ? null : String(a.status) }),
        (e: Error) => ({ a: null, err: e.message === 'timeout' ? 'timeout' : 'conn' }),
      )
      .then(({ a, err }) => {
        const now = performance.now();
        op.done(a);
        if (!measured) return;
        lastAnswer = Math.max(lastAnswer, now);
        const us = Math.max(1, Math.round((now - scheduled) * 1000));
        for (const s of [perKind.get(op.kind)!, all]) {
          s.sent++;
          s.hist.recordValue(us);
          if (err) s.errors.set(err, (s.errors.get(err) ?? 0) + 1);
          else s.ok++;
        }
        if (err && samples.length < 10) samples.push(`${op.kind} ${err} ${a?.text.slice(0, 200) ?? ''}`);
      });
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (i < total && start + i * period <= now) {
        if (i === firstMeasured) o.onMeasure?.('start');
        launch(i, start + i * period);
        i++;
      }
      if (i >= total) return resolve();
      setTimeout(tick, Math.max(0, Math.min(5, start + i * period - performance.now())));
    };
    setTimeout(tick, 20);
  });
  while (inflight.size) await Promise.all([...inflight]);
  o.onMeasure?.('end');
  const measuredStart = start + firstMeasured * period;
  const result: StepResult = {
    rate: o.rate,
    seconds: o.seconds,
    perKind,
    all,
    achieved: all.ok / Math.max(o.seconds, (lastAnswer - measuredStart) / 1000),
    lagP99: msAt(lag, 99),
    lagMax: lag.totalCount ? lag.maxValue / 1000 : NaN,
    samples,
  };
  lag.destroy();
  return result;
}

// ---- after the run: settle and check --------------------------------------------------------

export interface Invariant {
  name: string;
  ok: boolean;
  detail: string;
}

/** Waits until no delivery event is queued and no due job is waiting or running (at most `timeoutMs`). */
export async function settle(db: pg.Client, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const { rows } = await db.query<{ events: number; jobs: number }>(
      `select (select count(*)::int from delivery_events where status = 'queued') as events,
              (select count(*)::int from pgboss.job where state in ('created', 'retry', 'active') and start_after <= now()) as jobs`,
    );
    if (rows[0].events === 0 && rows[0].jobs === 0) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`not settled after ${timeoutMs} ms: ${rows[0].events} events queued, ${rows[0].jobs} jobs due`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The invariants after a run (read from the database as its owner, row-level security bypassed, and through the
 * trial balance route): every acknowledged order, payment, movement and webhook's order exists; the books balance;
 * every approved payment is posted; no job failed.
 */
export async function checkInvariants(w: DayWorkload, db: pg.Client): Promise<Invariant[]> {
  const ack = w.ack;
  const out: Invariant[] = [];
  const count = async (sql: string, ids: string[]) => (await db.query<{ n: number }>(sql, [ids])).rows[0].n;
  const orders = [...ack.orders];
  const foundOrders = await count('select count(*)::int as n from orders where id = any($1)', orders);
  out.push({ name: 'every acknowledged order exists', ok: foundOrders === orders.length, detail: `${foundOrders} of ${orders.length}` });

  const events = [...ack.webhookEvents];
  const { rows: ev } = await db.query<{ status: string; n: number; with_order: number }>(
    `select e.status, count(*)::int as n, count(o.id)::int as with_order
       from delivery_events e left join orders o on o.tenant_id = e.tenant_id and o.id = e.order_id
      where e.id = any($1) group by e.status`,
    [events],
  );
  const created = ev.find((r) => r.status === 'created');
  out.push({
    name: 'every accepted webhook created its order',
    ok: ev.length <= 1 && (created?.n ?? 0) === events.length && created?.with_order === events.length,
    detail: `${events.length} accepted: ${ev.map((r) => `${r.n} ${r.status} (${r.with_order} with their order)`).join(', ') || 'none'}`,
  });

  const payments = [...ack.payments];
  const foundPayments = await count(`select count(*)::int as n from payments where id = any($1) and status = 'approved'`, payments);
  out.push({ name: 'every acknowledged payment exists, approved', ok: foundPayments === payments.length, detail: `${foundPayments} of ${payments.length}` });

  const posted = await count(`select count(distinct source_id)::int as n from journal_entries where source_type = 'payment' and source_id = any($1)`, payments);
  out.push({ name: 'every acknowledged payment is posted to the books', ok: posted === payments.length, detail: `${posted} of ${payments.length}` });

  const movements = [...ack.movements];
  const foundMovements = await count('select count(*)::int as n from inventory_movements where id = any($1)', movements);
  out.push({ name: 'every acknowledged stock movement exists', ok: foundMovements === movements.length, detail: `${foundMovements} of ${movements.length}` });

  const { rows: books } = await db.query<{ debit: string; credit: string; unbalanced: number }>(
    `select coalesce(sum(l.debit_cents), 0)::text as debit, coalesce(sum(l.credit_cents), 0)::text as credit,
            (select count(*)::int from (select entry_id from journal_lines group by tenant_id, entry_id having sum(debit_cents) <> sum(credit_cents)) u) as unbalanced
       from journal_lines l join journal_entries e on e.tenant_id = l.tenant_id and e.id = l.entry_id where e.status <> 'draft'`,
  );
  out.push({
    name: 'the books balance (all posted lines: debits = credits; no entry unbalanced)',
    ok: books[0].debit === books[0].credit && books[0].unbalanced === 0,
    detail: `debits ${books[0].debit} = credits ${books[0].credit} cents, ${books[0].unbalanced} unbalanced entries`,
  });

  const [year, month] = w.setup.today.split('-').map(Number);
  const tb = await send(w.setup.target.bases[0], 'GET', `/t/${DAY_SLUG}/accounting/ledger/balancete?year=${year}&month=${month}`, { token: w.setup.adminToken });
  const rows = (tb.status === 200 ? tb.body : []) as { totalDebit: number; totalCredit: number }[];
  const d = Math.round(rows.reduce((a, r) => a + r.totalDebit * 100, 0));
  const c = Math.round(rows.reduce((a, r) => a + r.totalCredit * 100, 0));
  out.push({ name: "this month's trial balance (balancete route): debits = credits", ok: tb.status === 200 && d === c && d > 0, detail: `${tb.status}: ${d} = ${c} cents` });

  const { rows: jobs } = await db.query<{ name: string; n: number }>(
    `select name, count(*)::int as n from (select name, state from pgboss.job union all select name, state from pgboss.archive) j
      where state = 'failed' group by name`,
  );
  out.push({ name: 'no job failed', ok: jobs.length === 0, detail: jobs.length ? jobs.map((j) => `${j.name}: ${j.n}`).join(', ') : '0 failed' });
  return out;
}

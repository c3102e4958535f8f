/**
 * `npm run bench:accounting`: the balancete and the balance sheet (issue 14) over a year of 1,000,000 journal
 * lines of one tenant, in one run on PostgreSQL, with autocannon, against the same reports written by hand
 * as one `pg` statement each:
 *
 *   app-balancete      GET /t/demo/accounting/ledger/balancete?year=Y&month=M   (M turning over the 12 months)
 *   base-balancete     the same balancete: one hand-written statement on a bare Fastify route, raw `pg`
 *   app-sheet          GET /t/demo/admin/accounting/balance-sheet?asOf=<last day of the year>  (every line counts)
 *   base-sheet         the same balance sheet by hand (the whole JSON answer built by the statement)
 *   (BENCH_BREAKDOWN=1) tx-balancete, tx-sheet: the hand-written statements inside a tenant transaction as
 *                      app_tenant (row-level security on), as the app's handle runs its statements;
 *                      then idx-*: A and B again after `INDEX_WHAT_IF` (journal_lines_entry_idx made covering)
 *
 * Data (bench/accounting-data.ts): 250,000 entries of 4 lines over the 12 months of 2025, in date order, on the
 * analytic accounts of the default chart (seeded through its route) and one account of the tenant's own: 1%
 * drafts and 1% `reversed` (both excluded), 1% reversed entries with their posted counter-entries (both count
 * and cancel out), the rest posted. Inserted by the runner with `generate_series` as the owner; the same
 * formulas summed in JavaScript are what both sides must answer, to the cent, for every month and for the
 * balance sheet at 4 dates, before any load (else exit 1). Then the app's statements for one request are
 * captured in the server and run alone as the app runs them (tenant transaction, app_tenant), beside the
 * baseline's; BENCH_EXPLAIN=1 prints their `EXPLAIN (ANALYZE, BUFFERS)`. See bench/README.md, "Accounting".
 * If the balance sheet route answers 404 (not built), only the balancete is measured.
 */
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import { BENCH_YEAR, cumulative, expectedBooks, insertEntries, insertLines, type ExpectedBooks } from './accounting-data.js';
import type { AccountingReadyMessage, Captured, CapturedMessage } from './accounting-server.js';
import { BASELINE_BALANCE_SHEET, BASELINE_BALANCETE } from './accounting-sql.js';
import {
  DEMO_ENV, ask, cannon, checkLocal, cleaner, connect, createDb, dbUrl, envInt, fail, fmt, inRounds, logger,
  machine, median, metaLines, pct, pickTargets, printReport, readSettings, runMain, serverCpu, startServerChild, table, watchdog,
} from './lib-run.js';

const opts = {
  // A balance sheet takes about a second: 10 s slices give each target some 30 of them over the rounds.
  ...readSettings({ duration: 10, warmup: 2, rounds: 3 }),
  // A report request takes a core for a few hundred ms: 4 at once already keep both cores (and PostgreSQL's
  // parallel workers) busy; 10 would only queue.
  connections: envInt('BENCH_CONNECTIONS', 4, 1, 200),
  /** Entries of 4 lines (a multiple of 100: every reversed entry has its counter-entry). */
  entries: envInt('BENCH_ENTRIES', 250_000, 1_000, 2_500_000),
  explain: process.env.BENCH_EXPLAIN === '1',
  dbName: 'ro_bench_accounting',
};
if (opts.entries % 100 !== 0) throw new Error('BENCH_ENTRIES must be a multiple of 100');

const log = logger('accounting-bench');

// ---- targets --------------------------------------------------------------------------------

type Report = 'balancete' | 'sheet';
type Side = 'app' | 'base' | 'tx';
interface Target {
  id: string;
  label: string;
  report: Report;
  side: Side;
  breakdown?: boolean;
  /** Measured after the main rounds, with the covering index of `INDEX_WHAT_IF` in place. */
  indexed?: true;
}

const TARGETS: Target[] = [
  { id: 'app-balancete', report: 'balancete', side: 'app', label: 'A app `GET …/ledger/balancete?year&month` (the 12 months in turn)' },
  { id: 'base-balancete', report: 'balancete', side: 'base', label: 'B hand-written statement, raw `pg`, same balancete' },
  { id: 'app-sheet', report: 'sheet', side: 'app', label: 'A app `GET …/admin/accounting/balance-sheet?asOf` (the whole year)' },
  { id: 'base-sheet', report: 'sheet', side: 'base', label: 'B hand-written statement, raw `pg`, same balance sheet' },
  { id: 'tx-balancete', report: 'balancete', side: 'tx', breakdown: true, label: 'what-if: B in a tenant transaction as app_tenant, balancete' },
  { id: 'tx-sheet', report: 'sheet', side: 'tx', breakdown: true, label: 'what-if: B in a tenant transaction as app_tenant, balance sheet' },
  { id: 'idx-app-balancete', report: 'balancete', side: 'app', breakdown: true, indexed: true, label: 'what-if: A with the covering index, balancete' },
  { id: 'idx-base-balancete', report: 'balancete', side: 'base', breakdown: true, indexed: true, label: 'what-if: B with the covering index, balancete' },
  { id: 'idx-app-sheet', report: 'sheet', side: 'app', breakdown: true, indexed: true, label: 'what-if: A with the covering index, balance sheet' },
  { id: 'idx-base-sheet', report: 'sheet', side: 'base', breakdown: true, indexed: true, label: 'what-if: B with the covering index, balance sheet' },
];

/**
 * The index the what-if targets run with: `journal_lines_entry_idx` (tenant_id, entry_id) made covering, so a
 * month's lines are read from the index by their entries, without the heap (see bench/README.md, "Accounting").
 * Plain key columns rather than `include (...)`, so drizzle's `index().on(...)` can declare it.
 */
export const INDEX_WHAT_IF = [
  'drop index journal_lines_entry_idx',
  'create index journal_lines_entry_idx on journal_lines (tenant_id, entry_id, account_id, debit_cents, credit_cents)',
];

let ready: AccountingReadyMessage | null = null;
let proc: ChildProcess | null = null;
let db: pg.Client | null = null;
const server = () => ready ?? fail('the bench server is not running');
const client = () => db ?? fail('no database connection');
let books: ExpectedBooks | null = null;
const expected = () => books ?? fail('no data yet');

const MONTHS = Array.from({ length: 12 }, (_, i) => i + 1);
const SHEET_AS_OF = `${BENCH_YEAR}-12-31`;

// ---- data -----------------------------------------------------------------------------------

/** Empties the tenant's journal, inserts the generated year in slices of 50,000 entries, analyzes. */
async function insertData() {
  const { tenantId, adminId, accounts } = server();
  for (const t of ['journal_lines', 'journal_entries', 'journal_counters', 'period_closings']) await client().query(`delete from ${t} where tenant_id = $1`, [tenantId]);
  const ids = accounts.map((a) => a.id);
  const codes = accounts.map((a) => a.code);
  const names = accounts.map((a) => a.name);
  const slice = 50_000;
  for (let from = 1; from <= opts.entries; from += slice) {
    const to = Math.min(opts.entries, from + slice - 1);
    await client().query(insertEntries(opts.entries), [tenantId, from, to, adminId]);
    await client().query(insertLines(opts.entries), [tenantId, from, to, ids, codes, names]);
  }
  await client().query('insert into journal_counters (tenant_id, year, last) values ($1, $2, $3)', [tenantId, BENCH_YEAR, opts.entries]);
  // As a database that has lived with these rows would be: statistics and the visibility map up to date.
  await client().query('vacuum analyze journal_entries');
  await client().query('vacuum analyze journal_lines');
  const { rows } = await client().query<{ entries: number; lines: number; posted: number; posted_lines: number }>(
    `select (select count(*)::int from journal_entries where tenant_id = $1) as entries, (select count(*)::int from journal_lines where tenant_id = $1) as lines,
       (select count(*)::int from journal_entries where tenant_id = $1 and status = 'posted') as posted,
       (select count(*)::int from journal_lines l join journal_entries e on e.tenant_id = l.tenant_id and e.id = l.entry_id
         where l.tenant_id = $1 and e.status = 'posted') as posted_lines`,
    [tenantId],
  );
  const unbalanced = await client().query(
    'select entry_id from journal_lines where tenant_id = $1 group by entry_id having sum(debit_cents) <> sum(credit_cents) limit 1',
    [tenantId],
  );
  if (unbalanced.rows.length) fail(`generated entry ${JSON.stringify(unbalanced.rows[0])} is not balanced`);
  return rows[0];
}

// ---- requests and checks --------------------------------------------------------------------

let turn = 0;
/** The next month, in turn (every request takes the next one). */
const nextMonth = () => MONTHS[turn++ % MONTHS.length];

function path(t: Pick<Target, 'report' | 'side'>, month = 6): string {
  if (t.side === 'app') {
    return t.report === 'balancete'
      ? `/t/demo/accounting/ledger/balancete?year=${BENCH_YEAR}&month=${month}`
      : `/t/demo/admin/accounting/balance-sheet?asOf=${SHEET_AS_OF}`;
  }
  const prefix = t.side === 'tx' ? '/tx' : '';
  return t.report === 'balancete' ? `${prefix}/balancete?year=${BENCH_YEAR}&month=${month}` : `${prefix}/balance-sheet?asOf=${SHEET_AS_OF}`;
}

const urlOf = (side: Side) => (side === 'app' ? server().appUrl : server().baseUrl);
const headersOf = (side: Side): Record<string, string> => (side === 'app' ? { authorization: `Bearer ${server().token}` } : {});

async function fetchJson(side: Side, p: string): Promise<unknown> {
  const res = await fetch(urlOf(side) + p, { headers: headersOf(side) });
  const body = (await res.json()) as unknown;
  if (res.status !== 200) fail(`${side} ${p} answered ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const DEBIT_NATURES = ['ativo', 'custo', 'despesa'];
const cents = (units: number) => Math.round(units * 100);
const sign = (nature: string) => (DEBIT_NATURES.includes(nature) ? 1 : -1);

interface AppBalanceteRow {
  accountId: string;
  accountCode: string;
  accountName: string;
  nature: string;
  totalDebit: number;
  totalCredit: number;
  balance: number;
}
type Row = Record<string, unknown>;

/** The expected balancete of a month: account id -> debits, credits, balance (cents). */
function expectedBalancete(month: number) {
  const { accounts } = server();
  const out = new Map<string, { code: string; nature: string; debit: number; credit: number; balance: number }>();
  for (const [i, [debit, credit]] of expected().byMonth.get(month) ?? []) {
    const a = accounts[i];
    out.set(a.id, { code: a.code, nature: a.nature, debit, credit, balance: sign(a.nature) * (debit - credit) });
  }
  return out;
}

/** Every month, and a month without entries: the app's and the baseline's balancete are the generator's, to the cent. */
async function checkBalancete() {
  let rows = 0;
  for (const month of [...MONTHS, 0]) {
    const year = month === 0 ? BENCH_YEAR - 1 : BENCH_YEAR;
    const m = month === 0 ? 12 : month;
    const want = month === 0 ? new Map() : expectedBalancete(month);
    const app = (await fetchJson('app', `/t/demo/accounting/ledger/balancete?year=${year}&month=${m}`)) as AppBalanceteRow[];
    const base = (await fetchJson('base', `/balancete?year=${year}&month=${m}`)) as Row[];
    const tx = (await fetchJson('tx', `/tx/balancete?year=${year}&month=${m}`)) as Row[];
    const what = `balancete ${year}-${m}`;
    if (app.length !== want.size || base.length !== want.size) fail(`${what}: app ${app.length} rows, baseline ${base.length}, expected ${want.size}`);
    if (JSON.stringify(tx) !== JSON.stringify(base)) fail(`${what}: the baseline in a tenant transaction answers another balancete`);
    for (const r of app) {
      const w = want.get(r.accountId) ?? fail(`${what}: app row for an unexpected account ${r.accountCode}`);
      const got = { debit: cents(r.totalDebit), credit: cents(r.totalCredit), balance: cents(r.balance) };
      if (r.accountCode !== w.code || r.nature !== w.nature || got.debit !== w.debit || got.credit !== w.credit || got.balance !== w.balance) {
        fail(`${what}, ${w.code}: app ${JSON.stringify(r)}, expected ${JSON.stringify(w)}`);
      }
    }
    for (const r of base) {
      const w = want.get(String(r.id)) ?? fail(`${what}: baseline row for an unexpected account ${String(r.code)}`);
      if (r.code !== w.code || Number(r.debit) !== w.debit || Number(r.credit) !== w.credit || Number(r.balance) !== w.balance) {
        fail(`${what}, ${w.code}: baseline ${JSON.stringify(r)}, expected ${JSON.stringify(w)}`);
      }
    }
    // Balanced entries: the debit-natured balances equal the credit-natured ones.
    const net = app.reduce((s, r) => s + sign(r.nature) * cents(r.balance), 0);
    if (net !== 0) fail(`${what}: the app's balances do not net to zero (${net})`);
    rows += app.length;
  }
  const anon = await fetch(server().appUrl + path({ report: 'balancete', side: 'app' }));
  if (anon.status !== 401) fail(`the balancete without a token answered ${anon.status}`);
  log(`balancete checked: 12 months + an empty one, ${rows} rows, app = baseline = generator to the cent`);
}

/** Does the app answer the balance sheet yet (helper S's route)? */
async function sheetLanded(): Promise<boolean> {
  const res = await fetch(server().appUrl + path({ report: 'sheet', side: 'app' }), { headers: headersOf('app') });
  await res.arrayBuffer();
  if (res.status === 404) return false;
  if (res.status !== 200) fail(`the balance sheet answered ${res.status}`);
  return true;
}

interface SheetLine {
  code: string;
  name: string;
  balance: number;
}
interface Sheet {
  asOf: string;
  ativo: { circulante: SheetLine[]; naoCirculante: SheetLine[]; total: number };
  passivoEPatrimonio: { circulante: SheetLine[]; naoCirculante: SheetLine[]; patrimonioLiquido: SheetLine[]; total: number };
}

const numericCode = (a: SheetLine, b: SheetLine) => {
  const x = a.code.split('.').map(Number);
  const y = b.code.split('.').map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
};

/**
 * The balance sheet the generator's sums give at the end of month `upTo` of the bench year, or (`later`) at a
 * date of the next year, when the whole bench year is an earlier year's result (3.2) and this year's (3.3) is 0.
 */
function expectedSheet(asOf: string, upTo: number, later: boolean): Sheet {
  const { accounts } = server();
  const groups = { ac: [] as SheetLine[], anc: [] as SheetLine[], pc: [] as SheetLine[], pnc: [] as SheetLine[], pl: [] as SheetLine[] };
  let result = 0;
  for (const [i, [debit, credit]] of cumulative(expected(), upTo)) {
    const a = accounts[i];
    const inside = (prefix: string) => a.code === prefix || a.code.startsWith(`${prefix}.`);
    const line = { code: a.code, name: a.name, balance: sign(a.nature) * (debit - credit) };
    if (a.nature === 'ativo') (inside('1.1') ? groups.ac : groups.anc).push(line);
    else if (a.nature === 'passivo') (inside('2.2') ? groups.pnc : groups.pc).push(line);
    else if (a.nature === 'patrimonio_liquido') groups.pl.push(line);
    else result += credit - debit;
  }
  const add = (code: string, name: string, cents: number) => {
    const line = groups.pl.find((l) => l.code === code);
    if (line) line.balance += cents;
    else groups.pl.push({ code, name, balance: cents });
  };
  add('3.2', 'Lucros ou prejuízos acumulados', later ? result : 0);
  add('3.3', 'Resultado do exercício', later ? 0 : result);
  const shown = (lines: SheetLine[]) => lines.filter((l) => l.balance !== 0).sort(numericCode);
  const total = (...lists: SheetLine[][]) => lists.flat().reduce((s, l) => s + l.balance, 0);
  const [ac, anc, pc, pnc, pl] = [shown(groups.ac), shown(groups.anc), shown(groups.pc), shown(groups.pnc), shown(groups.pl)];
  return {
    asOf,
    ativo: { circulante: ac, naoCirculante: anc, total: total(ac, anc) },
    passivoEPatrimonio: { circulante: pc, naoCirculante: pnc, patrimonioLiquido: pl, total: total(pc, pnc, pl) },
  };
}

/**
 * The balance sheet at the end of the bench year (every line), of its June, the day before it (nothing) and in
 * the next year (the bench year's result moves to 3.2): app = baseline = generator, and ativo = passivo + PL.
 */
async function checkSheet() {
  const cases: [string, number, boolean][] = [
    [SHEET_AS_OF, 12, false],
    [`${BENCH_YEAR}-06-30`, 6, false],
    [`${BENCH_YEAR - 1}-12-31`, 0, false],
    [`${BENCH_YEAR + 1}-03-31`, 12, true],
  ];
  for (const [asOf, upTo, later] of cases) {
    const want = expectedSheet(asOf, upTo, later);
    const app = (await fetchJson('app', `/t/demo/admin/accounting/balance-sheet?asOf=${asOf}`)) as Sheet;
    const base = (await fetchJson('base', `/balance-sheet?asOf=${asOf}`)) as Sheet;
    const tx = (await fetchJson('tx', `/tx/balance-sheet?asOf=${asOf}`)) as Sheet;
    if (!isDeepStrictEqual(app, want)) fail(`balance sheet ${asOf}: app ${JSON.stringify(app)}, expected ${JSON.stringify(want)}`);
    if (!isDeepStrictEqual(base, want)) fail(`balance sheet ${asOf}: baseline ${JSON.stringify(base)}, expected ${JSON.stringify(want)}`);
    if (!isDeepStrictEqual(tx, base)) fail(`balance sheet ${asOf}: the baseline in a tenant transaction answers another sheet`);
    if (app.ativo.total !== app.passivoEPatrimonio.total) fail(`balance sheet ${asOf}: ativo ${app.ativo.total} <> passivo + PL ${app.passivoEPatrimonio.total}`);
  }
  const anon = await fetch(server().appUrl + path({ report: 'sheet', side: 'app' }));
  if (anon.status !== 401) fail(`the balance sheet without a token answered ${anon.status}`);
  const full = expectedSheet(SHEET_AS_OF, 12, false);
  log(`balance sheet checked at 4 dates: app = baseline = generator to the cent; at ${SHEET_AS_OF} ativo = passivo + PL = ${fmt(full.ativo.total)} cents`);
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
}

async function measure(t: Target): Promise<Sample> {
  const what = {
    url: urlOf(t.side),
    headers: headersOf(t.side),
    connections: opts.connections,
    requests: [{ setupRequest: (req: { path?: string }) => ({ ...req, path: t.report === 'balancete' ? path(t, nextMonth()) : path(t) }) }],
  };
  if (opts.warmup > 0) await cannon({ ...what, duration: opts.warmup });
  const load = loadavg()[0];
  const cpuBefore = await serverCpu(proc);
  const r = await cannon({ ...what, duration: opts.duration });
  const cpu = (await serverCpu(proc)) - cpuBefore;
  return { seconds: r.duration, ok: r['2xx'], bad: r.non2xx + r.errors + r.timeouts, p50: r.latency.p50, p99: r.latency.p99, load, cpu };
}

function aggregate(target: Target, samples: Sample[]) {
  const sum = (f: (s: Sample) => number) => samples.reduce((acc, s) => acc + f(s), 0);
  const ok = sum((s) => s.ok);
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
  };
}
type Result = ReturnType<typeof aggregate>;

function rounds(targets: Target[]): Promise<Result[]> {
  if (!targets.length) return Promise.resolve([]);
  return inRounds(targets, opts.rounds, (t, round) => {
    log(`round ${round + 1}/${opts.rounds}: ${t.id} (${opts.warmup} s warm-up + ${opts.duration} s, ${opts.connections} connections)`);
    return measure(t);
  }).then((runs) => runs.map((samples, i) => aggregate(targets[i], samples)));
}

// ---- the statements alone, and their plans ----------------------------------------------------

/** Runs `fn` on the runner's connection inside a tenant transaction as app_tenant (as the app does), then rolls back. */
async function asTenant<T>(fn: () => Promise<T>): Promise<T> {
  await client().query(`begin; select set_config('role', 'app_tenant', true), set_config('app.tenant_id', '${server().tenantId}', true)`);
  try {
    return await fn();
  } finally {
    await client().query('rollback');
  }
}

/**
 * The statements the app sends to PostgreSQL for one request of `report` that read the books (the journal and
 * the charts): the guard's lookups and the transaction's begin and commit left out.
 */
async function appStatements(report: Report): Promise<Captured[]> {
  await ask({ type: 'capture' }, 'capturing', proc);
  await fetchJson('app', path({ report, side: 'app' }));
  const { statements } = await ask<CapturedMessage>({ type: 'captured' }, 'captured', proc);
  return statements.filter((s) => !/^\s*(begin|commit|rollback)\b/i.test(s.text) && /journal_|_accounts|account_mappings/.test(s.text));
}

async function plan(text: string, values: unknown[], tenant: boolean): Promise<string> {
  const run = async () => (await client().query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${text}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
  return tenant ? asTenant(run) : run();
}

interface Alone {
  report: Report;
  indexed: boolean;
  appStatements: number;
  /** The app's statements one after the other in a tenant transaction, ms (median). */
  appMs: number;
  baseMs: number;
  appPlans: string[];
  basePlan: string;
}

/** Median ms of `n` runs of `fn`. */
async function timeIt(n: number, fn: () => Promise<unknown>): Promise<number> {
  const msList: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    msList.push(performance.now() - t0);
  }
  return median(msList);
}

/** Each report's statements alone on one connection, the app's (as it runs them) and the baseline's, with their plans. */
async function statementsAlone(reports: Report[], indexed: boolean): Promise<Alone[]> {
  const out: Alone[] = [];
  for (const report of reports) {
    const statements = await appStatements(report);
    const { tenantId } = server();
    const baseText = report === 'balancete' ? BASELINE_BALANCETE : BASELINE_BALANCE_SHEET;
    const baseValues = report === 'balancete' ? [tenantId, BENCH_YEAR, 6] : [tenantId, SHEET_AS_OF];
    const n = report === 'balancete' ? 9 : 5;
    const appMs = await timeIt(n, () =>
      asTenant(async () => {
        for (const s of statements) await client().query(s.text, s.values);
      }),
    );
    const baseMs = await timeIt(n, () => client().query(baseText, baseValues));
    const appPlans: string[] = [];
    for (const s of statements) appPlans.push(`${s.text}\n-- values ${JSON.stringify(s.values)}\n${await plan(s.text, s.values, true)}`);
    out.push({ report, indexed, appStatements: statements.length, appMs, baseMs, appPlans, basePlan: await plan(baseText, baseValues, false) });
  }
  return out;
}

// ---- report ---------------------------------------------------------------------------------

const ms = (n: number) => (n === 0 ? '<1' : String(Math.round(n * 100) / 100));
const perSec = (n: number) => fmt(n, n < 100 ? 1 : 0);
const reportName = (r: Report) => (r === 'balancete' ? 'balancete' : 'balance sheet');

function report(rows: Result[], alone: Alone[], meta: Record<string, string>): string {
  const by = (id: string) => rows.find((r) => r.target.id === id);
  const baseOf = (t: Target) => by(`${t.indexed ? 'idx-' : ''}base-${t.report}`);
  const lines = [
    ...metaLines(meta),
    ...table(
      ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'server CPU µs/req', 'non-2xx/errors', 'load 1m', 'req/s vs B'],
      rows.map((r) => {
        const b = baseOf(r.target);
        return [r.target.label, perSec(r.reqPerSec), ms(r.p50), ms(r.p99), fmt(r.ok), fmt(r.cpuPerReq), r.bad, r.load.toFixed(1), b ? pct(r.reqPerSec / b.reqPerSec) : '-'];
      }),
    ),
    '',
  ];
  for (const a of alone) {
    lines.push(
      `- ${a.report === 'balancete' ? 'balancete (June)' : `balance sheet (asOf ${SHEET_AS_OF})`}${a.indexed ? ' with the covering index' : ''}, the statements alone on one ` +
        `connection, medians: the app's ${a.appStatements} statement(s) in a tenant transaction ${ms(a.appMs)} ms, the hand-written one ${ms(a.baseMs)} ms`,
    );
  }
  for (const prefix of ['', 'idx-']) {
    for (const r of ['balancete', 'sheet'] as const) {
      const a = by(`${prefix}app-${r}`);
      const b = by(`${prefix}base-${r}`);
      if (!a || !b) continue;
      lines.push(
        `- **${reportName(r)}${prefix ? ' with the covering index' : ''}: A reaches ${pct(a.reqPerSec / b.reqPerSec)} of B (${perSec(a.reqPerSec)} vs ${perSec(b.reqPerSec)} req/s)**; ` +
          `per round ${a.perRound.map((x, i) => pct(x / b.perRound[i])).join(', ')}; p50 ${ms(b.p50)} -> ${ms(a.p50)} ms; ` +
          `server CPU ${fmt(b.cpuPerReq)} -> ${fmt(a.cpuPerReq)} µs/req`,
      );
    }
  }
  for (const r of ['balancete', 'sheet'] as const) {
    const before = by(`app-${r}`);
    const after = by(`idx-app-${r}`);
    if (before && after) lines.push(`- ${reportName(r)}, the app with the covering index vs without: ${pct(after.reqPerSec / before.reqPerSec)} of the req/s`);
  }
  if (opts.explain) {
    for (const a of alone) {
      lines.push('', `### Plans: ${reportName(a.report)}${a.indexed ? ', with the covering index' : ''}`, '');
      lines.push("The app's statements (`EXPLAIN (ANALYZE, BUFFERS)` in a tenant transaction as app_tenant):", '');
      for (const p of a.appPlans) lines.push('```', p, '```', '');
      lines.push('The hand-written statement (as the owner):', '', '```', a.basePlan, '```');
    }
  }
  return lines.join('\n');
}

// ---- main -----------------------------------------------------------------------------------

const cleanup = cleaner(opts.adminUrl, opts.dbName, log, async () => {
  await db?.end().catch(() => {});
});

async function main() {
  checkLocal(opts.adminUrl, 'BENCH_PG_URL');
  let targets = pickTargets(TARGETS, opts.breakdown, opts.only);
  const watch = watchdog(targets.length * opts.rounds * (opts.warmup + opts.duration + 12) + 300, cleanup, log);
  const loadBefore = loadavg();
  const pgVersion = await createDb(opts.adminUrl, opts.dbName);
  const url = dbUrl(opts.adminUrl, opts.dbName);
  log(`database ${opts.dbName} created; starting the server (migrations, demo seed, chart seed)`);
  const started = await startServerChild<AccountingReadyMessage>('accounting-server.ts', { ...DEMO_ENV, BENCH_DATABASE_URL: url }, { name: 'accounting bench server', seconds: 120 });
  proc = started.proc;
  ready = started.ready;
  checkLocal(ready.appUrl, 'app');
  checkLocal(ready.baseUrl, 'baseline');
  db = await connect(url);
  const t0 = performance.now();
  const counts = await insertData();
  const loadSeconds = (performance.now() - t0) / 1000;
  log(`inserted ${fmt(counts.entries)} entries (${fmt(counts.posted)} posted), ${fmt(counts.lines)} lines (${fmt(counts.posted_lines)} posted) in ${loadSeconds.toFixed(1)} s`);
  books = expectedBooks(opts.entries, server().accounts.length);
  if (counts.lines !== expected().lines || counts.posted_lines !== expected().postedLines) fail(`row counts differ from the generator: ${JSON.stringify(counts)}`);
  await checkBalancete();
  const reports: Report[] = ['balancete'];
  if (await sheetLanded()) {
    await checkSheet();
    reports.push('sheet');
  } else {
    log('the balance sheet route answers 404 (not there yet): measuring the balancete only');
    targets = targets.filter((t) => t.report !== 'sheet');
  }
  const alone = await statementsAlone(reports, false);
  const rows = await rounds(targets.filter((t) => !t.indexed));
  const indexed = targets.filter((t) => t.indexed);
  if (indexed.length) {
    log('what-if: the covering index on journal_lines');
    for (const statement of INDEX_WHAT_IF) await client().query(statement);
    await client().query('vacuum analyze journal_lines');
    alone.push(...(await statementsAlone(reports, true)));
    rows.push(...(await rounds(indexed)));
  }
  const loadAfter = loadavg();
  await cleanup();
  clearTimeout(watch);

  const meta = {
    ...machine(pgVersion, loadBefore, loadAfter),
    load: `${opts.connections} connections closed loop; ${opts.rounds} round(s) in alternating order, each slice ${opts.warmup} s warm-up + ${opts.duration} s measured`,
    data:
      `${fmt(counts.entries)} entries, ${fmt(counts.lines)} journal lines over the 12 months of ${BENCH_YEAR} (${fmt(counts.posted_lines)} lines of ${fmt(counts.posted)} posted entries; ` +
      `drafts and \`reversed\` excluded; ${server().accounts.length} analytic accounts), inserted and vacuum-analyzed in ${loadSeconds.toFixed(1)} s`,
  };
  printReport(report(rows, alone, meta), rows, log, { out: opts.out, profDir: null });
}

runMain(main, cleanup, log);

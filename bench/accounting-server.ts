/**
 * Accounting reports benchmark server, forked by bench/accounting-run.ts (never on its own: it needs the
 * IPC channel). One process serves both sides on two ports of 127.0.0.1, so both get the same CPU:
 *
 * - the real app (`buildApp` + the demo tenant, `demoApp`) with the system chart seeded through its route
 *   (`POST /t/demo/accounting/chart/seed/defaults` as the superadmin) and one account of the tenant's own
 *   (`POST /t/demo/accounting/chart`), whose balancete and balance sheet routes are measured as they are;
 * - a bare Fastify instance (no hooks, plugins or schemas) answering the same two reports with ONE
 *   hand-written SQL statement each (bench/accounting-sql.ts) on its own `pg` pool of 10 (the app's size),
 *   as the owner role (no tenant transaction, no row-level security). `/tx/...`: the same statements inside
 *   a tenant transaction as `app_tenant`, the way the app's handle runs them (BENCH_BREAKDOWN=1).
 *
 * For the runner's query plans, the IPC message `capture` records the statements the app sends to
 * PostgreSQL (text and values, every pooled `pg` client of this process) until `captured` answers them.
 * Nothing in src/ is changed. The runner inserts the journal itself.
 */
import Fastify from 'fastify';
import pg from 'pg';
import { BASELINE_BALANCE_SHEET, BASELINE_BALANCETE } from './accounting-sql.js';
import type { BenchAccount } from './accounting-data.js';
import { answerRunner, baselineRunner, demoApp, fail, failed, listenLocal, login, onStop } from './lib-server.js';

export const ACCOUNTING_ADMIN = 'admin@demo.local';

export interface AccountingReadyMessage {
  type: 'ready';
  appUrl: string;
  baseUrl: string;
  token: string;
  tenantId: string;
  adminId: string;
  /** The analytic accounts the tenant sees: the system chart's, then its own, by code. */
  accounts: BenchAccount[];
}

export interface Captured {
  text: string;
  values: unknown[];
}

export interface CapturedMessage {
  type: 'captured';
  statements: Captured[];
}

/** Records what every `pg` client of this process sends while `capturing` (the app's pool included). */
let capturing: Captured[] | null = null;
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function query(this: pg.Client, ...args: unknown[]) {
  if (capturing) {
    const [first, second] = args as [string | { text: string; values?: unknown[] }, unknown];
    const text = typeof first === 'string' ? first : first?.text;
    // drizzle passes `({ text, rowMode, types }, params)`; others `(text, values)` or `({ text, values })`.
    const values = (typeof first === 'string' ? undefined : first?.values) ?? (Array.isArray(second) ? second : []);
    if (typeof text === 'string') capturing.push({ text, values });
  }
  return clientQuery.apply(this, args);
} as typeof pg.Client.prototype.query;

async function main() {
  if (!process.send) fail('bench/accounting-server.ts is started by bench/accounting-run.ts (npm run bench:accounting)');
  answerRunner((msg: { type?: string }) => {
    if (msg?.type === 'capture') {
      capturing = [];
      process.send!({ type: 'capturing' });
    }
    if (msg?.type === 'captured') {
      const reply: CapturedMessage = { type: 'captured', statements: capturing ?? [] };
      capturing = null;
      process.send!(reply);
    }
  });
  try {
    const { app, url, password } = await demoApp('ro-bench-accounting-');
    const tenant = (await app.deps.tenants.bySlug('demo')) ?? fail('demo tenant missing');
    const token = await login(app, ACCOUNTING_ADMIN, password);
    const headers = { authorization: `Bearer ${token}` };
    const me = await app.inject({ url: '/auth/me', headers });
    const adminId = (me.json() as { user?: { _id: string } }).user?._id ?? fail(`GET /auth/me answered ${me.statusCode} ${me.body}`);

    // The system chart, through its route, as the superadmin.
    const sa = await login(app, process.env.SUPERADMIN_EMAIL ?? fail('SUPERADMIN_EMAIL is not set'), process.env.SUPERADMIN_PASSWORD ?? '');
    const seeded = await app.inject({ method: 'POST', url: '/t/demo/accounting/chart/seed/defaults', headers: { authorization: `Bearer ${sa}` } });
    if (seeded.statusCode !== 200) fail(`chart seed: ${seeded.statusCode} ${seeded.body}`);
    type ChartView = { _id: string; code: string; name: string; nature: string; type: string; tenant: string | null };
    const chartOf = async () => {
      const res = await app.inject({ url: '/t/demo/accounting/chart', headers });
      if (res.statusCode !== 200) fail(`GET chart: ${res.statusCode} ${res.body}`);
      return res.json() as ChartView[];
    };
    // One account of the tenant's own beside the system chart, so the reports read both charts.
    const current = (await chartOf()).find((a) => a.code === '1.1' && a.tenant === null) ?? fail('system account 1.1 missing');
    const own = await app.inject({
      method: 'POST',
      url: '/t/demo/accounting/chart',
      headers,
      payload: { code: '1.1.08', name: 'Vale-refeição a receber', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: current._id },
    });
    if (own.statusCode !== 201) fail(`POST chart: ${own.statusCode} ${own.body}`);
    const accounts = (await chartOf())
      .filter((a) => a.type === 'analitica')
      .map((a) => ({ id: a._id, code: a.code, name: a.name, nature: a.nature }));

    const pool = new pg.Pool({ connectionString: url, max: 10 });
    onStop(() => pool.end());
    const run = baselineRunner(pool, tenant.id);
    const bare = Fastify({ logger: false });
    onStop(() => bare.close());
    for (const tx of [false, true]) {
      const prefix = tx ? '/tx' : '';
      bare.get<{ Querystring: { year: string; month: string } }>(`${prefix}/balancete`, async (req) =>
        run(BASELINE_BALANCETE, [tenant.id, Number(req.query.year), Number(req.query.month)], tx),
      );
      bare.get<{ Querystring: { asOf: string } }>(`${prefix}/balance-sheet`, async (req) => {
        const [row] = (await run(BASELINE_BALANCE_SHEET, [tenant.id, req.query.asOf], tx)) as { sheet: unknown }[];
        return row.sheet;
      });
    }

    const ready: AccountingReadyMessage = {
      type: 'ready',
      appUrl: await listenLocal(app),
      baseUrl: await listenLocal(bare),
      token,
      tenantId: tenant.id,
      adminId,
      accounts,
    };
    process.send!(ready);
  } catch (err) {
    await failed('accounting bench server', err);
  }
}

void main();

/**
 * Branch reports benchmark server, forked by bench/reports-run.ts (never on its own: it needs the IPC
 * channel). One process serves both sides on two ports of 127.0.0.1, so both get the same CPU:
 *
 * - the real app (`buildApp` + the demo tenant, `demoApp`), whose report routes are measured as they are;
 * - a bare Fastify instance (no hooks, plugins or schemas) answering the same two reports with ONE
 *   hand-written SQL statement each on its own `pg` pool of 10 (the app's size), as the owner role
 *   (no tenant transaction, no row-level security), the day boundaries computed in SQL
 *   (`date::timestamp at time zone tz`). With `BENCH_BREAKDOWN=1` the runner also loads `/tx/...`: the
 *   same statements inside a tenant transaction as `app_tenant`, the way the app's handle runs them.
 *
 * The demo tenant has two branches of two PDVs each (Matriz Pinheiros: Balcão, Salão; Filial Vila Madalena:
 * Balcão Vila, Varanda), so 4 PDVs. The runner empties the demo's week of sales and inserts its own orders.
 */
import Fastify from 'fastify';
import pg from 'pg';
import { answerRunner, baselineRunner, demoApp, fail, failed, listenLocal, login, onStop } from './lib-server.js';
import { BASELINE_COMPARE, BASELINE_DAILY } from './reports-sql.js';

export const REPORTS_ADMIN = 'admin@demo.local';

export interface ReportsReadyMessage {
  type: 'ready';
  appUrl: string;
  baseUrl: string;
  token: string;
  tenantId: string;
  timezone: string;
  adminId: string;
  branches: { id: string; name: string; pdvs: { id: string; name: string }[] }[];
}

async function main() {
  if (!process.send) fail('bench/reports-server.ts is started by bench/reports-run.ts (npm run bench:reports)');
  answerRunner();
  try {
    const { app, url, password } = await demoApp('ro-bench-reports-');
    const tenant = (await app.deps.tenants.bySlug('demo')) ?? fail('demo tenant missing');
    const token = await login(app, REPORTS_ADMIN, password);
    const me = await app.inject({ url: '/auth/me', headers: { authorization: `Bearer ${token}` } });
    const adminId = (me.json() as { user?: { _id: string } }).user?._id ?? fail(`GET /auth/me answered ${me.statusCode} ${me.body}`);

    const pool = new pg.Pool({ connectionString: url, max: 10 });
    onStop(() => pool.end());
    const { rows: branchRows } = await pool.query<{ id: string; name: string; pdv_id: string; pdv_name: string }>(
      'select b.id, b.name, p.id as pdv_id, p.name as pdv_name from branches b join pdvs p on p.tenant_id = b.tenant_id and p.branch_id = b.id where b.tenant_id = $1 order by b.name, p.name',
      [tenant.id],
    );
    const branches = new Map<string, ReportsReadyMessage['branches'][number]>();
    for (const r of branchRows) {
      const b = branches.get(r.id) ?? { id: r.id, name: r.name, pdvs: [] };
      b.pdvs.push({ id: r.pdv_id, name: r.pdv_name });
      branches.set(r.id, b);
    }

    const run = baselineRunner(pool, tenant.id);
    const bare = Fastify({ logger: false });
    onStop(() => bare.close());
    for (const tx of [false, true]) {
      const prefix = tx ? '/tx' : '';
      bare.get<{ Querystring: { branch: string; date: string } }>(`${prefix}/daily`, async (req) =>
        run(BASELINE_DAILY, [tenant.id, req.query.branch, req.query.date, tenant.timezone], tx),
      );
      bare.get<{ Querystring: { from: string; to: string } }>(`${prefix}/compare`, async (req) =>
        run(BASELINE_COMPARE, [tenant.id, req.query.from, req.query.to, tenant.timezone], tx),
      );
    }

    const ready: ReportsReadyMessage = {
      type: 'ready',
      appUrl: await listenLocal(app),
      baseUrl: await listenLocal(bare),
      token,
      tenantId: tenant.id,
      timezone: tenant.timezone,
      adminId,
      branches: [...branches.values()],
    };
    process.send!(ready);
  } catch (err) {
    await failed('reports bench server', err);
  }
}

void main();

/**
 * Public API benchmark server, run by bench/public-api-run.ts as a child process (it needs the IPC
 * channel). One process serves every target, so each gets the same CPU budget:
 *
 * - the real app (`buildApp`) on PostgreSQL, seeded with the demo tenant, where an App is created,
 *   published and installed with `menu.read` (its token measures `GET /public/v1/menu/items`), and
 *   `BENCH_INSTALLATIONS` more Apps are installed for the default-limit target;
 * - bench-only routes on the same instance, outside the guarded scope and hidden from OpenAPI: the
 *   same listing without credentials (same service, same response schema), and the guard's steps
 *   one at a time with a few what-ifs (BENCH_BREAKDOWN in the runner).
 *
 * Nothing in src/ is changed: the extra routes only call what the app exposes (`app.services`,
 * `app.deps`, the installation lookup query and the rolling counter).
 */
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import pg from 'pg';
import type { RateLimitSetting } from '../src/config.js';
import type { TenantCtx } from '../src/platform/auth/guards.js';
import { loadMember } from '../src/platform/auth/principal.js';
import { RateLimited, rollingCounter } from '../src/platform/rate-limit.js';
import { withErrors } from '../src/platform/schemas.js';
import { AdminMenuItem } from '../src/modules/menu/index.js';
import { findByTokenLookup } from '../src/modules/apps/installations.queries.js';
import { TOKEN_LOOKUP_LENGTH } from '../src/modules/apps/installations.service.js';
import { answerRunner, demoApp, fail, failed, listenLocal, login, onStop } from './lib-server.js';

export interface ApiReadyMessage {
  type: 'ready';
  appUrl: string;
  /** The installation token of targets (1) and (3). */
  token: string;
  /** One token per extra installation, for the default-limit target (4). */
  tokens: string[];
  /** A demo admin's JWT (the runner checks the public route refuses it). */
  adminJwt: string;
  benchLimit: RateLimitSetting;
}

/** The runner switches the public API's rate limit between targets (only one target is loaded at a time). */
export interface LimitMessage {
  type: 'limit';
  which: 'bench' | 'default';
}

export const BENCH_ADMIN = 'admin@demo.local';
export const DEFAULT_LIMIT: RateLimitSetting = { limit: 200, windowMs: 60_000 };

/** The response schema of the real `GET /public/v1/menu/items` (public-api.routes.ts). */
const listingSchema = {
  hide: true,
  response: withErrors({ 200: Type.Array(AdminMenuItem), 429: RateLimited }, [400, 401, 403, 404, 410]),
};

/** The guard steps a breakdown route runs before the listing (answers 500 on a refusal: the runner counts it as a failure). */
type Steps = { lookup?: boolean; token?: boolean; limit?: boolean; oneTrip?: boolean; preparedLimit?: boolean };

declare module 'fastify' {
  interface FastifyContextConfig {
    benchApiSteps?: Steps;
  }
}

const bearer = (req: FastifyRequest) => req.headers.authorization?.split(' ')[1] ?? fail('no token');

async function main() {
  if (!process.send) fail('bench/public-api-server.ts is started by bench/public-api-run.ts (npm run bench:public-api)');
  let setLimit: (which: LimitMessage['which']) => void = () => fail('not ready');
  answerRunner<Partial<LimitMessage>>((msg) => {
    if (msg?.type !== 'limit' || !msg.which) return;
    setLimit(msg.which);
    process.send!({ type: 'limit-set' });
  });
  const { app, password, url } = await demoApp('ro-bench-api-');
  // The config object the guard reads on every request: the runner switches its limit between targets.
  const publicApi = app.deps.config.publicApi ?? fail('config.publicApi is not set');
  const benchLimit = { ...publicApi.rateLimit };
  setLimit = (which) => {
    publicApi.rateLimit = which === 'default' ? { ...DEFAULT_LIMIT } : { ...benchLimit };
  };

  const tenant = (await app.deps.tenants.bySlug('demo')) ?? fail('demo tenant missing');
  const adminId = (await app.services.users.findByEmail(BENCH_ADMIN))!.id;
  const member = (await tenant.db.run((tx) => loadMember(tx.db, adminId, tenant.id))) ?? fail('admin missing');
  const ctx: TenantCtx = { tenantId: tenant.id, db: tenant.db, tenant, user: member.principal, role: 'admin', branchScope: { all: true } };

  // Apps as the operator creates them, installed in the demo tenant as its admin would.
  const { catalog, installations, menu } = app.services;
  async function installed(slug: string): Promise<string> {
    const created = await catalog.create({ slug, name: `Bench ${slug}`, scopes: ['menu.read'] });
    await catalog.publish(created.app._id);
    return (await installations.install(ctx, slug, ['menu.read'])).accessToken;
  }
  const token = await installed('bench-app');
  const many = Number(process.env.BENCH_INSTALLATIONS ?? '0');
  const tokens: string[] = [];
  for (let i = 0; i < many; i++) tokens.push(await installed(`bench-app-${i}`));

  // (2) The same listing without credentials: same instance, root hooks, response schema and service.
  app.get('/bench/public/v1/menu/items', { schema: listingSchema }, () => menu.listItems(tenant.db));

  // Breakdown: the guard's steps one at a time, in an async onRequest hook like the real guard.
  const auth = app.deps.apiCredentials;
  const counter = rollingCounter(app.deps.db, app.deps.clock);
  // What-if: the token's installation and its tenant in one statement, one round trip. The bench
  // connects as the database owner (row-level security does not apply); in the app this would be a
  // SECURITY DEFINER function or one simple-protocol message `begin; set local role none; select; commit`.
  const ownerPool = new pg.Pool({ connectionString: url, max: 10 });
  onStop(() => ownerPool.end());
  const verified = new Map<string, string>();
  async function oneTrip(token: string): Promise<string> {
    const { rows } = await ownerPool.query<{ id: string; status: string; is_active: boolean; access_token_hash: string }>(
      `select i.id, i.status, i.access_token_hash, t.is_active from app_installations i join tenants t on t.id = i.tenant_id where i.token_lookup = $1`,
      [token.slice(0, TOKEN_LOOKUP_LENGTH)],
    );
    const row = rows[0];
    if (!row || row.status !== 'active' || !row.is_active) fail('bad token');
    const digest = createHash('sha256').update(token).digest('hex');
    // The bcrypt check itself is the app's (done once per token and cached), not what is measured here.
    if (verified.get(digest) !== row.id) {
      if (!(await auth.get().byToken(token))) fail('bad token');
      verified.set(digest, row.id);
    }
    return row.id;
  }

  // What-if: the limiter's very statement (platform/rate-limit.ts, accepted branch) as a named prepared
  // statement, so PostgreSQL plans it once per connection instead of on every request.
  const limitSql = `insert into rate_limit_windows as w (key, secs, counts) values ($1, array[$2::bigint], array[1])
    on conflict (key) do update set
      secs = array(select s from unnest(w.secs, w.counts) as x(s, n) where s > $3::bigint and s <> $2::bigint order by s) || $2::bigint,
      counts = array(select n from unnest(w.secs, w.counts) as x(s, n) where s > $3::bigint and s <> $2::bigint order by s)
        || (coalesce((select n from unnest(w.secs, w.counts) as x(s, n) where s = $2::bigint), 0) + 1)
    where (select coalesce(sum(n), 0) from unnest(w.secs, w.counts) as x(s, n) where s > $3::bigint) < $4::int
    returning secs, counts`;
  async function preparedHit(key: string, limit: RateLimitSetting): Promise<boolean> {
    const bucketS = Math.max(1, Math.ceil(limit.windowMs / 60_000));
    const windowS = bucketS * Math.ceil(limit.windowMs / 1000 / bucketS);
    const nowS = Math.floor(app.deps.clock.now().getTime() / 1000);
    const bucket = nowS - (nowS % bucketS);
    const { rows } = await ownerPool.query({ name: 'bench_rate_limit', text: limitSql, values: [key, bucket, bucket + bucketS - windowS - 1, limit.limit] });
    return rows.length === 1;
  }

  await app.register(async (scope: FastifyInstance) => {
    scope.addHook('onRequest', async (req) => {
      const steps = req.routeOptions.config.benchApiSteps ?? {};
      const limit = publicApi.rateLimit;
      let credential = 'bench';
      if (steps.lookup) {
        const row = await findByTokenLookup(app.deps.db, bearer(req).slice(0, TOKEN_LOOKUP_LENGTH));
        if (row?.status !== 'active') fail('bad token');
      }
      if (steps.token) credential = (await auth.get().byToken(bearer(req)))?.credential ?? fail('bad token');
      if (steps.oneTrip) credential = `installation:${await oneTrip(bearer(req))}`;
      if (steps.limit && !(await counter.hit(`api:bench-step:${credential}`, limit.limit, limit.windowMs)).allowed) fail('rate limited');
      if (steps.preparedLimit && !(await preparedHit(`api:bench-prepared:${credential}`, limit))) fail('rate limited');
    });
    const route = (path: string, benchApiSteps: Steps) =>
      scope.get(`/bench/${path}/public/v1/menu/items`, { schema: listingSchema, config: { benchApiSteps } }, () => menu.listItems(tenant.db));
    route('hook', {});
    route('lookup', { lookup: true });
    route('token', { token: true });
    route('limit', { limit: true });
    route('token-limit', { token: true, limit: true });
    route('one-trip', { oneTrip: true });
    route('one-trip-limit', { oneTrip: true, limit: true });
    route('prepared-limit', { preparedLimit: true });
    route('one-trip-prepared-limit', { oneTrip: true, preparedLimit: true });
  });

  const adminJwt = await login(app, BENCH_ADMIN, password);
  const appUrl = await listenLocal(app);
  const ready: ApiReadyMessage = { type: 'ready', appUrl, token, tokens, adminJwt, benchLimit };
  process.send!(ready);
}

main().catch((err) => failed('public API bench server', err));

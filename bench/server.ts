/**
 * Benchmark server, run by bench/run.ts as a child process (never on its own: it needs the IPC
 * channel). It serves, from one process so every target gets the same CPU budget:
 *
 * - the real app (`buildApp`) on PostgreSQL, seeded with the demo tenant, plus a few
 *   bench-only routes registered on the same instance (outside the guarded scope, hidden
 *   from OpenAPI): the users listing without auth, and the guard's steps one by one;
 * - a bare Fastify instance (no hooks, no plugins): a small JSON payload, and the users
 *   listing without auth.
 *
 * Nothing in src/ is changed: the extra routes only call what the app exposes
 * (`app.services`, `app.deps`) and the principal loader of the guard.
 */
import { createHmac, timingSafeEqual, webcrypto } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { and, eq, sql } from 'drizzle-orm';
import Fastify, { type FastifyInstance } from 'fastify';
import { jwtVerify } from 'jose';
import type { App } from '../src/app.js';
import { memberships, users as users_ } from '../src/db/schema/users.js';
import type { TenantCtx } from '../src/platform/auth/guards.js';
import { loadMember } from '../src/platform/auth/principal.js';
import { TenantParams, withErrors } from '../src/platform/schemas.js';
import { User } from '../src/modules/users/users.schemas.js';
import { answerRunner, demoApp, fail, failed, listenLocal, login, onStop } from './lib-server.js';

export interface ReadyMessage {
  type: 'ready';
  appUrl: string;
  bareUrl: string;
  token: string;
}

export const BENCH_ADMIN = 'admin@demo.local';

/**
 * Which guard steps a bench-only route runs before listing the users (a cut-down copy of the guard:
 * it answers 500 instead of 401/403, which the runner would count as failures).
 * `jwt`: 'jose' is the app's own verifier (`deps.jwt`, jose when these what-ifs were written, a
 * synchronous node:crypto HMAC since); 'jose-key' is jose with the key imported once;
 * 'hmac' is this file's synchronous HS256 check with node:crypto.
 * `member`: 'query' is the guard's `loadMember`; 'prepared' the same SQL as a prepared statement;
 * 'cached' the guard's query behind a 5 s per-process cache (like the tenant resolver's).
 */
type Steps = { jwt?: 'jose' | 'jose-key' | 'hmac'; tenant?: boolean; member?: 'query' | 'prepared' | 'cached' };

declare module 'fastify' {
  interface FastifyContextConfig {
    benchSteps?: Steps;
  }
}

const usersSchema = { hide: true, params: TenantParams, response: withErrors({ 200: Type.Array(User) }) };

/** HS256 access-token check with node:crypto, synchronous (what-if of the JWT step). */
function hmacVerifier(secret: string) {
  const key = Buffer.from(secret);
  return (token: string): string | null => {
    const [h, p, sig, extra] = token.split('.');
    if (!h || !p || !sig || extra !== undefined) return null;
    const expected = createHmac('sha256', key).update(`${h}.${p}`).digest();
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    if ((JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string }).alg !== 'HS256') return null;
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { typ?: string; sub?: unknown; exp?: number };
    if (claims.typ !== 'access' || typeof claims.sub !== 'string' || !(Number(claims.exp) > Date.now() / 1000)) return null;
    return claims.sub;
  };
}

async function benchRoutes(app: App, ctx: TenantCtx) {
  const { jwt, tenants, db, config } = app.deps;
  const users = app.services.users;

  // (4) The same listing as GET /t/:slug/users, same instance, hooks and serializer, but no guard:
  // the tenant context is resolved once at start.
  app.get('/bench/t/:slug/users', { schema: usersSchema }, () => users.list(ctx));

  const cryptoKey = await webcrypto.subtle.importKey('raw', Buffer.from(config.jwtSecret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const verifyHmac = hmacVerifier(config.jwtSecret);
  const preparedMember = db
    .select({ role: memberships.role, isSuperadmin: users_.isSuperadmin })
    .from(users_)
    .leftJoin(memberships, and(eq(memberships.userId, users_.id), eq(memberships.tenantId, sql.placeholder('tenantId'))))
    .where(eq(users_.id, sql.placeholder('userId')))
    .prepare('bench_load_member');
  const memberCache = new Map<string, { role: string | null; until: number }>();

  async function role(steps: Steps, sub: string, tenantId: string): Promise<string | null | undefined> {
    if (steps.member === 'query') return (await loadMember(db, sub, tenantId))?.membership?.role;
    if (steps.member === 'prepared') return ((await preparedMember.execute({ userId: sub, tenantId })) as { role: string | null }[])[0]?.role;
    const key = `${sub}:${tenantId}`;
    const hit = memberCache.get(key);
    if (hit && hit.until > Date.now()) return hit.role;
    const found = (await loadMember(db, sub, tenantId))?.membership?.role ?? null;
    memberCache.set(key, { role: found, until: Date.now() + 5_000 });
    return found;
  }

  // Breakdown: the guard's steps added one at a time, in an async onRequest hook like the real guard.
  await app.register(async (scope: FastifyInstance) => {
    scope.addHook('onRequest', async (req) => {
      const steps = req.routeOptions.config.benchSteps ?? {};
      let sub = ctx.user.id;
      if (steps.jwt) {
        const token = req.headers.authorization?.split(' ')[1] ?? fail('no token');
        if (steps.jwt === 'jose') sub = (await jwt.verify(token))?.sub ?? fail('bad token');
        else if (steps.jwt === 'jose-key') sub = (await jwtVerify(token, cryptoKey, { algorithms: ['HS256'] })).payload.sub ?? fail('bad token');
        else sub = verifyHmac(token) ?? fail('bad token');
      }
      let tenantId = ctx.tenantId;
      if (steps.tenant) tenantId = (await tenants.bySlug((req.params as { slug: string }).slug))?.id ?? fail('no tenant');
      if (steps.member && (await role(steps, sub, tenantId)) !== 'admin') fail('not admin');
    });
    const route = (path: string, benchSteps: Steps) =>
      scope.get(`/bench/${path}/t/:slug/users`, { schema: usersSchema, config: { benchSteps } }, () => users.list(ctx));
    route('hook', {});
    route('jwt', { jwt: 'jose' });
    route('jwt-tenant', { jwt: 'jose', tenant: true });
    route('jwt-tenant-member', { jwt: 'jose', tenant: true, member: 'query' });
    route('jwt-key', { jwt: 'jose-key' });
    route('jwt-hmac', { jwt: 'hmac' });
    route('hmac-tenant-prepared', { jwt: 'hmac', tenant: true, member: 'prepared' });
    route('hmac-tenant-cached', { jwt: 'hmac', tenant: true, member: 'cached' });
  });
}

function bareServer(app: App, ctx: TenantCtx): FastifyInstance {
  const bare = Fastify({ logger: false });
  // (1) A bare route with a small JSON payload.
  bare.get('/bare', async () => ({ hello: 'world' }));
  // The users listing on the bare instance (no app hooks, no request id), same response schema.
  bare.get('/bare/t/:slug/users', { schema: { params: TenantParams, response: { 200: Type.Array(User) } } }, () =>
    app.services.users.list(ctx),
  );
  return bare;
}

async function main() {
  if (!process.send) fail('bench/server.ts is started by bench/run.ts (npm run bench)');
  answerRunner();
  try {
    const { app, password } = await demoApp('ro-bench-');

    const tenant = (await app.deps.tenants.bySlug('demo')) ?? fail('demo tenant missing');
    const adminId = (await app.services.users.findByEmail(BENCH_ADMIN))!.id;
    const member = (await tenant.db.run((tx) => loadMember(tx.db, adminId, tenant.id))) ?? fail('admin missing');
    const ctx: TenantCtx = {
      tenantId: tenant.id,
      db: tenant.db,
      tenant,
      user: member.principal,
      role: 'admin',
      branchScope: { all: true },
    };

    await benchRoutes(app, ctx);
    const bare = bareServer(app, ctx);
    onStop(() => bare.close());

    // A real login gives the token the guarded route is measured with (inject readies the app:
    // the bench routes are registered before).
    const token = await login(app, BENCH_ADMIN, password);

    const appUrl = await listenLocal(app);
    const bareUrl = await listenLocal(bare);
    const ready: ReadyMessage = { type: 'ready', appUrl, bareUrl, token };
    process.send!(ready);
  } catch (err) {
    await failed('bench server', err);
  }
}

void main();

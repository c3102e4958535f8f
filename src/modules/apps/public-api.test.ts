import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../app.js';
import { installApp, makePublishedApp } from '../../../test/apps.js';
import { createTestApp, testConfig, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeReservation, makeSuperadmin, makeTenantWithTeam, type TestUser } from '../../../test/factories.js';
import { LEGACY_KEY_SUCCESSOR } from '../../config.js';

let t: TestApp;
let sa: TestUser;
const sunset = new Date(Date.now() + 30 * 86_400_000);
beforeAll(async () => {
  t = await createTestApp({
    publicApi: {
      rateLimit: { limit: 200, windowMs: 60_000 },
      endpointLimits: false,
      deprecations: { 'GET /public/v1/reservations': { sunset, successor: '/public/v2/reservations' } },
      legacyKey: null,
    },
  });
  sa = await makeSuperadmin(t.app);
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const ALL = ['orders.read', 'menu.read', 'reservations.read', 'reservations.write'] as const;

async function installed(scopes: (typeof ALL)[number][] = [...ALL]) {
  const team = await makeTenantWithTeam(t.app);
  const a = await makePublishedApp(t.app, sa, { scopes: [...ALL] });
  return { team, ...(await installApp(t.app, team, a.slug, scopes)) };
}

describe('the public developer API (spec 4.2)', () => {
  it('serves the installation\'s tenant only, as raw arrays', async () => {
    const { team, headers } = await installed();
    const other = await makeTenantWithTeam(t.app);
    await makeMenuItem(t.app, team.tenant, { name: 'Pão de queijo', price: 650 });
    await makeMenuItem(t.app, other.tenant, { name: 'Not mine' });
    const items = await get('/public/v1/menu/items', headers);
    expect(items.statusCode).toBe(200);
    expect(items.json()).toEqual([expect.objectContaining({ name: 'Pão de queijo', price: 650 })]);

    const item = items.json()[0];
    const order = await t.app.inject({
      method: 'POST',
      url: `/t/${team.slug}/orders`,
      headers: team.staff.headers,
      payload: { orderType: 'takeout', items: [{ menuItemId: item._id, quantity: 2 }] },
    });
    expect(order.statusCode, order.body).toBe(201);
    const orders = await get('/public/v1/orders', headers);
    expect(orders.statusCode).toBe(200);
    expect(orders.json()).toEqual([expect.objectContaining({ _id: order.json()._id, total: 1300, status: 'pending' })]);
    expect((await get('/public/v1/orders?status=delivered', headers)).json()).toEqual([]);
    expect((await get('/public/v1/orders?status=pending', headers)).json()).toHaveLength(1);
    expect((await get('/public/v1/orders?status=nope', headers)).statusCode).toBe(400);
    expect((await get('/public/v1/orders?from=2026-01-01&to=2026-03-01', headers)).statusCode).toBe(400);

    const r = await makeReservation(t.app, team.tenant);
    await makeReservation(t.app, other.tenant);
    const reservations = await get('/public/v1/reservations', headers);
    expect(reservations.statusCode).toBe(200);
    expect(reservations.json().map((x: { _id: string }) => x._id)).toEqual([r._id]);
    expect((await get(`/public/v1/reservations?date=${r.date}`, headers)).json()).toHaveLength(1);
    expect((await get('/public/v1/reservations?date=2099-01-01', headers)).json()).toEqual([]);
    expect((await get('/public/v1/reservations?date=31-12-2026', headers)).statusCode).toBe(400);
  });

  it('creates a reservation, validated like the panel\'s', async () => {
    const { team, headers } = await installed();
    const date = new Date(t.clock.now().getTime() + 3 * 86_400_000).toISOString().slice(0, 10);
    const payload = { customerName: 'Joana', customerPhone: '11987654321', date, time: '20:00', partySize: 4 };
    const created = await t.app.inject({ method: 'POST', url: '/public/v1/reservations', headers, payload });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ customerName: 'Joana', status: 'pending', partySize: 4 });
    const listed = await t.app.inject({ method: 'GET', url: `/t/${team.slug}/reservations`, headers: team.admin.headers });
    expect(listed.json().map((x: { _id: string }) => x._id)).toContain(created.json()._id);
    for (const bad of [{}, { ...payload, partySize: 0 }, { ...payload, date: 'tomorrow' }, { ...payload, extra: true }]) {
      const res = await t.app.inject({ method: 'POST', url: '/public/v1/reservations', headers, payload: bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
    }
    expect((await t.app.inject({ method: 'GET', url: `/t/${team.slug}/reservations`, headers: team.admin.headers })).json()).toHaveLength(1);
  });

  it('enforces the installation\'s scopes (403), a deliberate change from the spec', async () => {
    const { headers } = await installed(['menu.read']);
    expect((await get('/public/v1/menu/items', headers)).statusCode).toBe(200);
    for (const url of ['/public/v1/orders', '/public/v1/reservations']) {
      const res = await get(url, headers);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().code).toBe('scope');
    }
    const post = await t.app.inject({ method: 'POST', url: '/public/v1/reservations', headers, payload: {} });
    expect(post.statusCode).toBe(403);
  });

  it('answers 401 to a missing, malformed, unknown, wrong or revoked token, and to a panel JWT', async () => {
    const { team, token, headers, installation } = await installed(['menu.read']);
    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer not-a-token' },
      { authorization: `Bearer ${'a'.repeat(128)}` },
      // The right lookup part, the rest wrong: found, then bcrypt says no.
      { authorization: `Bearer ${token.slice(0, 16)}${'0'.repeat(112)}` },
      { authorization: `Basic ${token}` },
      team.admin.headers,
      { 'x-api-key': 'f'.repeat(64) },
    ];
    for (const h of cases) {
      const res = await get('/public/v1/menu/items', h);
      expect(res.statusCode, JSON.stringify(h)).toBe(401);
      expect(res.headers['x-ratelimit-limit']).toBe('200');
    }
    expect((await get('/public/v1/menu/items', headers)).statusCode).toBe(200);
    await t.app.inject({ method: 'DELETE', url: `/t/${team.slug}/admin/marketplace/installations/${installation._id}`, headers: team.admin.headers });
    expect((await get('/public/v1/menu/items', headers)).statusCode).toBe(401);
  });

  it('refuses the token of a deactivated tenant', async () => {
    const { team, headers } = await installed(['menu.read']);
    await t.app.inject({ method: 'PUT', url: `/api/superadmin/tenants/${team.tenant._id}/toggle`, headers: sa.headers });
    const res = await get('/public/v1/menu/items', headers);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('tenant_inactive');
  });
});

describe('rate limit (spec 8)', () => {
  it('counts 200 requests per rolling 60 s per credential, then 429 with Retry-After and a JSON body', async () => {
    const { headers } = await installed(['menu.read']);
    const other = await installed(['menu.read']);
    t.clock.set(new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 10_000));
    const start = Math.floor(t.clock.now().getTime() / 1000);
    // 100 now, 100 thirty seconds later.
    for (let i = 0; i < 100; i++) {
      const res = await get('/public/v1/menu/items', headers);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(199 - i));
      expect(res.headers['x-ratelimit-reset']).toBe(String(start + 60));
    }
    t.clock.advance(30_000);
    for (let i = 0; i < 100; i++) expect((await get('/public/v1/menu/items', headers)).statusCode).toBe(200);
    const askedAt = Math.floor(t.clock.now().getTime() / 1000);
    const over = await get('/public/v1/menu/items', headers);
    expect(over.statusCode).toBe(429);
    expect(over.headers['content-type']).toMatch(/^application\/json/);
    expect(over.json()).toEqual({ statusCode: 429, message: expect.any(String) });
    // The first 100 leave the window 60 s after their second (about 30 s from now; the test's clock runs).
    const wait = Number(over.headers['retry-after']);
    expect(wait).toBeLessThanOrEqual(start + 60 - askedAt);
    expect(wait).toBeGreaterThanOrEqual(start + 60 - askedAt - 1);
    expect(over.headers['x-ratelimit-limit']).toBe('200');
    expect(over.headers['x-ratelimit-remaining']).toBe('0');
    expect(over.headers['x-ratelimit-reset']).toBe(String(start + 60));
    // Another credential has its own budget.
    expect((await get('/public/v1/menu/items', other.headers)).statusCode).toBe(200);
    // Rolling: when the first 100 leave the window, 100 more are allowed, not 200.
    t.clock.advance(30_000);
    for (let i = 0; i < 100; i++) expect((await get('/public/v1/menu/items', headers)).statusCode).toBe(200);
    expect((await get('/public/v1/menu/items', headers)).statusCode).toBe(429);
  });

  it('limits bad tokens per address, without a lookup once the address is full, while verified Apps there go on', async () => {
    const known = await installed(['menu.read']);
    const fresh = await installed(['menu.read']);
    const from = { remoteAddress: '203.0.113.7' };
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/menu/items', headers: known.headers, ...from })).statusCode).toBe(200);
    const bad = { authorization: `Bearer ${'e'.repeat(128)}` };
    for (let i = 0; i < 200; i++) expect((await t.app.inject({ method: 'GET', url: '/public/v1/menu/items', headers: bad, ...from })).statusCode).toBe(401);
    const over = await t.app.inject({ method: 'GET', url: '/public/v1/menu/items', headers: bad, ...from });
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // Missing credentials from there are refused the same way.
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/menu/items', ...from })).statusCode).toBe(429);
    // The App this process verified keeps its own budget; one it never saw waits out the address's window.
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/menu/items', headers: known.headers, ...from })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/menu/items', headers: fresh.headers, ...from })).statusCode).toBe(429);
    // Other addresses are not affected.
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/menu/items', headers: fresh.headers, remoteAddress: '203.0.113.8' })).statusCode).toBe(200);
  });

  it('is shared by every process on the database', async () => {
    if (t.db.database.kind === 'pglite') return; // one process per PGlite data dir
    const second = await buildApp({ database: t.db.database, config: testConfig(), clock: t.clock, logger: false, jobs: { workers: false, poolSize: 1 } });
    await second.ready();
    try {
      const { headers } = await installed(['menu.read']);
      const apps: App[] = [t.app, second];
      const codes = await Promise.all(Array.from({ length: 210 }, (_, i) => apps[i % 2].inject({ method: 'GET', url: '/public/v1/menu/items', headers }).then((r) => r.statusCode)));
      expect(codes.filter((c) => c === 200)).toHaveLength(200);
      expect(codes.filter((c) => c === 429)).toHaveLength(10);
    } finally {
      await second.close();
    }
  });
});

describe('revocation', () => {
  it('refuses a revoked token at once in another process that had verified it', async () => {
    if (t.db.database.kind === 'pglite') return; // one process per PGlite data dir
    const second = await buildApp({ database: t.db.database, config: testConfig(), clock: t.clock, logger: false, jobs: { workers: false, poolSize: 1 } });
    await second.ready();
    try {
      const { team, headers, installation } = await installed(['menu.read']);
      expect((await second.inject({ method: 'GET', url: '/public/v1/menu/items', headers })).statusCode).toBe(200);
      const revoked = await t.app.inject({ method: 'DELETE', url: `/t/${team.slug}/admin/marketplace/installations/${installation._id}`, headers: team.admin.headers });
      expect(revoked.statusCode).toBe(200);
      expect((await second.inject({ method: 'GET', url: '/public/v1/menu/items', headers })).statusCode).toBe(401);
    } finally {
      await second.close();
    }
  });
});

describe('versioning (spec 9)', () => {
  it('marks a deprecated route with Sunset, Deprecation and Link, then 410 after its sunset', async () => {
    const { headers } = await installed();
    const before = await get('/public/v1/reservations', headers);
    expect(before.statusCode).toBe(200);
    expect(before.headers.deprecation).toBe('true');
    expect(before.headers.sunset).toBe(sunset.toUTCString());
    expect(before.headers.link).toBe('</public/v2/reservations>; rel="successor-version"');
    const fine = await get('/public/v1/menu/items', headers);
    expect(fine.headers.deprecation).toBeUndefined();

    t.clock.set(new Date(sunset.getTime() + 1000));
    const gone = await get('/public/v1/reservations', headers);
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({ statusCode: 410, code: 'sunset' });
    expect(gone.headers.sunset).toBe(sunset.toUTCString());
    expect((await get('/public/v1/menu/items', headers)).statusCode).toBe(200);
    t.clock.set(new Date());
  });

  it('announces the legacy key as deprecated, its successor the installation token', async () => {
    expect(LEGACY_KEY_SUCCESSOR).toMatch(/installation-tokens/);
  });
});

describe('the planned per-endpoint limits (PUBLIC_API_ENDPOINT_LIMITS=on)', () => {
  it('limit POST /public/v1/reservations to 10 a minute per credential beside the global limit', async () => {
    const own = await createTestApp({
      publicApi: { rateLimit: { limit: 200, windowMs: 60_000 }, endpointLimits: true, deprecations: {}, legacyKey: null },
    });
    try {
      const operator = await makeSuperadmin(own.app);
      const team = await makeTenantWithTeam(own.app);
      const a = await makePublishedApp(own.app, operator, { scopes: [...ALL] });
      const { headers } = await installApp(own.app, team, a.slug, [...ALL]);
      const date = new Date(own.clock.now().getTime() + 3 * 86_400_000).toISOString().slice(0, 10);
      const post = () =>
        own.app.inject({ method: 'POST', url: '/public/v1/reservations', headers, payload: { customerName: 'Rui', customerPhone: '11987654321', date, time: '19:00', partySize: 2 } });
      for (let i = 0; i < 10; i++) expect((await post()).statusCode).toBe(201);
      const over = await post();
      expect(over.statusCode).toBe(429);
      expect(over.headers['x-ratelimit-limit']).toBe('10');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      // The other routes keep their own budgets.
      expect((await own.app.inject({ method: 'GET', url: '/public/v1/reservations', headers })).json()).toHaveLength(10);
    } finally {
      await own.close();
    }
  });
});

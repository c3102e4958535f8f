import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installApp, makePublishedApp } from '../../../test/apps.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam, type TestUser } from '../../../test/factories.js';

let t: TestApp;
let sa: TestUser;
let team: Awaited<ReturnType<typeof makeTenantWithTeam>>;
beforeAll(async () => {
  t = await createTestApp();
  sa = await makeSuperadmin(t.app);
  team = await makeTenantWithTeam(t.app);
});
afterAll(() => t.close());

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BASE = '/api/superadmin/apps';
const slug = () => `app-${randomBytes(4).toString('hex')}`;
const unknownId = '0'.repeat(24);

type Headers = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PATCH', url: string, headers: Headers = sa.headers, payload?: object) =>
  t.app.inject({ method, url, headers, payload });

async function create(overrides: Record<string, unknown> = {}) {
  const body = { slug: slug(), name: 'Delivery Hub', description: 'Orders to couriers', scopes: ['orders.read', 'menu.read'], ...overrides };
  const res = await call('POST', BASE, sa.headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { app: { _id: string; slug: string; clientId: string; status: string }; clientSecret: string };
}

/** No answer carries a secret's hash (bcrypt hashes start with `$2`) nor a field that names one. */
function expectNoHash(body: string) {
  expect(body).not.toMatch(/\$2[aby]\$/);
  expect(body).not.toMatch(/hash/i);
}

describe('operator Apps: create (POST /api/superadmin/apps)', () => {
  it('creates a draft with a UUID v4 clientId; the client secret (64 hex) is answered once and stored as bcrypt only', async () => {
    const s = slug();
    const res = await call('POST', BASE, sa.headers, {
      slug: s,
      name: 'Kitchen Display',
      scopes: ['orders.read', 'webhooks.subscribe'],
      webhookUrl: 'https://kds.example.com/hooks',
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.clientSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(body.app).toMatchObject({
      slug: s,
      name: 'Kitchen Display',
      description: '',
      scopes: ['orders.read', 'webhooks.subscribe'],
      webhookUrl: 'https://kds.example.com/hooks',
      status: 'draft',
      publishedAt: null,
      deprecatedAt: null,
      activeInstallations: 0,
    });
    expect(body.app.clientId).toMatch(UUID_V4);
    expectNoHash(res.body);

    const raw = await t.app.deps.db.execute(sql`select client_secret_hash as v from apps where id = ${body.app._id}`);
    const hash = (raw as unknown as { rows: { v: string }[] }).rows[0].v;
    expect(hash).not.toBe(body.clientSecret);
    expect(await bcrypt.compare(body.clientSecret, hash)).toBe(true);

    // Never again: not on GET (one or all), PATCH or publish.
    const again = [
      await call('GET', `${BASE}/${body.app._id}`),
      await call('GET', BASE),
      await call('PATCH', `${BASE}/${body.app._id}`, sa.headers, { name: 'KDS' }),
      await call('POST', `${BASE}/${body.app._id}/publish`),
    ];
    for (const r of again) {
      expect(r.statusCode, r.body).toBe(200);
      expect(r.body).not.toContain(body.clientSecret);
      expect(r.body).not.toContain('clientSecret');
      expectNoHash(r.body);
    }
    // Two Apps never share a clientId or a secret.
    const other = await create();
    expect(other.app.clientId).not.toBe(body.app.clientId);
    expect(other.clientSecret).not.toBe(body.clientSecret);
  });

  it('refuses bad input with 400', async () => {
    const good = { slug: slug(), name: 'Ok', scopes: ['menu.read'] };
    const cases: [string, Record<string, unknown>][] = [
      ['bad slug (upper case)', { ...good, slug: 'Bad-Slug' }],
      ['bad slug (space)', { ...good, slug: 'bad slug' }],
      ['bad slug (trailing dash)', { ...good, slug: 'bad-' }],
      ['unknown scope', { ...good, scopes: ['menu.read', 'orders.write'] }],
      ['no scopes', { ...good, scopes: [] }],
      ['repeated scope', { ...good, scopes: ['menu.read', 'menu.read'] }],
      ['webhooks.subscribe without webhookUrl', { ...good, scopes: ['webhooks.subscribe'] }],
      ['webhooks.subscribe with a null webhookUrl', { ...good, scopes: ['webhooks.subscribe'], webhookUrl: null }],
      ['webhookUrl not a URL', { ...good, webhookUrl: 'not a url' }],
      ['webhookUrl not http(s)', { ...good, webhookUrl: 'ftp://example.com/hooks' }],
      ['empty name', { ...good, name: '' }],
      ['missing name', { slug: good.slug, scopes: good.scopes }],
      ['unknown field', { ...good, clientSecret: 'mine' }],
    ];
    for (const [what, body] of cases) {
      const res = await call('POST', BASE, sa.headers, body);
      expect(res.statusCode, what).toBe(400);
    }
    const noUrl = await call('POST', BASE, sa.headers, { ...good, scopes: ['webhooks.subscribe'] });
    expect(noUrl.json().details).toEqual([expect.objectContaining({ field: 'body.webhookUrl' })]);
    // None of them was created.
    expect((await call('GET', BASE)).json().map((a: { slug: string }) => a.slug)).not.toContain(good.slug);
    expect((await call('POST', BASE, sa.headers, good)).statusCode).toBe(201);
  });

  it('answers 409 to a slug that exists (draft, published or deprecated)', async () => {
    const draft = await create();
    const res = await call('POST', BASE, sa.headers, { slug: draft.app.slug, name: 'Copy', scopes: ['menu.read'] });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('slug_taken');
    const gone = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    await t.app.services.catalog.deprecate(gone.slug);
    expect((await call('POST', BASE, sa.headers, { slug: gone.slug, name: 'Again', scopes: ['menu.read'] })).statusCode).toBe(409);
  });
});

describe('operator Apps: list, read, update, publish', () => {
  it('lists every App with its status and active installations', async () => {
    const draft = await create();
    const published = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    const other = await makeTenantWithTeam(t.app);
    await installApp(t.app, team, published.slug, ['menu.read']);
    await installApp(t.app, other, published.slug, ['menu.read']);
    const res = await call('GET', BASE);
    expect(res.statusCode).toBe(200);
    const bySlug = new Map(res.json().map((a: { slug: string }) => [a.slug, a]));
    expect(bySlug.get(draft.app.slug)).toMatchObject({ status: 'draft', activeInstallations: 0 });
    expect(bySlug.get(published.slug)).toMatchObject({ status: 'published', activeInstallations: 2 });
    expectNoHash(res.body);
    const one = await call('GET', `${BASE}/${published.id}`);
    expect(one.json()).toMatchObject({ _id: published.id, status: 'published', activeInstallations: 2, publishedAt: expect.any(String) });
  });

  it('reads one App; 404 for an unknown id, 400 for a malformed one', async () => {
    const { app } = await create();
    const res = await call('GET', `${BASE}/${app._id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ _id: app._id, slug: app.slug, clientId: app.clientId, status: 'draft' });
    expect((await call('GET', `${BASE}/${unknownId}`)).statusCode).toBe(404);
    expect((await call('GET', `${BASE}/nope`)).statusCode).toBe(400);
  });

  it('updates name, description, scopes and webhook URL, with the same rules as creation', async () => {
    const { app } = await create({ scopes: ['menu.read'] });
    const url = `${BASE}/${app._id}`;
    const res = await call('PATCH', url, sa.headers, { name: 'Renamed', description: 'New words', scopes: ['menu.read', 'webhooks.subscribe'], webhookUrl: 'https://x.example.com/h' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Renamed', description: 'New words', scopes: ['menu.read', 'webhooks.subscribe'], webhookUrl: 'https://x.example.com/h' });
    expect((await call('GET', url)).json()).toMatchObject({ name: 'Renamed', slug: app.slug, clientId: app.clientId });

    const bad: [string, Record<string, unknown>][] = [
      ['unknown scope', { scopes: ['menu.delete'] }],
      ['no scopes', { scopes: [] }],
      ['webhook URL removed while webhooks.subscribe stays', { webhookUrl: null }],
      ['bad URL', { webhookUrl: 'http//broken' }],
      ['empty name', { name: '' }],
      ['slug is not editable', { slug: 'other' }],
    ];
    for (const [what, body] of bad) expect((await call('PATCH', url, sa.headers, body)).statusCode, what).toBe(400);
    // Dropping the scope lets the URL go.
    const dropped = await call('PATCH', url, sa.headers, { scopes: ['menu.read'], webhookUrl: null });
    expect(dropped.statusCode, dropped.body).toBe(200);
    expect(dropped.json()).toMatchObject({ scopes: ['menu.read'], webhookUrl: null });
    // webhooks.subscribe needs a URL when added too.
    expect((await call('PATCH', url, sa.headers, { scopes: ['webhooks.subscribe'] })).statusCode).toBe(400);
    expect((await call('PATCH', `${BASE}/${unknownId}`, sa.headers, { name: 'X' })).statusCode).toBe(404);
  });

  it('publishes a draft once: a repeat keeps the first publishedAt', async () => {
    const { app } = await create();
    const first = await call('POST', `${BASE}/${app._id}/publish`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ status: 'published', publishedAt: expect.any(String) });
    t.clock.advance(60_000);
    const again = await call('POST', `${BASE}/${app._id}/publish`);
    expect(again.statusCode).toBe(200);
    expect(again.json().publishedAt).toBe(first.json().publishedAt);
    expect((await call('POST', `${BASE}/${unknownId}/publish`)).statusCode).toBe(404);
  });

  it('refuses to publish or edit a deprecated App (409)', async () => {
    const a = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    const draft = await create();
    await t.app.services.catalog.deprecate(a.slug);
    await t.app.services.catalog.deprecate(draft.app.slug);
    for (const id of [a.id, draft.app._id]) {
      const publish = await call('POST', `${BASE}/${id}/publish`);
      expect(publish.statusCode).toBe(409);
      expect(publish.json().code).toBe('app_deprecated');
      const patch = await call('PATCH', `${BASE}/${id}`, sa.headers, { name: 'Back' });
      expect(patch.statusCode).toBe(409);
      expect(patch.json().code).toBe('app_deprecated');
      expect((await call('GET', `${BASE}/${id}`)).json()).toMatchObject({ status: 'deprecated', deprecatedAt: expect.any(String) });
    }
  });
});

describe('operator Apps: who may call', () => {
  it('answers 401 without a token and 403 to a tenant admin, on every route', async () => {
    const { app } = await create();
    const routes: ['GET' | 'POST' | 'PATCH', string, object?][] = [
      ['GET', BASE],
      ['POST', BASE, { slug: slug(), name: 'X', scopes: ['menu.read'] }],
      ['GET', `${BASE}/${app._id}`],
      ['PATCH', `${BASE}/${app._id}`, { name: 'Hijacked' }],
      ['POST', `${BASE}/${app._id}/publish`],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, { authorization: 'Bearer nope' }, body)).statusCode, `${method} ${url}`).toBe(401);
      const forbidden = await call(method, url, team.admin.headers, body);
      expect(forbidden.statusCode, `${method} ${url}`).toBe(403);
    }
    // Nothing changed.
    expect((await call('GET', `${BASE}/${app._id}`)).json()).toMatchObject({ name: 'Delivery Hub', status: 'draft' });
  });
});

describe('the tenant admin\'s marketplace (spec 4.1)', () => {
  it('lists published Apps only, without operator fields; a draft or deprecated App is 404', async () => {
    const published = await makePublishedApp(t.app, sa, { scopes: ['menu.read', 'orders.read'] });
    const draft = await create();
    const retired = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    const base = `/t/${team.slug}/admin/marketplace/apps`;

    const before = await call('GET', base, team.admin.headers);
    expect(before.json().map((a: { slug: string }) => a.slug)).toContain(retired.slug);
    expect((await call('GET', `${base}/${retired.slug}`, team.admin.headers)).statusCode).toBe(200);
    await t.app.services.catalog.deprecate(retired.slug);

    const list = await call('GET', base, team.admin.headers);
    expect(list.statusCode).toBe(200);
    const slugs = list.json().map((a: { slug: string }) => a.slug);
    expect(slugs).toContain(published.slug);
    expect(slugs).not.toContain(draft.app.slug);
    expect(slugs).not.toContain(retired.slug);
    for (const a of list.json()) expect(a.status).toBe('published');
    expectNoHash(list.body);
    expect(list.body).not.toContain('activeInstallations');

    const one = await call('GET', `${base}/${published.slug}`, team.admin.headers);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ slug: published.slug, status: 'published', scopes: ['menu.read', 'orders.read'] });
    expect(one.json().clientId).toMatch(UUID_V4);
    expectNoHash(one.body);
    for (const s of [draft.app.slug, retired.slug, 'no-such-app']) {
      expect((await call('GET', `${base}/${s}`, team.admin.headers)).statusCode, s).toBe(404);
    }
  });

  it('is for the tenant\'s admins: 401 without a token, 403 for staff and another tenant\'s admin', async () => {
    const a = await makePublishedApp(t.app, sa, { scopes: ['menu.read'] });
    const other = await makeTenantWithTeam(t.app);
    for (const url of [`/t/${team.slug}/admin/marketplace/apps`, `/t/${team.slug}/admin/marketplace/apps/${a.slug}`]) {
      expect((await call('GET', url, team.admin.headers)).statusCode, url).toBe(200);
      expect((await call('GET', url, {})).statusCode, url).toBe(401);
      expect((await call('GET', url, team.staff.headers)).statusCode, url).toBe(403);
      expect((await call('GET', url, other.admin.headers)).statusCode, url).toBe(403);
    }
  });
});

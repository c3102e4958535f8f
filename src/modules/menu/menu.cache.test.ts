import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildApp, type App } from '../../app.js';
import { menuVersions } from '../../db/schema/menu.js';
import { createTestApp, testConfig, type TestApp } from '../../../test/app.js';
import { makeCategory, makeMenuItem, makeModifierGroup, makeTenantWithTeam } from '../../../test/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (url: string, etag?: string, app: App = t.app) =>
  app.inject({ url, headers: etag ? { 'if-none-match': etag } : {} });

describe('public menu caching', () => {
  it('sends Cache-Control and an ETag on every public read, and 304 for a current If-None-Match', async () => {
    const { tenant, slug } = await makeTenantWithTeam(t.app);
    const item = await makeMenuItem(t.app, tenant, { modifierGroupIds: [(await makeModifierGroup(t.app, tenant))._id] });
    for (const url of [`/t/${slug}/menu/categories`, `/t/${slug}/menu/items`, `/t/${slug}/menu/items?category=${item.category}`, `/t/${slug}/menu/items/${item._id}`, `/t/${slug}/menu/modifier-groups`]) {
      const first = await get(url);
      expect(first.statusCode, url).toBe(200);
      expect(first.headers['cache-control']).toBe('public, max-age=60');
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(first.headers['content-type']).toBe('application/json; charset=utf-8');

      const again = await get(url, etag);
      expect(again.statusCode, url).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['cache-control']).toBe('public, max-age=60');

      expect((await get(url, `W/${etag}`)).statusCode).toBe(304);
      expect((await get(url, `"stale", ${etag}`)).statusCode).toBe(304);
      expect((await get(url, '*')).statusCode).toBe(304);
      const other = await get(url, '"something-else"');
      expect(other.statusCode).toBe(200);
      expect(other.body).toBe(first.body);
    }
  });

  it('shows an admin write on the very next read, with a new ETag', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const item = await makeMenuItem(t.app, tenant, { price: 5000 });
    const list = await get(`/t/${slug}/menu/items`);
    const detail = await get(`/t/${slug}/menu/items/${item._id}`);
    const cats = await get(`/t/${slug}/menu/categories`);

    const put = await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${item._id}`, headers: admin.headers, payload: { price: 5500 } });
    expect(put.statusCode).toBe(200);
    const list2 = await get(`/t/${slug}/menu/items`, list.headers.etag as string);
    expect(list2.statusCode).toBe(200);
    expect(list2.json()[0].price).toBe(5500);
    expect(list2.headers.etag).not.toBe(list.headers.etag);
    const detail2 = await get(`/t/${slug}/menu/items/${item._id}`, detail.headers.etag as string);
    expect(detail2.statusCode).toBe(200);
    expect(detail2.json().price).toBe(5500);
    // Nothing about categories changed: their representation, and so their ETag, is the same.
    expect((await get(`/t/${slug}/menu/categories`, cats.headers.etag as string)).statusCode).toBe(304);

    // Hiding the category hides its items at once.
    await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/categories/${item.category}`, headers: admin.headers, payload: { isActive: false } });
    expect((await get(`/t/${slug}/menu/items`, list2.headers.etag as string)).json()).toEqual([]);
    expect((await get(`/t/${slug}/menu/categories`, cats.headers.etag as string)).json()).toEqual([]);
  });

  it('refreshes an item detail when one of its modifier groups changes', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const g = await makeModifierGroup(t.app, tenant, { name: 'Ponto' });
    const item = await makeMenuItem(t.app, tenant, { modifierGroupIds: [g._id] });
    const before = await get(`/t/${slug}/menu/items/${item._id}`);
    const groups = await get(`/t/${slug}/menu/modifier-groups`);
    await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/modifier-groups/${g._id}`, headers: admin.headers, payload: { name: 'Ponto da carne' } });
    const after = await get(`/t/${slug}/menu/items/${item._id}`, before.headers.etag as string);
    expect(after.statusCode).toBe(200);
    expect(after.json().variations[0].name).toBe('Ponto da carne');
    expect((await get(`/t/${slug}/menu/modifier-groups`, groups.headers.etag as string)).json()[0].name).toBe('Ponto da carne');
  });

  it('keeps tenants apart in the cache, even when both menus are at the same version', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    // The same writes, in the same order, in both tenants: their menu versions are equal, and the
    // public reads below are the same requests apart from the slug. Only the tenant in the cache key
    // keeps one tenant's body from being served to the other.
    for (const [team, label] of [[a, 'A'], [b, 'B']] as const) {
      const category = await makeCategory(t.app, team.tenant, { name: `Pratos do ${label}` });
      const group = await makeModifierGroup(t.app, team.tenant, { name: `Ponto do ${label}` });
      await makeMenuItem(t.app, team.tenant, { name: `Só do ${label}`, category: category._id, modifierGroupIds: [group._id] });
    }
    // Each tenant's version, read with its own handle (the shared handle sees no tenant rows).
    const versions = (
      await Promise.all(
        [a.tenant._id, b.tenant._id].map((id) =>
          t.app.deps.tenantDb(id).run((tx) =>
            tx.db.select({ tenantId: menuVersions.tenantId, version: menuVersions.version }).from(menuVersions).where(eq(menuVersions.tenantId, id)),
          ),
        ),
      )
    ).flat();
    expect(versions).toHaveLength(2);
    expect(versions[0].version).toBeGreaterThan(0);
    expect(versions[1].version).toBe(versions[0].version);

    const names = (body: { name: string }[]) => body.map((x) => x.name);
    const reads = [
      { path: 'menu/categories', of: (l: string) => [`Pratos do ${l}`] },
      { path: 'menu/items', of: (l: string) => [`Só do ${l}`] },
      { path: 'menu/modifier-groups', of: (l: string) => [`Ponto do ${l}`] },
    ];
    for (const r of reads) {
      // A first (fills the cache), then B, then A again: each sees only its own menu.
      const fromA = await get(`/t/${a.slug}/${r.path}`);
      expect(fromA.statusCode, r.path).toBe(200);
      expect(names(fromA.json()), r.path).toEqual(r.of('A'));
      const fromB = await get(`/t/${b.slug}/${r.path}`);
      expect(fromB.statusCode, r.path).toBe(200);
      expect(names(fromB.json()), r.path).toEqual(r.of('B'));
      expect(fromB.headers.etag, r.path).not.toBe(fromA.headers.etag);
      // A's ETag is not current for B's menu.
      expect((await get(`/t/${b.slug}/${r.path}`, fromA.headers.etag as string)).statusCode, r.path).toBe(200);
      expect(names((await get(`/t/${a.slug}/${r.path}`)).json()), r.path).toEqual(r.of('A'));
    }
  });

  it('is never stale in another process: a second app on the same database sees the write at once', async () => {
    const other = await buildApp({ database: t.db.database, config: testConfig(), clock: t.clock, logger: false });
    await other.ready();
    try {
      const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
      const c = await makeCategory(t.app, tenant, { name: 'Bebidas' });
      const warm = await get(`/t/${slug}/menu/categories`, undefined, other);
      expect(warm.json().map((x: { name: string }) => x.name)).toEqual(['Bebidas']);
      expect((await get(`/t/${slug}/menu/categories`, warm.headers.etag as string, other)).statusCode).toBe(304);

      await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/categories/${c._id}`, headers: admin.headers, payload: { name: 'Bebidas geladas' } });
      const fresh = await get(`/t/${slug}/menu/categories`, warm.headers.etag as string, other);
      expect(fresh.statusCode).toBe(200);
      expect(fresh.json()[0].name).toBe('Bebidas geladas');
    } finally {
      await other.close();
    }
  });

  it('does not cache a 404', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const item = await makeMenuItem(t.app, tenant, { isActive: false });
    const missing = await get(`/t/${slug}/menu/items/${item._id}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
    await t.app.inject({ method: 'PUT', url: `/t/${slug}/menu/items/${item._id}`, headers: admin.headers, payload: { isActive: true } });
    expect((await get(`/t/${slug}/menu/items/${item._id}`)).statusCode).toBe(200);
  });

  it('answers 403 for a deactivated tenant and 404 for an unknown one', async () => {
    const { tenant, slug } = await makeTenantWithTeam(t.app);
    await t.app.services.tenants.toggle(tenant._id);
    expect((await get(`/t/${slug}/menu/items`)).statusCode).toBe(403);
    expect((await get('/t/does-not-exist/menu/categories')).statusCode).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('documents every menu, table and reservation route', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json();
    const expected: Record<string, string[]> = {
      '/t/{slug}/menu/categories': ['get', 'post'],
      '/t/{slug}/menu/categories/{id}': ['put', 'delete'],
      '/t/{slug}/menu/items': ['get', 'post'],
      '/t/{slug}/menu/items/{id}': ['get', 'put', 'delete'],
      '/t/{slug}/menu/modifier-groups': ['get', 'post'],
      '/t/{slug}/menu/modifier-groups/{id}': ['put', 'delete'],
      '/t/{slug}/admin/menu/categories': ['get'],
      '/t/{slug}/admin/menu/items': ['get'],
      '/t/{slug}/tables': ['get', 'post'],
      '/t/{slug}/tables/{id}': ['put', 'delete'],
      '/t/{slug}/reservations': ['get', 'post'],
      '/t/{slug}/reservations/{id}': ['put', 'delete'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      for (const m of methods) expect(doc.paths[path]?.[m], `${m} ${path}`).toBeDefined();
    }
    expect(doc.paths['/t/{slug}/menu/items'].get.security).toEqual([]);
    expect(doc.paths['/t/{slug}/menu/items'].get.responses['304']).toBeDefined();
    expect(doc.paths['/t/{slug}/reservations'].post.responses['429']).toBeDefined();
  });
});

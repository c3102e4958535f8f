import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './app.js';
import { installApp, makePublishedApp } from './apps.js';
import { makeCategory, makeMenuItem, makeReservation, makeSuperadmin, makeTenantWithTeam, makeUser } from './factories.js';
import { recordRoutes, type RegisteredRoute } from './route-registry.js';

/**
 * Pagination maximums on every list (issue 20, "Limits"). Read from the registered routes and /openapi.json: every GET
 * whose 200 is an array (or a page: `{ data | items, total, ... }`) declares a `limit` query parameter with a
 * `maximum`, or is below in BOUNDED with the reason its size cannot grow with the business. A new unbounded list fails.
 * Then the helper (src/platform/pagination.ts) through HTTP on real lists: over the maximum is a 400, page 2 is the next
 * rows, X-Total-Count is the full count, `Link` rel="next" while rows remain, and the order is stable.
 */

/** Lists bounded by nature, by OpenAPI path: why they need no `limit`. */
const BOUNDED: Record<string, string> = {
  '/t/{slug}/pdvs': "the caller's PDVs: the PDVs of a tenant, a handful per branch",
  '/api/t/{slug}/admin/branches/{id}/pdvs': 'the PDVs of one branch: a handful',
  '/api/t/{slug}/admin/branches/{id}/shifts/active': 'the open shifts of one branch: at most one per PDV',
  '/t/{slug}/menu/categories': 'menu categories: tens',
  '/t/{slug}/menu/items':
    "the customer menu: one cached body (ETag) the guest's page needs whole; the panel's and the public API's item lists are paged",
  '/t/{slug}/menu/modifier-groups': 'modifier groups of the menu: tens',
  '/t/{slug}/admin/menu/categories': 'menu categories: tens',
  '/t/{slug}/tables': "the restaurant's physical tables: tens",
  '/t/{slug}/orders/{id}/payments': "one order's payment ledger: the few attempts and refunds of one bill",
  '/t/{slug}/inventory/alerts': 'capped at 50 by the service (the most urgent)',
  '/t/{slug}/inventory/ingredients': "one menu item's recipe: tens of lines",
  '/t/{slug}/inventory/predictions/demand': 'a forecast per menu item that sold over the horizon: a report bounded by the menu',
  '/t/{slug}/inventory/predictions/suggestions': 'one line per recipe ingredient: a report bounded by the recipes',
  '/t/{slug}/inventory/predictions/suggested-orders': 'capped at 20 (the newest)',
  '/t/{slug}/accounting/chart': 'the chart of accounts: about a hundred accounts',
  '/t/{slug}/accounting/ledger/balancete': 'one row per account with lines in a month: bounded by the chart',
  '/t/{slug}/accounting/ledger/razao':
    'a report of one account between two dates with a running balance (a page would need the balance carried); bounded by the range asked',
  '/t/{slug}/accounting/ledger/periods': 'one row per month with entries: twelve a year',
  '/t/{slug}/accounting/mappings': 'account mappings: one per posting kind',
  '/t/{slug}/accounting/bank': "the tenant's bank accounts: a handful",
  '/t/{slug}/dre/categories': 'expense categories: tens',
  '/t/{slug}/dre/cost-centers': 'cost centers: tens',
  '/api/superadmin/apps': 'the marketplace catalog: Apps the platform reviews and publishes by hand',
  '/t/{slug}/admin/marketplace/apps': 'the published marketplace catalog: Apps the platform reviews and publishes by hand',
  '/t/{slug}/marketplace/integrations': 'delivery platform integrations: one per provider (three)',
  '/t/{slug}/marketplace/orders/{orderId}/pushes': "one platform order's status changes: a handful",
};

type Schema = { $ref?: string; type?: string; properties?: Record<string, Schema>; maximum?: number; default?: number };
interface Parameter {
  in: string;
  name: string;
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const resolve = (doc: Doc, s: Schema | undefined): Schema | undefined => {
  let out = s;
  while (out?.$ref) out = doc.components.schemas[out.$ref.replace('#/components/schemas/', '')];
  return out;
};
/** `/t/:slug/x/:id` as /openapi.json writes it: `/t/{slug}/x/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

let t: TestApp;
let routes: RegisteredRoute[];
beforeAll(async () => {
  const recorded = await recordRoutes(() => createTestApp());
  t = recorded.result;
  routes = recorded.routes;
});
afterAll(() => t?.close());

describe('every list has a pagination maximum', () => {
  it('each GET answering an array or a page declares `limit` with a maximum, or is a bounded list with its reason', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json() as Doc;
    const lists: string[] = [];
    const unbounded: string[] = [];
    const gets = routes.filter((r) => r.method === 'GET' && !r.hidden);
    expect(gets.length).toBeGreaterThan(50);
    for (const route of gets) {
      const path = openApiPath(route.url);
      const op = doc.paths[path]?.get;
      if (!op) continue;
      const content = op.responses['200']?.content;
      const schema = resolve(doc, content && Object.values(content)[0]?.schema);
      const isArray = schema?.type === 'array';
      // A page: `{ data | items: [...], total, ... }` (journal, audit, branches; expenses and webhook deliveries say `items`).
      const props = schema?.type === 'object' ? (schema.properties ?? {}) : {};
      // (An order has a `total` and `items` too: a page also says which page it is.)
      const isPage = !!props.total && !!(props.page ?? props.totalPages ?? props.pages) && Object.values(props).some((p) => resolve(doc, p)?.type === 'array');
      if (!isArray && !isPage) continue;
      lists.push(path);
      const limit = op.parameters?.find((p) => p.in === 'query' && p.name === 'limit');
      if (limit) {
        expect(limit.schema.maximum, `${path}: limit without a maximum`).toBeTypeOf('number');
        if (limit.schema.default !== undefined) expect(limit.schema.default, path).toBeLessThanOrEqual(limit.schema.maximum!);
        continue;
      }
      if (!BOUNDED[path]) unbounded.push(path);
    }
    expect(lists.length).toBeGreaterThan(30);
    expect(unbounded, 'lists without a `limit` maximum: page them (src/platform/pagination.ts) or add them to BOUNDED with a reason').toEqual([]);
    // A bounded entry that is no longer a list (or now has a limit) is stale.
    const paged = new Set(lists.filter((p) => doc.paths[p]!.get!.parameters?.some((x) => x.in === 'query' && x.name === 'limit')));
    expect(Object.keys(BOUNDED).filter((p) => !lists.includes(p) || paged.has(p)), 'stale BOUNDED entries').toEqual([]);
  });
});

type Headers = Record<string, string>;
const ids = (res: LightMyRequestResponse) => (res.json() as { _id: string }[]).map((r) => r._id);

/** Pages of `limit` rows through a list: each page's ids, the header of each, and the whole list in one request. */
async function walk(url: string, headers: Headers, limit: number) {
  const whole = await t.app.inject({ url, headers });
  expect(whole.statusCode, whole.body).toBe(200);
  const pages: LightMyRequestResponse[] = [];
  for (let page = 1; ; page++) {
    const res = await t.app.inject({ url: `${url}${url.includes('?') ? '&' : '?'}page=${page}&limit=${limit}`, headers });
    expect(res.statusCode, res.body).toBe(200);
    pages.push(res);
    if (!res.headers.link) break;
    expect(page).toBeLessThan(100);
  }
  return { whole, pages };
}

async function expectPaged(url: string, headers: Headers, opts: { maximum: number; atLeast: number }) {
  const over = await t.app.inject({ url: `${url}${url.includes('?') ? '&' : '?'}limit=${opts.maximum + 1}`, headers });
  expect(over.statusCode, over.body).toBe(400);
  expect((await t.app.inject({ url: `${url}${url.includes('?') ? '&' : '?'}limit=0`, headers })).statusCode).toBe(400);
  expect((await t.app.inject({ url: `${url}${url.includes('?') ? '&' : '?'}page=0`, headers })).statusCode).toBe(400);

  const { whole, pages } = await walk(url, headers, 2);
  const all = ids(whole);
  expect(all.length).toBeGreaterThanOrEqual(opts.atLeast);
  // X-Total-Count is the full count, on every page; the whole list fits in the default (the maximum).
  expect(whole.headers['x-total-count']).toBe(String(all.length));
  for (const p of pages) expect(p.headers['x-total-count']).toBe(String(all.length));
  // Page 2 holds the next rows; the pages together are the list, in the same order, with nothing twice.
  expect(pages.flatMap(ids)).toEqual(all);
  expect(ids(pages[1]!)).toEqual(all.slice(2, 4));
  // rel="next" points at the next page, and only while rows remain.
  expect(pages[0]!.headers.link).toMatch(/<[^>]*[?&]page=2[^>]*>; rel="next"/);
  expect(pages.at(-1)!.headers.link).toBeUndefined();
  // Stable: the same request answers the same rows in the same order.
  expect(ids(await t.app.inject({ url: `${url}${url.includes('?') ? '&' : '?'}page=2&limit=2`, headers }))).toEqual(ids(pages[1]!));
  // Past the end: an empty page, the count still given.
  const past = await t.app.inject({ url: `${url}${url.includes('?') ? '&' : '?'}page=1000&limit=2`, headers });
  expect(past.json()).toEqual([]);
  expect(past.headers['x-total-count']).toBe(String(all.length));
}

describe('paged lists through HTTP', () => {
  it('suppliers with the same name: pages in a stable order (the id breaks the tie)', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/t/${team.slug}/inventory/suppliers`,
        headers: team.admin.headers,
        payload: { name: 'Distribuidora Igual' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    await expectPaged(`/t/${team.slug}/inventory/suppliers`, team.admin.headers, { maximum: 500, atLeast: 5 });
    // A filter counts only what it matches.
    const inactive = await t.app.inject({ url: `/t/${team.slug}/inventory/suppliers?active=false`, headers: team.admin.headers });
    expect(inactive.json()).toEqual([]);
    expect(inactive.headers['x-total-count']).toBe('0');
  });

  it("the tenant's users", async () => {
    const team = await makeTenantWithTeam(t.app);
    for (let i = 0; i < 3; i++) await makeUser(t.app, team.tenant, 'staff');
    await expectPaged(`/t/${team.slug}/users`, team.admin.headers, { maximum: 500, atLeast: 6 });
  });

  it('reservations at the same date and time', async () => {
    const team = await makeTenantWithTeam(t.app);
    for (let i = 0; i < 5; i++) await makeReservation(t.app, team.tenant, { time: '20:00' });
    await expectPaged(`/t/${team.slug}/reservations`, team.admin.headers, { maximum: 500, atLeast: 5 });
  });

  it("the superadmin's tenants", async () => {
    const superadmin = await makeSuperadmin(t.app);
    for (let i = 0; i < 2; i++) await makeTenantWithTeam(t.app);
    await expectPaged('/api/superadmin/tenants', superadmin.headers, { maximum: 500, atLeast: 2 });
  });

  it('the public API: still arrays, as many rows as before by default, and pages past them', async () => {
    const team = await makeTenantWithTeam(t.app);
    const superadmin = await makeSuperadmin(t.app);
    const installed = await installApp(t.app, team, (await makePublishedApp(t.app, superadmin, { scopes: ['menu.read', 'orders.read'] })).slug, [
      'menu.read',
      'orders.read',
    ]);
    const category = (await makeCategory(t.app, team.tenant))._id;
    for (let i = 0; i < 5; i++) await makeMenuItem(t.app, team.tenant, { category, name: 'Prato igual' });
    await expectPaged('/public/v1/menu/items', installed.headers, { maximum: 1000, atLeast: 5 });
    const orders = await t.app.inject({ url: '/public/v1/orders?limit=1001', headers: installed.headers });
    expect(orders.statusCode).toBe(400);
    const none = await t.app.inject({ url: '/public/v1/orders', headers: installed.headers });
    expect(none.json()).toEqual([]);
    expect(none.headers['x-total-count']).toBe('0');
  });
});

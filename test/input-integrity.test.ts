import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { createTestApp, type TestApp } from './app.js';
import { makeCategory, makeMenuItem, makePdv, makeTable, makeTenantWithTeam, makeUser } from './factories.js';
import { installErrorHandling } from '../src/platform/http.js';
import { Body } from '../src/platform/schemas.js';
import { installValidators } from '../src/platform/validation.js';

/**
 * Access integrity (issue 7): text PostgreSQL cannot store, fields a route does not know and dates far
 * from today are all a 400 naming the field, decided once in the validator for every route.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, headers: object = {}, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: { ...(headers as Record<string, string>), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });

function expectFieldError(res: Awaited<ReturnType<typeof call>>, field: string, message?: RegExp) {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json();
  expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'validation' });
  expect(body.details).toEqual([{ field, message: expect.any(String) }]);
  if (message) expect(body.details[0].message).toMatch(message);
  expect(body.message).toContain(field);
}

async function restaurant() {
  const team = await makeTenantWithTeam(t.app);
  const pdv = await makePdv(t.app, team.tenant);
  const category = await makeCategory(t.app, team.tenant);
  const dish = await makeMenuItem(t.app, team.tenant, { category: category._id });
  const table = await makeTable(t.app, team.tenant);
  return { ...team, pdv, category, dish, table };
}

describe('NUL characters and lone surrogates', () => {
  const NUL = /NUL/;
  const SURROGATE = /surrogate/;

  it('are a 400 naming the field on login, never a 500', async () => {
    const user = await makeUser(t.app, null);
    expectFieldError(await call('POST', '/auth/login', {}, { email: `${user.email}\u0000`, password: 'x'.repeat(10) }), 'body.email', NUL);
    expectFieldError(await call('POST', '/auth/login', {}, { email: user.email, password: 'correct\u0000horse' }), 'body.password', NUL);
    expectFieldError(await call('POST', '/auth/login', {}, { email: user.email, password: 'correct-horse\ud800' }), 'body.password', SURROGATE);
  });

  it('are a 400 on a public reservation and a guest order, nested fields named by their path', async () => {
    const r = await restaurant();
    const reservation = { customerName: 'Ana', customerPhone: '11987654321', date: '2030-06-01', time: '20:00', partySize: 2 };
    expectFieldError(await call('POST', `/t/${r.slug}/reservations`, {}, { ...reservation, customerName: 'An\u0000a' }), 'body.customerName', NUL);
    expectFieldError(await call('POST', `/t/${r.slug}/reservations`, {}, { ...reservation, notes: 'janela \udc00' }), 'body.notes', SURROGATE);

    const guest = { pdv: r.pdv.slug, customerName: 'Rita', paymentMethod: 'cash', orderType: 'takeout', items: [{ menuItemId: r.dish._id, quantity: 1 }] };
    expectFieldError(await call('POST', `/t/${r.slug}/orders`, {}, { ...guest, customerName: '\u0000' }), 'body.customerName', NUL);
    expectFieldError(
      await call('POST', `/t/${r.slug}/orders`, {}, { ...guest, items: [{ menuItemId: r.dish._id, quantity: 1, notes: 'sem \u0000 cebola' }] }),
      'body.items.0.notes',
      NUL,
    );
    expectFieldError(
      await call('POST', `/t/${r.slug}/orders`, {}, { ...guest, items: [{ menuItemId: r.dish._id, quantity: 1, allergens: ['glúten', 'soja\ud83d'] }] }),
      'body.items.0.allergens.1',
      SURROGATE,
    );
    // Nothing was written.
    expect((await call('GET', `/t/${r.slug}/orders`, r.staff.headers)).json()).toEqual([]);
  });

  it('are a 400 in names written by staff, in object keys, in params and in the query string', async () => {
    const r = await restaurant();
    expectFieldError(await call('POST', `/t/${r.slug}/menu/categories`, r.admin.headers, { name: 'Bebidas\u0000' }), 'body.name', NUL);
    expectFieldError(await call('PUT', `/t/${r.slug}/menu/categories/${r.category._id}`, r.admin.headers, { name: '\udfff' }), 'body.name', SURROGATE);
    expectFieldError(await call('POST', `/t/${r.slug}/tables`, r.admin.headers, { number: 90, capacity: 4, location: 'varanda\u0000' }), 'body.location', NUL);
    // A key is checked like a value (and named printably).
    const key = await call('POST', `/t/${r.slug}/menu/categories`, r.admin.headers, { name: 'Bebidas', 'x\u0000y': 1 });
    expectFieldError(key, 'body.x\\u0000y', /name must not contain NUL/);
    // Path parameters and the query string.
    expectFieldError(await call('GET', `/t/${r.slug}/menu/items/${'a'.repeat(23)}%00`), 'params.id', NUL);
    expectFieldError(await call('GET', `/t/${r.slug}/orders/20260101-0001%00/track`), 'params.number', NUL);
    // A slug is checked by the guard before anything reads it: not a tenant.
    expect((await call('GET', '/t/a%00b/menu/items')).statusCode).toBe(404);
    expectFieldError(await call('GET', `/t/${r.slug}/orders?status=%00`, r.staff.headers), 'querystring.status', NUL);
    expectFieldError(await call('GET', `/t/${r.slug}/orders?_=1%00`, r.staff.headers), 'querystring._', NUL);
  });

  it('still accepts real text: accents, emoji (surrogate pairs) and other control-free Unicode', async () => {
    const r = await restaurant();
    const name = 'Açaí 🍧 na tigela — 500 ml';
    const res = await call('POST', `/t/${r.slug}/menu/categories`, r.admin.headers, { name });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().name).toBe(name);
    const list = await call('GET', `/t/${r.slug}/menu/categories`);
    expect(list.json().map((c: { name: string }) => c.name)).toContain(name);
  });
});

describe('unknown body fields', () => {
  it('are a 400 naming the field, on a flat body and deep inside one', async () => {
    const r = await restaurant();
    const cat = await call('POST', `/t/${r.slug}/menu/categories`, r.admin.headers, { name: 'Sobremesas', bogus: true });
    expectFieldError(cat, 'body.bogus', /is not a known field/);
    const order = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, {
      orderType: 'takeout',
      items: [{ menuItem: r.dish._id, quantity: 1, price: 1 }],
    });
    expectFieldError(order, 'body.items.0.price', /is not a known field/);
    const total = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, { orderType: 'takeout', items: [{ menuItem: r.dish._id, quantity: 1 }], total: 5 });
    expectFieldError(total, 'body.total', /is not a known field/);
    expect((await call('GET', `/t/${r.slug}/menu/categories`)).json().map((c: { name: string }) => c.name)).not.toContain('Sobremesas');
  });

  it('a field the tenant admin may not set (plan) is a 400 naming it, and nothing changes', async () => {
    const a = await makeTenantWithTeam(t.app);
    const res = await call('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { plan: 'premium', city: 'Recife' });
    expectFieldError(res, 'body.plan', /is not a known field/);
    const after = (await call('GET', `/t/${a.slug}/tenants`, a.admin.headers)).json();
    expect(after).toMatchObject({ plan: 'free' });
    expect(after.city ?? null).toBeNull();
    // The same body without plan is accepted.
    expect((await call('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { city: 'Recife' })).json()).toMatchObject({ plan: 'free', city: 'Recife' });
  });

  it('both order body shapes (staff menuItem, guest menuItemId) are still accepted', async () => {
    const r = await restaurant();
    const staff = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, {
      orderType: 'dine_in',
      table: r.table._id,
      customerName: 'Mesa 1',
      customerPhone: '11 98765-4321',
      items: [{ menuItem: r.dish._id, quantity: 2, notes: 'bem passado' }],
    });
    expect(staff.statusCode, staff.body).toBe(201);
    const guest = await call('POST', `/t/${r.slug}/orders`, {}, {
      pdv: r.pdv.slug,
      customerName: 'Rita',
      customerEmail: 'rita@example.com',
      paymentMethod: 'cash',
      orderType: 'takeout',
      items: [{ menuItemId: r.dish._id, quantity: 1, allergens: ['glúten'] }],
    });
    expect(guest.statusCode, guest.body).toBe(201);
  });

  it('unknown query-string parameters are ignored (cache-busters)', async () => {
    const r = await restaurant();
    expect((await call('GET', `/t/${r.slug}/orders?_=1712345678&utm_source=qr`, r.staff.headers)).statusCode).toBe(200);
    expect((await call('GET', `/t/${r.slug}/menu/items?v=2`)).statusCode).toBe(200);
  });

  it('a nullable field names one clear problem instead of every union branch', async () => {
    const a = await makeTenantWithTeam(t.app);
    expectFieldError(await call('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { email: 'not-an-email' }), 'body.email', /format "email"/);
    expectFieldError(await call('PUT', `/t/${a.slug}/tenants`, a.admin.headers, { email: 42 }), 'body.email', /must be string or null/);
  });

  it('in a union of object bodies, a valid body of either shape passes and the error names the field no shape knows', async () => {
    // No route has a union body today; this checks the validator's rule on a small app of its own.
    const app = Fastify({ logger: false });
    installValidators(app);
    installErrorHandling(app);
    const Shapes = Type.Union([Body({ kind: Type.Literal('a'), alpha: Type.String() }), Body({ kind: Type.Literal('b'), beta: Type.Integer() })]);
    app.post('/u', { schema: { body: Shapes } }, async (req) => req.body);
    const post = (payload: object) => app.inject({ method: 'POST', url: '/u', payload });
    expect((await post({ kind: 'a', alpha: 'x' })).json()).toEqual({ kind: 'a', alpha: 'x' });
    expect((await post({ kind: 'b', beta: 2 })).json()).toEqual({ kind: 'b', beta: 2 });
    const unknown = await post({ kind: 'b', beta: 2, gamma: true });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details).toEqual([{ field: 'body.gamma', message: 'is not a known field' }]);
    // A field one shape knows is not called unknown: the caller mixed the shapes.
    expect((await post({ kind: 'a', alpha: 'x', beta: 1 })).statusCode).toBe(400);
    expect((await post({ kind: 'a', alpha: 'x', beta: 1 })).json().details[0].field).not.toBe('body.gamma');
    await app.close();
  });
});

describe('dates far from today', () => {
  it('the orders list answers 400 for dates outside 2000-01-01..2099-12-31 and for impossible dates', async () => {
    const r = await restaurant();
    const list = (q: string) => call('GET', `/t/${r.slug}/orders?${q}`, r.staff.headers);
    expectFieldError(await list('from=0001-01-01'), 'querystring.from', /2000-01-01 to 2099-12-31/);
    expectFieldError(await list('from=2026-01-01&to=9999-12-31'), 'querystring.to', /2000-01-01 to 2099-12-31/);
    expectFieldError(await list('from=1999-12-31'), 'querystring.from');
    expectFieldError(await list('from=2100-01-01'), 'querystring.from');
    expectFieldError(await list('from=2026-02-30'), 'querystring.from');
    expectFieldError(await list('from=2026-13-01'), 'querystring.from');
    // The edges themselves are dates like any other (the period limit is the service's rule).
    expect((await list('from=2000-01-01')).statusCode).toBe(200);
    expect((await list('from=2099-12-31')).statusCode).toBe(200);
    expect((await list('from=2028-02-29')).statusCode).toBe(200);
  });

  it('reservations answer 400 for far and impossible dates in the body and the query string', async () => {
    const r = await restaurant();
    const body = { customerName: 'Ana', customerPhone: '11987654321', time: '20:00', partySize: 2 };
    for (const date of ['9999-12-31', '2100-01-01', '2031-02-30']) {
      expectFieldError(await call('POST', `/t/${r.slug}/reservations`, {}, { ...body, date }), 'body.date', /2000-01-01 to 2099-12-31/);
    }
    expect((await call('POST', `/t/${r.slug}/reservations`, {}, { ...body, date: '2099-12-31' })).statusCode).toBe(201);
    expectFieldError(await call('GET', `/t/${r.slug}/reservations?date=0001-01-01`, r.admin.headers), 'querystring.date');
    expectFieldError(await call('GET', `/t/${r.slug}/reservations?date=1999-12-31`, r.admin.headers), 'querystring.date');
  });

  it('a date-time input gets the same range', async () => {
    const app = Fastify({ logger: false });
    installValidators(app);
    installErrorHandling(app);
    const { DateTimeInput, CalendarDate } = await import('../src/platform/schemas.js');
    app.get('/d', { schema: { querystring: Type.Object({ at: Type.Optional(DateTimeInput()), day: Type.Optional(CalendarDate()) }) } }, async (req) => req.query);
    const get = (q: string) => app.inject({ url: `/d?${q}` });
    expect((await get('at=2026-05-01T12:00:00Z')).statusCode).toBe(200);
    expect((await get('at=2026-05-01T12:00:00-03:00')).statusCode).toBe(200);
    for (const q of ['at=0001-01-01T00:00:00Z', 'at=9999-12-31T23:59:59Z', 'at=2026-02-30T10:00:00Z', 'at=2026-05-01T12:00:00', 'day=9999-12-31']) {
      const res = await get(q);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().details[0].field, q).toBe(`querystring.${q.split('=')[0]}`);
    }
    await app.close();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeTable, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { NotFound } from '../../platform/domain-errors.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MISSING = 'ffffffffffffffffffffffff';

describe('tables', () => {
  it('creates tables (staff included) and lists them by number to any member', async () => {
    const { slug, admin, staff, accountant } = await makeTenantWithTeam(t.app);
    const post = (payload: object) => t.app.inject({ method: 'POST', url: `/t/${slug}/tables`, headers: staff.headers, payload });
    // A field the body does not define (here the tenant) is refused, naming it.
    const foreign = await post({ number: 12, capacity: 4, location: 'Varanda', tenantId: 'x' });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().details).toEqual([{ field: 'body.tenantId', message: 'is not a known field' }]);
    const res = await post({ number: 12, capacity: 4, location: 'Varanda' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      number: 12,
      capacity: 4,
      status: 'available',
      location: 'Varanda',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    await t.app.inject({ method: 'POST', url: `/t/${slug}/tables`, headers: admin.headers, payload: { number: 3, capacity: 2 } });
    const list = await t.app.inject({ url: `/t/${slug}/tables`, headers: accountant.headers });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((x: { number: number; location: string | null }) => [x.number, x.location])).toEqual([
      [3, null],
      [12, 'Varanda'],
    ]);
  });

  it('validates number, capacity, status and location', async () => {
    const { slug, admin } = await makeTenantWithTeam(t.app);
    for (const [payload, field] of [
      [{ capacity: 4 }, 'body.number'],
      [{ number: 0, capacity: 4 }, 'body.number'],
      [{ number: 1.5, capacity: 4 }, 'body.number'],
      [{ number: '7', capacity: 4 }, 'body.number'],
      [{ number: 1 }, 'body.capacity'],
      [{ number: 1, capacity: 0 }, 'body.capacity'],
      [{ number: 1, capacity: 4, status: 'broken' }, 'body.status'],
      [{ number: 1, capacity: 4, location: '' }, 'body.location'],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: `/t/${slug}/tables`, headers: admin.headers, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
  });

  it('keeps numbers unique per tenant (409), also under concurrent creates, and frees a deleted number', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const other = await makeTenantWithTeam(t.app);
    const first = await makeTable(t.app, tenant, { number: 500 });
    const dup = await t.app.inject({ method: 'POST', url: `/t/${slug}/tables`, headers: admin.headers, payload: { number: 500, capacity: 2 } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ code: 'table_number_taken', message: 'Table 500 already exists' });
    // Another tenant may use the same number.
    expect((await t.app.inject({ method: 'POST', url: `/t/${other.slug}/tables`, headers: other.admin.headers, payload: { number: 500, capacity: 2 } })).statusCode).toBe(201);

    const racing = await Promise.all(
      [1, 2, 3].map(() => t.app.inject({ method: 'POST', url: `/t/${slug}/tables`, headers: admin.headers, payload: { number: 501, capacity: 2 } })),
    );
    expect(racing.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);

    expect((await t.app.inject({ method: 'DELETE', url: `/t/${slug}/tables/${first._id}`, headers: admin.headers })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: `/t/${slug}/tables`, headers: admin.headers, payload: { number: 500, capacity: 6 } })).statusCode).toBe(201);
  });

  it('updates number, capacity, location and status; 409 on a taken number', async () => {
    const { tenant, slug, staff } = await makeTenantWithTeam(t.app);
    const a = await makeTable(t.app, tenant, { number: 601, location: 'Salão' });
    await makeTable(t.app, tenant, { number: 602 });
    const put = (id: string, payload: object) => t.app.inject({ method: 'PUT', url: `/t/${slug}/tables/${id}`, headers: staff.headers, payload });

    const res = await put(a._id, { status: 'occupied', capacity: 6, location: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ number: 601, status: 'occupied', capacity: 6, location: null });
    expect((await put(a._id, { status: 'available' })).json().status).toBe('available');
    expect((await put(a._id, { status: 'reserved' })).json().status).toBe('reserved');
    expect((await put(a._id, { number: 601 })).statusCode).toBe(200);

    const taken = await put(a._id, { number: 602 });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('table_number_taken');
    expect((await put(a._id, { capacity: 0 })).statusCode).toBe(400);
    expect((await put(a._id, { status: 'dirty' })).statusCode).toBe(400);
    expect((await put(MISSING, { capacity: 2 })).statusCode).toBe(404);
    expect((await put(MISSING, { number: 602 })).statusCode).toBe(404);
    expect((await put('123', { capacity: 2 })).statusCode).toBe(400);
  });

  it('soft-deletes a table, but not while it is occupied (409)', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const table = await makeTable(t.app, tenant);
    await t.app.services.tables.setStatus(t.app.deps.tenantDb(tenant._id), table._id, 'occupied');
    const busy = await t.app.inject({ method: 'DELETE', url: `/t/${slug}/tables/${table._id}`, headers: admin.headers });
    expect(busy.statusCode).toBe(409);
    expect(busy.json().code).toBe('table_occupied');

    // What the orders module does when a tab is closed.
    expect((await t.app.services.tables.setStatus(t.app.deps.tenantDb(tenant._id), table._id, 'available')).status).toBe('available');
    const res = await t.app.inject({ method: 'DELETE', url: `/t/${slug}/tables/${table._id}`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: true });
    expect((await t.app.inject({ url: `/t/${slug}/tables`, headers: admin.headers })).json()).toEqual([]);
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${slug}/tables/${table._id}`, headers: admin.headers })).statusCode).toBe(404);
    expect(await t.app.services.tables.findById(t.app.deps.tenantDb(tenant._id), table._id)).toBeNull();
    await expect(t.app.services.tables.setStatus(t.app.deps.tenantDb(tenant._id), table._id, 'occupied')).rejects.toBeInstanceOf(NotFound);
  });

  it('needs a token (401) and an operational role for writes (403 for accountants)', async () => {
    const { tenant, slug, accountant } = await makeTenantWithTeam(t.app);
    const table = await makeTable(t.app, tenant);
    expect((await t.app.inject({ url: `/t/${slug}/tables` })).statusCode).toBe(401);
    for (const [method, url, payload] of [
      ['POST', `/t/${slug}/tables`, { number: 99, capacity: 2 }],
      ['PUT', `/t/${slug}/tables/${table._id}`, { capacity: 2 }],
      ['DELETE', `/t/${slug}/tables/${table._id}`, undefined],
    ] as const) {
      expect((await t.app.inject({ method, url, payload })).statusCode).toBe(401);
      const res = await t.app.inject({ method, url, payload, headers: accountant.headers });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('role');
    }
    const manager = await makeUser(t.app, tenant, 'branch_manager');
    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/tables/${table._id}`, headers: manager.headers, payload: { status: 'reserved' } })).statusCode).toBe(200);
  });

  it("answers 404 for another tenant's table and leaves it untouched", async () => {
    const owner = await makeTenantWithTeam(t.app);
    const outsider = await makeTenantWithTeam(t.app);
    const table = await makeTable(t.app, owner.tenant);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'PUT', path: `/t/:slug/tables/${table._id}`, payload: { status: 'occupied' } },
        { method: 'DELETE', path: `/t/:slug/tables/${table._id}` },
      ],
      snapshot: () => t.app.services.tables.list(t.app.deps.tenantDb(owner.tenant._id)),
    });
    expect((await t.app.inject({ url: `/t/${outsider.slug}/tables`, headers: outsider.admin.headers })).json()).toEqual([]);
  });

  it('does not exist for mercado and padaria tenants (404 with a reason), after the credentials check', async () => {
    for (const businessType of ['mercado', 'padaria'] as const) {
      const { tenant, slug, admin } = await makeTenantWithTeam(t.app, { businessType });
      const table = await makeTable(t.app, tenant);
      for (const [method, url, payload] of [
        ['GET', `/t/${slug}/tables`, undefined],
        ['POST', `/t/${slug}/tables`, { number: 1, capacity: 2 }],
        ['PUT', `/t/${slug}/tables/${table._id}`, { capacity: 3 }],
        ['DELETE', `/t/${slug}/tables/${table._id}`, undefined],
      ] as const) {
        const res = await t.app.inject({ method, url, payload, headers: admin.headers });
        expect(res.statusCode, `${businessType} ${method} ${url}`).toBe(404);
        expect(res.json()).toMatchObject({ code: 'feature_unavailable', message: `Tables and reservations are not available for the business type ${businessType}` });
        expect((await t.app.inject({ method, url, payload })).statusCode).toBe(401);
      }
    }
  });
});

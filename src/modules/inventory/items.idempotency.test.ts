import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeTenantWithTeam } from '../../../test/factories.js';

/** `Idempotency-Key` on stock movements: a stockist's retry after a dropped connection moves the stock once. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('POST /t/:slug/inventory/:id/movements with an Idempotency-Key', () => {
  it('moves once for twins and for a retry after a lost answer; another body with the key is 422', async () => {
    const team = await makeTenantWithTeam(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: `/t/${team.slug}/inventory`,
      headers: team.admin.headers,
      payload: { name: 'Farinha', sku: `FAR-${team.slug}`, currentStock: 10, minStock: 0, unit: 'kg', cost: 450 },
    });
    expect(created.statusCode, created.body).toBe(201);
    const item = created.json();
    const url = `/t/${team.slug}/inventory/${item._id}/movements`;
    const headers = { ...team.staff.headers, 'idempotency-key': `exit-${team.slug}` };
    const body = { type: 'exit', reason: 'loss', quantity: 1.5 };
    const twins = await Promise.all(Array.from({ length: 5 }, () => t.app.inject({ method: 'POST', url, headers, payload: body })));
    expect(twins.map((r) => r.statusCode)).toEqual(Array(5).fill(201));
    expect(new Set(twins.map((r) => r.json()._id)).size).toBe(1);

    await t.db.database.db.execute(sql`update idempotency_keys set state = 'running', response_body = null where key = ${`exit-${team.slug}`}`);
    const retry = await t.app.inject({ method: 'POST', url, headers, payload: body });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()._id).toBe(twins[0].json()._id);

    const other = await t.app.inject({ method: 'POST', url, headers, payload: { ...body, quantity: 2 } });
    expect(other.statusCode).toBe(422);
    const after = await t.app.inject({ method: 'GET', url: `/t/${team.slug}/inventory/${item._id}/movements`, headers: team.admin.headers });
    const exits = after.json().data.filter((m: { type: string }) => m.type === 'exit');
    expect(exits).toHaveLength(1);
    const list = await t.app.inject({ method: 'GET', url: `/t/${team.slug}/inventory`, headers: team.admin.headers });
    expect(list.json().find((i: { _id: string }) => i._id === item._id).currentStock).toBe(8.5);
  });
});

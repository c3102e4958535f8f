import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeTenantWithTeam } from '../../../test/factories.js';

/**
 * Purchase orders under real parallel requests: order numbers of one day are never shared, and receipts of
 * one order never take in more than was ordered (the order row is locked for each receipt).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;

async function world() {
  const team: Team = await makeTenantWithTeam(t.app, { plan: 'premium' });
  const inject = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: team.admin.headers, ...(payload ? { payload } : {}) });
  const item = await inject('POST', `/t/${team.slug}/inventory`, { name: 'Leite', sku: 'LEITE-1', currentStock: 0.5, minStock: 0, unit: 'l', cost: 400 });
  expect(item.statusCode, item.body).toBe(201);
  const supplier = await inject('POST', `/t/${team.slug}/inventory/suppliers`, { name: 'Laticínios' });
  const pos = `/t/${team.slug}/inventory/purchase-orders`;
  return { team, inject, itemId: item.json()._id as string, supplierId: supplier.json()._id as string, pos };
}

describe('concurrent purchase orders', () => {
  it('10 creates at once get 10 different numbers of the day, 0001 to 0010', async () => {
    const w = await world();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => w.inject('POST', w.pos, { items: [{ inventoryItemId: w.itemId, itemName: 'Leite', quantity: i + 1, unitCost: 400 }] })),
    );
    for (const r of results) expect(r.statusCode, r.body).toBe(201);
    const numbers = results.map((r) => r.json().orderNumber as string);
    const day = numbers[0]!.slice(0, 12);
    expect(numbers.map((n) => n.slice(0, 12)).every((d) => d === day)).toBe(true);
    expect(numbers.map((n) => n.slice(12)).sort()).toEqual(Array.from({ length: 10 }, (_, i) => String(i + 1).padStart(4, '0')));
    expect((await w.inject('GET', w.pos)).json()).toHaveLength(10);
  });

  it('10 receipts of 2.5 at once on an order of 12.5: exactly 5 succeed, 5 get 409 over_receipt, stock + 12.5', async () => {
    const w = await world();
    const po = await w.inject('POST', w.pos, { supplierId: w.supplierId, items: [{ inventoryItemId: w.itemId, itemName: 'Leite', quantity: 12.5, unitCost: 399 }] });
    expect(po.statusCode, po.body).toBe(201);
    const id = po.json()._id;
    expect((await w.inject('PUT', `${w.pos}/${id}`, { status: 'sent' })).statusCode).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => w.inject('POST', `${w.pos}/${id}/receive`, { items: [{ inventoryItemId: w.itemId, receivedQuantity: 2.5 }] })),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(5);
    expect(codes.filter((c) => c === 409)).toHaveLength(5);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().code).toMatch(/^(over_receipt|order_closed)$/);
    const final = (await w.inject('GET', `${w.pos}/${id}`)).json();
    expect(final).toMatchObject({ status: 'received', items: [{ quantity: 12.5, receivedQuantity: 12.5 }] });
    const items = (await w.inject('GET', `/t/${w.team.slug}/inventory`)).json() as { _id: string; currentStock: number; cost: number }[];
    expect(items.find((i) => i._id === w.itemId)).toMatchObject({ currentStock: 13, cost: 399 });
    const moves = (await w.inject('GET', `/t/${w.team.slug}/inventory/${w.itemId}/movements?limit=100`)).json().data as { reason: string; before: number; after: number }[];
    const purchases = moves.filter((m) => m.reason === 'purchase').reverse();
    expect(purchases.map((m) => [m.before, m.after])).toEqual([
      [0.5, 3],
      [3, 5.5],
      [5.5, 8],
      [8, 10.5],
      [10.5, 13],
    ]);
  });

  it('5 suppliers created at once with one CNPJ: exactly one is created, the others 409 cnpj_taken', async () => {
    const w = await world();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => w.inject('POST', `/t/${w.team.slug}/inventory/suppliers`, { name: `Dup ${i}`, cnpj: '11.222.333/0001-81' })),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().code).toBe('cnpj_taken');
    const list = (await w.inject('GET', `/t/${w.team.slug}/inventory/suppliers`)).json() as { cnpj: string | null }[];
    expect(list.filter((s) => s.cnpj === '11.222.333/0001-81')).toHaveLength(1);
  });
});

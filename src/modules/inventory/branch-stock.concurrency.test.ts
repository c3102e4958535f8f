import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.js';
import { newId } from '../../db/ids.js';
import { branchStock, inventoryItems, inventoryMovements } from '../../db/schema/inventory.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makePdv, makeTenantWithTeam } from '../../../test/factories.js';

/**
 * Branch-stock transfers under real parallel requests: many transfers out of one PDV never take more
 * than it holds, and transfers in opposite directions at the same time do not deadlock (both rows are
 * locked in the order of their PDV ids).
 */
let t: TestApp;
let app: App;
beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
});
afterAll(() => t.close());

async function world() {
  const team = await makeTenantWithTeam(app);
  const tenantId = team.tenant._id;
  const tdb = app.deps.tenantDb(tenantId);
  const a = await makePdv(app, team.tenant);
  const b = await makePdv(app, team.tenant);
  const itemId = newId();
  await tdb.run((tx) => tx.db.insert(inventoryItems).values({ tenantId, id: itemId, name: 'Leite', sku: `L-${itemId}`, unit: 'l' }));
  const base = `/t/${team.slug}/branch-stock`;
  const put = async (pdvId: string, physicalQuantity: number) => {
    const res = await app.inject({ method: 'PUT', url: `${base}/${pdvId}`, headers: team.admin.headers, payload: { itemId, physicalQuantity } });
    expect(res.statusCode, res.body).toBe(200);
  };
  const transfer = (fromPdvId: string, toPdvId: string, quantity: number) =>
    app.inject({ method: 'POST', url: `${base}/transfer`, headers: team.admin.headers, payload: { fromPdvId, toPdvId, itemId, quantity } });
  const stock = async () => {
    const rows = await tdb.run((tx) => tx.db.select().from(branchStock).where(and(eq(branchStock.tenantId, tenantId), eq(branchStock.itemId, itemId))));
    return Object.fromEntries(rows.map((r) => [r.pdvId, r.physicalMilli]));
  };
  const transferMovements = async () => {
    const of = and(eq(inventoryMovements.tenantId, tenantId), eq(inventoryMovements.itemId, itemId), eq(inventoryMovements.type, 'transfer'));
    return tdb.run((tx) => tx.db.select().from(inventoryMovements).where(of));
  };
  return { pdvA: a.pdvId, pdvB: b.pdvId, put, transfer, stock, transferMovements };
}

describe('concurrent transfers', () => {
  it('50 transfers of 1 from a PDV holding 10: exactly 10 succeed, 40 get 400, never negative, 20 movements', async () => {
    const w = await world();
    await w.put(w.pdvA, 10);
    // The target row does not exist yet: the first transfers also race to create it.
    const results = await Promise.all(Array.from({ length: 50 }, () => w.transfer(w.pdvA, w.pdvB, 1)));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(10);
    expect(codes.filter((c) => c === 400)).toHaveLength(40);
    for (const r of results.filter((x) => x.statusCode === 400)) expect(r.json().details[0].field).toBe('body.quantity');
    expect(await w.stock()).toEqual({ [w.pdvA]: 0, [w.pdvB]: 10_000 });
    const moves = await w.transferMovements();
    expect(moves).toHaveLength(20);
    expect(moves.every((m) => m.afterMilli >= 0 && m.beforeMilli >= 0)).toBe(true);
    // Each transfer: one exit from A and one entry into B under the same transfer id.
    const byTransfer = new Map<string, number[]>();
    for (const m of moves) byTransfer.set(m.transferId!, [...(byTransfer.get(m.transferId!) ?? []), m.deltaMilli]);
    expect(byTransfer.size).toBe(10);
    for (const deltas of byTransfer.values()) expect(deltas.sort((x, y) => x - y)).toEqual([-1000, 1000]);
    // The source went 10 -> 0 one unit at a time, each level exactly once.
    const fromA = moves.filter((m) => m.pdvId === w.pdvA).map((m) => m.afterMilli);
    expect(fromA.sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => i * 1000));
    // The successful answers saw the same: each a distinct source level.
    const seen = results.filter((r) => r.statusCode === 200).map((r) => r.json().from.physicalQuantity as number);
    expect(seen.sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it('transfers in opposite directions at the same time all succeed (no deadlock) and the total is kept', async () => {
    const w = await world();
    await w.put(w.pdvA, 100);
    await w.put(w.pdvB, 100);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? w.transfer(w.pdvA, w.pdvB, 1.5) : w.transfer(w.pdvB, w.pdvA, 0.5))));
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    // 15 x 1.5 from A to B, 15 x 0.5 back.
    expect(await w.stock()).toEqual({ [w.pdvA]: 100_000 - 22_500 + 7_500, [w.pdvB]: 100_000 + 22_500 - 7_500 });
    expect(await w.transferMovements()).toHaveLength(60);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeTenantWithTeam } from '../../../test/factories.js';
import { salesSnapshots } from '../../db/schema/purchasing.js';
import { addDays } from '../../platform/time.js';
import { backtest } from './forecast.model.js';

/**
 * The demand forecast against series computed by hand. Today is 2030-06-15 in São Paulo (the clock at
 * 12:00 local), so yesterday, the last day of every series, is 2030-06-14.
 */
const TODAY = '2030-06-15';
const YESTERDAY = '2030-06-14';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  t.clock.set(new Date(`${TODAY}T15:00:00Z`));
});
afterAll(() => t.close());

/** Snapshot rows of a menu item: `units[i]` sold on the day `units.length - 1 - i` days before yesterday (0: no row). */
async function history(tenantId: string, menuItemId: string, units: number[]) {
  const rows = units.flatMap((u, i) =>
    u > 0 ? [{ tenantId, menuItemId, day: addDays(YESTERDAY, -(units.length - 1 - i)), quantityMilli: Math.round(u * 1000), orders: 1 }] : [],
  );
  await t.app.deps.tenantDb(tenantId).run((tx) => tx.db.insert(salesSnapshots).values(rows));
}

const week = (...days: number[]) => days;
const r2 = (x: number) => Math.round(x * 100) / 100;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A: a weekly pattern, 10 a day and 24 on the 7th, two weeks. The weekday method forecasts every backtest day
 * exactly (MAPE 0). The moving average of day t (t = 7..13) is S(t) / (t(t+1)/2) with S(t) = sum of (i+1) x_i:
 * S(7) = 10 x 21 + 24 x 7 = 378, then + 10 x (t) for t = 8..13 (day t-1 sold 10): 458, 548, 648, 758, 878, 1008.
 */
const A = [...week(10, 10, 10, 10, 10, 10, 24), ...week(10, 10, 10, 10, 10, 10, 24)];
const A_WMA_MAPE =
  ((Math.abs(10 - 378 / 28) / 10 +
    Math.abs(10 - 458 / 36) / 10 +
    Math.abs(10 - 548 / 45) / 10 +
    Math.abs(10 - 648 / 55) / 10 +
    Math.abs(10 - 758 / 66) / 10 +
    Math.abs(10 - 878 / 78) / 10 +
    Math.abs(24 - 1008 / 91) / 24) /
    7) *
  100;

/**
 * B: 10 a day for a week, then 12 a day: up 20 %. The weekday method says 10 for each day of week two (error
 * 2/12); the moving average: 280/28 = 10, then 376/36, 484/45, 604/55, 736/66, 880/78, 1036/91 (+12 x t each
 * day), closer, so it wins. Its forecast: (1036 + 12 x 14) / 105 = 1204/105 a day.
 */
const B = [...week(10, 10, 10, 10, 10, 10, 10), ...week(12, 12, 12, 12, 12, 12, 12)];
const B_WMA_MAPE =
  ((Math.abs(12 - 10) +
    Math.abs(12 - 376 / 36) +
    Math.abs(12 - 484 / 45) +
    Math.abs(12 - 604 / 55) +
    Math.abs(12 - 736 / 66) +
    Math.abs(12 - 880 / 78) +
    Math.abs(12 - 1036 / 91)) /
    12 /
    7) *
  100;

/** C: 5 a day in the first week, nothing since: down; no day sold in the backtest can be scored (zeros are skipped): no MAPE. */
const C = [...week(5, 5, 5, 5, 5, 5, 5), ...week(0, 0, 0, 0, 0, 0, 0)];

describe('backtest (pure)', () => {
  it('scores the last 28 days one step ahead, both methods on the same days', () => {
    expect(backtest(A)).toEqual({ wma: r2(A_WMA_MAPE), weekday: 0, days: 7 });
    expect(backtest(B)).toEqual({ wma: r2(B_WMA_MAPE), weekday: r2((2 / 12) * 100), days: 7 });
    expect(backtest(C)).toEqual({ wma: null, weekday: null, days: 0 });
    // Under 8 days nothing has a same weekday before it.
    expect(backtest([4, 4, 4, 4, 4, 4, 4])).toEqual({ wma: null, weekday: null, days: 0 });
    // Only the last 28 days are scored, each from the 28 before it at most: a constant series has no error.
    expect(backtest(new Array(60).fill(3))).toEqual({ wma: 0, weekday: 0, days: 28 });
  });
});

describe('GET /inventory/predictions/demand', () => {
  it('forecasts each menu item from its snapshots as computed by hand', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const id = team.tenant._id;
    const a = await makeMenuItem(t.app, team.tenant, { name: 'A Feijoada' });
    const b = await makeMenuItem(t.app, team.tenant, { name: 'B Moqueca' });
    const c = await makeMenuItem(t.app, team.tenant, { name: 'C Sorvete' });
    const d = await makeMenuItem(t.app, team.tenant, { name: 'D Café' });
    const gone = await makeMenuItem(t.app, team.tenant, { name: 'E Retirado' });
    await history(id, a._id, A);
    await history(id, b._id, B);
    await history(id, c._id, C);
    // D: 3 a day for 40 days, and a big day 60 days ago, before the 56 days read: it counts for nothing.
    await history(id, d._id, new Array(40).fill(3));
    await t.app.deps
      .tenantDb(id)
      .run((tx) => tx.db.insert(salesSnapshots).values({ tenantId: id, menuItemId: d._id, day: addDays(YESTERDAY, -60), quantityMilli: 500_000, orders: 9 }));
    // A deleted menu item is no longer forecast; a row of today (not over) would not be read either.
    await history(id, gone._id, [7, 7, 7]);
    await t.app.services.menu.deleteItem(t.app.deps.tenantDb(id), gone._id);

    const res = await t.app.inject({ method: 'GET', url: `/t/${team.slug}/inventory/predictions/demand`, headers: team.admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    const byName = Object.fromEntries(res.json().map((f: { menuItemName: string }) => [f.menuItemName, f]));
    expect(Object.keys(byName)).toEqual(['A Feijoada', 'B Moqueca', 'D Café', 'C Sorvete']); // most predicted first
    // A: the next 7 days are the same weekdays of the last two weeks: 6 x 10 + 24 = 84.
    expect(byName['A Feijoada']).toEqual({
      menuItemId: a._id,
      menuItemName: 'A Feijoada',
      avgDaily: 12,
      predicted: 84,
      confidence: r3(14 / 21),
      dataPoints: 14,
      trend: 'stable',
      method: 'weekday',
      mape: { wma: r2(A_WMA_MAPE), weekday: 0 },
    });
    expect(byName['B Moqueca']).toEqual({
      menuItemId: b._id,
      menuItemName: 'B Moqueca',
      avgDaily: r3(1204 / 105),
      predicted: r3((1204 / 105) * 7),
      confidence: r3(14 / 21),
      dataPoints: 14,
      trend: 'up',
      method: 'wma',
      mape: { wma: r2(B_WMA_MAPE), weekday: r2((2 / 12) * 100) },
    });
    // C: (5 x (1 + ... + 7)) / 105 = 140/105 a day.
    expect(byName['C Sorvete']).toMatchObject({ avgDaily: r3(140 / 105), predicted: r3((140 / 105) * 7), trend: 'down', method: 'wma', mape: { wma: null, weekday: null } });
    // D: 28 of its 40 days in the window (full confidence); the day 60 days back is outside the history read.
    expect(byName['D Café']).toMatchObject({ avgDaily: 3, predicted: 21, confidence: 1, dataPoints: 28, trend: 'stable', method: 'wma', mape: { wma: 0, weekday: 0 } });

    // A horizon of 10 days: A's next 3 days after the week are 10 each again; B's average times 10.
    const ten = await t.app.inject({ method: 'GET', url: `/t/${team.slug}/inventory/predictions/demand?horizon=10`, headers: team.admin.headers });
    expect(ten.statusCode, ten.body).toBe(200);
    const tenBy = Object.fromEntries(ten.json().map((f: { menuItemName: string }) => [f.menuItemName, f]));
    expect(tenBy['A Feijoada']).toMatchObject({ predicted: 114, avgDaily: 11.4, method: 'weekday' });
    expect(tenBy['B Moqueca']).toMatchObject({ predicted: r3((1204 / 105) * 10), avgDaily: r3(1204 / 105) });
  });

  it('answers an empty list without history, and 400 naming horizon out of 1..90', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const url = `/t/${team.slug}/inventory/predictions/demand`;
    const empty = await t.app.inject({ method: 'GET', url, headers: team.admin.headers });
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toEqual([]);
    for (const bad of ['0', '91', 'x', '1.5']) {
      const res = await t.app.inject({ method: 'GET', url: `${url}?horizon=${bad}`, headers: team.admin.headers });
      expect(res.statusCode, `horizon=${bad}`).toBe(400);
      expect(res.body).toContain('horizon');
    }
  });
});

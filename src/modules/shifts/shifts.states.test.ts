import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.js';
import { createRestartableApp, type RestartableApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeTenantWithTeam } from '../../../test/factories.js';

/**
 * Shifts hold cash: for a shift in each of its states (open, closed), every operation the API offers on
 * it (a movement, a close, opening another at its PDV, a cash payment at its PDV), twice at once, and
 * again after a restart of the service on the same database. The drawer's expected cash must stay what
 * the accepted operations say, and a closed shift's report must never change.
 */
let r: RestartableApp;
let app: App;
beforeAll(async () => {
  r = await createRestartableApp();
  app = r.app;
});
afterAll(() => r.close());

async function restart() {
  await r.restart();
  app = r.app;
}

type H = Record<string, string>;
const call = (method: 'GET' | 'POST', url: string, headers: H, payload?: object) => app.inject({ method, url, headers, payload: payload as never });
const twiceAtOnce = <T>(op: () => Promise<T>) => Promise.all([op(), op()]);
const codes = (results: { statusCode: number }[]) => results.map((x) => x.statusCode).sort();

async function world() {
  const team = await makeTenantWithTeam(app);
  const pdv = await makePdv(app, team.tenant);
  const dish = await makeMenuItem(app, team.tenant, { name: 'Coxinha', price: 900 });
  const base = `/api/t/${team.slug}/admin/branches/${pdv.branchId}`;
  const h = team.admin.headers;
  const open = () => call('POST', `${base}/shifts/open`, h, { pdvId: pdv.pdvId, openingFloat: 10000, userId: team.staff.id });
  const movement = (shiftId: string, kind: 'withdrawal' | 'addition', amount: number) =>
    call('POST', `${base}/shifts/${shiftId}/movements`, h, { kind, amount, reason: 'troco' });
  const close = (shiftId: string, cash: number) => call('POST', `${base}/shifts/${shiftId}/close`, h, { counted: { cash } });
  const get = async (shiftId: string) => (await call('GET', `${base}/shifts/${shiftId}`, h)).json();
  /** A takeout order at the PDV paid in cash; answers the payment's shift. */
  const cashSale = async () => {
    const order = await call('POST', `/t/${team.slug}/orders`, h, { orderType: 'takeout', pdv: pdv.pdvId, items: [{ menuItem: dish._id, quantity: 1 }] });
    expect(order.statusCode, order.body).toBe(201);
    const paid = await call('POST', `/t/${team.slug}/orders/${order.json()._id}/process-payment`, h, { method: 'cash', gateway: 'mock' });
    expect(paid.statusCode, paid.body).toBe(200);
    const ledger = (await call('GET', `/t/${team.slug}/orders/${order.json()._id}/payments`, h)).json() as { shift: string | null }[];
    return ledger[0]!.shift;
  };
  return { open, movement, close, get, cashSale };
}

describe('an open shift', () => {
  it('opened twice at once: one 201, one 409 shift_open; again after a restart: 409', async () => {
    const w = await world();
    const both = await twiceAtOnce(w.open);
    expect(codes(both)).toEqual([201, 409]);
    expect(both.find((x) => x.statusCode === 409)!.json().code).toBe('shift_open');
    await restart();
    const again = await w.open();
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('shift_open');
  });

  it('takes two withdrawals at once only while the drawer holds both; the same after a restart', async () => {
    const w = await world();
    const shift = (await w.open()).json();
    // 100,00 in the drawer: two withdrawals of 60,00 at once cannot both leave it.
    const both = await twiceAtOnce(() => w.movement(shift._id, 'withdrawal', 6000));
    expect(codes(both)).toEqual([201, 409]);
    expect(both.find((x) => x.statusCode === 409)!.json().code).toBe('insufficient_cash');
    await restart();
    const after = await twiceAtOnce(() => w.movement(shift._id, 'withdrawal', 3000));
    expect(codes(after)).toEqual([201, 409]);
    const additions = await twiceAtOnce(() => w.movement(shift._id, 'addition', 500));
    expect(codes(additions)).toEqual([201, 201]);
    // 10000 - 6000 - 3000 + 500 + 500: closing with exactly that counted shows no difference.
    const closed = await w.close(shift._id, 2000);
    expect(closed.statusCode, closed.body).toBe(200);
    expect(closed.json().expected.cash).toBe(2000);
    expect(closed.json().difference.cash).toBe(0);
  });

  it('links cash sales made across a restart to it', async () => {
    const w = await world();
    const shift = (await w.open()).json();
    const sales = await Promise.all([w.cashSale(), w.cashSale()]);
    await restart();
    sales.push(await w.cashSale());
    expect(sales).toEqual([shift._id, shift._id, shift._id]);
    const closed = (await w.close(shift._id, 12700)).json();
    expect(closed.expected.cash).toBe(10000 + 3 * 900);
    expect(closed.difference.cash).toBe(0);
  });
});

describe('a closed shift', () => {
  it('closed twice at once: one 200, one 409 shift_closed; after a restart still 409 and the report unchanged', async () => {
    const w = await world();
    const shift = (await w.open()).json();
    const both = await twiceAtOnce(() => w.close(shift._id, 9000));
    expect(codes(both)).toEqual([200, 409]);
    const report = both.find((x) => x.statusCode === 200)!.json();
    expect(report.difference.cash).toBe(-1000);
    await restart();
    const again = await w.close(shift._id, 10000);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('shift_closed');
    expect(await w.get(shift._id)).toEqual(report);
  });

  it('refuses movements twice at once and after a restart (409 shift_closed), and the report stays', async () => {
    const w = await world();
    const shift = (await w.open()).json();
    const report = (await w.close(shift._id, 10000)).json();
    const both = await twiceAtOnce(() => w.movement(shift._id, 'addition', 100));
    expect(codes(both)).toEqual([409, 409]);
    expect(both.map((x) => x.json().code)).toEqual(['shift_closed', 'shift_closed']);
    await restart();
    expect((await w.movement(shift._id, 'withdrawal', 100)).json().code).toBe('shift_closed');
    expect(await w.get(shift._id)).toEqual(report);
  });

  it('lets its PDV open a new shift (one of two at once), and sales go to the new one, never to the closed', async () => {
    const w = await world();
    const first = (await w.open()).json();
    const report = (await w.close(first._id, 10000)).json();
    await restart();
    const both = await twiceAtOnce(w.open);
    expect(codes(both)).toEqual([201, 409]);
    const next = both.find((x) => x.statusCode === 201)!.json();
    expect(await w.cashSale()).toBe(next._id);
    expect(await w.get(first._id)).toEqual(report);
  });
});

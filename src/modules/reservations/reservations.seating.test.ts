import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeReservation, makeTable, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { addDays } from '../../platform/time.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MISSING = 'ffffffffffffffffffffffff';

type H = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, headers: H = {}, payload?: unknown) => t.app.inject({ method, url, headers, payload: payload as never });

/** A date safely in the future whatever the time zone. */
const future = (days = 10) => addDays(new Date().toISOString().slice(0, 10), days);

/** A restaurant with its team, two tables and a drink to open tabs with. */
async function restaurant() {
  const team = await makeTenantWithTeam(t.app);
  const [table, table2] = [await makeTable(t.app, team.tenant), await makeTable(t.app, team.tenant)];
  const drink = await makeMenuItem(t.app, team.tenant, { name: 'Guaraná', price: 700 });
  return { ...team, table, table2, drink };
}
type R = Awaited<ReturnType<typeof restaurant>>;

interface View {
  _id: string;
  status: string;
  table: string | null;
  order: string | null;
  time: string;
  durationMinutes: number;
}

const booking = (extra: object = {}) => ({
  customerName: 'Mariana Costa',
  customerPhone: '(11) 98765-4321',
  date: future(),
  time: '20:00',
  partySize: 4,
  ...extra,
});

const book = (r: R, extra: object = {}, headers: H = r.staff.headers) => call('POST', `/t/${r.slug}/reservations`, headers, booking(extra));
const put = (r: R, id: string, payload: object, headers: H = r.staff.headers) => call('PUT', `/t/${r.slug}/reservations/${id}`, headers, payload);
const seat = (r: R, id: string, payload?: object, headers: H = r.staff.headers) => call('POST', `/t/${r.slug}/reservations/${id}/seat`, headers, payload);
const noShow = (r: R, id: string, headers: H = r.staff.headers) => call('POST', `/t/${r.slug}/reservations/${id}/no-show`, headers);
const cancel = (r: R, id: string, headers: H = r.staff.headers) => call('DELETE', `/t/${r.slug}/reservations/${id}`, headers);

/** A staff booking that must succeed. */
async function booked(r: R, extra: object = {}): Promise<View> {
  const res = await book(r, extra);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Every reservation of the tenant, by id (the admin's list). */
async function reservations(r: R): Promise<Map<string, View>> {
  const res = await call('GET', `/t/${r.slug}/reservations`, r.admin.headers);
  expect(res.statusCode).toBe(200);
  return new Map((res.json() as View[]).map((v) => [v._id, v]));
}
const reservation = async (r: R, id: string) => (await reservations(r)).get(id)!;

async function tableStatus(r: R, id: string): Promise<string> {
  const res = await call('GET', `/t/${r.slug}/tables`, r.staff.headers);
  expect(res.statusCode).toBe(200);
  return (res.json() as { _id: string; status: string }[]).find((x) => x._id === id)!.status;
}

/** Opens a tab on a table (the first dine-in order there), as the floor does. */
async function openTab(r: R, tableId: string): Promise<{ _id: string; isTab: boolean; table: string }> {
  const res = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, {
    orderType: 'dine_in',
    table: tableId,
    customerName: 'Mesa',
    items: [{ menuItem: r.drink._id, quantity: 1 }],
  });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json()).toMatchObject({ isTab: true, table: tableId });
  return res.json();
}

function expectConflict(res: { statusCode: number; json(): { code: string } }, code: string) {
  expect(res.statusCode).toBe(409);
  expect(res.json().code).toBe(code);
}

function expectInvalid(res: { statusCode: number; json(): { details: { field: string }[] } }, field: string) {
  expect(res.statusCode).toBe(400);
  expect(res.json().details[0].field).toBe(field);
}

describe('POST /t/:slug/reservations: staff bookings hold a table', () => {
  it('a floor token books and may hold a table (default 120 minutes); a guest may not choose a table or a duration', async () => {
    const r = await restaurant();
    const held = await book(r, { tableId: r.table._id });
    expect(held.statusCode).toBe(201);
    expect(held.json()).toMatchObject({ status: 'pending', table: r.table._id, durationMinutes: 120, order: null });
    const short = await book(r, { durationMinutes: 45, time: '12:00' }, r.admin.headers);
    expect(short.statusCode).toBe(201);
    expect(short.json()).toMatchObject({ table: null, durationMinutes: 45 });
    expect((await reservation(r, held.json()._id)).table).toBe(r.table._id);
    // Holding a table changes its status only when the party is seated.
    expect(await tableStatus(r, r.table._id)).toBe('available');

    // A guest asks for a slot: the table and the duration are the restaurant's to set.
    const guestTable = await book(r, { tableId: r.table2._id, time: '13:00' }, {});
    expectInvalid(guestTable, 'body.tableId');
    expectInvalid(await book(r, { durationMinutes: 60, time: '13:00' }, {}), 'body.durationMinutes');
    const guest = await book(r, { time: '13:00' }, {});
    expect(guest.statusCode).toBe(201);
    expect(guest.json()).toMatchObject({ table: null, durationMinutes: 120, order: null });
    expect([...(await reservations(r)).keys()].sort()).toEqual([held.json()._id, short.json()._id, guest.json()._id].sort());

    // A token that is not a floor role's is refused, not taken for a guest.
    expect((await book(r, { tableId: r.table2._id }, r.accountant.headers)).statusCode).toBe(403);
    expect((await book(r, { tableId: r.table2._id }, { authorization: 'Bearer nope' })).statusCode).toBe(401);
    expect((await reservations(r)).size).toBe(3);
  });

  it('refuses a table that is not one of the tenant, and a duration out of range', async () => {
    const r = await restaurant();
    const other = await restaurant();
    expectInvalid(await book(r, { tableId: MISSING }), 'body.tableId');
    expectInvalid(await book(r, { tableId: other.table._id }), 'body.tableId');
    expectInvalid(await book(r, { tableId: 'mesa-1' }), 'body.tableId');
    expectInvalid(await book(r, { tableId: r.table._id, durationMinutes: 14 }), 'body.durationMinutes');
    expectInvalid(await book(r, { tableId: r.table._id, durationMinutes: 601 }), 'body.durationMinutes');
    expectInvalid(await book(r, { tableId: r.table._id, durationMinutes: 90.5 }), 'body.durationMinutes');
    expect((await reservations(r)).size).toBe(0);
    expect((await booked(r, { tableId: r.table._id, durationMinutes: 600 })).durationMinutes).toBe(600);
  });

  it('refuses an overlapping hold of the same table (409 table_reserved); adjacent windows, other tables and days are fine', async () => {
    const r = await restaurant();
    const date = future();
    const a = await booked(r, { tableId: r.table._id, date, time: '20:00' }); // 20:00-22:00

    const clash = await book(r, { tableId: r.table._id, date, time: '21:59' });
    expectConflict(clash, 'table_reserved');
    expect(clash.json().details).toEqual([{ field: 'reservation', message: a._id }]);
    expectConflict(await book(r, { tableId: r.table._id, date, time: '20:00', durationMinutes: 15 }), 'table_reserved');
    expectConflict(await book(r, { tableId: r.table._id, date, time: '18:00', durationMinutes: 121 }), 'table_reserved'); // ends 20:01
    expectConflict(await book(r, { tableId: r.table._id, date, time: '19:00', durationMinutes: 240 }), 'table_reserved'); // covers it

    // Windows that touch do not overlap: one ending at 20:00, one starting at 22:00.
    await booked(r, { tableId: r.table._id, date, time: '18:00', durationMinutes: 120 });
    await booked(r, { tableId: r.table._id, date, time: '22:00', durationMinutes: 90 }); // 22:00-23:30
    // The same slot on another table, another day, or without a table.
    await booked(r, { tableId: r.table2._id, date, time: '20:00' });
    await booked(r, { tableId: r.table._id, date: addDays(date, 1), time: '20:00' });
    await booked(r, { date, time: '20:00' });

    // A hold crossing midnight is seen from the next day.
    await booked(r, { tableId: r.table._id, date, time: '23:30', durationMinutes: 60 }); // 23:30-00:30
    expectConflict(await book(r, { tableId: r.table._id, date: addDays(date, 1), time: '00:15' }), 'table_reserved');
    await booked(r, { tableId: r.table._id, date: addDays(date, 1), time: '00:30', durationMinutes: 30 });
    expect((await reservations(r)).size).toBe(8);
  });

  it('a cancelled or no-show reservation no longer holds its table', async () => {
    const r = await restaurant();
    const first = await booked(r, { tableId: r.table._id });
    expectConflict(await book(r, { tableId: r.table._id, time: '21:00' }), 'table_reserved');
    expect((await cancel(r, first._id)).statusCode).toBe(200);
    const second = await booked(r, { tableId: r.table._id, time: '21:00' });
    expectConflict(await book(r, { tableId: r.table._id, time: '21:30' }), 'table_reserved');
    expect((await noShow(r, second._id)).statusCode).toBe(200);
    const third = await booked(r, { tableId: r.table._id, time: '21:30' });
    expectConflict(await book(r, { tableId: r.table._id, time: '22:00' }), 'table_reserved');
    expect((await put(r, third._id, { status: 'cancelled' })).json().status).toBe('cancelled');
    await booked(r, { tableId: r.table._id, time: '22:00' });
    // The released reservations keep naming their table.
    const all = await reservations(r);
    expect([first, second, third].map((x) => [all.get(x._id)!.status, all.get(x._id)!.table])).toEqual([
      ['cancelled', r.table._id],
      ['no_show', r.table._id],
      ['cancelled', r.table._id],
    ]);
  });

  it('creates exactly one of two overlapping bookings of a table sent at once', async () => {
    const r = await restaurant();
    const date = future(5);
    const results = await Promise.all([
      book(r, { tableId: r.table._id, date, time: '20:00', customerName: 'Ana' }),
      book(r, { tableId: r.table._id, date, time: '21:00', customerName: 'Bruno' }),
      book(r, { tableId: r.table._id, date, time: '20:30', customerName: 'Carla' }, r.admin.headers),
    ]);
    const codes = results.map((x) => x.statusCode).sort();
    expect(codes).toEqual([201, 409, 409]);
    for (const res of results.filter((x) => x.statusCode === 409)) expect(res.json().code).toBe('table_reserved');
    const holding = [...(await reservations(r)).values()].filter((v) => v.table === r.table._id);
    expect(holding.map((v) => v._id)).toEqual([results.find((x) => x.statusCode === 201)!.json()._id]);
  });
});

describe('PUT /t/:slug/reservations/:id: table holds', () => {
  it('refuses moving into a held window or onto a held table; the reservation does not clash with itself', async () => {
    const r = await restaurant();
    const a = await booked(r, { tableId: r.table._id, time: '20:00' }); // 20:00-22:00
    const b = await booked(r, { tableId: r.table._id, time: '22:00' }); // 22:00-00:00
    const c = await booked(r, { tableId: r.table2._id, time: '20:00' });

    const earlier = await put(r, b._id, { time: '21:00' });
    expectConflict(earlier, 'table_reserved');
    expect(earlier.json().details).toEqual([{ field: 'reservation', message: a._id }]);
    expectConflict(await put(r, a._id, { durationMinutes: 121 }), 'table_reserved');
    expectConflict(await put(r, a._id, { time: '20:30' }), 'table_reserved');
    expectConflict(await put(r, c._id, { tableId: r.table._id }), 'table_reserved');
    expectConflict(await put(r, c._id, { tableId: r.table._id, time: '21:00', durationMinutes: 15 }), 'table_reserved');
    // Nothing changed.
    let all = await reservations(r);
    expect([a, b, c].map((x) => all.get(x._id))).toEqual([a, b, c]);

    // Its own hold does not count: shift within the free room, change the party, confirm.
    const moved = await put(r, a._id, { time: '19:30', durationMinutes: 150, partySize: 6 }); // 19:30-22:00
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ time: '19:30', durationMinutes: 150, partySize: 6, table: r.table._id });
    expect((await put(r, a._id, { status: 'confirmed' })).json()).toMatchObject({ status: 'confirmed', table: r.table._id });
    // C gives up its table, then takes the free room before A on the first table.
    expect((await put(r, c._id, { tableId: null })).json()).toMatchObject({ table: null });
    expectConflict(await put(r, c._id, { tableId: r.table._id, time: '17:00', durationMinutes: 151 }), 'table_reserved');
    const before = await put(r, c._id, { tableId: r.table._id, time: '17:00', durationMinutes: 150 }); // 17:00-19:30
    expect(before.statusCode).toBe(200);
    expect(before.json()).toMatchObject({ table: r.table._id, time: '17:00', durationMinutes: 150 });

    expectInvalid(await put(r, b._id, { tableId: MISSING }), 'body.tableId');
    expectInvalid(await put(r, b._id, { durationMinutes: 5 }), 'body.durationMinutes');

    // A cancelled or no-show reservation frees its window for the others.
    expect((await put(r, b._id, { status: 'no_show' })).json().status).toBe('no_show');
    expect((await put(r, a._id, { durationMinutes: 200 })).statusCode).toBe(200); // 19:30-22:50, over B's old window
    all = await reservations(r);
    expect(all.get(a._id)).toMatchObject({ durationMinutes: 200, status: 'confirmed' });
    expect(all.get(b._id)).toMatchObject({ time: '22:00', status: 'no_show' });
  });

  it('moves exactly one of two reservations onto one window of a table when both moves arrive at once', async () => {
    const r = await restaurant();
    const date = future(6);
    const x = await booked(r, { date, time: '20:00' });
    const y = await booked(r, { date, time: '20:30', tableId: r.table2._id });
    const results = await Promise.all([put(r, x._id, { tableId: r.table._id }), put(r, y._id, { tableId: r.table._id })]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    const holding = [...(await reservations(r)).values()].filter((v) => v.table === r.table._id);
    expect(holding).toHaveLength(1);
    expect(holding[0]._id).toBe(results.find((res) => res.statusCode === 200)!.json()._id);
  });
});

describe('POST /t/:slug/reservations/:id/seat', () => {
  it('seats the party at its table: the table is occupied, and the tab opened next there is linked', async () => {
    const r = await restaurant();
    const res = await booked(r, { tableId: r.table._id });
    const other = await booked(r, { tableId: r.table2._id });

    const seated = await seat(r, res._id);
    expect(seated.statusCode).toBe(200);
    expect(seated.json()).toMatchObject({ _id: res._id, status: 'seated', table: r.table._id, order: null });
    expect(await tableStatus(r, r.table._id)).toBe('occupied');
    expect(await tableStatus(r, r.table2._id)).toBe('available');

    // Seating again changes nothing, with or without naming the same table.
    const again = await seat(r, res._id, {});
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(seated.json());
    expect((await seat(r, res._id, { tableId: r.table._id })).json()).toEqual(seated.json());
    expectConflict(await seat(r, res._id, { tableId: r.table2._id }), 'invalid_transition');
    expect(await tableStatus(r, r.table2._id)).toBe('available');

    const tab = await openTab(r, r.table._id);
    const all = await reservations(r);
    expect(all.get(res._id)).toMatchObject({ status: 'seated', table: r.table._id, order: tab._id });
    expect(all.get(other._id)).toMatchObject({ status: 'pending', order: null });
    expect((await seat(r, res._id)).json()).toMatchObject({ status: 'seated', order: tab._id });

    // A tab on another table is not this party's; a confirmed reservation is seated too.
    expect((await put(r, other._id, { status: 'confirmed' })).statusCode).toBe(200);
    const seated2 = await seat(r, other._id);
    expect(seated2.json()).toMatchObject({ status: 'seated', table: r.table2._id, order: null });
    expect((await reservation(r, res._id)).order).toBe(tab._id);
    const tab2 = await openTab(r, r.table2._id);
    expect((await reservation(r, other._id)).order).toBe(tab2._id);
    expect((await reservation(r, res._id)).order).toBe(tab._id);
  });

  it('seats a party at the open tab of the table with orderId; without it a table in use is 409 table_in_use', async () => {
    const r = await restaurant();
    const res = await booked(r, { tableId: r.table._id });
    const tab = await openTab(r, r.table._id);

    expectConflict(await seat(r, res._id), 'table_in_use');
    expect(await reservation(r, res._id)).toMatchObject({ status: 'pending', order: null });
    const takeout = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, {
      orderType: 'takeout',
      customerName: 'João',
      items: [{ menuItem: r.drink._id, quantity: 1 }],
    });
    expect(takeout.statusCode).toBe(201);
    expectInvalid(await seat(r, res._id, { orderId: takeout.json()._id }), 'body.orderId');
    expectInvalid(await seat(r, res._id, { orderId: MISSING }), 'body.orderId');

    const seated = await seat(r, res._id, { orderId: tab._id });
    expect(seated.statusCode).toBe(200);
    expect(seated.json()).toMatchObject({ status: 'seated', table: r.table._id, order: tab._id });
    expect(await tableStatus(r, r.table._id)).toBe('occupied');
    expect((await seat(r, res._id, { orderId: tab._id })).json()).toEqual(seated.json());
    expect((await seat(r, res._id)).json()).toEqual(seated.json());

    // A party without a table: seated at a table in use is 409, at a free one it is occupied.
    const walkIn = await booked(r, { time: '12:00' });
    expectConflict(await seat(r, walkIn._id, { tableId: r.table._id }), 'table_in_use');
    expectInvalid(await seat(r, walkIn._id, { orderId: tab._id }), 'body.orderId');
    expect(await reservation(r, walkIn._id)).toMatchObject({ status: 'pending', table: null });
    const atFree = await seat(r, walkIn._id, { tableId: r.table2._id });
    expect(atFree.json()).toMatchObject({ status: 'seated', table: r.table2._id, order: null });
    expect(await tableStatus(r, r.table2._id)).toBe('occupied');
  });

  it('refuses a second party at a table where a seated party has not opened its tab yet (409 table_in_use)', async () => {
    const r = await restaurant();
    const lunch = await booked(r, { tableId: r.table._id, time: '12:00' });
    const dinner = await booked(r, { time: '20:00' });
    expect((await seat(r, lunch._id)).statusCode).toBe(200);
    expectConflict(await seat(r, dinner._id, { tableId: r.table._id }), 'table_in_use');
    expect(await reservation(r, dinner._id)).toMatchObject({ status: 'pending', table: null });
    // Once the first party's tab is open, the next tab opened there is still linked to it alone.
    const tab = await openTab(r, r.table._id);
    expect((await reservation(r, lunch._id)).order).toBe(tab._id);
    expect((await seat(r, dinner._id, { tableId: r.table2._id })).json()).toMatchObject({ status: 'seated', table: r.table2._id });
  });

  it('follows a merged tab: the party joins the other tab and its table is no longer held', async () => {
    const r = await restaurant();
    const party = await booked(r, { tableId: r.table._id, time: '20:00' });
    expect((await seat(r, party._id)).statusCode).toBe(200);
    const tab = await openTab(r, r.table._id);
    const other = await openTab(r, r.table2._id);
    const merged = await call('POST', `/t/${r.slug}/orders/${other._id}/merge`, r.staff.headers, { orderId: tab._id });
    expect(merged.statusCode, merged.body).toBe(200);
    expect(await reservation(r, party._id)).toMatchObject({ status: 'seated', order: other._id, table: null });
    expect(await tableStatus(r, r.table._id)).toBe('available');
    // The freed table can be held again in the same window.
    expect((await book(r, { tableId: r.table._id, time: '20:30' })).statusCode).toBe(201);
  });

  it('refuses seating at another table held by an overlapping reservation (409 table_reserved)', async () => {
    const r = await restaurant();
    const holder = await booked(r, { tableId: r.table._id, time: '20:00' });
    const party = await booked(r, { tableId: r.table2._id, time: '21:00' });
    const refused = await seat(r, party._id, { tableId: r.table._id });
    expectConflict(refused, 'table_reserved');
    expect(refused.json().details).toEqual([{ field: 'reservation', message: holder._id }]);
    expect(await reservation(r, party._id)).toMatchObject({ status: 'pending', table: r.table2._id });
    expect(await tableStatus(r, r.table._id)).toBe('available');
    // Seated at another table, it leaves its own: the second table is free for another hold in its window.
    const third = await makeTable(t.app, r.tenant);
    expect((await seat(r, party._id, { tableId: third._id })).json()).toMatchObject({ status: 'seated', table: third._id });
    await booked(r, { tableId: r.table2._id, time: '21:00' });
  });

  it('seats through PUT status seated as the route does', async () => {
    const r = await restaurant();
    const res = await booked(r, { tableId: r.table._id });
    await openTab(r, r.table._id);
    expectConflict(await put(r, res._id, { status: 'seated' }), 'table_in_use');
    expect((await reservation(r, res._id)).status).toBe('pending');
    const free = await booked(r, { tableId: r.table2._id });
    expect((await put(r, free._id, { status: 'seated' })).json()).toMatchObject({ status: 'seated', table: r.table2._id });
    expect(await tableStatus(r, r.table2._id)).toBe('occupied');
    expectConflict(await put(r, free._id, { time: '21:00' }), 'reservation_closed');
  });

  it('a seated reservation cannot be cancelled, marked no-show, or moved back', async () => {
    const r = await restaurant();
    const res = await booked(r, { tableId: r.table._id });
    const seated = (await seat(r, res._id)).json();
    expectConflict(await cancel(r, res._id), 'invalid_transition');
    expectConflict(await noShow(r, res._id), 'invalid_transition');
    expectConflict(await put(r, res._id, { status: 'cancelled' }), 'invalid_transition');
    expectConflict(await put(r, res._id, { status: 'confirmed' }), 'invalid_transition');
    expect(await reservation(r, res._id)).toEqual(seated);
    expect(await tableStatus(r, r.table._id)).toBe('occupied');
  });
});

describe('POST /t/:slug/reservations/:id/no-show', () => {
  it('marks the party absent from pending or confirmed, again without change; it is final', async () => {
    const r = await restaurant();
    const res = await booked(r, { tableId: r.table._id });
    const marked = await noShow(r, res._id);
    expect(marked.statusCode).toBe(200);
    expect(marked.json()).toMatchObject({ _id: res._id, status: 'no_show', table: r.table._id, order: null });
    const again = await noShow(r, res._id);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(marked.json());

    expectConflict(await seat(r, res._id), 'invalid_transition');
    expectConflict(await seat(r, res._id, { tableId: r.table2._id }), 'invalid_transition');
    expectConflict(await cancel(r, res._id), 'invalid_transition');
    expectConflict(await put(r, res._id, { status: 'confirmed' }), 'invalid_transition');
    expectConflict(await put(r, res._id, { time: '21:00' }), 'reservation_closed');
    expect(await reservation(r, res._id)).toEqual(marked.json());
    expect(await tableStatus(r, r.table._id)).toBe('available');
    expect(await tableStatus(r, r.table2._id)).toBe('available');

    const confirmed = await booked(r, { tableId: r.table2._id });
    expect((await put(r, confirmed._id, { status: 'confirmed' })).statusCode).toBe(200);
    expect((await noShow(r, confirmed._id)).json()).toMatchObject({ status: 'no_show' });
  });

  it('refuses a cancelled reservation, for no-show and seat alike', async () => {
    const r = await restaurant();
    const res = await booked(r, { tableId: r.table._id });
    expect((await cancel(r, res._id)).statusCode).toBe(200);
    expectConflict(await noShow(r, res._id), 'reservation_cancelled');
    expectConflict(await seat(r, res._id), 'reservation_cancelled');
    expect((await reservation(r, res._id)).status).toBe('cancelled');
    expect(await tableStatus(r, r.table._id)).toBe('available');
  });
});

describe('seat and no-show: access and input', () => {
  it('needs a token (401) and a floor role (403 for an accountant); nothing changes', async () => {
    const r = await restaurant();
    const res = await booked(r, { tableId: r.table._id });
    for (const send of [(h: H) => seat(r, res._id, {}, h), (h: H) => noShow(r, res._id, h)]) {
      expect((await send({})).statusCode).toBe(401);
      expect((await send({ authorization: 'Bearer nope' })).statusCode).toBe(401);
      const forbidden = await send(r.accountant.headers);
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json().code).toBe('role');
    }
    expect(await reservation(r, res._id)).toEqual(res);
    expect(await tableStatus(r, r.table._id)).toBe('available');
    // Every floor role may.
    expect((await seat(r, res._id, {}, r.admin.headers)).json().status).toBe('seated');
    const other = await booked(r);
    expect((await noShow(r, other._id, r.admin.headers)).json().status).toBe('no_show');
  });

  it("answers 404 for another tenant's reservation, through either slug, and leaves it untouched", async () => {
    const owner = await restaurant();
    const outsider = await restaurant();
    const res = await makeReservation(t.app, owner.tenant, { tableId: owner.table._id });
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'POST', path: `/t/:slug/reservations/${res._id}/seat`, payload: {} },
        { method: 'POST', path: `/t/:slug/reservations/${res._id}/seat`, payload: { tableId: owner.table._id } },
        { method: 'POST', path: `/t/:slug/reservations/${res._id}/seat`, payload: { tableId: outsider.table._id } },
        { method: 'POST', path: `/t/:slug/reservations/${res._id}/no-show` },
        { method: 'PUT', path: `/t/:slug/reservations/${res._id}`, payload: { tableId: owner.table2._id } },
      ],
      snapshot: async () => ({ reservations: [...(await reservations(owner)).values()], table: await tableStatus(owner, owner.table._id) }),
    });
    expect(await tableStatus(outsider, outsider.table._id)).toBe('available');
    for (const send of [() => seat(owner, MISSING), () => noShow(owner, MISSING)]) {
      const missing = await send();
      expect(missing.statusCode).toBe(404);
    }
  });

  it('answers 400 for a bad id or body, naming the field', async () => {
    const r = await restaurant();
    const res = await booked(r, { tableId: r.table._id });
    expectInvalid(await seat(r, 'zzz'), 'params.id');
    expectInvalid(await noShow(r, 'zzz'), 'params.id');
    expectInvalid(await seat(r, res._id, { tableId: 'mesa-1' }), 'body.tableId');
    expectInvalid(await seat(r, res._id, { orderId: 12 }), 'body.orderId');
    expectInvalid(await seat(r, res._id, { table: r.table2._id }), 'body.table');
    expectInvalid(await seat(r, res._id, { tableId: MISSING }), 'body.tableId');
    expect((await seat(r, res._id, [])).statusCode).toBe(400);
    expect(await reservation(r, res._id)).toEqual(res);
    expect(await tableStatus(r, r.table._id)).toBe('available');
  });

  it('answers 404 with a reason for a business type without reservations', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app, { businessType: 'mercado' });
    const res = await makeReservation(t.app, tenant);
    for (const path of ['seat', 'no-show']) {
      const answer = await call('POST', `/t/${slug}/reservations/${res._id}/${path}`, admin.headers, {});
      expect(answer.statusCode).toBe(404);
      expect(answer.json().message).toBe('Tables and reservations are not available for the business type mercado');
    }
  });
});

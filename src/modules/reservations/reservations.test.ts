import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeReservation, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { addDays, isCalendarDate, localTime } from '../../platform/time.js';
import { slotInPast } from './reservations.rules.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());
afterEach(() => t.clock.set(new Date()));

const MISSING = 'ffffffffffffffffffffffff';

/** Each test speaks from its own client IP, so the per-IP limit of one test never touches another. */
let ipCounter = 0;
const nextIp = () => `127.0.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

/** A date safely in the future whatever the time zone. */
const future = (days = 10) => addDays(new Date().toISOString().slice(0, 10), days);

const valid = () => ({
  customerName: 'Mariana Costa',
  customerPhone: '(11) 98765-4321',
  customerEmail: 'Mariana@Example.com',
  date: future(),
  time: '20:00',
  partySize: 4,
  notes: 'Mesa perto da janela',
});

function book(slug: string, payload: object, ip = nextIp()) {
  return t.app.inject({ method: 'POST', url: `/t/${slug}/reservations`, payload, remoteAddress: ip });
}

describe('POST /t/:slug/reservations (public)', () => {
  it('creates a pending reservation without credentials', async () => {
    const { slug } = await makeTenantWithTeam(t.app);
    const res = await book(slug, { ...valid(), status: 'confirmed', _id: MISSING });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      customerName: 'Mariana Costa',
      customerPhone: '(11) 98765-4321',
      customerEmail: 'mariana@example.com',
      date: valid().date,
      time: '20:00',
      partySize: 4,
      notes: 'Mesa perto da janela',
      status: 'pending',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.json()._id).not.toBe(MISSING);
    const minimal = await book(slug, { customerName: 'João', customerPhone: '+55 21 99876-5432', date: future(), time: '12:30', partySize: 1 });
    expect(minimal.statusCode).toBe(201);
    expect(minimal.json()).toMatchObject({ customerEmail: null, notes: null });
  });

  it('validates every field, naming it', async () => {
    const { slug } = await makeTenantWithTeam(t.app);
    const cases: [object, string][] = [
      [{ customerName: '' }, 'body.customerName'],
      [{ customerName: undefined }, 'body.customerName'],
      [{ customerPhone: 'call me' }, 'body.customerPhone'],
      [{ customerPhone: '1234-567' }, 'body.customerPhone'],
      [{ customerPhone: '+55 11 98765-4321 1234567' }, 'body.customerPhone'],
      [{ customerEmail: 'not-an-email' }, 'body.customerEmail'],
      [{ date: '2030-6-1' }, 'body.date'],
      [{ date: '01/06/2030' }, 'body.date'],
      [{ date: '2031-02-30' }, 'body.date'],
      [{ date: '2031-13-01' }, 'body.date'],
      [{ time: '24:00' }, 'body.time'],
      [{ time: '9:00' }, 'body.time'],
      [{ time: '12:60' }, 'body.time'],
      [{ partySize: 0 }, 'body.partySize'],
      [{ partySize: 51 }, 'body.partySize'],
      [{ partySize: 2.5 }, 'body.partySize'],
      [{ partySize: '4' }, 'body.partySize'],
      [{ notes: 'x'.repeat(1001) }, 'body.notes'],
    ];
    for (const [patch, field] of cases) {
      const res = await book(slug, { ...valid(), ...patch });
      expect(res.statusCode, JSON.stringify(patch)).toBe(400);
      expect(res.json().details[0].field, JSON.stringify(patch)).toBe(field);
    }
    expect((await book(slug, { ...valid(), partySize: 50 })).statusCode).toBe(201);
  });

  it("refuses past slots in the tenant's time zone, using the clock", async () => {
    // 02:30 UTC on June 15th is still June 14th, 23:30, in São Paulo, and already 11:30 on the 15th in Tokyo.
    t.clock.set(new Date('2030-06-15T02:30:00Z'));
    const sp = await makeTenantWithTeam(t.app);
    const tokyo = await t.app.services.tenants.create({ name: 'Izakaya', slug: `tokyo-${Date.now()}`, timezone: 'Asia/Tokyo' });

    const yesterday = await book(sp.slug, { ...valid(), date: '2030-06-13' });
    expect(yesterday.statusCode).toBe(400);
    expect(yesterday.json().details[0]).toEqual({ field: 'body.date', message: expect.stringContaining('America/Sao_Paulo') });
    const earlierToday = await book(sp.slug, { ...valid(), date: '2030-06-14', time: '23:00' });
    expect(earlierToday.statusCode).toBe(400);
    expect(earlierToday.json().details[0].field).toBe('body.time');
    expect((await book(sp.slug, { ...valid(), date: '2030-06-14', time: '23:30' })).statusCode).toBe(201);
    expect((await book(sp.slug, { ...valid(), date: '2030-06-14', time: '23:45' })).statusCode).toBe(201);
    expect((await book(sp.slug, { ...valid(), date: '2030-06-15', time: '08:00' })).statusCode).toBe(201);

    expect((await book(tokyo.slug, { ...valid(), date: '2030-06-14', time: '23:45' })).statusCode).toBe(400);
    expect((await book(tokyo.slug, { ...valid(), date: '2030-06-15', time: '11:00' })).statusCode).toBe(400);
    expect((await book(tokyo.slug, { ...valid(), date: '2030-06-15', time: '12:00' })).statusCode).toBe(201);

    // Time moves on: the same slot becomes past.
    t.clock.set(new Date('2030-06-15T03:00:00Z'));
    expect((await book(sp.slug, { ...valid(), date: '2030-06-14', time: '23:45' })).statusCode).toBe(400);
  });

  it('limits each client IP to 10 requests a minute, with the spec 429', async () => {
    const { slug } = await makeTenantWithTeam(t.app);
    const ip = nextIp();
    const first = await book(slug, valid(), ip);
    expect(first.headers['x-ratelimit-limit']).toBe('10');
    expect(first.headers['x-ratelimit-remaining']).toBe('9');
    // Invalid requests count too.
    for (let i = 0; i < 4; i++) expect((await book(slug, { ...valid(), partySize: 0 }, ip)).statusCode).toBe(400);
    for (let i = 0; i < 5; i++) expect((await book(slug, valid(), ip)).statusCode).toBe(201);

    const limited = await book(slug, valid(), ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ statusCode: 429, message: expect.any(String) });
    expect(limited.headers['content-type']).toMatch(/^application\/json/);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['x-ratelimit-reset'])).toBeGreaterThan(t.clock.now().getTime() / 1000);

    // Other clients are not affected, and the limit is per IP across tenants.
    expect((await book(slug, valid())).statusCode).toBe(201);
    const other = await makeTenantWithTeam(t.app);
    expect((await book(other.slug, valid(), ip)).statusCode).toBe(429);

    // The window rolls: after Retry-After the client may book again.
    t.clock.advance(retryAfter * 1000);
    expect((await book(slug, valid(), ip)).statusCode).toBe(201);
  });

  it('lets exactly 10 of 15 simultaneous requests from one IP through', async () => {
    const { slug } = await makeTenantWithTeam(t.app);
    const ip = nextIp();
    const results = await Promise.all(Array.from({ length: 15 }, () => book(slug, valid(), ip)));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(10);
    expect(codes.filter((c) => c === 429)).toHaveLength(5);
  });
});

describe('GET /t/:slug/reservations (admin)', () => {
  it('lists by date and time, filtered by date and status', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const d1 = future(3);
    const d2 = future(4);
    const late = await makeReservation(t.app, tenant, { date: d1, time: '21:00' });
    const early = await makeReservation(t.app, tenant, { date: d1, time: '12:00' });
    const next = await makeReservation(t.app, tenant, { date: d2, time: '19:00' });
    await t.app.services.reservations.update({ id: tenant._id, timezone: tenant.timezone }, late._id, { status: 'confirmed' });

    const all = await t.app.inject({ url: `/t/${slug}/reservations`, headers: admin.headers });
    expect(all.statusCode).toBe(200);
    expect(all.json().map((r: { _id: string }) => r._id)).toEqual([early._id, late._id, next._id]);
    const byDate = await t.app.inject({ url: `/t/${slug}/reservations?date=${d2}`, headers: admin.headers });
    expect(byDate.json().map((r: { _id: string }) => r._id)).toEqual([next._id]);
    const confirmed = await t.app.inject({ url: `/t/${slug}/reservations?status=confirmed&date=${d1}`, headers: admin.headers });
    expect(confirmed.json().map((r: { _id: string }) => r._id)).toEqual([late._id]);

    expect((await t.app.inject({ url: `/t/${slug}/reservations?status=done`, headers: admin.headers })).statusCode).toBe(400);
    expect((await t.app.inject({ url: `/t/${slug}/reservations?date=tomorrow`, headers: admin.headers })).statusCode).toBe(400);
    const impossible = await t.app.inject({ url: `/t/${slug}/reservations?date=2031-02-30`, headers: admin.headers });
    expect(impossible.statusCode).toBe(400);
    expect(impossible.json().details[0].field).toBe('querystring.date');
  });

  it('is for admins only (403 for staff, 401 without a token)', async () => {
    const { slug, staff } = await makeTenantWithTeam(t.app);
    expect((await t.app.inject({ url: `/t/${slug}/reservations`, headers: staff.headers })).statusCode).toBe(403);
    expect((await t.app.inject({ url: `/t/${slug}/reservations` })).statusCode).toBe(401);
  });
});

describe('PUT and DELETE /t/:slug/reservations/:id', () => {
  it('moves pending -> confirmed -> cancelled; other moves are 409; cancelled is final', async () => {
    const { tenant, slug, staff } = await makeTenantWithTeam(t.app);
    const r = await makeReservation(t.app, tenant);
    const put = (payload: object, id = r._id) => t.app.inject({ method: 'PUT', url: `/t/${slug}/reservations/${id}`, headers: staff.headers, payload });

    expect((await put({ status: 'pending' })).statusCode).toBe(200);
    const confirmed = await put({ status: 'confirmed' });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json().status).toBe('confirmed');
    const back = await put({ status: 'pending' });
    expect(back.statusCode).toBe(409);
    expect(back.json().code).toBe('invalid_transition');
    expect((await put({ status: 'cancelled' })).json().status).toBe('cancelled');
    for (const payload of [{ status: 'confirmed' }, { status: 'pending' }, { status: 'cancelled' }, { partySize: 2 }]) {
      const res = await put(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(409);
      expect(res.json().code).toBe('reservation_cancelled');
    }

    const other = await makeReservation(t.app, tenant);
    expect((await put({ status: 'cancelled' }, other._id)).json().status).toBe('cancelled');
    expect((await put({ status: 'archived' }, other._id)).statusCode).toBe(400);
  });

  it('edits details, checking the new slot; an untouched past slot does not block other edits', async () => {
    const { tenant, slug, admin } = await makeTenantWithTeam(t.app);
    const date = future(1);
    const r = await makeReservation(t.app, tenant, { date, time: '20:00' });
    const put = (payload: object) => t.app.inject({ method: 'PUT', url: `/t/${slug}/reservations/${r._id}`, headers: admin.headers, payload });

    const edited = await put({ partySize: 6, time: '21:15', notes: null, customerEmail: 'Novo@Example.com' });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ partySize: 6, time: '21:15', notes: null, customerEmail: 'novo@example.com', status: 'pending' });
    expect((await put({ date: '2020-01-01' })).statusCode).toBe(400);
    expect((await put({ date: '2031-02-29' })).statusCode).toBe(400);
    expect((await put({ partySize: 0 })).statusCode).toBe(400);
    expect((await put({ customerPhone: 'x' })).statusCode).toBe(400);

    // Days later the reservation's own slot is past; it can still be confirmed or annotated.
    t.clock.advance(5 * 86_400_000);
    const later = await makeUser(t.app, tenant, 'admin');
    const confirm = await t.app.inject({ method: 'PUT', url: `/t/${slug}/reservations/${r._id}`, headers: later.headers, payload: { status: 'confirmed', notes: 'Chegaram' } });
    expect(confirm.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/reservations/${r._id}`, headers: later.headers, payload: { time: '22:00' } })).statusCode).toBe(400);

  });

  it('DELETE cancels and keeps the record; cancelling twice changes nothing', async () => {
    const { tenant, slug, staff, admin } = await makeTenantWithTeam(t.app);
    const r = await makeReservation(t.app, tenant);
    const del = await t.app.inject({ method: 'DELETE', url: `/t/${slug}/reservations/${r._id}`, headers: staff.headers });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ _id: r._id, status: 'cancelled', customerName: r.customerName });
    const again = await t.app.inject({ method: 'DELETE', url: `/t/${slug}/reservations/${r._id}`, headers: staff.headers });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(del.json());
    const list = await t.app.inject({ url: `/t/${slug}/reservations?status=cancelled`, headers: admin.headers });
    expect(list.json().map((x: { _id: string }) => x._id)).toEqual([r._id]);
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${slug}/reservations/${MISSING}`, headers: staff.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url: `/t/${slug}/reservations/zzz`, headers: staff.headers })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'PUT', url: `/t/${slug}/reservations/${MISSING}`, headers: staff.headers, payload: { partySize: 2 } })).statusCode).toBe(404);
  });

  it('needs a token (401) and an operational role (403 for accountants)', async () => {
    const { tenant, slug, accountant } = await makeTenantWithTeam(t.app);
    const r = await makeReservation(t.app, tenant);
    for (const [method, payload] of [
      ['PUT', { status: 'confirmed' }],
      ['DELETE', undefined],
    ] as const) {
      const url = `/t/${slug}/reservations/${r._id}`;
      expect((await t.app.inject({ method, url, payload })).statusCode).toBe(401);
      expect((await t.app.inject({ method, url, payload, headers: accountant.headers })).statusCode).toBe(403);
    }
    expect((await t.app.services.reservations.list(tenant._id))[0].status).toBe('pending');
  });

  it("answers 404 for another tenant's reservation and leaves it untouched", async () => {
    const owner = await makeTenantWithTeam(t.app);
    const outsider = await makeTenantWithTeam(t.app);
    const r = await makeReservation(t.app, owner.tenant);
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'PUT', path: `/t/:slug/reservations/${r._id}`, payload: { status: 'confirmed' } },
        { method: 'DELETE', path: `/t/:slug/reservations/${r._id}` },
      ],
      snapshot: () => t.app.services.reservations.list(owner.tenant._id),
    });
    expect((await t.app.inject({ url: `/t/${outsider.slug}/reservations`, headers: outsider.admin.headers })).json()).toEqual([]);
  });
});

describe('business types without reservations', () => {
  it('answers 404 with a reason on every reservation route for mercado and padaria', async () => {
    for (const businessType of ['mercado', 'padaria'] as const) {
      const { tenant, slug, admin } = await makeTenantWithTeam(t.app, { businessType });
      const r = await makeReservation(t.app, tenant);
      const responses = [
        await book(slug, valid()),
        await t.app.inject({ url: `/t/${slug}/reservations`, headers: admin.headers }),
        await t.app.inject({ method: 'PUT', url: `/t/${slug}/reservations/${r._id}`, headers: admin.headers, payload: { status: 'confirmed' } }),
        await t.app.inject({ method: 'DELETE', url: `/t/${slug}/reservations/${r._id}`, headers: admin.headers }),
      ];
      for (const res of responses) {
        expect(res.statusCode).toBe(404);
        expect(res.json().message).toBe(`Tables and reservations are not available for the business type ${businessType}`);
      }
    }
  });
});

describe('reservation rules', () => {
  it('knows real dates, local times and past slots', () => {
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2027-02-29')).toBe(false);
    expect(isCalendarDate('2027-04-31')).toBe(false);
    expect(isCalendarDate('2027-4-3')).toBe(false);
    const at = new Date('2030-01-01T01:05:00Z');
    expect(localTime(at, 'America/Sao_Paulo')).toBe('22:05');
    expect(localTime(at, 'UTC')).toBe('01:05');
    expect(slotInPast('2029-12-31', '22:05', at, 'America/Sao_Paulo')).toBeNull();
    expect(slotInPast('2029-12-31', '22:04', at, 'America/Sao_Paulo')).toBe('time');
    expect(slotInPast('2029-12-30', '23:00', at, 'America/Sao_Paulo')).toBe('date');
    expect(addDays('2030-12-31', 1)).toBe('2031-01-01');
    expect(addDays('2030-03-01', -1)).toBe('2030-02-28');
  });
});

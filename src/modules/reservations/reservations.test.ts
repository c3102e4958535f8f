import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseRateLimitSetting } from '../../config.js';
import { createTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from '../../../test/app.js';
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

/** Each test speaks from its own client IP (as it would if a rate limit were configured). */
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
    // A guest cannot choose the status or the id: a field the route does not take is refused, naming it.
    for (const extra of [{ status: 'confirmed' }, { _id: MISSING }]) {
      const refused = await book(slug, { ...valid(), ...extra });
      expect(refused.statusCode, JSON.stringify(extra)).toBe(400);
      expect(refused.json().details[0].field).toBe(`body.${Object.keys(extra)[0]}`);
    }
    const res = await book(slug, valid());
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
      table: null,
      durationMinutes: 120,
      order: null,
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

  it('is not rate limited by default: one address books again and again, without rate headers', async () => {
    const { slug } = await makeTenantWithTeam(t.app);
    const ip = '10.20.30.40';
    for (let i = 0; i < 25; i++) {
      const res = await book(slug, valid(), ip);
      expect(res.statusCode, `request ${i + 1}`).toBe(201);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
    const burst = await Promise.all(Array.from({ length: 15 }, () => book(slug, valid(), ip)));
    expect(burst.map((r) => r.statusCode)).toEqual(Array(15).fill(201));
  });
});

describe('POST /t/:slug/reservations with RESERVATION_RATE_LIMIT', () => {
  // RESERVATION_RATE_LIMIT=3/1m
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ reservationRateLimit: parseRateLimitSetting('RESERVATION_RATE_LIMIT', '3/1m') });
  });
  afterAll(() => limited?.close());

  const post = (slug: string, payload: object, ip: string) =>
    limited.app.inject({ method: 'POST', url: `/t/${slug}/reservations`, payload, remoteAddress: ip });
  const restaurant = () => makeTenantWithTeam(limited.app);

  it('answers the spec 429 past the limit, with rate headers, until the window rolls', async () => {
    const { slug } = await restaurant();
    const ip = '10.0.0.1';
    const first = await post(slug, valid(), ip);
    expect(first.statusCode).toBe(201);
    expect(first.headers['x-ratelimit-limit']).toBe('3');
    expect(first.headers['x-ratelimit-remaining']).toBe('2');
    expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(limited.clock.now().getTime() / 1000);
    for (let i = 0; i < 2; i++) expect((await post(slug, valid(), ip)).statusCode).toBe(201);

    const refused = await post(slug, valid(), ip);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ statusCode: 429, message: expect.any(String) });
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['x-ratelimit-limit']).toBe('3');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    // Nothing was created by the refused request.
    const tenant = await limited.app.services.tenants.findBySlug(slug);
    expect((await limited.app.services.reservations.list(limited.app.deps.tenantDb(tenant!.id))).reservations).toHaveLength(3);

    // The window rolls: after Retry-After the client may book again.
    limited.clock.advance(retryAfter * 1000);
    expect((await post(slug, valid(), ip)).statusCode).toBe(201);
  });

  it('counts per restaurant: one address has a budget at each restaurant', async () => {
    const a = await restaurant();
    const b = await restaurant();
    const ip = '10.0.0.2';
    for (let i = 0; i < 3; i++) expect((await post(a.slug, valid(), ip)).statusCode).toBe(201);
    expect((await post(a.slug, valid(), ip)).statusCode).toBe(429);
    for (let i = 0; i < 3; i++) expect((await post(b.slug, valid(), ip)).statusCode).toBe(201);
    expect((await post(b.slug, valid(), ip)).statusCode).toBe(429);
  });

  it('counts per client address: two addresses at one restaurant do not share a budget', async () => {
    const { slug } = await restaurant();
    for (let i = 0; i < 3; i++) expect((await post(slug, valid(), '10.0.0.3')).statusCode).toBe(201);
    expect((await post(slug, valid(), '10.0.0.3')).statusCode).toBe(429);
    for (let i = 0; i < 3; i++) expect((await post(slug, valid(), '10.0.0.4')).statusCode).toBe(201);
    expect((await post(slug, valid(), '::ffff:10.0.0.5')).statusCode).toBe(201);
  });

  it('counts only accepted requests: refused input does not use up the budget', async () => {
    const { slug } = await restaurant();
    const ip = '10.0.0.6';
    // Refused by the schema, and by the service once the request is through (a slot already past).
    const bad = [{ partySize: 0 }, { customerPhone: 'x' }, { date: '2031-02-30' }, { date: future(-2) }];
    for (let round = 0; round < 2; round++) {
      for (const patch of bad) expect((await post(slug, { ...valid(), ...patch }, ip)).statusCode, JSON.stringify(patch)).toBe(400);
    }
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await post(slug, valid(), ip)).statusCode);
    expect(codes).toEqual([201, 201, 201, 429]);
    // Over the limit, bad input is still told what is wrong.
    expect((await post(slug, { ...valid(), partySize: 0 }, ip)).statusCode).toBe(400);
  });

  it('lets exactly the limit through when requests arrive at once', async () => {
    const { slug } = await restaurant();
    const results = await Promise.all(Array.from({ length: 8 }, () => post(slug, valid(), '10.0.0.7')));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(3);
    expect(codes.filter((c) => c === 429)).toHaveLength(5);
  });
});

describe('RESERVATION_RATE_LIMIT setting', () => {
  it('is off unless set, and reads N/window', () => {
    const parse = (v: string | undefined) => parseRateLimitSetting('RESERVATION_RATE_LIMIT', v);
    expect(parse(undefined)).toBeNull();
    expect(parse('')).toBeNull();
    expect(parse('off')).toBeNull();
    expect(parse('OFF')).toBeNull();
    expect(parse('10/1m')).toEqual({ limit: 10, windowMs: 60_000 });
    expect(parse('10/m')).toEqual({ limit: 10, windowMs: 60_000 });
    expect(parse('10/minute')).toEqual({ limit: 10, windowMs: 60_000 });
    expect(parse('30/60s')).toEqual({ limit: 30, windowMs: 60_000 });
    expect(parse('100/1h')).toEqual({ limit: 100, windowMs: 3_600_000 });
    for (const bad of ['on', '10', '0/1m', '10/0s', '10/2h', '10/1d', '-1/1m', '10/1m/2', 'ten/minute']) {
      expect(() => parse(bad), bad).toThrow(ConfigError);
    }
  });

  it('is read from the environment', () => {
    const env = { JWT_SECRET: TEST_JWT_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY.toString('hex'), GATEWAY_A_MODE: 'off', PIX_PSP_MODE: 'off', DATA_DIR: '/nonexistent-dir' };
    expect(loadConfig(env).reservationRateLimit).toBeNull();
    expect(loadConfig({ ...env, RESERVATION_RATE_LIMIT: '10/1m' }).reservationRateLimit).toEqual({ limit: 10, windowMs: 60_000 });
    expect(() => loadConfig({ ...env, RESERVATION_RATE_LIMIT: 'sometimes' })).toThrow(/RESERVATION_RATE_LIMIT/);
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
    await t.app.services.reservations.update({ db: t.app.deps.tenantDb(tenant._id), timezone: tenant.timezone }, late._id, { status: 'confirmed' });

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
    expect((await t.app.services.reservations.list(t.app.deps.tenantDb(tenant._id))).reservations[0]!.status).toBe('pending');
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
      snapshot: () => t.app.services.reservations.list(t.app.deps.tenantDb(owner.tenant._id)),
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

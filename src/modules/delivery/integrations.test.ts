import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { marketplaceIntegrations, type DeliveryProvider } from '../../db/schema/delivery.js';
import { defaultIntegrationsConfig } from '../../integrations/registry.js';
import { PROVIDER_A_SIM_CLIENT_ID, PROVIDER_A_SIM_CLIENT_SECRET, PROVIDER_A_SIM_MERCHANT_ID } from '../../integrations/provider-a/index.js';
import { PROVIDER_B_SIM_CLIENT_ID, PROVIDER_B_SIM_CLIENT_SECRET, PROVIDER_B_SIM_STORE_ID } from '../../integrations/provider-b/index.js';
import { PROVIDER_C_SIM_CLIENT_ID, PROVIDER_C_SIM_CLIENT_SECRET } from '../../integrations/provider-c/simulator/index.js';
import { TOKEN_RENEW_MARGIN_MS } from './integrations.service.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
type Method = 'GET' | 'POST' | 'PUT';

const call = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) => t.app.inject({ method, url, headers, payload });
const base = (slug: string) => `/t/${slug}/marketplace/integrations`;

/** Credentials each in-process simulator accepts. */
const GOOD: Record<DeliveryProvider, { clientId: string; clientSecret: string; merchantId: string }> = {
  provider_a: { clientId: PROVIDER_A_SIM_CLIENT_ID, clientSecret: PROVIDER_A_SIM_CLIENT_SECRET, merchantId: PROVIDER_A_SIM_MERCHANT_ID },
  provider_b: { clientId: PROVIDER_B_SIM_CLIENT_ID, clientSecret: PROVIDER_B_SIM_CLIENT_SECRET, merchantId: PROVIDER_B_SIM_STORE_ID },
  provider_c: { clientId: PROVIDER_C_SIM_CLIENT_ID, clientSecret: PROVIDER_C_SIM_CLIENT_SECRET, merchantId: 'store-c-1' },
};

const CLIENT_SECRET = 'client-secret-that-must-never-show-1';
const WEBHOOK_SECRET = 'webhook-secret-that-must-never-show-2';

async function create(team: Team, body: object) {
  const res = await call('POST', base(team.slug), team.admin.headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The row as stored, read with the owner handle (no tenant scope). */
const storedRow = (id: string) =>
  t.db.database.owner(async (db) => (await db.select().from(marketplaceIntegrations).where(eq(marketplaceIntegrations.id, id)))[0]);

function expectNoSecret(body: string, ...secrets: string[]) {
  for (const s of secrets) expect(body).not.toContain(s);
  expect(body).not.toMatch(/clientSecret"|webhookSecret"|accessToken|"tokens"/);
}

describe('a tenant admin connects a delivery platform', () => {
  it('creates an inactive integration whose secrets are stored encrypted and never answered', async () => {
    const team = await makeTenantWithTeam(t.app);
    const body = await create(team, {
      provider: 'provider_a',
      credentials: { clientId: 'client-a', clientSecret: CLIENT_SECRET, merchantId: 'merchant-a' },
      webhookSecret: WEBHOOK_SECRET,
    });
    expect(body).toMatchObject({
      tenant: team.tenant._id,
      provider: 'provider_a',
      active: false,
      credentials: { clientId: 'client-a', merchantId: 'merchant-a', clientSecretSet: true },
      webhookSecretSet: true,
      jwksUrl: null,
      lastSyncAt: null,
      syncedItemCount: 0,
      tokenExpiresAt: null,
    });
    expect(Object.keys(body.credentials).sort()).toEqual(['clientId', 'clientSecretSet', 'merchantId']);
    expectNoSecret(JSON.stringify(body), CLIENT_SECRET, WEBHOOK_SECRET);

    // At rest: credentials and webhook secret encrypted (nothing readable in the row).
    const row = await storedRow(body._id);
    expect(row.credentials).toMatch(/^v1:/);
    expect(row.webhookSecret).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain(CLIENT_SECRET);
    expect(JSON.stringify(row)).not.toContain(WEBHOOK_SECRET);
    expect(JSON.stringify(row)).not.toContain('client-a');

    const list = await call('GET', base(team.slug), team.admin.headers);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([body]);
    expectNoSecret(list.body, CLIENT_SECRET, WEBHOOK_SECRET);
    const one = await call('GET', `${base(team.slug)}/${body._id}`, team.admin.headers);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(body);
    expectNoSecret(one.body, CLIENT_SECRET, WEBHOOK_SECRET);

    // The module's own record has them decrypted.
    const record = await t.app.services.deliveryIntegrations.get(t.app.deps.tenantDb(team.tenant._id), body._id);
    expect(record).toMatchObject({ credentials: { clientId: 'client-a', clientSecret: CLIENT_SECRET, merchantId: 'merchant-a' }, webhookSecret: WEBHOOK_SECRET });
    // Not active: not found by the ingest's lookups.
    expect(await t.app.services.deliveryIntegrations.findActive(t.app.deps.tenantDb(team.tenant._id), 'provider_a')).toBeNull();
  });

  it('answers 409 for a second integration of the same provider, and takes each provider once', async () => {
    const team = await makeTenantWithTeam(t.app);
    const credentials = { clientId: 'c', clientSecret: 's', merchantId: 'm' };
    await create(team, { provider: 'provider_b', credentials });
    const again = await call('POST', base(team.slug), team.admin.headers, { provider: 'provider_b', credentials });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('integration_exists');
    await create(team, { provider: 'provider_c', credentials, jwksUrl: 'https://keys.example.com/.well-known/jwks.json' });
    await create(team, { provider: 'provider_a', credentials });
    const list = (await call('GET', base(team.slug), team.admin.headers)).json();
    expect(list.map((i: { provider: string }) => i.provider)).toEqual(['provider_a', 'provider_b', 'provider_c']);
    // Another tenant may have the same provider.
    const other = await makeTenantWithTeam(t.app);
    await create(other, { provider: 'provider_b', credentials });
  });

  it('validates the bodies: 400 for an unknown provider, a missing or extra field, a bad URL', async () => {
    const team = await makeTenantWithTeam(t.app);
    const credentials = { clientId: 'c', clientSecret: 's', merchantId: 'm' };
    const bad: [object, RegExp][] = [
      [{ provider: 'provider_z', credentials }, /provider/],
      [{ credentials }, /provider/],
      [{ provider: 'provider_a' }, /credentials/],
      [{ provider: 'provider_a', credentials: { clientId: 'c', merchantId: 'm' } }, /clientSecret/],
      [{ provider: 'provider_a', credentials: { ...credentials, clientId: '' } }, /clientId/],
      [{ provider: 'provider_a', credentials, extra: 1 }, /extra/],
      [{ provider: 'provider_a', credentials: { ...credentials, token: 'x' } }, /token/],
      [{ provider: 'provider_c', credentials, jwksUrl: 'not a url' }, /jwksUrl/],
      [{ provider: 'provider_c', credentials, jwksUrl: 'ftp://keys.example.com/jwks.json' }, /jwksUrl/],
      [{ provider: 'provider_a', credentials, active: 'yes' }, /active/],
    ];
    for (const [payload, field] of bad) {
      const res = await call('POST', base(team.slug), team.admin.headers, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().message).toMatch(field);
    }
    expect((await call('GET', base(team.slug), team.admin.headers)).json()).toEqual([]);

    const created = await create(team, { provider: 'provider_c', credentials });
    const url = `${base(team.slug)}/${created._id}`;
    for (const [payload, field] of [
      [{ provider: 'provider_a' }, /provider/],
      [{ credentials: { clientSecret: '' } }, /clientSecret/],
      [{ credentials: { other: 'x' } }, /other/],
      [{ jwksUrl: 'keys.example.com' }, /jwksUrl/],
      [{ active: true }, /active/],
    ] as [object, RegExp][]) {
      const res = await call('PUT', url, team.admin.headers, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().message).toMatch(field);
    }
    for (const [method, path] of [
      ['GET', `${base(team.slug)}/not-an-id`],
      ['PUT', `${base(team.slug)}/not-an-id`],
      ['POST', `${base(team.slug)}/not-an-id/activate`],
      ['POST', `${base(team.slug)}/not-an-id/deactivate`],
    ] as [Method, string][]) {
      const res = await call(method, path, team.admin.headers, method === 'PUT' ? {} : undefined);
      expect(res.statusCode, `${method} ${path}`).toBe(400);
    }
    expect((await call('GET', url, team.admin.headers)).json()).toEqual(created);
  });

  it('updates part of it: credentials fields, the webhook secret (null clears it), the JWKS URL', async () => {
    const team = await makeTenantWithTeam(t.app);
    const created = await create(team, { provider: 'provider_b', credentials: GOOD.provider_b, webhookSecret: WEBHOOK_SECRET, active: true });
    expect(created.tokenExpiresAt).not.toBeNull();
    const url = `${base(team.slug)}/${created._id}`;
    const tdb = t.app.deps.tenantDb(team.tenant._id);

    // Only the merchant id of an active integration: checked with the platform (a new token), the secrets kept.
    const res = await call('PUT', url, team.admin.headers, { credentials: { merchantId: 'store-2' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ credentials: { clientId: PROVIDER_B_SIM_CLIENT_ID, merchantId: 'store-2', clientSecretSet: true }, webhookSecretSet: true, active: true });
    expect(res.json().tokenExpiresAt).not.toBeNull();
    let record = await t.app.services.deliveryIntegrations.get(tdb, created._id);
    expect(record).toMatchObject({ credentials: { ...GOOD.provider_b, merchantId: 'store-2' }, webhookSecret: WEBHOOK_SECRET });

    // A secret the platform refuses cannot be given to an active integration: 422, nothing changed.
    const refused = await call('PUT', url, team.admin.headers, { credentials: { clientSecret: 'not-the-secret' }, webhookSecret: null });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json().code).toBe('credentials_refused');
    expect(await t.app.services.deliveryIntegrations.get(tdb, created._id)).toEqual(record);

    // Inactive: new credentials are taken as they are, and drop the cached token.
    expect((await call('POST', `${url}/deactivate`, team.admin.headers)).statusCode).toBe(200);
    const newSecret = 'a-new-client-secret-3';
    const secret = await call('PUT', url, team.admin.headers, { credentials: { clientSecret: newSecret }, jwksUrl: 'http://localhost:9999/jwks.json' });
    expect(secret.statusCode).toBe(200);
    expect(secret.json()).toMatchObject({ jwksUrl: 'http://localhost:9999/jwks.json', credentials: { clientSecretSet: true }, tokenExpiresAt: null });
    expectNoSecret(secret.body, newSecret, WEBHOOK_SECRET);
    expect(JSON.stringify(await storedRow(created._id))).not.toContain(newSecret);

    const cleared = await call('PUT', url, team.admin.headers, { webhookSecret: null, jwksUrl: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ webhookSecretSet: false, jwksUrl: null });
    expect((await storedRow(created._id)).webhookSecret).toBeNull();
    record = await t.app.services.deliveryIntegrations.get(tdb, created._id);
    expect(record).toMatchObject({ webhookSecret: null, jwksUrl: null, credentials: { clientSecret: newSecret } });

    const empty = await call('PUT', url, team.admin.headers, {});
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual(cleared.json());
  });
});

describe('activation checks the credentials with the platform', () => {
  it.each(['provider_a', 'provider_b', 'provider_c'] as const)('%s: good credentials activate it and cache the token', async (provider) => {
    const team = await makeTenantWithTeam(t.app);
    const created = await create(team, { provider, credentials: GOOD[provider] });
    const url = `${base(team.slug)}/${created._id}`;
    const res = await call('POST', `${url}/activate`, team.admin.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ _id: created._id, active: true });
    expect(new Date(res.json().tokenExpiresAt).getTime()).toBeGreaterThan(t.clock.now().getTime());
    expectNoSecret(res.body, GOOD[provider].clientSecret);
    const row = await storedRow(created._id);
    expect(row.active).toBe(true);
    expect(row.tokens).toMatch(/^v1:/);

    // Idempotent: the same answer, no new token.
    const again = await call('POST', `${url}/activate`, team.admin.headers);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(res.json());
    const tdb = t.app.deps.tenantDb(team.tenant._id);
    expect(await t.app.services.deliveryIntegrations.findActive(tdb, provider)).toMatchObject({ id: created._id, active: true, credentials: GOOD[provider] });
    expect((await t.app.services.deliveryIntegrations.listActive(tdb)).map((i) => i.id)).toEqual([created._id]);

    const off = await call('POST', `${url}/deactivate`, team.admin.headers);
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ active: false });
    const offAgain = await call('POST', `${url}/deactivate`, team.admin.headers);
    expect(offAgain.statusCode).toBe(200);
    expect(offAgain.json()).toEqual(off.json());
    expect(await t.app.services.deliveryIntegrations.findActive(tdb, provider)).toBeNull();
  });

  it.each(['provider_a', 'provider_b', 'provider_c'] as const)('%s: refused credentials answer 422 with the reason and leave it inactive', async (provider) => {
    const team = await makeTenantWithTeam(t.app);
    const created = await create(team, { provider, credentials: { ...GOOD[provider], clientSecret: 'wrong-secret' } });
    const res = await call('POST', `${base(team.slug)}/${created._id}/activate`, team.admin.headers);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().code).toBe('credentials_refused');
    expect(res.json().message).toContain(provider);
    expect(res.body).not.toContain('wrong-secret');
    const row = await storedRow(created._id);
    expect(row.active).toBe(false);
    expect(row.tokens).toBeNull();

    // Created with `active: true`: checked first, nothing written when refused.
    const other = await makeTenantWithTeam(t.app);
    const direct = await call('POST', base(other.slug), other.admin.headers, { provider, credentials: { ...GOOD[provider], clientId: 'nobody' }, active: true });
    expect(direct.statusCode).toBe(422);
    expect((await call('GET', base(other.slug), other.admin.headers)).json()).toEqual([]);
  });

  it('creates it active at once with `active: true` when the platform accepts the credentials', async () => {
    const team = await makeTenantWithTeam(t.app);
    const body = await create(team, { provider: 'provider_c', credentials: GOOD.provider_c, jwksUrl: t.app.integrations.providerC.simulatorJwksUrl, active: true });
    expect(body).toMatchObject({ active: true, jwksUrl: t.app.integrations.providerC.simulatorJwksUrl });
    expect(body.tokenExpiresAt).not.toBeNull();
  });
});

describe('the cached platform token', () => {
  it('is reused until 60 s before it expires, then renewed once (stored encrypted)', async () => {
    const team = await makeTenantWithTeam(t.app);
    const created = await create(team, { provider: 'provider_b', credentials: GOOD.provider_b, active: true });
    const svc = t.app.services.deliveryIntegrations;
    const tdb = t.app.deps.tenantDb(team.tenant._id);
    const sim = t.app.integrations.providerB.simulator!;
    const record = (await svc.get(tdb, created._id))!;
    const requests = sim.tokenRequests;

    const first = await svc.accessToken(tdb, record);
    expect(await svc.accessToken(tdb, record)).toBe(first);
    expect(sim.tokenRequests).toBe(requests);
    const storedBefore = (await storedRow(created._id)).tokens!;
    expect(storedBefore).toMatch(/^v1:/);
    expect(storedBefore).not.toContain(first);

    // Just before the renewal margin: still the cached one.
    const expiresAt = new Date(created.tokenExpiresAt).getTime();
    t.clock.set(new Date(expiresAt - TOKEN_RENEW_MARGIN_MS - 5_000));
    expect(await svc.accessToken(tdb, record)).toBe(first);
    expect(sim.tokenRequests).toBe(requests);

    // Within 60 s of expiry: renewed; two callers at once share the one renewal.
    t.clock.set(new Date(expiresAt - TOKEN_RENEW_MARGIN_MS + 1_000));
    const [a, b] = await Promise.all([svc.accessToken(tdb, record), svc.accessToken(tdb, record)]);
    expect(a).not.toBe(first);
    expect(b).toBe(a);
    expect(sim.tokenRequests).toBe(requests + 1);
    // (The admin's login has expired by this clock: read through the service.)
    const view = await svc.view(tdb, created._id);
    expect(new Date(view.tokenExpiresAt!).getTime()).toBeGreaterThan(expiresAt);
    expect((await storedRow(created._id)).tokens).not.toBe(storedBefore);
    expect(await svc.accessToken(tdb, record)).toBe(a);

    // Long past expiry (clock moved on): a new one again.
    t.clock.advance(2 * 86_400_000);
    const c = await svc.accessToken(tdb, record);
    expect(c).not.toBe(a);
    expect(sim.tokenRequests).toBe(requests + 2);
  });

  it('works inside a caller\'s transaction, and markSynced records the sync', async () => {
    const team = await makeTenantWithTeam(t.app);
    const created = await create(team, { provider: 'provider_a', credentials: GOOD.provider_a });
    const svc = t.app.services.deliveryIntegrations;
    const tdb = t.app.deps.tenantDb(team.tenant._id);
    const token = await tdb.run(async (tx) => svc.accessToken(tx, (await svc.get(tx, created._id))!));
    expect(token).toBeTruthy();
    const at = t.clock.now();
    await svc.markSynced(tdb, created._id, at, 12);
    let view = (await call('GET', `${base(team.slug)}/${created._id}`, team.admin.headers)).json();
    expect(view).toMatchObject({ lastSyncAt: at.toISOString(), syncedItemCount: 12 });
    expect(view.tokenExpiresAt).not.toBeNull();
    const later = new Date(at.getTime() + 60_000);
    await svc.markSynced(tdb, created._id, later, null);
    view = (await call('GET', `${base(team.slug)}/${created._id}`, team.admin.headers)).json();
    expect(view).toMatchObject({ lastSyncAt: later.toISOString(), syncedItemCount: 12 });
  });
});

describe('who may manage integrations', () => {
  it('answers 401 without credentials and 403 to staff and accountants; a superadmin passes', async () => {
    const team = await makeTenantWithTeam(t.app);
    const sa = await makeSuperadmin(t.app);
    const created = await create(team, { provider: 'provider_a', credentials: GOOD.provider_a });
    const url = `${base(team.slug)}/${created._id}`;
    const routes: [Method, string, object?][] = [
      ['GET', base(team.slug)],
      ['POST', base(team.slug), { provider: 'provider_b', credentials: GOOD.provider_b }],
      ['GET', url],
      ['PUT', url, { credentials: { merchantId: 'x' } }],
      ['POST', `${url}/activate`],
      ['POST', `${url}/deactivate`],
    ];
    for (const [method, path, payload] of routes) {
      expect((await call(method, path, {}, payload)).statusCode, `${method} ${path}`).toBe(401);
      expect((await call(method, path, team.staff.headers, payload)).statusCode, `${method} ${path} staff`).toBe(403);
      expect((await call(method, path, team.accountant.headers, payload)).statusCode, `${method} ${path} accountant`).toBe(403);
    }
    expect((await call('GET', url, team.admin.headers)).json()).toEqual(created);

    for (const [method, path, payload] of routes) {
      const res = await call(method, path, sa.headers, payload);
      expect(res.statusCode, `${method} ${path} superadmin: ${res.body}`).toBe(method === 'POST' && path === base(team.slug) ? 201 : 200);
    }
  });

  it('answers 404 for another tenant\'s integration, and changes nothing of it', async () => {
    const owner = await makeTenantWithTeam(t.app);
    const outsider = await makeTenantWithTeam(t.app);
    const created = await create(owner, { provider: 'provider_b', credentials: GOOD.provider_b, webhookSecret: WEBHOOK_SECRET });
    const path = `/t/:slug/marketplace/integrations/${created._id}`;
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'GET', path },
        { method: 'PUT', path, payload: { credentials: { clientId: 'stolen' }, webhookSecret: null } },
        { method: 'POST', path: `${path}/activate` },
        { method: 'POST', path: `${path}/deactivate` },
      ],
      snapshot: () => storedRow(created._id),
    });
    expect((await call('GET', base(outsider.slug), outsider.admin.headers)).json()).toEqual([]);
  });
});

describe('a platform that cannot be reached or is switched off', () => {
  let u: TestApp;
  beforeAll(async () => {
    const integrations = defaultIntegrationsConfig();
    u = await createTestApp({
      integrations: {
        ...integrations,
        // Nothing listens on port 9 of this machine: the token request fails to connect.
        providerB: { ...integrations.providerB, baseUrl: 'http://127.0.0.1:9', timeoutMs: 1_000 },
        providerC: { ...integrations.providerC, mode: 'off' },
      },
    });
  });
  afterAll(() => u.close());

  it('answers 503 when the platform cannot be reached, 422 when it is off; the integration stays inactive', async () => {
    const team = await makeTenantWithTeam(u.app);
    const b = await u.app.inject({ method: 'POST', url: base(team.slug), headers: team.admin.headers, payload: { provider: 'provider_b', credentials: GOOD.provider_b } });
    expect(b.statusCode, b.body).toBe(201);
    const down = await u.app.inject({ method: 'POST', url: `${base(team.slug)}/${b.json()._id}/activate`, headers: team.admin.headers });
    expect(down.statusCode, down.body).toBe(503);
    expect(down.json().code).toBe('provider_unavailable');
    const direct = await u.app.inject({ method: 'POST', url: base(team.slug), headers: team.admin.headers, payload: { provider: 'provider_c', credentials: GOOD.provider_c, active: true } });
    expect(direct.statusCode, direct.body).toBe(422);
    expect(direct.json().code).toBe('provider_off');
    const list = (await u.app.inject({ url: base(team.slug), headers: team.admin.headers })).json();
    expect(list.map((i: { provider: string; active: boolean }) => [i.provider, i.active])).toEqual([['provider_b', false]]);
  });
});

import { and, eq } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeCategory, makeMenuItem, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import { catalogSyncRuns, type DeliveryProvider } from '../../db/schema/delivery.js';
import { deliveryJobs } from './delivery.jobs.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  // The simulators' order webhooks are not what these tests are about: accepted and dropped.
  const drop = async () => ({ status: 200 });
  t.app.integrations.providerA.simulator!.setWebhook({ deliver: drop });
  t.app.integrations.providerB.simulator!.setWebhook({ deliver: drop });
  t.app.integrations.providerC.simulator!.setWebhook({ deliver: drop });
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
interface Integration { _id: string; provider: DeliveryProvider; active: boolean; lastSyncAt: string | null; syncedItemCount: number }
interface Runs { runs: { runId: string; integrationId: string; provider: DeliveryProvider; items: number }[] }

const uniq = () => randomBytes(4).toString('hex');
const SIM = { provider_a: '/__sim/provider-a', provider_b: '/__sim/provider-b', provider_c: '/__sim/provider-c' } as const;
const drain = () => t.app.jobs.drain({ names: [deliveryJobs.sync], includeDelayed: true });

/** Reads a simulator's control API (what the platform received). */
async function control<T>(provider: DeliveryProvider, path: string): Promise<T> {
  const res = await t.app.inject({ url: `${SIM[provider]}/__sim/${path}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as T;
}

/** OAuth credentials the provider's simulator accepts, for a merchant of our own (so tests do not see each other's catalog). */
async function credentialsFor(provider: DeliveryProvider, merchantId: string) {
  if (provider === 'provider_b') return { ...t.app.integrations.providerB.simCredentials!, merchantId };
  const clientId = `client-${uniq()}`;
  const clientSecret = `secret-${uniq()}`;
  const res = await t.app.inject({ method: 'POST', url: `${SIM[provider]}/__sim/clients`, payload: { clientId, clientSecret } });
  expect(res.statusCode, res.body).toBe(201);
  return { clientId, clientSecret, merchantId };
}

async function connect(team: Team, provider: DeliveryProvider, active = true) {
  const merchantId = `m-${uniq()}`;
  const res = await t.app.inject({
    method: 'POST',
    url: `/t/${team.slug}/marketplace/integrations`,
    headers: team.admin.headers,
    payload: { provider, credentials: await credentialsFor(provider, merchantId), active },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { ...(res.json() as Integration), merchantId };
}

async function integration(team: Team, id: string): Promise<Integration> {
  const res = await t.app.inject({ url: `/t/${team.slug}/marketplace/integrations/${id}`, headers: team.admin.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Integration;
}

async function catalogOf(provider: DeliveryProvider, merchantId: string) {
  if (provider === 'provider_a') {
    const items = await control<{ merchantId: string; externalCode: string; name: string; price: { value: number }; status: string }[]>(provider, 'catalog');
    return items
      .filter((i) => i.merchantId === merchantId)
      .map((i) => ({ code: i.externalCode, name: i.name, cents: Math.round(i.price.value * 100), available: i.status === 'AVAILABLE' }));
  }
  if (provider === 'provider_b') {
    const items = await control<{ storeId: string; sku: string; name: string; price: number; available: boolean }[]>(provider, 'catalog');
    return items.filter((i) => i.storeId === merchantId).map((i) => ({ code: i.sku, name: i.name, cents: Math.round(i.price * 100), available: i.available }));
  }
  type Body = { title: { translations: { pt_br: string } }; price_info: { price: number }; suspension_info: { suspension: unknown } };
  type Put = { storeId: string; itemId: string; body: Body };
  const { items } = await control<{ items: Put[] }>(provider, 'catalog');
  return items
    .filter((i) => i.storeId === merchantId)
    .map(({ itemId, body }) => ({
      code: itemId,
      name: body.title.translations.pt_br,
      cents: body.price_info.price,
      available: body.suspension_info.suspension === null,
    }));
}

const runRow = (team: Team, runId: string) =>
  t.app.deps.tenantDb(team.tenant._id).run(async (tx) => {
    const [row] = await tx.db.select().from(catalogSyncRuns).where(and(eq(catalogSyncRuns.tenantId, tx.tenantId), eq(catalogSyncRuns.id, runId)));
    return row;
  });

const sortByCode = <T extends { code: string }>(list: T[]) => [...list].sort((a, b) => a.code.localeCompare(b.code));

describe('full catalog sync', () => {
  it('sends every active item to every active platform, finishes the runs and records lastSyncAt and syncedItemCount', async () => {
    const team = await makeTenantWithTeam(t.app);
    const category = (await makeCategory(t.app, team.tenant, { name: 'Pratos' }))._id;
    const coded = await makeMenuItem(t.app, team.tenant, { category, name: 'Moqueca', price: 7450, externalCodes: { provider_a: 'PA-MOQ', provider_c: 'PC-MOQ' } });
    const plain = await makeMenuItem(t.app, team.tenant, { category, name: 'Farofa', price: 1290 });
    const soldOut = await makeMenuItem(t.app, team.tenant, { category, name: 'Bobó', price: 5990, isAvailable: false });
    await makeMenuItem(t.app, team.tenant, { category, name: 'Fora do cardápio', price: 100, isActive: false });
    const a = await connect(team, 'provider_a');
    const b = await connect(team, 'provider_b');
    const c = await connect(team, 'provider_c');

    const res = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/integrations/sync`, headers: team.admin.headers });
    expect(res.statusCode, res.body).toBe(202);
    const { runs } = res.json() as Runs;
    expect(runs.map((r) => [r.provider, r.integrationId, r.items]).sort()).toEqual(
      [['provider_a', a._id, 3], ['provider_b', b._id, 3], ['provider_c', c._id, 3]],
    );
    expect((await runRow(team, runs[0].runId)).finishedAt).toBeNull();

    const result = await drain();
    expect(result).toMatchObject({ completed: 9, failed: 0 });

    expect(sortByCode(await catalogOf('provider_a', a.merchantId))).toEqual(
      sortByCode([
        { code: 'PA-MOQ', name: 'Moqueca', cents: 7450, available: true },
        { code: plain._id, name: 'Farofa', cents: 1290, available: true },
        { code: soldOut._id, name: 'Bobó', cents: 5990, available: false },
      ]),
    );
    expect(sortByCode(await catalogOf('provider_b', b.merchantId))).toEqual(
      sortByCode([
        { code: coded._id, name: 'Moqueca', cents: 7450, available: true },
        { code: plain._id, name: 'Farofa', cents: 1290, available: true },
        { code: soldOut._id, name: 'Bobó', cents: 5990, available: false },
      ]),
    );
    expect(sortByCode(await catalogOf('provider_c', c.merchantId)).map((i) => [i.code, i.available])).toEqual(
      sortByCode([{ code: 'PC-MOQ' }, { code: plain._id }, { code: soldOut._id }]).map((i) => [i.code, i.code !== soldOut._id]),
    );

    for (const run of runs) {
      const row = await runRow(team, run.runId);
      expect(row).toMatchObject({ full: true, total: 3, synced: 3, failed: 0, failures: [] });
      expect(row.finishedAt).toBeInstanceOf(Date);
      const view = await integration(team, run.integrationId);
      expect(view.syncedItemCount).toBe(3);
      expect(view.lastSyncAt).toBe(row.finishedAt!.toISOString());
    }
  });

  it('syncs one integration; counts a platform refusal as failed; an empty menu finishes at once', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await connect(team, 'provider_a');
    const empty = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/integrations/${a._id}/sync`, headers: team.admin.headers });
    expect(empty.statusCode, empty.body).toBe(202);
    const emptyRun = (empty.json() as Runs).runs[0];
    expect(emptyRun).toEqual({ runId: expect.any(String), integrationId: a._id, provider: 'provider_a', items: 0 });
    expect((await runRow(team, emptyRun.runId)).finishedAt).toBeInstanceOf(Date);
    expect(await integration(team, a._id)).toMatchObject({ syncedItemCount: 0, lastSyncAt: expect.any(String) });

    const category = (await makeCategory(t.app, team.tenant))._id;
    await makeMenuItem(t.app, team.tenant, { category, name: 'Acarajé', price: 1500 });
    await makeMenuItem(t.app, team.tenant, { category, name: 'Vatapá', price: 2500 });
    await drain(); // the two items' own change syncs
    expect(await catalogOf('provider_a', a.merchantId)).toHaveLength(2);

    const res = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/integrations/${a._id}/sync`, headers: team.admin.headers });
    expect(res.statusCode, res.body).toBe(202);
    const run = (res.json() as Runs).runs[0];
    expect(run.items).toBe(2);
    // The platform refuses the first item (a 4xx: no retry), accepts the second.
    const fail = await t.app.inject({ method: 'POST', url: `${SIM.provider_a}/__sim/failures`, payload: { count: 1, status: 400 } });
    expect(fail.statusCode, fail.body).toBe(200);
    expect(await drain()).toMatchObject({ runs: 2, failed: 0 });

    const row = await runRow(team, run.runId);
    expect(row).toMatchObject({ total: 2, synced: 1, failed: 1 });
    expect(row.failures).toEqual([{ itemId: expect.any(String), error: expect.any(String) }]);
    expect(row.finishedAt).toBeInstanceOf(Date);
    expect(await integration(team, a._id)).toMatchObject({ syncedItemCount: 1, lastSyncAt: row.finishedAt!.toISOString() });
  });

  it('retries an unreachable platform, and counts the item as failed after the last attempt', async () => {
    const team = await makeTenantWithTeam(t.app);
    await makeMenuItem(t.app, team.tenant, { name: 'Tapioca', price: 900 });
    const a = await connect(team, 'provider_a');
    const fail = (count: number) => t.app.inject({ method: 'POST', url: `${SIM.provider_a}/__sim/failures`, payload: { count, status: 503 } });

    await fail(1);
    let res = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/integrations/${a._id}/sync`, headers: team.admin.headers });
    let run = (res.json() as Runs).runs[0];
    expect(await drain()).toMatchObject({ runs: 2, completed: 1, failed: 1 }); // one failed attempt, then synced
    expect(await runRow(team, run.runId)).toMatchObject({ synced: 1, failed: 0 });

    await fail(3); // every attempt (3 in all)
    res = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/integrations/${a._id}/sync`, headers: team.admin.headers });
    run = (res.json() as Runs).runs[0];
    expect(await drain()).toMatchObject({ runs: 3, completed: 1, failed: 2 }); // the last attempt counts the item and completes
    const row = await runRow(team, run.runId);
    expect(row).toMatchObject({ synced: 0, failed: 1 });
    expect(row.finishedAt).toBeInstanceOf(Date);
    expect(await integration(team, a._id)).toMatchObject({ syncedItemCount: 0 });
  });
});

describe('an item change', () => {
  it('queues a sync of the item to each active platform only; every later edit is sent, the last state wins', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await connect(team, 'provider_a');
    const c = await connect(team, 'provider_c');
    const b = await connect(team, 'provider_b', false); // inactive: told nothing
    const item = await makeMenuItem(t.app, team.tenant, { name: 'Cuscuz', price: 1100 });
    expect(await drain()).toMatchObject({ completed: 2, failed: 0 });
    expect(await catalogOf('provider_a', a.merchantId)).toEqual([{ code: item._id, name: 'Cuscuz', cents: 1100, available: true }]);
    expect(await catalogOf('provider_c', c.merchantId)).toEqual([{ code: item._id, name: 'Cuscuz', cents: 1100, available: true }]);
    expect(await catalogOf('provider_b', b.merchantId)).toEqual([]);
    const afterCreate = await integration(team, a._id);
    expect(afterCreate.lastSyncAt).toEqual(expect.any(String));
    expect(afterCreate.syncedItemCount).toBe(0); // a single item does not change the count of the last full sync

    // Two edits before the queue runs: neither is dropped, the platform ends with the last one.
    for (const payload of [{ name: 'Cuscuz paulista', price: 1200 }, { price: 1350, isAvailable: false }]) {
      const res = await t.app.inject({ method: 'PUT', url: `/t/${team.slug}/menu/items/${item._id}`, headers: team.admin.headers, payload });
      expect(res.statusCode, res.body).toBe(200);
    }
    expect(await drain()).toMatchObject({ completed: 4, failed: 0 });
    expect(await catalogOf('provider_a', a.merchantId)).toEqual([{ code: item._id, name: 'Cuscuz paulista', cents: 1350, available: false }]);
    expect(await catalogOf('provider_c', c.merchantId)).toEqual([{ code: item._id, name: 'Cuscuz paulista', cents: 1350, available: false }]);
    expect(await catalogOf('provider_b', b.merchantId)).toEqual([]);
  });

  it('tells the platforms a deleted item is unavailable', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await connect(team, 'provider_a');
    const item = await makeMenuItem(t.app, team.tenant, { name: 'Sarapatel', price: 3100, externalCodes: { provider_a: 'PA-SAR' } });
    await drain();
    expect(await catalogOf('provider_a', a.merchantId)).toEqual([{ code: 'PA-SAR', name: 'Sarapatel', cents: 3100, available: true }]);
    const res = await t.app.inject({ method: 'DELETE', url: `/t/${team.slug}/menu/items/${item._id}`, headers: team.admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(await drain()).toMatchObject({ completed: 1, failed: 0 });
    expect(await catalogOf('provider_a', a.merchantId)).toEqual([{ code: 'PA-SAR', name: 'Sarapatel', cents: 3100, available: false }]);
  });

  it('queues nothing for a tenant without active integrations', async () => {
    const team = await makeTenantWithTeam(t.app);
    await connect(team, 'provider_a', false);
    await makeMenuItem(t.app, team.tenant, { name: 'Pamonha', price: 700 });
    expect(await drain()).toMatchObject({ runs: 0 });
  });
});

describe('sync routes: auth and isolation', () => {
  it('401 without a token, 403 for staff and accountant, 400 on a bad id, 409 for an inactive integration', async () => {
    const team = await makeTenantWithTeam(t.app);
    const a = await connect(team, 'provider_a', false);
    for (const url of [`/t/${team.slug}/marketplace/integrations/sync`, `/t/${team.slug}/marketplace/integrations/${a._id}/sync`]) {
      expect((await t.app.inject({ method: 'POST', url })).statusCode).toBe(401);
      for (const who of [team.staff, team.accountant]) expect((await t.app.inject({ method: 'POST', url, headers: who.headers })).statusCode).toBe(403);
    }
    const bad = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/integrations/nope/sync`, headers: team.admin.headers });
    expect(bad.statusCode, bad.body).toBe(400);
    const inactive = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/integrations/${a._id}/sync`, headers: team.admin.headers });
    expect(inactive.statusCode, inactive.body).toBe(409);
    expect(inactive.json()).toMatchObject({ code: 'integration_inactive' });
    const none = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/integrations/sync`, headers: team.admin.headers });
    expect(none.statusCode, none.body).toBe(202);
    expect(none.json()).toEqual({ runs: [] });
    const missing = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/marketplace/integrations/${'f'.repeat(24)}/sync`, headers: team.admin.headers });
    expect(missing.statusCode).toBe(404);
  });

  it('another tenant\'s integration is a 404 through the outsider\'s slug, 403 through the owner\'s', async () => {
    const owner = await makeTenantWithTeam(t.app);
    const outsider = await makeTenantWithTeam(t.app);
    await makeMenuItem(t.app, owner.tenant, { name: 'Quindim', price: 600 });
    const a = await connect(owner, 'provider_a');
    await drain();
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: owner.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [{ method: 'POST', path: `/t/:slug/marketplace/integrations/${a._id}/sync` }],
      snapshot: async () => [await integration(owner, a._id), await t.app.jobs.stats(deliveryJobs.sync)],
    });
  });
});

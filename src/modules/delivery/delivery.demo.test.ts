import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { seedDemoTenant } from '../../../test/demo.js';
import { PROVIDER_A_SIM_CLIENT_ID, PROVIDER_A_SIM_MERCHANT_ID } from '../../integrations/provider-a/index.js';
import { PROVIDER_B_SIM_CLIENT_ID, PROVIDER_B_SIM_STORE_ID } from '../../integrations/provider-b/index.js';
import { PROVIDER_C_SIM_CLIENT_ID } from '../../integrations/provider-c/simulator/index.js';
import { DEMO_EXTERNAL_CODES } from './delivery.demo.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('the demo tenant', () => {
  it('has the three integrations active with the simulators\' accounts, and menu items with their default codes', async () => {
    const demo = await seedDemoTenant(t);
    const list = await demo.get('/t/demo/marketplace/integrations');
    expect(list.map((i: { provider: string; active: boolean }) => [i.provider, i.active])).toEqual([
      ['provider_a', true],
      ['provider_b', true],
      ['provider_c', true],
    ]);
    const byProvider = Object.fromEntries(list.map((i: { provider: string }) => [i.provider, i]));
    expect(byProvider.provider_a.credentials).toMatchObject({ clientId: PROVIDER_A_SIM_CLIENT_ID, merchantId: PROVIDER_A_SIM_MERCHANT_ID });
    expect(byProvider.provider_b.credentials).toMatchObject({ clientId: PROVIDER_B_SIM_CLIENT_ID, merchantId: PROVIDER_B_SIM_STORE_ID });
    expect(byProvider.provider_b.webhookSecretSet).toBe(!!t.app.integrations.providerB.simWebhookSecret);
    const jwksUrl = t.app.integrations.providerC.simulatorJwksUrl;
    expect(byProvider.provider_c).toMatchObject({ credentials: { clientId: PROVIDER_C_SIM_CLIENT_ID }, jwksUrl });

    // The seeded credentials work against the simulators (the seed itself did not call them).
    const tdb = t.app.deps.tenantDb(list[0].tenant);
    for (const record of await t.app.services.deliveryIntegrations.listActive(tdb)) {
      expect(await t.app.services.deliveryIntegrations.accessToken(tdb, record)).toBeTruthy();
    }

    const items = await t.app.services.menu.listItems(tdb);
    for (const { item, codes } of DEMO_EXTERNAL_CODES) {
      expect(items.find((i) => i.name === item)?.externalCodes, item).toEqual(codes);
    }

    // What a newcomer does on `npm start`: each simulator's control API places its default order, which
    // reaches the kitchen as an order of the demo menu's items.
    await t.app.jobs.drain({ includeDelayed: true });
    const before = await demo.get('/t/demo/orders');
    const controls = [
      ['/__sim/provider-a/__sim/orders', { webhookUrl: 'http://localhost/t/demo/webhooks/provider_a' }],
      ['/__sim/provider-b/__sim/orders', { webhookUrl: 'http://localhost/t/demo/webhooks/provider_b' }],
      ['/__sim/provider-c/__sim/orders', { storeId: byProvider.provider_c.credentials.merchantId, webhookUrl: '/t/demo/webhooks/provider_c' }],
    ] as const;
    for (const [url, payload] of controls) {
      const res = await t.app.inject({ method: 'POST', url, payload });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(201);
    }
    await t.app.jobs.drain({ includeDelayed: true });
    const after: { _id: string; paymentGateway: string | null; items: { name: string }[] }[] = await demo.get('/t/demo/orders');
    const known = new Set(before.map((o: { _id: string }) => o._id));
    const arrived = after.filter((o) => !known.has(o._id));
    expect(arrived).toHaveLength(3);
    for (const order of arrived) {
      expect(order.paymentGateway).toBe('marketplace');
      expect(order.items.map((i) => i.name).sort()).toEqual(DEMO_EXTERNAL_CODES.map((c) => c.item).sort());
    }
  });
});

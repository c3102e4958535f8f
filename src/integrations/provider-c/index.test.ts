import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../platform/clock.js';
import { envReader } from '../../platform/env.js';
import { silentLogger } from '../http.js';
import type { IntegrationDeps } from '../integration.js';
import type { WebhookRequest } from '../simulator/webhook-delivery.js';
import { HttpProviderCClient, parseProviderCWebhook, providerC, PROVIDER_C_SIM_PREFIX, type ProviderCConfig } from './index.js';
import { PROVIDER_C_SIM_CLIENT_ID, PROVIDER_C_SIM_CLIENT_SECRET } from './simulator/index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const env = (vars: Record<string, string>) => envReader(vars, { keptSecret: () => 'kept' });

function build(config: ProviderCConfig = providerC.defaultConfig(), extra: Partial<IntegrationDeps> = {}) {
  const sent: WebhookRequest[] = [];
  const deps: IntegrationDeps = {
    publicUrl: 'http://localhost:3000',
    clock: manualClock(),
    log: silentLogger,
    simulatorControl: true,
    deliverWebhook: async (req) => {
      sent.push(req);
      return { status: 200 };
    },
    ...extra,
  };
  const handle = providerC.create(config, deps);
  cleanups.push(() => handle.close());
  return { handle, sent };
}

describe('providerC integration', () => {
  it('is the delivery integration providerC / provider_c', () => {
    expect(providerC).toMatchObject({ name: 'providerC', provider: 'provider_c', kind: 'delivery' });
  });

  it('reads PROVIDER_C_* and requires the mode in production', () => {
    expect(providerC.parseConfig(env({}))).toEqual({ mode: 'simulator', baseUrl: undefined, authUrl: undefined, timeoutMs: 10_000 });
    expect(providerC.parseConfig(env({ PROVIDER_C_MODE: 'live', PROVIDER_C_BASE_URL: 'https://api.example/', PROVIDER_C_TIMEOUT_MS: '5000' }))).toEqual({
      mode: 'live',
      baseUrl: 'https://api.example',
      authUrl: undefined,
      timeoutMs: 5_000,
    });
    expect(() => providerC.parseConfig(env({ PROVIDER_C_MODE: 'maybe' }))).toThrow(/PROVIDER_C_MODE/);
    expect(() => providerC.parseConfig(env({ PROVIDER_C_TIMEOUT_MS: '10' }))).toThrow(/PROVIDER_C_TIMEOUT_MS/);
    expect(() => providerC.parseConfig(env({ PROVIDER_C_BASE_URL: 'ftp://x' }))).toThrow(/PROVIDER_C_BASE_URL/);
    expect(() => providerC.parseConfig(env({ NODE_ENV: 'production' }))).toThrow(/PROVIDER_C_MODE must be set/);
    expect(providerC.parseConfig(env({ NODE_ENV: 'production', PROVIDER_C_MODE: 'off' })).mode).toBe('off');
  });

  it('in-process: a webhook goes through deps.deliverWebhook, verifies against the simulator JWKS without a socket, and the order is fetched', async () => {
    const { handle, sent } = build();
    expect(handle.simulatorJwksUrl).toBe(`http://localhost:3000${PROVIDER_C_SIM_PREFIX}/.well-known/jwks.json`);
    const { order } = await handle.simulator!.createOrder({ storeId: 'store-9' }, { webhookUrl: '/t/demo/webhooks/provider_c' });
    expect(sent).toHaveLength(1);
    const req = sent[0];
    expect(req.url).toBe('http://localhost:3000/t/demo/webhooks/provider_c');
    const check = await handle.verifyWebhook(req.body, req.headers.authorization, handle.simulatorJwksUrl, { audience: 'store-9' });
    expect(check).toMatchObject({ valid: true, kid: handle.simulator!.currentKid() });
    expect(await handle.verifyWebhook(req.body, req.headers.authorization, handle.simulatorJwksUrl, { audience: 'store-1' })).toMatchObject({ reason: 'bad_audience' });
    expect(await handle.verifyWebhook(req.body, req.headers.authorization, null)).toMatchObject({ reason: 'missing_jwks_url' });

    // Rotation in the simulator: the next webhook verifies after one refresh of the handle's cache.
    handle.simulator!.rotateKeys();
    await handle.simulator!.resend(order.id);
    expect(await handle.verifyWebhook(sent[1].body, sent[1].headers.authorization, handle.simulatorJwksUrl)).toMatchObject({ valid: true });
    expect(handle.jwks.fetches).toBe(2);

    const event = parseProviderCWebhook(JSON.parse(req.body));
    const client = handle.client!;
    const { accessToken } = await client.token({ clientId: PROVIDER_C_SIM_CLIENT_ID, clientSecret: PROVIDER_C_SIM_CLIENT_SECRET, merchantId: 'store-9' });
    expect(await client.getOrder(accessToken, 'store-9', event.externalOrderId!)).toMatchObject({ externalId: order.id, provider: 'provider_c' });
  });

  it('mounts the simulator under /__sim/provider-c', async () => {
    const { handle } = build();
    const app = Fastify({ logger: false });
    cleanups.push(() => app.close());
    await handle.mount!(app);
    const jwks = await app.inject({ method: 'GET', url: `${PROVIDER_C_SIM_PREFIX}/.well-known/jwks.json` });
    expect(jwks.json().keys[0].kid).toBe(handle.simulator!.currentKid());
    expect(handle.describe('http://localhost:3000')[0]).toContain(`in-process simulator at http://localhost:3000${PROVIDER_C_SIM_PREFIX}`);
  });

  it('off: no client; standalone simulator and live: the HTTP client on their URLs', () => {
    const off = build({ mode: 'off', baseUrl: undefined, authUrl: undefined, timeoutMs: 10_000 }).handle;
    expect(off).toMatchObject({ client: null, simulator: undefined, simulatorJwksUrl: null });
    expect(off.describe('http://x')[0]).toMatch(/^off/);

    const standalone = build({ mode: 'simulator', baseUrl: 'http://127.0.0.1:4013', authUrl: undefined, timeoutMs: 10_000 }).handle;
    expect(standalone.client).toBeInstanceOf(HttpProviderCClient);
    expect(standalone.client).toMatchObject({ baseUrl: 'http://127.0.0.1:4013', authUrl: 'http://127.0.0.1:4013' });
    expect(standalone.simulatorJwksUrl).toBe('http://127.0.0.1:4013/.well-known/jwks.json');

    const live = build({ mode: 'live', baseUrl: undefined, authUrl: undefined, timeoutMs: 10_000 }).handle;
    expect(live.client).toMatchObject({ baseUrl: 'https://api.uber.com', authUrl: 'https://login.uber.com' });
    expect(live.simulatorJwksUrl).toBeNull();
    expect(live.describe('http://x')[0]).toMatch(/^live/);
  });
});

import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../platform/clock.js';
import { envReader } from '../../platform/env.js';
import { silentLogger } from '../http.js';
import type { IntegrationDeps } from '../integration.js';
import type { WebhookRequest } from '../simulator/webhook-delivery.js';
import { checkProviderASignature, parseProviderAWebhook, PROVIDER_A_PRODUCTION_URL, PROVIDER_A_SIGNATURE_HEADER, providerA, type ProviderAIntegration } from './index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const env = (vars: Record<string, string>) => envReader(vars, { keptSecret: (file) => `kept:${file}` });

function build(config = providerA.defaultConfig(), extra: Partial<IntegrationDeps> = {}) {
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
  const handle: ProviderAIntegration = providerA.create(config, deps);
  cleanups.push(() => handle.close());
  return { handle, sent };
}

describe('providerA integration entry', () => {
  it('is the delivery integration providerA / provider_a', () => {
    expect([providerA.name, providerA.provider, providerA.kind]).toEqual(['providerA', 'provider_a', 'delivery']);
  });

  it('reads PROVIDER_A_* with defaults, each bad value named, and the production rule', () => {
    expect(providerA.parseConfig(env({}))).toEqual({
      mode: 'simulator',
      baseUrl: undefined,
      timeoutMs: 10_000,
      simWebhookSecret: 'kept:provider-a-webhook-secret',
      simWebhookShape: 'reference',
      simWebhookUrl: undefined,
    });
    expect(providerA.parseConfig(env({ PROVIDER_A_MODE: 'live', PROVIDER_A_TIMEOUT_MS: '5000' }))).toMatchObject({ mode: 'live', timeoutMs: 5000, simWebhookSecret: undefined });
    expect(providerA.parseConfig(env({ PROVIDER_A_BASE_URL: 'http://127.0.0.1:4020/' }))).toMatchObject({ baseUrl: 'http://127.0.0.1:4020', simWebhookSecret: undefined });
    expect(providerA.parseConfig(env({ PROVIDER_A_WEBHOOK_SECRET: 's', PROVIDER_A_SIM_WEBHOOK_SHAPE: 'full' }))).toMatchObject({ simWebhookSecret: 's', simWebhookShape: 'full' });
    expect(() => providerA.parseConfig(env({ PROVIDER_A_MODE: 'on' }))).toThrow(/PROVIDER_A_MODE/);
    expect(() => providerA.parseConfig(env({ PROVIDER_A_TIMEOUT_MS: '10' }))).toThrow(/PROVIDER_A_TIMEOUT_MS/);
    expect(() => providerA.parseConfig(env({ PROVIDER_A_BASE_URL: 'ftp://x' }))).toThrow(/PROVIDER_A_BASE_URL/);
    expect(() => providerA.parseConfig(env({ PROVIDER_A_SIM_WEBHOOK_SHAPE: 'xml' }))).toThrow(/PROVIDER_A_SIM_WEBHOOK_SHAPE/);
    expect(() => providerA.parseConfig(env({ NODE_ENV: 'production' }))).toThrow(/PROVIDER_A_MODE must be set/);
    expect(providerA.parseConfig(env({ NODE_ENV: 'production', PROVIDER_A_MODE: 'off' })).mode).toBe('off');
  });

  it('in-process: the client reaches the simulator, whose signed webhooks go through deps.deliverWebhook', async () => {
    const { handle, sent } = build();
    const account = handle.simulatorAccount!;
    const placed = await handle.simulator!.placeOrder({}, { url: 'http://localhost:3000/t/demo/webhooks/provider_a' });
    expect(sent).toHaveLength(1);
    expect(checkProviderASignature(sent[0].body, sent[0].headers[PROVIDER_A_SIGNATURE_HEADER], account.webhookSecret)).toEqual({ valid: true });
    const event = parseProviderAWebhook(JSON.parse(sent[0].body));
    const { accessToken } = await handle.client!.token(account.credentials);
    const order = await handle.client!.getOrder(accessToken, account.credentials.merchantId, event.externalOrderId!);
    expect(order.externalId).toBe(placed.order.id);
  });

  it('mounts the simulator under /__sim/provider-a and describes itself', async () => {
    const { handle } = build();
    const app = Fastify();
    cleanups.push(() => app.close());
    await handle.mount!(app);
    const res = await app.inject({ method: 'GET', url: '/__sim/provider-a/__sim', remoteAddress: '127.0.0.1' });
    expect(res.json()).toMatchObject({ simulator: 'provider_a' });
    expect(handle.describe('http://localhost:3000')[0]).toBe('in-process simulator at http://localhost:3000/__sim/provider-a  (orders: http://localhost:3000/__sim/provider-a/__sim/orders, from this machine only)');
  });

  it('off: no client; live: the real host; simulator with a base URL: no simulator in process', () => {
    const off = build({ ...providerA.defaultConfig(), mode: 'off' }).handle;
    expect(off.client).toBeNull();
    expect(off.simulatorAccount).toBeUndefined();
    expect(off.describe('http://x')).toEqual(['off (no provider_a orders, catalog sync or status push)']);
    const live = build({ ...providerA.defaultConfig(), mode: 'live' }).handle;
    expect(live.client).toMatchObject({ baseUrl: PROVIDER_A_PRODUCTION_URL });
    expect(live.simulator).toBeUndefined();
    const standalone = build({ ...providerA.defaultConfig(), baseUrl: 'http://127.0.0.1:4020' }).handle;
    expect(standalone.simulator).toBeUndefined();
    expect(standalone.simulatorAccount).toMatchObject({ webhookSecret: undefined });
    expect(standalone.describe('http://x')).toEqual(['simulator at http://127.0.0.1:4020']);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadIntegrationsConfig } from '../config.js';
import { HttpGatewayAClient } from './gateway-a/client.js';
import { checkGatewayASignature, GATEWAY_A_SIGNATURE_HEADER, GatewayAError, parseGatewayAWebhook, type GatewayAWebhookEvent } from './gateway-a/index.js';
import { IntegrationError, isIntegrationError, isRefused, isUnavailable } from './errors.js';
import { createGatewayASimulator } from './gateway-a/simulator/index.js';
import {
  buildIntegrations,
  defaultIntegrationsConfig,
  injectDeliverer,
  INTEGRATIONS,
  type Integrations,
  type IntegrationsConfig,
  type IntegrationsOptions,
} from './registry.js';
import { FiscalProviderError } from './fiscal/index.js';
import { PixPspError } from './pix-psp/index.js';
import { ProviderAError } from './provider-a/index.js';
import { ProviderBError } from './provider-b/index.js';
import { ProviderCError } from './provider-c/index.js';
import { WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS, WalletError } from './wallet/index.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A stand-in for the service's webhook route, written the way the orders module should:
 * raw body kept for the signature, 401 on a bad signature, warning when no secret is configured.
 */
function serviceApp(secret: () => string | undefined) {
  const app = Fastify({ logger: false });
  const events: GatewayAWebhookEvent[] = [];
  const warnings: string[] = [];
  app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.post('/api/gateway-a/webhook', async (req, reply) => {
      const raw = req.body as string;
      const check = checkGatewayASignature(raw, req.headers[GATEWAY_A_SIGNATURE_HEADER.toLowerCase()], secret());
      if (!check.valid && check.reason !== 'missing_secret') return reply.code(401).send({ statusCode: 401, message: 'invalid signature' });
      if (!check.valid) warnings.push('gateway_a webhook accepted without a signature check');
      const event = parseGatewayAWebhook(JSON.parse(raw));
      if (!event) return reply.code(400).send({ statusCode: 400, message: 'unknown body' });
      events.push(event);
      return { received: true };
    });
  });
  cleanups.push(() => app.close());
  return { app, events, warnings };
}

function build(integrations?: IntegrationsConfig, opts: IntegrationsOptions = {}): Integrations {
  const p = buildIntegrations({ publicUrl: 'http://localhost', integrations }, opts);
  cleanups.push(() => p.close());
  return p;
}

describe('buildIntegrations', () => {
  it('runs in-process simulators by default: intent, approval on the terminal, signed webhook into the service', async () => {
    const service = serviceApp(() => p.gatewayA.webhookSecret);
    const p = build(undefined, { deliverWebhook: injectDeliverer(service.app) });
    expect(p.gatewayA.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(p.gatewayA.simulator).toBeDefined();

    const { intentId, status } = await p.gatewayA.client!.createPaymentIntent({ terminalSerial: 'T-DEMO-0001', amountCents: 2500, externalId: 'order-7', description: 'Mesa 2' });
    expect(status).toBe('open');
    const { webhook } = await p.gatewayA.simulator!.approve(intentId);
    expect(webhook).toMatchObject({ status: 200 });
    expect(service.events).toEqual([expect.objectContaining({ intentId, externalId: 'order-7', outcome: 'approved' })]);
    expect(service.warnings).toEqual([]);
    expect((await p.gatewayA.client!.getPaymentIntent(intentId)).status).toBe('approved');

    // A webhook signed with another secret is refused by the route.
    const forged = await service.app.inject({
      method: 'POST',
      url: '/api/gateway-a/webhook',
      headers: { 'content-type': 'application/json', [GATEWAY_A_SIGNATURE_HEADER]: 'a'.repeat(64) },
      payload: JSON.stringify({ event: 'x', data: { id: intentId, status: 'declined' } }),
    });
    expect(forged.statusCode).toBe(401);
  });

  it('delivers webhooks over real HTTP to the configured URL', async () => {
    const service = serviceApp(() => p.gatewayA.webhookSecret);
    const base = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const p = build({ ...defaultIntegrationsConfig(), gatewayA: { ...defaultIntegrationsConfig().gatewayA, simWebhookUrl: `${base}/api/gateway-a/webhook`, simWebhookShape: 'external' } });
    const { intentId } = await p.gatewayA.client!.createPaymentIntent({ terminalSerial: 'T-1', amountCents: 100, externalId: 'order-8', description: 'x' });
    await p.gatewayA.simulator!.decline(intentId);
    expect(service.events).toEqual([expect.objectContaining({ shape: 'external', intentId, externalId: 'order-8', outcome: 'declined' })]);
  });

  it('mounts the simulators on the service so a person can play the terminal with curl', async () => {
    const p = build();
    const app = Fastify({ logger: false });
    cleanups.push(() => app.close());
    await p.mountSimulators(app);

    const { intentId } = await p.gatewayA.client!.createPaymentIntent({ terminalSerial: 'T-1', amountCents: 990, externalId: 'o', description: 'x' });
    const list = await app.inject({ method: 'GET', url: '/__sim/gateway-a/__sim/intents' });
    expect(list.json()).toEqual([expect.objectContaining({ id: intentId, state: 'OPEN' })]);
    const approve = await app.inject({ method: 'POST', url: `/__sim/gateway-a/__sim/intents/${intentId}/approve` });
    expect(approve.statusCode).toBe(200);
    expect((await p.gatewayA.client!.getPaymentIntent(intentId)).status).toBe('approved');

    const pay = await app.inject({
      method: 'POST',
      url: '/__sim/wallet/v1/payments',
      headers: { authorization: `Bearer ${WALLET_SIM_ACCOUNT.accessToken}`, 'x-idempotency-key': 'k1' },
      payload: { transaction_amount: 10, token: WALLET_TEST_CARDS.approved, payer: { email: 'a@b.co' } },
    });
    expect(pay.json()).toMatchObject({ status: 'approved' });
    expect(p.describe('http://localhost:3000').join('\n')).toContain('http://localhost:3000/__sim/gateway-a/__sim/intents/<intentId>/approve');
  });

  it('uses the in-process wallet simulator by default', async () => {
    const p = build();
    expect(await p.wallet.client.charge({
      accessToken: WALLET_SIM_ACCOUNT.accessToken,
      cardToken: WALLET_TEST_CARDS.insufficientFunds,
      amountCents: 1000,
      description: 'x',
      payer: { email: 'a@b.co' },
      idempotencyKey: 'k',
    })).toMatchObject({ status: 'rejected', statusDetail: 'cc_rejected_insufficient_amount' });
    expect(await p.wallet.client.listDevices(WALLET_SIM_ACCOUNT.accessToken)).toHaveLength(1);
  });

  it('has no gateway_a client when it is off', () => {
    const d = defaultIntegrationsConfig();
    const p = build({ ...d, gatewayA: { ...d.gatewayA, mode: 'off' } });
    expect(p.gatewayA.client).toBeNull();
    expect(p.gatewayA.webhookSecret).toBeUndefined();
    expect(p.gatewayA.simulator).toBeUndefined();
  });

  it('talks to a standalone simulator when a base URL is given, and to the gateway in live mode', async () => {
    const sim = createGatewayASimulator();
    cleanups.push(() => sim.close());
    const url = await sim.listen();
    const d = defaultIntegrationsConfig();
    const p = build({ ...d, gatewayA: { ...d.gatewayA, baseUrl: url } });
    expect(p.gatewayA.simulator).toBeUndefined();
    const { intentId } = await p.gatewayA.client!.createPaymentIntent({ terminalSerial: 'T-1', amountCents: 100, externalId: 'o', description: 'x' });
    expect(sim.getIntent(intentId)).toMatchObject({ state: 'OPEN', amount: 100 });

    const live = build({ ...d, gatewayA: { ...d.gatewayA, mode: 'live', clientId: 'id', clientSecret: 'secret', sandbox: false } });
    expect(live.gatewayA.client).toBeInstanceOf(HttpGatewayAClient);
    expect(live.gatewayA.client).toMatchObject({ sandbox: false });
    expect(live.gatewayA.simulator).toBeUndefined();
  });
});

describe('the registry', () => {
  it('lists each integration once; each fails with its own error class on the shared base', () => {
    expect(INTEGRATIONS.map((i) => [i.name, i.provider, i.kind])).toEqual([
      ['gatewayA', 'gateway_a', 'payment'],
      ['wallet', 'wallet', 'payment'],
      ['pixPsp', 'pix_psp', 'pix'],
      ['fiscal', 'fiscal_provider', 'fiscal'],
      ['providerA', 'provider_a', 'delivery'],
      ['providerB', 'provider_b', 'delivery'],
      ['providerC', 'provider_c', 'delivery'],
    ]);
    expect([
      GatewayAError.provider,
      WalletError.provider,
      PixPspError.provider,
      FiscalProviderError.provider,
      ProviderAError.provider,
      ProviderBError.provider,
      ProviderCError.provider,
    ]).toEqual(INTEGRATIONS.map((i) => i.provider));
    const slow = new GatewayAError('unavailable', 'gateway_a did not answer', { reason: 'timeout' });
    const no = new WalletError('refused', 'wallet said no', { status: 401, code: 'invalid_access_token' });
    expect(slow).toBeInstanceOf(IntegrationError);
    expect(slow).toMatchObject({ name: 'GatewayAError', provider: 'gateway_a', kind: 'unavailable', retryable: true, reason: 'timeout' });
    expect(no).toMatchObject({ name: 'WalletError', provider: 'wallet', kind: 'refused', retryable: false, status: 401, code: 'invalid_access_token' });
    expect([isIntegrationError(slow), isUnavailable(slow), isRefused(slow), isRefused(no), isIntegrationError(new Error('x'))]).toEqual([true, true, false, true, false]);
  });

  it('prints one banner line per integration, its details aligned under it', () => {
    const d = defaultIntegrationsConfig();
    expect(build().describe('http://localhost:3000')).toEqual([
      'gateway_a:  in-process simulator at http://localhost:3000/__sim/gateway-a  (intents: http://localhost:3000/__sim/gateway-a/__sim/intents, from this machine only)',
      '            approve on the "terminal": curl -X POST http://localhost:3000/__sim/gateway-a/__sim/intents/<intentId>/approve   (or /decline)',
      'wallet:     in-process simulator at http://localhost:3000/__sim/wallet  (test cards: http://localhost:3000/__sim/wallet/__sim, from this machine only)',
      'pix_psp:    in-process simulator at http://localhost:3000/__sim/pix-psp  (charges: http://localhost:3000/__sim/pix-psp/__sim/cob, from this machine only)',
      '            pay a charge as the customer: curl -X POST http://localhost:3000/__sim/pix-psp/__sim/cob/<txid>/pay',
      'fiscal_provider: in-process simulator at http://localhost:3000/__sim/fiscal  (homologação: documents without fiscal value)',
      'provider_a: in-process simulator at http://localhost:3000/__sim/provider-a  (orders: http://localhost:3000/__sim/provider-a/__sim/orders, from this machine only)',
      '            place an order: curl -X POST http://localhost:3000/__sim/provider-a/__sim/orders -H \'content-type: application/json\' -d \'{"webhookUrl":"http://localhost:3000/t/<slug>/webhooks/provider_a"}\'',
      'provider_b: in-process simulator at http://localhost:3000/__sim/provider-b  (client sim-provider-b-client, store 900109448)',
      '            new order: curl -X POST http://localhost:3000/__sim/provider-b/__sim/orders -H \'content-type: application/json\' -d \'{"webhookUrl":"http://localhost:3000/t/<slug>/webhooks/provider_b"}\'',
      'provider_c: in-process simulator at http://localhost:3000/__sim/provider-c  (tenants\' jwksUrl: http://localhost:3000/__sim/provider-c/.well-known/jwks.json)',
      '            new order: curl -X POST http://localhost:3000/__sim/provider-c/__sim/orders -H \'content-type: application/json\' -d \'{"storeId":"<merchantId>","webhookUrl":"/t/<slug>/webhooks/provider_c"}\'',
    ]);
    const off = build({
      ...d,
      gatewayA: { ...d.gatewayA, mode: 'off' },
      wallet: { ...d.wallet, mode: 'live' },
      pixPsp: { ...d.pixPsp, mode: 'off' },
      fiscal: { ...d.fiscal, mode: 'off' },
      providerA: { ...d.providerA, mode: 'off' },
      providerB: { ...d.providerB, mode: 'off' },
      providerC: { ...d.providerC, mode: 'off' },
    });
    expect(off.describe('http://localhost:3000')).toEqual([
      'gateway_a:  off (card payments are confirmed by hand)',
      'wallet:     live',
      'pix_psp:    off (no dynamic PIX charges)',
      'fiscal_provider: off (fiscal documents cannot be emitted)',
      'provider_a: off (no provider_a orders, catalog sync or status push)',
      'provider_b: off (provider_b integrations are unavailable)',
      'provider_c: off (no orders fetched, no statuses or catalog items pushed)',
    ]);
  });
});

const DELIVERY_OFF = { PROVIDER_A_MODE: 'off', PROVIDER_B_MODE: 'off', PROVIDER_C_MODE: 'off' };

describe('integration settings from the environment', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const dataDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'ro-payments-'));
    dirs.push(d);
    return d;
  };

  it('defaults to in-process simulators with a webhook secret kept in the data dir', () => {
    const dir = dataDir();
    const a = loadIntegrationsConfig({}, dir);
    expect(a.gatewayA).toMatchObject({ mode: 'simulator', baseUrl: undefined, sandbox: true, timeoutMs: 60_000, simOutcome: 'manual', webhookSecret: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(a.wallet).toEqual({ mode: 'simulator', baseUrl: undefined, timeoutMs: 60_000 });
    expect(a.pixPsp).toEqual({ ...defaultIntegrationsConfig().pixPsp, webhookSecret: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(a.pixPsp).toMatchObject({ mode: 'simulator', baseUrl: undefined, clientId: undefined, timeoutMs: 30_000, simWebhookUrl: undefined });
    const again = loadIntegrationsConfig({}, dir);
    expect([again.gatewayA.webhookSecret, again.pixPsp.webhookSecret]).toEqual([a.gatewayA.webhookSecret, a.pixPsp.webhookSecret]);
    expect(a.pixPsp.webhookSecret).not.toBe(a.gatewayA.webhookSecret);
  });

  it('reads the gateway settings', () => {
    const c = loadIntegrationsConfig(
      {
        GATEWAY_A_MODE: 'live',
        GATEWAY_A_CLIENT_ID: 'cid',
        GATEWAY_A_CLIENT_SECRET: 'cs',
        GATEWAY_A_WEBHOOK_SECRET: 'whs',
        GATEWAY_A_SANDBOX: 'false',
        GATEWAY_A_BASE_URL: 'https://gateway.example/',
        WALLET_MODE: 'live',
        WALLET_BASE_URL: 'https://wallet.example',
        ...{ PIX_PSP_MODE: 'live', PIX_PSP_BASE_URL: 'https://pix.psp.example/api/', PIX_PSP_CLIENT_ID: 'pid', PIX_PSP_CLIENT_SECRET: 'psecret' },
        ...{ PIX_PSP_WEBHOOK_SECRET: 'pwhs', PIX_PSP_TIMEOUT_MS: '15000' },
      },
      dataDir(),
    );
    const pix = { mode: 'live', baseUrl: 'https://pix.psp.example/api', clientId: 'pid', clientSecret: 'psecret', webhookSecret: 'pwhs', timeoutMs: 15_000 };
    expect(c.pixPsp).toEqual({ ...pix, simWebhookUrl: undefined });
    expect(loadIntegrationsConfig({ PIX_PSP_SIM_WEBHOOK_URL: 'http://127.0.0.1:3000/hook' }, dataDir()).pixPsp.simWebhookUrl).toBe('http://127.0.0.1:3000/hook');
    expect(c.gatewayA).toMatchObject({ mode: 'live', clientId: 'cid', clientSecret: 'cs', webhookSecret: 'whs', sandbox: false, baseUrl: 'https://gateway.example' });
    expect(c.wallet).toMatchObject({ mode: 'live', baseUrl: 'https://wallet.example' });
  });

  it('does not invent a webhook secret for a standalone simulator or the live gateway', () => {
    expect(loadIntegrationsConfig({ GATEWAY_A_BASE_URL: 'http://127.0.0.1:4010' }, dataDir()).gatewayA.webhookSecret).toBeUndefined();
    expect(loadIntegrationsConfig({ GATEWAY_A_MODE: 'live', GATEWAY_A_CLIENT_ID: 'a', GATEWAY_A_CLIENT_SECRET: 'b' }, dataDir()).gatewayA.webhookSecret).toBeUndefined();
    expect(loadIntegrationsConfig({ PIX_PSP_BASE_URL: 'http://127.0.0.1:4030' }, dataDir()).pixPsp.webhookSecret).toBeUndefined();
    const live = { PIX_PSP_MODE: 'live', PIX_PSP_BASE_URL: 'https://psp.example', PIX_PSP_CLIENT_ID: 'a', PIX_PSP_CLIENT_SECRET: 'b' };
    for (const env of [live, { PIX_PSP_MODE: 'off' }]) expect(loadIntegrationsConfig(env, dataDir()).pixPsp.webhookSecret).toBeUndefined();
  });

  it('refuses inconsistent settings', () => {
    const dir = dataDir();
    for (const env of [
      { GATEWAY_A_MODE: 'live' },
      { GATEWAY_A_MODE: 'live', GATEWAY_A_CLIENT_ID: 'a' },
      { GATEWAY_A_MODE: 'mock' },
      { GATEWAY_A_SANDBOX: 'maybe' },
      { GATEWAY_A_BASE_URL: 'ftp://x' },
      { GATEWAY_A_BASE_URL: 'not a url' },
      { GATEWAY_A_TIMEOUT_MS: '10' },
      { GATEWAY_A_SIM_OUTCOME: 'random' },
      { WALLET_MODE: 'off' },
      ...[{ PIX_PSP_MODE: 'mock' }, { PIX_PSP_BASE_URL: 'ftp://psp.example' }, { PIX_PSP_SIM_WEBHOOK_URL: 'not a url' }],
      ...[{ PIX_PSP_TIMEOUT_MS: '999' }, { PIX_PSP_TIMEOUT_MS: '120001' }],
      { PIX_PSP_MODE: 'live', PIX_PSP_CLIENT_ID: 'a', PIX_PSP_CLIENT_SECRET: 'b' },
      { PIX_PSP_MODE: 'live', PIX_PSP_BASE_URL: 'https://psp.example', PIX_PSP_CLIENT_ID: 'a' },
    ]) {
      expect(() => loadIntegrationsConfig(env, dir), JSON.stringify(env)).toThrow(ConfigError);
    }
  });

  it('makes production choose each delivery platform too', () => {
    const dir = dataDir();
    const chosen = { NODE_ENV: 'production', GATEWAY_A_MODE: 'off', WALLET_MODE: 'live', PIX_PSP_MODE: 'off' };
    expect(() => loadIntegrationsConfig(chosen, dir)).toThrow(/PROVIDER_A_MODE must be set when NODE_ENV=production/);
    expect(() => loadIntegrationsConfig({ ...chosen, PROVIDER_A_MODE: 'off' }, dir)).toThrow(/PROVIDER_B_MODE/);
    expect(() => loadIntegrationsConfig({ ...chosen, PROVIDER_A_MODE: 'off', PROVIDER_B_MODE: 'off' }, dir)).toThrow(/PROVIDER_C_MODE/);
    expect(loadIntegrationsConfig({ ...chosen, ...DELIVERY_OFF }, dir)).toMatchObject({ providerA: { mode: 'off' }, providerB: { mode: 'off' }, providerC: { mode: 'off' } });
  });

  it('makes production choose each provider, pix_psp included', () => {
    const dir = dataDir();
    const chosen = { NODE_ENV: 'production', GATEWAY_A_MODE: 'off', WALLET_MODE: 'live', ...DELIVERY_OFF };
    expect(() => loadIntegrationsConfig(chosen, dir)).toThrow(/PIX_PSP_MODE must be set when NODE_ENV=production/);
    expect(loadIntegrationsConfig({ ...chosen, PIX_PSP_MODE: 'off' }, dir).pixPsp.mode).toBe('off');
    // Chosen on purpose, the simulator runs; its secret is still kept (its control API is off in production).
    expect(loadIntegrationsConfig({ ...chosen, PIX_PSP_MODE: 'simulator' }, dir)).toMatchObject({ simulatorControl: false, pixPsp: { mode: 'simulator' } });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { startStandalone } from '../../test/standalone.js';
import { loadIntegrationsConfig } from '../config.js';
import { createGatewayASimulator } from './gateway-a/simulator/index.js';
import { createPixPspSimulator } from './pix-psp/simulator/index.js';
import { isLoopbackAddress } from './simulator/server.js';
import { createWalletSimulator, WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS } from './wallet/simulator/index.js';

/**
 * The simulators' control API (approve an intent, list every tenant's intents and payments, make
 * wallet accounts) answers only callers on this machine, and is not served at all in production.
 * Anyone else gets the 404 of a route that does not exist. The provider protocol itself is unaffected.
 */

const REMOTE = ['10.1.2.3', '192.168.0.10', '::ffff:10.1.2.3', '2001:db8::1', '128.0.0.1', '::2'];
const LOCAL = ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'];

describe('isLoopbackAddress', () => {
  it('knows 127.0.0.0/8, ::1 and IPv4-mapped loopback, and nothing else', () => {
    for (const a of [...LOCAL, '127.255.255.254', '::ffff:7f00:1', '0:0:0:0:0:0:0:1', '::1%lo']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of [...REMOTE, '0.0.0.0', '::', 'localhost', '', undefined, null, '127.0.0.1.evil', '::ffff:128.0.0.1']) {
      expect(isLoopbackAddress(a), String(a)).toBe(false);
    }
  });
});

describe('in-process simulators mounted on the service', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  // A terminal holds one queued intent: each intent gets its own.
  let terminals = 0;
  const newIntent = async () =>
    (await t.app.integrations.gatewayA.client!.createPaymentIntent({ terminalSerial: `T-ACCESS${++terminals}`, amountCents: 1500, externalId: 'order-x', description: 'Mesa 1' }))
      .intentId;

  // A PIX charge to pay through the control API.
  let charges = 0;
  const newCharge = async () => {
    const txid = `acesso${String(++charges).padStart(4, '0')}${'x'.repeat(20)}`;
    await t.app.integrations.pixPsp.client!.createCharge({ txid, amountCents: 990, key: 'caixa@cantina.com.br', expiresInSeconds: 600 });
    return txid;
  };

  const controlRoutes = (intentId: string, txid = 'none') =>
    [
      ['GET', '/__sim/gateway-a/__sim'],
      ['GET', '/__sim/gateway-a/__sim/intents'],
      ['GET', `/__sim/gateway-a/__sim/intents/${intentId}`],
      ['POST', `/__sim/gateway-a/__sim/intents/${intentId}/approve`],
      ['POST', `/__sim/gateway-a/__sim/intents/${intentId}/decline`],
      ['POST', `/__sim/gateway-a/__sim/intents/${intentId}/resend`],
      ['POST', '/__sim/gateway-a/__sim/outcome'],
      ['POST', '/__sim/gateway-a/__sim/terminals'],
      ['GET', '/__sim/gateway-a/__sim/refunds'],
      ['GET', '/__sim/gateway-a/__sim/deliveries'],
      ['POST', '/__sim/gateway-a/__sim/tokens/revoke'],
      ['GET', '/__sim/wallet/__sim'],
      ['GET', '/__sim/wallet/__sim/payments'],
      ['GET', '/__sim/wallet/__sim/refunds'],
      ['POST', '/__sim/wallet/__sim/accounts'],
      ['GET', '/__sim/pix-psp/__sim'],
      ['GET', '/__sim/pix-psp/__sim/cob'],
      ['GET', `/__sim/pix-psp/__sim/cob/${txid}`],
      ['POST', `/__sim/pix-psp/__sim/cob/${txid}/pay`],
      ['POST', `/__sim/pix-psp/__sim/cob/${txid}/remove`],
      ['GET', '/__sim/pix-psp/__sim/pix'],
      ['POST', `/__sim/pix-psp/__sim/pix/E${'1'.repeat(31)}/resend`],
      ['GET', '/__sim/pix-psp/__sim/refunds'],
      ['GET', '/__sim/pix-psp/__sim/deliveries'],
      ['POST', '/__sim/pix-psp/__sim/tokens/revoke'],
      ...(['provider-a', 'provider-b', 'provider-c'] as const).flatMap((p) => [
        ['GET', `/__sim/${p}/__sim`],
        ['POST', `/__sim/${p}/__sim/orders`],
        ['GET', `/__sim/${p}/__sim/orders`],
        ['GET', `/__sim/${p}/__sim/statuses`],
        ['GET', `/__sim/${p}/__sim/catalog`],
        ['GET', `/__sim/${p}/__sim/deliveries`],
      ] as const),
      ['POST', '/__sim/provider-a/__sim/orders/1/resend'],
      ['POST', '/__sim/provider-a/__sim/orders/1/cancel'],
      ['POST', '/__sim/provider-b/__sim/tokens/revoke'],
      ['POST', '/__sim/provider-c/__sim/keys/rotate'],
      ['POST', '/__sim/provider-c/__sim/clients'],
      ['POST', '/__sim/provider-c/__sim/tokens/revoke'],
    ] as const;

  it('answers a remote caller 404, exactly as for a route that does not exist, and changes nothing', async () => {
    const intentId = await newIntent();
    const txid = await newCharge();
    const unknown = await t.app.inject({ method: 'GET', url: '/__sim/gateway-a/__sim/nothing-here', remoteAddress: '10.1.2.3' });
    expect(unknown.statusCode).toBe(404);
    for (const remoteAddress of REMOTE) {
      for (const [method, url] of controlRoutes(intentId, txid)) {
        const res = await t.app.inject({ method, url, remoteAddress, payload: method === 'POST' ? { mode: 'approve', serial: 'T-EVIL' } : undefined });
        expect(res.statusCode, `${remoteAddress} ${method} ${url}`).toBe(404);
        expect(res.json(), `${remoteAddress} ${method} ${url}`).toEqual({ ...unknown.json(), message: `Route ${method} ${url} not found` });
      }
    }
    expect(t.app.integrations.gatewayA.simulator!.getIntent(intentId)!.state).toBe('OPEN');
    expect((await t.app.integrations.gatewayA.client!.getPaymentIntent(intentId)).status).toBe('open');
    expect((await t.app.integrations.pixPsp.client!.getCharge(txid)).status).toBe('active');
  });

  it('serves a caller on this machine: approve on the "terminal", the webhook reaches the service', async () => {
    for (const remoteAddress of LOCAL) {
      const intentId = await newIntent();
      const list = await t.app.inject({ method: 'GET', url: '/__sim/gateway-a/__sim/intents', remoteAddress });
      expect(list.statusCode, remoteAddress).toBe(200);
      expect(list.json().map((i: { id: string }) => i.id)).toContain(intentId);
      const approve = await t.app.inject({ method: 'POST', url: `/__sim/gateway-a/__sim/intents/${intentId}/approve`, remoteAddress });
      expect(approve.statusCode, remoteAddress).toBe(200);
      // The simulator delivered its signed webhook through the app itself (injectDeliverer), and the route took it.
      expect(approve.json().webhook).toMatchObject({ intentId, status: 200, error: null });
      expect((await t.app.integrations.gatewayA.client!.getPaymentIntent(intentId)).status).toBe('approved');
      expect((await t.app.inject({ method: 'GET', url: '/__sim/wallet/__sim/payments', remoteAddress })).statusCode).toBe(200);
      const txid = await newCharge();
      const pay = await t.app.inject({ method: 'POST', url: `/__sim/pix-psp/__sim/cob/${txid}/pay`, remoteAddress });
      expect(pay.statusCode, remoteAddress).toBe(200);
      expect((await t.app.integrations.pixPsp.client!.getCharge(txid)).status).toBe('paid');
    }
    // app.inject's default address is 127.0.0.1, as for curl on the same machine.
    expect((await t.app.inject({ method: 'GET', url: '/__sim/wallet/__sim' })).statusCode).toBe(200);
  });

  it('treats a proxied request as remote, even when the proxy runs on this machine', async () => {
    const intentId = await newIntent();
    for (const headers of [{ 'x-forwarded-for': '127.0.0.1' }, { forwarded: 'for=127.0.0.1' }, { 'x-real-ip': '127.0.0.1' }]) {
      const res = await t.app.inject({ method: 'POST', url: `/__sim/gateway-a/__sim/intents/${intentId}/approve`, remoteAddress: '127.0.0.1', headers });
      expect(res.statusCode, JSON.stringify(headers)).toBe(404);
    }
    expect(t.app.integrations.gatewayA.simulator!.getIntent(intentId)!.state).toBe('OPEN');
  });

  it('leaves the provider protocol alone (it needs the provider credentials, as the real one does)', async () => {
    const token = await t.app.inject({
      method: 'POST',
      url: '/__sim/gateway-a/oauth/token',
      remoteAddress: '10.1.2.3',
      payload: { grant_type: 'client_credentials', client_id: 'wrong', client_secret: 'wrong' },
    });
    expect(token.statusCode).toBe(401);
    const pay = await t.app.inject({
      method: 'POST',
      url: '/__sim/wallet/v1/payments',
      remoteAddress: '10.1.2.3',
      headers: { authorization: `Bearer ${WALLET_SIM_ACCOUNT.accessToken}`, 'x-idempotency-key': 'k-remote' },
      payload: { transaction_amount: 10, token: WALLET_TEST_CARDS.approved, payer: { email: 'a@b.co' } },
    });
    expect(pay.statusCode).toBe(201);
  });
});

describe('with NODE_ENV=production', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ro-sim-prod-'));
    const integrations = loadIntegrationsConfig(
      {
        NODE_ENV: 'production',
        GATEWAY_A_MODE: 'simulator',
        WALLET_MODE: 'simulator',
        PIX_PSP_MODE: 'simulator',
        GATEWAY_A_WEBHOOK_SECRET: 'prod-secret',
        PROVIDER_A_MODE: 'simulator',
        PROVIDER_B_MODE: 'simulator',
        PROVIDER_C_MODE: 'simulator',
      },
      dir,
    );
    expect(integrations.simulatorControl).toBe(false);
    t = await createTestApp({ integrations });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not mount the control API, not even for this machine; the simulator still speaks its protocol', async () => {
    const { intentId } = await t.app.integrations.gatewayA.client!.createPaymentIntent({ terminalSerial: 'T-PROD1', amountCents: 100, externalId: 'o', description: 'x' });
    const txid = `producao${'0'.repeat(20)}`;
    await t.app.integrations.pixPsp.client!.createCharge({ txid, amountCents: 100, key: 'caixa@cantina.com.br', expiresInSeconds: 60 });
    for (const [method, url] of [
      ['GET', '/__sim/gateway-a/__sim/intents'],
      ['POST', `/__sim/gateway-a/__sim/intents/${intentId}/approve`],
      ['GET', '/__sim/wallet/__sim'],
      ['POST', '/__sim/wallet/__sim/accounts'],
      ['GET', '/__sim/pix-psp/__sim/cob'],
      ['POST', `/__sim/pix-psp/__sim/cob/${txid}/pay`],
    ] as const) {
      const res = await t.app.inject({ method, url, remoteAddress: '127.0.0.1' });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().code).toBe('route_not_found');
    }
    expect(t.app.integrations.gatewayA.simulator!.getIntent(intentId)!.state).toBe('OPEN');
    expect(t.app.integrations.pixPsp.simulator!.getCharge(txid)!.status).toBe('ATIVA');
    const banner = t.app.integrations.describe('http://localhost:3000').join('\n');
    expect(banner).not.toContain('/__sim/intents');
    expect(banner).not.toContain('/__sim/cob');
    expect(banner).toContain('control API off');
  });

  it('is on by default outside production', () => {
    expect(loadIntegrationsConfig({ GATEWAY_A_WEBHOOK_SECRET: 's' }, dir).simulatorControl).toBe(true);
  });
});

describe('standalone simulators', () => {
  it('serve their control API to loopback callers only', async () => {
    const gateway = createGatewayASimulator();
    const wallet = createWalletSimulator();
    const pix = createPixPspSimulator();
    try {
      const gw = gateway.buildServer();
      const ws = wallet.buildServer();
      const ps = pix.buildServer();
      for (const remoteAddress of REMOTE) {
        expect((await ps.inject({ method: 'GET', url: '/__sim/cob', remoteAddress })).statusCode, remoteAddress).toBe(404);
        expect((await ps.inject({ method: 'POST', url: '/__sim/cob/x/pay', remoteAddress })).statusCode, remoteAddress).toBe(404);
        expect((await gw.inject({ method: 'GET', url: '/__sim/intents', remoteAddress })).statusCode, remoteAddress).toBe(404);
        expect((await gw.inject({ method: 'POST', url: '/__sim/outcome', remoteAddress, payload: { mode: 'approve' } })).statusCode).toBe(404);
        expect((await ws.inject({ method: 'POST', url: '/__sim/accounts', remoteAddress })).statusCode, remoteAddress).toBe(404);
        expect((await ws.inject({ method: 'GET', url: '/__sim/payments', remoteAddress })).statusCode, remoteAddress).toBe(404);
      }
      for (const remoteAddress of LOCAL) {
        expect((await gw.inject({ method: 'GET', url: '/__sim/intents', remoteAddress })).statusCode, remoteAddress).toBe(200);
        expect((await ws.inject({ method: 'GET', url: '/__sim/payments', remoteAddress })).statusCode, remoteAddress).toBe(200);
        expect((await ps.inject({ method: 'GET', url: '/__sim/cob', remoteAddress })).statusCode, remoteAddress).toBe(200);
      }
      // Without the control API only the protocol is served.
      const bare = gateway.buildServer({ control: false });
      expect((await bare.inject({ method: 'GET', url: '/__sim/intents' })).statusCode).toBe(404);
      expect((await bare.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'client_credentials' } })).statusCode).toBe(401);
      expect((await pix.buildServer({ control: false }).inject({ method: 'GET', url: '/__sim/cob' })).statusCode).toBe(404);
    } finally {
      await Promise.all([gateway.close(), wallet.close(), pix.close()]);
    }
  });

  // A real socket from another interface of this machine: its address is not loopback.
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  it.skipIf(!external)('refuse a real connection from a non-loopback address, and take one from 127.0.0.1', async () => {
    const sim = createGatewayASimulator();
    try {
      const url = await sim.listen({ host: '0.0.0.0' });
      const port = new URL(url).port;
      expect((await fetch(`http://${external}:${port}/__sim/intents`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/__sim/intents`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it('run without the control API when NODE_ENV=production', async () => {
    const { url, stop } = await startStandalone('src/integrations/gateway-a/simulator/standalone.ts', { GATEWAY_A_SIM_PORT: '0', NODE_ENV: 'production' });
    try {
      expect((await fetch(`${url}/__sim/intents`)).status).toBe(404);
      expect((await fetch(`${url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(400);
    } finally {
      await stop();
    }
    const pix = await startStandalone('src/integrations/pix-psp/simulator/standalone.ts', { PIX_PSP_SIM_PORT: '0', NODE_ENV: 'production' });
    try {
      expect((await fetch(`${pix.url}/__sim/cob`)).status).toBe(404);
      expect((await fetch(`${pix.url}/v2/cob/${'x'.repeat(26)}`)).status).toBe(401);
    } finally {
      await pix.stop();
    }
  }, 30_000);
});

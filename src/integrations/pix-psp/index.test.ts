import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildIntegrations, defaultIntegrationsConfig, injectDeliverer, type IntegrationsOptions } from '../registry.js';
import { HttpPixPspClient } from './client.js';
import { checkPixPspSignature, PIX_PSP_SIGNATURE_HEADER, PIX_PSP_WEBHOOK_PATH, parsePixPspWebhook, type PixPspConfig, type PixPspWebhookEvent } from './index.js';
import { createPixPspSimulator } from './simulator/index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A stand-in for the payments module's route: signature on the raw body first, 401 when it fails, then the body. */
function serviceApp(secret: () => string | undefined) {
  const app = Fastify({ logger: false });
  const events: PixPspWebhookEvent[] = [];
  app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.post(PIX_PSP_WEBHOOK_PATH, async (req, reply) => {
      const raw = req.body as string;
      if (!checkPixPspSignature(raw, req.headers[PIX_PSP_SIGNATURE_HEADER], secret()).valid) return reply.code(401).send({ message: 'invalid signature' });
      const event = parsePixPspWebhook(JSON.parse(raw));
      if (!event) return reply.code(400).send({ message: 'unknown body' });
      events.push(event);
      return { received: true };
    });
  });
  cleanups.push(() => app.close());
  return { app, events };
}

function build(pixPsp: Partial<PixPspConfig> = {}, opts: IntegrationsOptions = {}) {
  const d = defaultIntegrationsConfig();
  const p = buildIntegrations({ publicUrl: 'http://localhost', integrations: { ...d, pixPsp: { ...d.pixPsp, ...pixPsp } } }, opts);
  cleanups.push(() => p.close());
  return p.pixPsp;
}

const TXID = 'pedido0042mesa7x20250101abc';
const charge = { txid: TXID, amountCents: 8_750, key: '12.345.678/0001-95', expiresInSeconds: 300 };

describe('app.integrations.pixPsp', () => {
  it('runs an in-process simulator: charge, payment, signed webhook into the service', async () => {
    const service = serviceApp(() => psp.webhookSecret);
    const psp = build({}, { deliverWebhook: injectDeliverer(service.app) });
    expect(psp.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    const created = await psp.client!.createCharge(charge);
    expect(created).toMatchObject({ status: 'active', key: '12345678000195' });
    const { webhook, pix } = await psp.simulator!.pay(TXID);
    expect(webhook).toMatchObject({ url: `http://localhost${PIX_PSP_WEBHOOK_PATH}`, status: 200, error: null });
    expect(service.events).toEqual([{ payments: [expect.objectContaining({ endToEndId: pix.endToEndId, txid: TXID, amountCents: 8_750 })] }]);
    expect((await psp.client!.getCharge(TXID)).status).toBe('paid');

    // Signed with another secret: refused by the route, and the PSP retries.
    psp.simulator!.setWebhook({ secret: 'forged' });
    expect(await psp.simulator!.resend(pix.endToEndId)).toMatchObject({ status: 401 });
  });

  it('delivers webhooks over real HTTP to the configured URL, and mounts its simulator on the service', async () => {
    const service = serviceApp(() => psp.webhookSecret);
    const base = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const psp = build({ simWebhookUrl: `${base}/api/pix-psp/webhook` });
    const app = Fastify({ logger: false });
    cleanups.push(() => app.close());
    await psp.mount!(app);
    await psp.client!.createCharge(charge);
    const list = await app.inject({ method: 'GET', url: '/__sim/pix-psp/__sim/cob' });
    expect(list.json()).toEqual([expect.objectContaining({ txid: TXID, status: 'ATIVA' })]);
    const paid = await app.inject({ method: 'POST', url: `/__sim/pix-psp/__sim/cob/${TXID}/pay` });
    expect(paid.json()).toMatchObject({ webhook: { status: 200 } });
    expect(service.events).toHaveLength(1);
  });

  it('has no client when off; talks to a standalone simulator with a base URL, to the PSP when live', async () => {
    const off = build({ mode: 'off' });
    expect(off).toMatchObject({ client: null, webhookSecret: undefined, simulator: undefined });

    const sim = createPixPspSimulator();
    cleanups.push(() => sim.close());
    const url = await sim.listen();
    const standalone = build({ baseUrl: url, webhookSecret: undefined });
    expect(standalone.simulator).toBeUndefined();
    await standalone.client!.createCharge(charge);
    expect(sim.getCharge(TXID)).toMatchObject({ status: 'ATIVA', valor: { original: '87.50' } });
    expect(standalone.describe('http://localhost:3000')).toEqual([`simulator at ${url}`]);

    const live = build({ mode: 'live', baseUrl: 'https://psp.example/api', clientId: 'id', clientSecret: 'secret', webhookSecret: 'w' });
    expect(live.client).toBeInstanceOf(HttpPixPspClient);
    expect(live).toMatchObject({ client: { baseUrl: 'https://psp.example/api' }, webhookSecret: 'w', simulator: undefined });
    expect(live.describe('http://localhost:3000')).toEqual(['live at https://psp.example/api']);
  });
});

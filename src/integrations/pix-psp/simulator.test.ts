import { afterEach, describe, expect, it } from 'vitest';
import { startStandalone } from '../../../test/standalone.js';
import { manualClock } from '../../platform/clock.js';
import type { WebhookRequest } from '../simulator/webhook-delivery.js';
import { HttpPixPspClient } from './client.js';
import { PIX_PSP_SIGNATURE_HEADER, verifyPixPspSignature } from './signature.js';
import { createPixPspSimulator, PIX_PSP_SIM_CLIENT_ID, PIX_PSP_SIM_CLIENT_SECRET, type PixPspSimulatorOptions } from './simulator/index.js';
import { parsePixPspWebhook } from './webhook.js';

const SECRET = 'whsec_pix_test';
const TXID = 'mesa4pedido0001x20250101abcd';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A webhook receiver behind a `WebhookDeliverer`: records each request, answers `statuses` in turn, then 200. */
function receiver(statuses: number[] = []) {
  const received: WebhookRequest[] = [];
  return { received, deliver: async (req: WebhookRequest) => (received.push(req), { status: statuses.shift() ?? 200 }) };
}

async function start(opts: PixPspSimulatorOptions = {}) {
  const hook = receiver();
  const sim = createPixPspSimulator({ webhookUrl: 'http://service.test/api/pix-psp/webhook', webhookSecret: SECRET, deliver: hook.deliver, ...opts });
  cleanups.push(() => sim.close());
  const url = await sim.listen();
  const client = new HttpPixPspClient({ baseUrl: url, clientId: PIX_PSP_SIM_CLIENT_ID, clientSecret: PIX_PSP_SIM_CLIENT_SECRET, timeoutMs: 5_000 });
  const basic = `Basic ${Buffer.from(`${PIX_PSP_SIM_CLIENT_ID}:${PIX_PSP_SIM_CLIENT_SECRET}`).toString('base64')}`;
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const token = (body: string, authorization = basic) => fetch(`${url}/oauth/token`, { method: 'POST', headers: { ...form, authorization }, body });
  /** A call to the API Pix with a token of `scope` (default all). */
  const api = async (method: string, path: string, body?: unknown, scope?: string) => {
    const { access_token } = await (await token(`grant_type=client_credentials${scope ? `&scope=${scope}` : ''}`)).json();
    const headers = { authorization: `Bearer ${access_token}`, ...(body ? { 'content-type': 'application/json' } : {}) };
    return fetch(`${url}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  };
  const control = (path: string, body?: unknown) =>
    fetch(`${url}/__sim${path}`, { method: 'POST', headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  return { sim, url, client, hook, token, api, control };
}

const charge = { txid: TXID, amountCents: 14_900, key: '+55 (11) 98765-4321', expiresInSeconds: 600 };

describe('pix_psp simulator over HTTP', () => {
  it('charge -> paid by the customer -> signed webhook to <registered URL>/pix', async () => {
    const { client, hook, control } = await start();
    await client.createCharge(charge);
    const res = await control(`/cob/${TXID}/pay`, { infoPagador: 'Mesa 4' });
    expect(res.status).toBe(200);
    const paid = await res.json();
    expect(paid).toMatchObject({ charge: { txid: TXID, status: 'CONCLUIDA' }, pix: { txid: TXID, valor: '149.00' }, webhook: { status: 200, attempt: 1 } });

    expect(hook.received).toHaveLength(1);
    const [webhook] = hook.received;
    expect(webhook.url).toBe('http://service.test/api/pix-psp/webhook/pix');
    expect(webhook.headers['content-type']).toBe('application/json');
    expect(verifyPixPspSignature(webhook.body, webhook.headers[PIX_PSP_SIGNATURE_HEADER], SECRET)).toBe(true);
    expect(JSON.parse(webhook.body)).toEqual({ pix: [{ ...paid.pix, chave: '+5511987654321', infoPagador: 'Mesa 4' }] });
    expect(parsePixPspWebhook(JSON.parse(webhook.body))!.payments).toEqual([
      { endToEndId: paid.pix.endToEndId, txid: TXID, amountCents: 14_900, paidAt: new Date(paid.pix.horario), payerMessage: 'Mesa 4' },
    ]);
    expect((await client.getCharge(TXID)).payments).toHaveLength(1);
    // Paid once: a second payment, or one of a removed or unknown charge, is refused.
    expect((await control(`/cob/${TXID}/pay`)).status).toBe(409);
    expect((await control('/cob/nope/pay')).status).toBe(404);
  });

  it('takes another amount when told, and refuses an expired or removed charge', async () => {
    const clock = manualClock();
    const { client, sim, control } = await start({ clock });
    await client.createCharge(charge);
    expect((await control(`/cob/${TXID}/pay`, { amountCents: 'x' })).status).toBe(400);
    expect((await control(`/cob/${TXID}/pay`, { amountCents: 100 })).status).toBe(200);
    expect(sim.captured()).toBe(100);

    const late = `${TXID}2`;
    await client.createCharge({ ...charge, txid: late });
    clock.advance(600_000);
    const expired = await control(`/cob/${late}/pay`);
    expect(expired.status).toBe(409);
    expect(await expired.json()).toMatchObject({ type: expect.stringMatching(/\/expired$/) });

    const removed = `${TXID}3`;
    await client.createCharge({ ...charge, txid: removed });
    expect((await control(`/cob/${removed}/remove`)).status).toBe(200);
    expect(sim.getCharge(removed)).toMatchObject({ status: 'REMOVIDA_PELO_PSP', revisao: 1 });
    expect((await control(`/cob/${removed}/pay`)).status).toBe(409);
  });

  it('answers the API Pix: status codes and RFC 7807 problems', async () => {
    const { api } = await start();
    const body = { calendario: { expiracao: 300 }, valor: { original: '10.50' }, chave: 'caixa@cantina.com.br' };
    const created = await api('PUT', `/v2/cob/${TXID}`, body);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ txid: TXID, revisao: 0, status: 'ATIVA', calendario: { expiracao: 300 }, valor: { original: '10.50' } });
    expect((await api('PUT', `/v2/cob/${TXID}`, body)).status).toBe(200);
    const conflict = await api('PUT', `/v2/cob/${TXID}`, { ...body, chave: 'outra@cantina.com.br' });
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await conflict.json()).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida', status: 409, title: expect.any(String) });

    for (const [bad, field] of [
      [{ ...body, valor: { original: '10.5' } }, 'valor.original'],
      [{ ...body, valor: { original: '0.00' } }, 'valor.original'],
      [{ ...body, chave: '123' }, 'chave'],
      [{ ...body, calendario: { expiracao: -1 } }, 'calendario.expiracao'],
      [{ ...body, solicitacaoPagador: 'x'.repeat(141) }, 'solicitacaoPagador'],
    ] as const) {
      const res = await api('PUT', `/v2/cob/${TXID}x`, bad);
      expect(res.status, field).toBe(400);
      expect((await res.json()).violacoes, field).toEqual([{ propriedade: field, razao: expect.any(String) }]);
    }
    expect((await api('PUT', '/v2/cob/short', body)).status).toBe(400);
    expect((await api('GET', '/v2/cob/naoexiste0000000000000000000')).status).toBe(404);
    expect((await api('PATCH', `/v2/cob/${TXID}`, { status: 'CONCLUIDA' })).status).toBe(400);
    expect(await (await api('PATCH', `/v2/cob/${TXID}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' })).json()).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', revisao: 1 });
    expect((await api('PATCH', `/v2/cob/${TXID}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' })).status).toBe(400);
  });

  it('shows a received Pix with its devoluções', async () => {
    const { client, sim, api } = await start();
    await client.createCharge(charge);
    const { pix } = await sim.pay(TXID);
    const e2e = pix.endToEndId;
    expect((await api('PUT', `/v2/pix/${e2e}/devolucao/d1`, { valor: '1' })).status).toBe(400);
    expect((await api('PUT', `/v2/pix/${e2e}/devolucao/d-1`, { valor: '1.00' })).status).toBe(400);
    const made = await api('PUT', `/v2/pix/${e2e}/devolucao/d1`, { valor: '49.00' });
    expect(made.status).toBe(201);
    const devolucao = await made.json();
    expect(devolucao).toMatchObject({ id: 'd1', valor: '49.00', status: 'DEVOLVIDO', rtrId: expect.stringMatching(/^D99999999\d{12}[a-z0-9]{11}$/) });
    expect((await api('PUT', `/v2/pix/${e2e}/devolucao/d1`, { valor: '49.00' })).status).toBe(200);
    expect(await (await api('GET', `/v2/pix/${e2e}/devolucao/d1`)).json()).toEqual(devolucao);
    expect((await api('GET', `/v2/pix/${e2e}/devolucao/d2`)).status).toBe(404);
    expect(await (await api('GET', `/v2/pix/${e2e}`)).json()).toEqual({ ...pix, devolucoes: [devolucao] });
    expect((await api('GET', `/v2/pix/E${'9'.repeat(31)}`)).status).toBe(404);
  });

  it('issues tokens by HTTP Basic only, with the scopes asked for; each route wants its scope', async () => {
    const clock = manualClock();
    const { token, api, url } = await start({ clock, tokenTtlSeconds: 600 });
    const body = `grant_type=client_credentials&client_id=${PIX_PSP_SIM_CLIENT_ID}&client_secret=${PIX_PSP_SIM_CLIENT_SECRET}`;
    expect((await token(body, '')).status).toBe(401);
    expect((await token('grant_type=client_credentials', `Basic ${Buffer.from('x:y').toString('base64')}`)).status).toBe(401);
    expect((await token('grant_type=password')).status).toBe(400);
    expect(await (await token('grant_type=client_credentials&scope=cob.read%20admin')).json()).toMatchObject({ error: 'invalid_scope' });
    const granted = await (await token('grant_type=client_credentials&scope=cob.read')).json();
    expect(granted).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'cob.read', access_token: expect.any(String) });

    const put = { calendario: { expiracao: 60 }, valor: { original: '1.00' }, chave: 'a@b.co' };
    expect((await api('PUT', `/v2/cob/${TXID}`, put, 'cob.read')).status).toBe(403);
    expect((await api('PUT', `/v2/cob/${TXID}`, put, 'cob.write')).status).toBe(201);
    expect((await api('GET', `/v2/cob/${TXID}`, undefined, 'cob.write')).status).toBe(403);
    const read = () => fetch(`${url}/v2/cob/${TXID}`, { headers: { authorization: `Bearer ${granted.access_token}` } });
    expect((await read()).status).toBe(200);
    clock.advance(601_000);
    expect((await read()).status).toBe(401);
    expect((await fetch(`${url}/v2/cob/${TXID}`)).status).toBe(401);
  });

  it('retries a webhook the receiver did not accept, and sends a duplicate on request', async () => {
    const hook = receiver([500, 503]);
    const { client, sim, control } = await start({ deliver: hook.deliver, webhookRetryDelaysMs: [10, 10] });
    await client.createCharge(charge);
    const { webhook, pix } = await sim.pay(TXID);
    expect(webhook).toMatchObject({ attempt: 1, status: 500, error: 'receiver answered 500' });
    await sim.idle();
    expect(sim.deliveries.map((d) => d.status)).toEqual([500, 503, 200]);
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);

    const dup = await control(`/pix/${pix.endToEndId}/resend`);
    expect(await dup.json()).toMatchObject({ webhook: { status: 200, endToEndId: pix.endToEndId } });
    expect(hook.received).toHaveLength(4);
    expect(hook.received[3].body).toBe(hook.received[0].body);
    expect((await control('/pix/nope/resend')).status).toBe(404);
  });

  it('closes promptly while webhook retries are pending, and sends unsigned webhooks without a secret', async () => {
    const hook = receiver([500]);
    const { client, sim } = await start({ deliver: hook.deliver, webhookRetryDelaysMs: [60_000], webhookSecret: undefined });
    await client.createCharge(charge);
    await sim.pay(TXID);
    expect(hook.received[0].headers[PIX_PSP_SIGNATURE_HEADER]).toBeUndefined();
    const started = Date.now();
    await sim.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(hook.received).toHaveLength(1);
  });

  it('lists charges, Pix, devoluções and deliveries on its control API', async () => {
    const { client, sim, url } = await start();
    await client.createCharge(charge);
    const { pix } = await sim.pay(TXID);
    await client.refund({ endToEndId: pix.endToEndId, refundId: 'r1', amountCents: 900 });
    const get = async (path: string) => (await fetch(`${url}/__sim${path}`)).json();
    expect(await get('')).toMatchObject({ simulator: 'pix_psp', webhookSigned: true, charges: 1, pix: 1, refunds: 1, capturedCents: 14_000 });
    expect(await get('/cob')).toEqual([expect.objectContaining({ txid: TXID, status: 'CONCLUIDA' })]);
    expect(await get(`/cob/${TXID}`)).toMatchObject({ txid: TXID });
    expect(await get('/pix')).toEqual([pix]);
    expect(await get('/refunds')).toEqual([expect.objectContaining({ endToEndId: pix.endToEndId, id: 'r1', valor: '9.00' })]);
    expect(await get('/deliveries')).toEqual([expect.objectContaining({ endToEndId: pix.endToEndId, status: 200 })]);
    expect((await fetch(`${url}/__sim/tokens/revoke`, { method: 'POST' })).status).toBe(200);
    await expect(client.getCharge(TXID)).resolves.toMatchObject({ status: 'paid' });
    expect(sim.tokenRequests).toBe(2);
  });

  it('runs standalone and prints its URL', async () => {
    const { url, stop } = await startStandalone('src/integrations/pix-psp/simulator/standalone.ts', { PIX_PSP_SIM_PORT: '0', PIX_PSP_WEBHOOK_SECRET: 'x' });
    cleanups.push(stop);
    const client = new HttpPixPspClient({ baseUrl: url, clientId: PIX_PSP_SIM_CLIENT_ID, clientSecret: PIX_PSP_SIM_CLIENT_SECRET, timeoutMs: 5_000 });
    await expect(client.createCharge(charge)).resolves.toMatchObject({ status: 'active' });
    expect(await (await fetch(`${url}/__sim`)).json()).toMatchObject({ simulator: 'pix_psp', webhookSigned: true, charges: 1 });
  }, 30_000);
});

import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../platform/clock.js';
import { parsePixPayload } from '../../platform/pix/brcode.js';
import { injectFetch, type FetchLike } from '../http.js';
import { closedPortUrl, silentServer } from '../simulator/test-servers.js';
import { HttpPixPspClient, PIX_PSP_SCOPES, PIX_PSP_TIMEOUT_MS, type CreatePixChargeInput } from './client.js';
import { PixPspError } from './errors.js';
import { createPixPspSimulator, PIX_PSP_SIM_CLIENT_ID, PIX_PSP_SIM_CLIENT_SECRET, type PixPspSimulatorOptions } from './simulator/index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A client talking to an in-process simulator through inject (the real protocol, no socket). */
function setup(simOpts: PixPspSimulatorOptions = {}, clientSecret = PIX_PSP_SIM_CLIENT_SECRET) {
  const clock = manualClock();
  const sim = createPixPspSimulator({ clock, ...simOpts });
  cleanups.push(() => sim.close());
  const requests: { method: string; url: string; headers: Headers; body: string }[] = [];
  const inner = injectFetch(sim.buildServer());
  const fetch: FetchLike = (url, init) => {
    requests.push({ method: init?.method ?? 'GET', url, headers: new Headers(init?.headers), body: String(init?.body ?? '') });
    return inner(url, init);
  };
  const client = new HttpPixPspClient({ baseUrl: 'http://psp.sim/', clientId: PIX_PSP_SIM_CLIENT_ID, clientSecret, fetch, clock });
  return { sim, client, clock, requests };
}

const TXID = 'pedido0001mesa4x20250101abc';
const input: CreatePixChargeInput = { txid: TXID, amountCents: 14_900, key: 'PIX@Cantina.com.br', description: 'Mesa 4', expiresInSeconds: 900 };

describe('HttpPixPspClient', () => {
  it('creates a charge with a BR Code, reads it and removes it', async () => {
    const { client, requests } = setup();
    const charge = await client.createCharge(input);
    expect(charge).toMatchObject({ txid: TXID, status: 'active', revision: 0, amountCents: 14_900, key: 'pix@cantina.com.br', description: 'Mesa 4' });
    expect(charge).toMatchObject({ expiresInSeconds: 900, payments: [], location: expect.stringMatching(/\/qr\/v2\/[0-9a-f]{32}$/) });
    expect(charge.expiresAt.getTime() - charge.createdAt.getTime()).toBe(900_000);
    expect(parsePixPayload(charge.brCode)).toMatchObject({ key: 'pix@cantina.com.br', amountCents: 14_900 });

    const [token, put] = requests;
    expect(token.url).toBe('http://psp.sim/oauth/token');
    const basic = Buffer.from(`${PIX_PSP_SIM_CLIENT_ID}:${PIX_PSP_SIM_CLIENT_SECRET}`).toString('base64');
    expect(token.headers.get('authorization')).toBe(`Basic ${basic}`);
    expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({ grant_type: 'client_credentials', scope: PIX_PSP_SCOPES });
    expect(put).toMatchObject({ method: 'PUT', url: `http://psp.sim/v2/cob/${TXID}` });
    expect(put.headers.get('authorization')).toMatch(/^Bearer sim-pix-/);
    expect(JSON.parse(put.body)).toEqual({ calendario: { expiracao: 900 }, valor: { original: '149.00' }, chave: 'pix@cantina.com.br', solicitacaoPagador: 'Mesa 4' });

    expect(await client.getCharge(TXID)).toEqual(charge);
    expect(await client.cancelCharge(TXID)).toMatchObject({ status: 'removed', revision: 1 });
    expect(requests.at(-1)).toMatchObject({ method: 'PATCH', body: '{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}' });
    // Cancelling twice is harmless (a timeout job may race the person at the till).
    await expect(client.cancelCharge(TXID)).resolves.toMatchObject({ status: 'removed' });
  });

  it('creates idempotently: the same txid and input return the charge, other data under it is refused', async () => {
    const { client, sim } = setup();
    const first = await client.createCharge(input);
    expect(await client.createCharge(input)).toEqual(first);
    expect(sim.listCharges()).toHaveLength(1);
    const conflict = await client.createCharge({ ...input, amountCents: 15_000 }).catch((e) => e);
    expect(conflict).toBeInstanceOf(PixPspError);
    expect(conflict).toMatchObject({ kind: 'refused', retryable: false, status: 409, code: 'CobOperacaoInvalida' });

    await sim.pay(TXID);
    // Asked again after payment (a retry of a lost answer): the charge as it is now.
    expect(await client.createCharge(input)).toMatchObject({ status: 'paid', payments: [expect.any(Object)] });
  });

  it('reads a paid charge: its payment, and a charge paid meanwhile cannot be cancelled', async () => {
    const { client, sim } = setup();
    await client.createCharge(input);
    const { pix } = await sim.pay(TXID, { payerMessage: 'obrigado' });
    const paid = await client.getCharge(TXID);
    expect(paid).toMatchObject({ status: 'paid' });
    expect(paid.payments).toEqual([{ endToEndId: pix.endToEndId, txid: TXID, amountCents: 14_900, paidAt: new Date(pix.horario), payerMessage: 'obrigado' }]);
    expect(pix.endToEndId).toMatch(/^E\d{8}\d{12}[a-z0-9]{11}$/);
    await expect(client.cancelCharge(TXID)).rejects.toMatchObject({ kind: 'refused', status: 400, code: 'CobOperacaoInvalida' });
    expect((await client.getCharge(TXID)).status).toBe('paid');
  });

  it('reports a charge the PSP removed', async () => {
    const { client, sim } = setup();
    await client.createCharge(input);
    sim.remove(TXID);
    expect(await client.getCharge(TXID)).toMatchObject({ status: 'removed', revision: 1 });
    await expect(client.cancelCharge(TXID)).resolves.toMatchObject({ status: 'removed' });
  });

  it('refunds a received Pix in parts, idempotently by refund id, never more than it was', async () => {
    const { client, sim } = setup();
    await client.createCharge(input);
    const { pix } = await sim.pay(TXID);
    const endToEndId = pix.endToEndId;
    const first = await client.refund({ endToEndId, refundId: 'dev1', amountCents: 4_900 });
    expect(first).toEqual({ refundId: 'dev1', paymentId: endToEndId, amountCents: 4_900, status: 'approved', rtrId: expect.stringMatching(/^D\d{8}/) });
    expect(await client.refund({ endToEndId, refundId: 'dev1', amountCents: 4_900 })).toEqual(first);
    expect(sim.captured()).toBe(10_000);

    await expect(client.refund({ endToEndId, refundId: 'dev1', amountCents: 100 })).rejects.toMatchObject({ kind: 'refused', status: 409 });
    await expect(client.refund({ endToEndId, refundId: 'dev2', amountCents: 10_001 })).rejects.toMatchObject({ kind: 'refused', status: 400 });
    await expect(client.refund({ endToEndId: `E${'0'.repeat(31)}`, refundId: 'dev3', amountCents: 1 })).rejects.toMatchObject({
      kind: 'refused',
      status: 404,
      code: 'PixNaoEncontrado',
    });
    expect(await client.refund({ endToEndId, refundId: 'dev4', amountCents: 10_000 })).toMatchObject({ amountCents: 10_000 });
    expect(sim.captured()).toBe(0);
    expect(sim.refundsOf(endToEndId).map((r) => r.idempotencyKey)).toEqual(['dev1', 'dev4']);
  });

  it('refuses what it cannot send without asking the PSP', async () => {
    const { client, requests } = setup();
    for (const bad of [
      { txid: 'short' },
      { txid: `${TXID}-` },
      { txid: 'x'.repeat(36) },
      { amountCents: 0 },
      { amountCents: 10.5 },
      { key: '11987654321' },
      { expiresInSeconds: 0 },
      { description: 'x'.repeat(141) },
    ]) {
      await expect(client.createCharge({ ...input, ...bad }), JSON.stringify(bad)).rejects.toMatchObject({ kind: 'refused', code: 'invalid_request' });
    }
    await expect(client.getCharge('nope')).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(client.refund({ endToEndId: 'E1', refundId: 'a', amountCents: 1 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(client.refund({ endToEndId: `E${'1'.repeat(31)}`, refundId: 'a-b', amountCents: 1 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(client.refund({ endToEndId: `E${'1'.repeat(31)}`, refundId: 'a', amountCents: -1 })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(requests).toHaveLength(0);
    await expect(client.getCharge(TXID)).rejects.toMatchObject({ kind: 'refused', status: 404, code: 'CobNaoEncontrado' });
  });

  it('reuses one token, renews it before it expires, and retries once with a new one when it was revoked', async () => {
    const { client, sim, clock } = setup({ tokenTtlSeconds: 3600 });
    await client.createCharge(input);
    await client.getCharge(TXID);
    expect(sim.tokenRequests).toBe(1);
    clock.advance(3600_000 - 30_000);
    await client.getCharge(TXID);
    expect(sim.tokenRequests).toBe(2);
    sim.revokeTokens();
    expect((await client.getCharge(TXID)).txid).toBe(TXID);
    expect(sim.tokenRequests).toBe(3);
  });

  it('maps bad credentials to refused', async () => {
    const { client } = setup({}, 'wrong');
    await expect(client.createCharge(input)).rejects.toMatchObject({ kind: 'refused', status: 401, code: 'invalid_client' });
  });

  it('maps 5xx, 429 and unreadable answers to unavailable', async () => {
    const answers: [Response, string][] = [
      [Response.json({ title: 'Erro', status: 500 }, { status: 500 }), 'server_error'],
      [Response.json({}, { status: 503 }), 'server_error'],
      [Response.json({}, { status: 429 }), 'rate_limited'],
      [Response.json({ txid: TXID, status: 'PAGA' }, { status: 200 }), 'bad_response'],
    ];
    for (const [answer, reason] of answers) {
      const fetch: FetchLike = async (url) =>
        url.endsWith('/oauth/token') ? Response.json({ access_token: 't', token_type: 'Bearer', expires_in: 3600 }) : answer.clone();
      const client = new HttpPixPspClient({ baseUrl: 'http://x', clientId: 'a', clientSecret: 'b', fetch });
      const err = await client.getCharge(TXID).catch((e) => e);
      expect(err).toBeInstanceOf(PixPspError);
      expect(err).toMatchObject({ provider: 'pix_psp', kind: 'unavailable', retryable: true, reason });
    }
  });

  it('gives up after the timeout when the PSP does not answer, and reports it unreachable (real sockets)', async () => {
    expect(PIX_PSP_TIMEOUT_MS).toBe(30_000);
    const server = await silentServer();
    cleanups.push(server.close);
    const slow = new HttpPixPspClient({ baseUrl: server.url, clientId: 'a', clientSecret: 'b', timeoutMs: 150 });
    const err = await slow.createCharge(input).catch((e) => e);
    expect(err).toBeInstanceOf(PixPspError);
    expect(err).toMatchObject({ kind: 'unavailable', reason: 'timeout' });
    expect(err.message).toContain('within 150 ms');

    const gone = new HttpPixPspClient({ baseUrl: await closedPortUrl(), clientId: 'a', clientSecret: 'b', timeoutMs: 2_000 });
    await expect(gone.getCharge(TXID)).rejects.toMatchObject({ kind: 'unavailable', reason: 'network' });
  });
});

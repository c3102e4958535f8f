import { startStandalone } from '../../../test/standalone.js';
import { afterEach, describe, expect, it } from 'vitest';
import { silentServer } from '../simulator/test-servers.js';
import { centsToDecimal, HttpWalletClient, type WalletChargeInput } from './client.js';
import { WalletError } from './errors.js';
import { createWalletSimulator, WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS } from './simulator/index.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function start() {
  const sim = createWalletSimulator();
  cleanups.push(() => sim.close());
  const url = await sim.listen();
  return { sim, url, client: new HttpWalletClient({ baseUrl: url, timeoutMs: 5_000 }) };
}

let n = 0;
const charge = (over: Partial<WalletChargeInput> = {}): WalletChargeInput => ({
  accessToken: WALLET_SIM_ACCOUNT.accessToken,
  cardToken: WALLET_TEST_CARDS.approved,
  amountCents: 4590,
  description: 'Pedido online',
  payer: { email: 'cliente@example.com', firstName: 'Ana' },
  idempotencyKey: `key-${++n}`,
  ...over,
});

describe('wallet gateway client and simulator over HTTP', () => {
  it('converts cents to the decimal amount without float drift', () => {
    expect([1, 10, 100, 4590, 1999, 123_456_789].map(centsToDecimal)).toEqual([0.01, 0.1, 1, 45.9, 19.99, 1_234_567.89]);
  });

  it('charges an approving test card', async () => {
    const { client, sim } = await start();
    const result = await client.charge(charge({ externalReference: 'checkout-1' }));
    expect(result).toEqual({ id: expect.stringMatching(/^\d+$/), status: 'approved', statusDetail: 'accredited' });
    expect(sim.listPayments()).toEqual([
      expect.objectContaining({ id: Number(result.id), transaction_amount: 45.9, binary_mode: true, external_reference: 'checkout-1', payer: { email: 'cliente@example.com' } }),
    ]);
  });

  it('returns a declined charge with the reason (not an error)', async () => {
    const { client } = await start();
    expect(await client.charge(charge({ cardToken: WALLET_TEST_CARDS.insufficientFunds }))).toMatchObject({
      status: 'rejected',
      statusDetail: 'cc_rejected_insufficient_amount',
    });
    expect(await client.charge(charge({ cardToken: WALLET_TEST_CARDS.badSecurityCode }))).toMatchObject({
      status: 'rejected',
      statusDetail: 'cc_rejected_bad_filled_security_code',
    });
    expect(await client.charge(charge({ cardToken: WALLET_TEST_CARDS.declined }))).toMatchObject({ status: 'rejected' });
  });

  it('refuses an unknown access token with 401 for charges and device listing', async () => {
    const { client, sim } = await start();
    const err = await client.charge(charge({ accessToken: 'TEST-not-a-token' })).catch((e) => e);
    expect(err).toBeInstanceOf(WalletError);
    expect(err).toMatchObject({ provider: 'wallet', kind: 'refused', status: 401, code: 'invalid_access_token' });
    await expect(client.listDevices('TEST-not-a-token')).rejects.toMatchObject({ status: 401, code: 'invalid_access_token' });
    expect(sim.listPayments()).toHaveLength(0);
  });

  it('refuses an unknown card token and malformed input', async () => {
    const { client } = await start();
    await expect(client.charge(charge({ cardToken: 'tok_forged' }))).rejects.toMatchObject({ kind: 'refused', status: 400 });
    await expect(client.charge(charge({ amountCents: 0 }))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(client.charge(charge({ payer: { email: '' } }))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(client.charge(charge({ idempotencyKey: '' }))).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('honours idempotency keys: one charge per key, a different body under the same key is refused', async () => {
    const { client, sim } = await start();
    const same = charge({ idempotencyKey: 'checkout-42' });
    const results = await Promise.all(Array.from({ length: 5 }, () => client.charge(same)));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(sim.listPayments()).toHaveLength(1);

    const other = await client.charge({ ...same, amountCents: 9999 }).catch((e) => e);
    expect(other).toBeInstanceOf(WalletError);
    expect(other).toMatchObject({ kind: 'refused' });
    expect(other).toMatchObject({ status: 409, code: 'idempotency_key_reused' });

    // A declined result is replayed too: retrying the same attempt never charges twice.
    const declined = charge({ cardToken: WALLET_TEST_CARDS.insufficientFunds });
    const first = await client.charge(declined);
    expect(await client.charge(declined)).toEqual(first);
    expect(sim.listPayments()).toHaveLength(2);

    // Keys belong to the account: another tenant may use the same key.
    const account = sim.createAccount();
    const theirs = await client.charge({ ...same, accessToken: account.accessToken });
    expect(theirs.id).not.toBe(results[0].id);
  });

  it('charges single-use card tokens made with the public key, outcome by cardholder name', async () => {
    const { client, url } = await start();
    const tokenize = async (name: string, publicKey: string = WALLET_SIM_ACCOUNT.publicKey) => {
      const res = await fetch(`${url}/v1/card_tokens?public_key=${encodeURIComponent(publicKey)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          card_number: '5031 4332 1540 6351',
          security_code: '123',
          expiration_month: 11,
          expiration_year: 2099,
          cardholder: { name },
        }),
      });
      return { status: res.status, body: (await res.json()) as { id: string } };
    };
    const fund = await tokenize('FUND');
    expect(fund).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^ctok_/), last_four_digits: '6351' } });
    expect(await client.charge(charge({ cardToken: fund.body.id }))).toMatchObject({ status: 'rejected', statusDetail: 'cc_rejected_insufficient_amount' });
    await expect(client.charge(charge({ cardToken: fund.body.id }))).rejects.toMatchObject({ status: 400 });

    const apro = await tokenize('APRO');
    expect(await client.charge(charge({ cardToken: apro.body.id }))).toMatchObject({ status: 'approved' });

    expect((await tokenize('APRO', 'TEST-unknown-pk')).status).toBe(401);
    const badCard = await fetch(`${url}/v1/card_tokens?public_key=${WALLET_SIM_ACCOUNT.publicKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card_number: '4111111111111112', security_code: '123', expiration_month: 1, expiration_year: 2099, cardholder: { name: 'APRO' } }),
    });
    expect(badCard.status).toBe(400);
  });

  it('lists the devices of the account, across pages', async () => {
    const { client, sim } = await start();
    expect(await client.listDevices(WALLET_SIM_ACCOUNT.accessToken)).toEqual([
      { id: WALLET_SIM_ACCOUNT.devices[0], operatingMode: 'PDV', posId: expect.any(String), storeId: expect.any(String), externalPosId: 'CAIXA01' },
    ]);
    const big = sim.createAccount({ devices: Array.from({ length: 73 }, (_, i) => `PAX_A910__SMARTPOS${1000 + i}`) });
    const devices = await client.listDevices(big.accessToken);
    expect(devices).toHaveLength(73);
    expect(devices.at(-1)!.id).toBe('PAX_A910__SMARTPOS1072');
    expect(await client.listDevices(sim.createAccount({ devices: [] }).accessToken)).toEqual([]);
  });

  it('creates accounts through the control API', async () => {
    const { url, client } = await start();
    const res = await fetch(`${url}/__sim/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ devices: ['D-1', 'D-2'] }) });
    expect(res.status).toBe(201);
    const account = await res.json();
    expect(account).toMatchObject({ accessToken: expect.stringMatching(/^TEST-/), publicKey: expect.stringMatching(/^TEST-/), devices: ['D-1', 'D-2'] });
    expect((await client.listDevices(account.accessToken)).map((d) => d.id)).toEqual(['D-1', 'D-2']);
  });

  it('gives up after the timeout when the gateway does not answer', async () => {
    const server = await silentServer();
    cleanups.push(server.close);
    const client = new HttpWalletClient({ baseUrl: server.url, timeoutMs: 150 });
    const err = await client.charge(charge()).catch((e) => e);
    expect(err).toBeInstanceOf(WalletError);
    expect(err).toMatchObject({ provider: 'wallet', kind: 'unavailable', retryable: true, reason: 'timeout' });
  });

  it('runs standalone and prints its URL', async () => {
    const { url, stop } = await startStandalone('src/integrations/wallet/simulator/standalone.ts', { WALLET_SIM_PORT: '0' });
    cleanups.push(stop);
    const client = new HttpWalletClient({ baseUrl: url, timeoutMs: 5_000 });
    expect(await client.charge(charge())).toMatchObject({ status: 'approved' });
  }, 30_000);
});

import { describe, expect, it } from 'vitest';
import { injectFetch } from '../../integrations/http.js';
import { HttpFiscalClient } from '../../integrations/fiscal/client.js';
import { FiscalProviderError } from '../../integrations/fiscal/errors.js';
import { createFiscalSimulator } from '../../integrations/fiscal/simulator/index.js';
import { mod11 } from '../../integrations/fiscal/simulator/authority.js';
import { manualClock } from '../../platform/clock.js';
import { accessKeyCheckDigit, buildAccessKey, isValidAccessKey } from './access-key.js';
import { buildNfeXml, localDateTime, spread, type NfeInput, type NfeLine } from './nfe.xml.js';

/** The fiscal provider simulator as the authority, through the real client over HTTP (inject), fed by the service's XML builder. */

const CNPJ = '11222333000181';
const at = new Date('2026-11-26T13:00:00Z');

function setup() {
  const clock = manualClock(at);
  const sim = createFiscalSimulator({ clock });
  const client = new HttpFiscalClient({ baseUrl: 'http://fiscal.test', fetch: injectFetch(sim.buildServer()) });
  return { clock, sim, client };
}

const line = (over: Partial<NfeLine> = {}): NfeLine => ({
  code: 'X1',
  name: 'Moqueca',
  ncm: '21069090',
  cfop: '5102',
  cest: null,
  taxCode: '102',
  unit: 'UN',
  quantity: 2,
  unitPriceCents: 7450,
  totalCents: 14900,
  discountCents: 0,
  otherCents: 0,
  ...over,
});

function doc(model: 55 | 65, number: number, over: Partial<NfeInput> = {}): string {
  const { key, cNF, cDV } = buildAccessKey({ cUF: '35', emittedAtLocal: localDateTime(at, 'America/Sao_Paulo'), cnpj: CNPJ, model, series: 1, number });
  return buildNfeXml({
    key,
    cNF,
    cDV,
    cUF: '35',
    model,
    series: 1,
    number,
    emittedAt: at,
    timeZone: 'America/Sao_Paulo',
    tpAmb: 2,
    emitter: { cnpj: CNPJ, name: 'Restaurante', ie: null, crt: '1', street: null, number: null, district: null, city: null, state: 'SP', cep: null },
    recipientCpf: '52998224725',
    lines: [line()],
    payments: [{ tPag: '01', amountCents: 14900 }],
    ...over,
  });
}

describe('access key', () => {
  it('computes the mod 11 check digit (the example of the NF-e manual: DV 5)', () => {
    expect(accessKeyCheckDigit('5206043300991100250655012000000780026730161')).toBe(5);
    expect(mod11('5206043300991100250655012000000780026730161')).toBe(5);
    const { key } = buildAccessKey({ cUF: '35', emittedAtLocal: '2026-11-26T10:00:00-03:00', cnpj: CNPJ, model: 65, series: 1, number: 42, cNF: '12345678' });
    expect(key).toHaveLength(44);
    expect(key.slice(0, 43)).toBe(`352611${CNPJ}65001000000042112345678`);
    expect(isValidAccessKey(key)).toBe(true);
    expect(isValidAccessKey(key.slice(0, 43) + ((Number(key[43]) + 1) % 10))).toBe(false);
  });

  it('writes dhEmi in the tenant’s zone with its offset', () => {
    expect(localDateTime(new Date('2026-11-26T13:00:00.500Z'), 'America/Sao_Paulo')).toBe('2026-11-26T10:00:00-03:00');
    expect(localDateTime(new Date('2026-01-01T02:00:00Z'), 'America/Manaus')).toBe('2025-12-31T22:00:00-04:00');
  });

  it('spreads discounts over the lines so they add up', () => {
    expect(spread(100, [1000, 2000, 3000])).toEqual([17, 33, 50]);
    expect(spread(7, [1, 1, 1]).reduce((a, b) => a + b, 0)).toBe(7);
    expect(spread(0, [5, 5])).toEqual([0, 0]);
  });
});

describe('fiscal simulator', () => {
  it('authorises an NFC-e synchronously and serves the nfeProc XML and a DANFE PDF; the same ref again is the same document', async () => {
    const { client } = setup();
    const first = await client.emit('tok', 'nfce', 'ref-1', doc(65, 1));
    expect(first).toMatchObject({ status: 'authorized', errors: [] });
    expect(isValidAccessKey(first.accessKey)).toBe(true);
    expect(await client.emit('tok', 'nfce', 'ref-1', doc(65, 1))).toEqual(first);
    const xml = await client.xml('tok', 'nfce', 'ref-1');
    expect(xml).toContain('<nfeProc');
    expect(xml).toContain(`<nProt>${first.protocol}</nProt>`);
    expect((await client.danfe('tok', 'nfce', 'ref-1')).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('answers an NF-e processing, authorised on the status query', async () => {
    const { client } = setup();
    expect((await client.emit('tok', 'nfe', 'ref-2', doc(55, 1))).status).toBe('processing');
    expect((await client.get('tok', 'nfe', 'ref-2')).status).toBe('authorized');
  });

  it('rejects what the authority rejects, with reasons', async () => {
    const { client } = setup();
    const cases: [string, string, string][] = [
      [doc(65, 1, { recipientCpf: '11111111111' }), '237', 'dest/CPF'],
      [doc(65, 2, { emitter: { cnpj: '11222333000180', name: 'X', ie: null, crt: '1', street: null, number: null, district: null, city: null, state: 'SP', cep: null } }), '207', 'emit/CNPJ'],
      [doc(65, 3, { lines: [line({ ncm: '2106909' })] }), '778', 'det[1]/prod/NCM'],
      [doc(65, 4, { lines: [line({ cfop: '1102' })] }), '321', 'det[1]/prod/CFOP'],
      [doc(65, 5, { lines: [line({ totalCents: 14800 })] }), '629', 'det[1]/prod/vProd'],
      [doc(65, 6).replace(/<vNF>[^<]+<\/vNF>/, '<vNF>1.00</vNF>'), '610', 'total/ICMSTot/vNF'],
      [doc(65, 7).replace(/Id="NFe(\d{43})(\d)"/, (_m, a: string, d: string) => `Id="NFe${a}${(Number(d) + 1) % 10}"`), '253', 'infNFe/@Id'],
      [doc(65, 8).replace(/<nNF>8<\/nNF>/, '<nNF>9</nNF>'), '502', 'infNFe/@Id'],
      [doc(55, 9, { recipientCpf: null }), '719', 'dest'],
    ];
    for (const [xml, code, field] of cases) {
      const kind = xml.includes('<mod>55</mod>') ? 'nfe' : 'nfce';
      const res = await client.emit('tok', kind, `rej-${code}`, xml);
      expect(res.status, code).toBe('rejected');
      expect(res.errors, code).toContainEqual(expect.objectContaining({ code, field }));
    }
  });

  it('refuses a cancellation after the deadline: NFC-e 30 minutes, NF-e 24 hours', async () => {
    const { client, clock } = setup();
    await client.emit('tok', 'nfce', 'c-1', doc(65, 1));
    await client.emit('tok', 'nfce', 'c-2', doc(65, 2));
    await client.emit('tok', 'nfe', 'c-3', doc(55, 3));
    await client.get('tok', 'nfe', 'c-3');
    clock.advance(29 * 60_000);
    expect(await client.cancel('tok', 'nfce', 'c-1', 'Erro de digitacao no pedido')).toMatchObject({ status: 'cancelled' });
    clock.advance(2 * 60_000);
    await expect(client.cancel('tok', 'nfce', 'c-2', 'Erro de digitacao no pedido')).rejects.toMatchObject({ kind: 'refused', status: 422, code: 'cancel_deadline_expired' });
    clock.advance(23 * 3_600_000);
    expect((await client.cancel('tok', 'nfe', 'c-3', 'Erro de digitacao no pedido')).status).toBe('cancelled');
    await client.emit('tok', 'nfe', 'c-4', doc(55, 4));
    await client.get('tok', 'nfe', 'c-4');
    clock.advance(24 * 3_600_000 + 1000);
    await expect(client.cancel('tok', 'nfe', 'c-4', 'Erro de digitacao no pedido')).rejects.toMatchObject({ status: 422, code: 'cancel_deadline_expired' });
  });

  it('voids unused numbers, never a used one', async () => {
    const { client, sim } = setup();
    await client.emit('tok', 'nfce', 'v-1', doc(65, 1));
    expect(await client.voidNumbers('tok', 'nfce', { cnpj: CNPJ, series: 1, from: 2, to: 3, reason: 'Numeros nao utilizados' })).toMatchObject({ protocol: expect.any(String) });
    await expect(client.voidNumbers('tok', 'nfce', { cnpj: CNPJ, series: 1, from: 1, to: 1, reason: 'Numeros nao utilizados' })).rejects.toMatchObject({ status: 422 });
    expect(sim.voids()).toMatchObject([{ from: 2, to: 3 }]);
  });

  it('keeps each token’s documents to itself, wants a token, and can be made unavailable', async () => {
    const { client, sim } = setup();
    await client.emit('tok', 'nfce', 'o-1', doc(65, 1));
    await expect(client.get('other', 'nfce', 'o-1')).rejects.toMatchObject({ kind: 'refused', status: 404 });
    await expect(client.get('', 'nfce', 'o-1')).rejects.toBeInstanceOf(FiscalProviderError);
    sim.setAvailable(false);
    await expect(client.get('tok', 'nfce', 'o-1')).rejects.toMatchObject({ kind: 'unavailable', retryable: true, status: 503 });
    sim.setAvailable(true);
    expect((await client.get('tok', 'nfce', 'o-1')).status).toBe('authorized');
  });
});

import { describe, expect, it } from 'vitest';
import { buildPixPayload, crc16ccitt, parsePixPayload, PixCodeError } from './brcode.js';

/**
 * Bacen, "Manual de Padrões para Iniciação do Pix", the example of a static BR Code (key
 * `123e4567-e12b-12d1-a456-426655440000`, Fulano de Tal, BRASILIA, no amount). Reproduced the same in
 * many public implementations; its CRC 1D3D is checked below against our CRC, not taken on trust.
 */
const BACEN_STATIC = '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

/**
 * The dynamic example of a widely shared summary of the manual (GitHub gist matheusb-comp/1efa205b3c0ffd7af1e8ce63a10e02dc,
 * "PIX Dinâmico (seção 6.2)"): upper-case GUI, a location (subfield 25) instead of a key, CRC EEAB.
 */
const GIST_DYNAMIC = '00020101021226770014BR.GOV.BCB.PIX2555pix.example.com/qr/93598be0-1bd0-4997-8318-81776a1d8a99'
  + '5204000053039865802BR5907EMPRESA6009SAO PAULO62070503***6304EEAB';

/**
 * Published strings that are NOT well-formed, kept to show the reader refuses them:
 * - the static example of the same gist: its CRC 170E is right for the text, but field 62 declares 8 characters for `0503***` (7);
 * - a copy of the Bacen example often passed around with the key garbled to `123e4567-e12d3-a456-426655440000` (32 characters
 *   under a declared length of 36) and an amount added, still carrying the original's CRC 1D3D (the text's is 5658).
 */
const GIST_STATIC_BAD_LENGTH = '00020126360014BR.GOV.BCB.PIX0114+551194321432152040000530398654056'
  + '6.665802BR5907EMPRESA6008BRASILIA62080503***6304170E';
const GARBLED_BACEN = '00020126580014br.gov.bcb.pix0136123e4567-e12d3-a456-426655440000520400005303986540510.005802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

const EVP = '123e4567-e12b-42d1-a456-426655440000';
const base = { key: EVP, merchantName: 'Fulano de Tal', merchantCity: 'BRASILIA' };

function fieldsOf(payload: string) {
  return parsePixPayload(payload).fields;
}

describe('crc16ccitt', () => {
  it('is CRC-16/CCITT-FALSE: the catalogue check value of "123456789" is 29B1', () => {
    expect(crc16ccitt('123456789')).toBe('29B1');
  });

  it('gives the CRC printed in published BR Codes', () => {
    expect(crc16ccitt(BACEN_STATIC.slice(0, -4))).toBe('1D3D');
    expect(crc16ccitt(GIST_DYNAMIC.slice(0, -4))).toBe('EEAB');
    expect(crc16ccitt(GIST_STATIC_BAD_LENGTH.slice(0, -4))).toBe('170E');
  });

  it('pads to four hex digits', () => {
    expect(crc16ccitt('')).toBe('FFFF');
    expect(crc16ccitt('\u0000')).toMatch(/^[0-9A-F]{4}$/);
  });
});

describe('parsePixPayload', () => {
  it('reads the Bacen static example', () => {
    expect(parsePixPayload(BACEN_STATIC)).toMatchObject({
      key: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
      txid: '***',
      amountCents: undefined,
      crc: '1D3D',
      fields: { '00': '01', 52: '0000', 53: '986', 58: 'BR' },
    });
  });

  it('reads a dynamic code with an upper-case GUI', () => {
    const parsed = parsePixPayload(GIST_DYNAMIC);
    expect(parsed.url).toBe('pix.example.com/qr/93598be0-1bd0-4997-8318-81776a1d8a99');
    expect(parsed.key).toBeUndefined();
    expect(parsed.fields['01']).toBe('12');
  });

  it('accepts a lower-case CRC and surrounding white space', () => {
    expect(parsePixPayload(`  ${GIST_DYNAMIC.slice(0, -4)}eeab\n`).crc).toBe('EEAB');
  });

  it.each([
    ['a changed character', BACEN_STATIC.replace('Fulano', 'Fulana'), /CRC is 1D3D/],
    ['a wrong CRC', `${BACEN_STATIC.slice(0, -4)}0000`, /CRC/],
    ['no CRC field', BACEN_STATIC.slice(0, -8), /CRC/],
    ['a field cut short', BACEN_STATIC.slice(0, 30), /cut short/],
    ['a mis-declared length (published gist, static)', GIST_STATIC_BAD_LENGTH, /cut short/],
    ['a garbled key under the original CRC (widely copied)', GARBLED_BACEN, /appears twice/],
    ['not a BR Code at all', 'hello', /no ID and length/],
  ])('refuses %s', (_what, payload, message) => {
    expect(() => parsePixPayload(payload)).toThrow(PixCodeError);
    expect(() => parsePixPayload(payload)).toThrow(message);
  });

  it('refuses a code without a PIX merchant account', () => {
    const body = '000201' + '26180014br.gov.bcb.foo' + '5204000053039865802BR5901A6001B62070503***6304';
    expect(() => parsePixPayload(body + crc16ccitt(body))).toThrow(/GUI br.gov.bcb.pix/);
  });

  it('refuses a repeated field', () => {
    const body = '000201000201' + BACEN_STATIC.slice(6, -4);
    expect(() => parsePixPayload(body + crc16ccitt(body))).toThrow(/appears twice/);
  });
});

describe('buildPixPayload', () => {
  it('lays the fields out exactly as the Bacen static example', () => {
    // The manual's key is not a version-4 UUID (its 13th digit is 1), which parsePixKey refuses; one digit
    // changed to 4 gives a valid random key of the same length, and everything else must match the manual.
    const built = buildPixPayload(base);
    expect(built.slice(0, -4)).toBe(BACEN_STATIC.slice(0, -4).replace('e12b-12d1', 'e12b-42d1').replace('Fulano de Tal', 'FULANO DE TAL'));
    expect(built.slice(-4)).toBe(crc16ccitt(built.slice(0, -4)));
    expect(parsePixPayload(built).key).toBe(EVP);
  });

  it('writes the amount with two decimals, between currency and country', () => {
    const built = buildPixPayload({ ...base, amountCents: 1050 });
    expect(built).toContain('5303986540510.505802BR');
    expect(parsePixPayload(built).amountCents).toBe(1050);
    expect(fieldsOf(buildPixPayload({ ...base, amountCents: 1 }))['54']).toBe('0.01');
    expect(fieldsOf(buildPixPayload({ ...base, amountCents: 123456789 }))['54']).toBe('1234567.89');
  });

  it.each([0, -100, 10.5, Number.NaN, 1e13])('refuses amountCents %s', (amountCents) => {
    expect(() => buildPixPayload({ ...base, amountCents })).toThrow(/amountCents/);
  });

  it('normalises the key', () => {
    expect(parsePixPayload(buildPixPayload({ ...base, key: '(11) 98765-4321' })).key).toBe('+5511987654321');
    expect(parsePixPayload(buildPixPayload({ ...base, key: '529.982.247-25' })).key).toBe('52998224725');
    expect(() => buildPixPayload({ ...base, key: '11987654321' })).toThrow(/key: is not a valid PIX key/);
  });

  it('upper-cases name and city, drops diacritics, and cuts them to 25 and 15 characters', () => {
    const parsed = parsePixPayload(buildPixPayload({
      ...base,
      merchantName: 'Churrascaria & Pizzaria Coração do Boi',
      merchantCity: 'São José dos Campos',
    }));
    expect(parsed.merchantName).toBe('CHURRASCARIA & PIZZARIA C');
    expect(parsed.merchantCity).toBe('SAO JOSE DOS CA');
    expect(parsePixPayload(buildPixPayload({ ...base, merchantName: 'Açaí  da Tia', merchantCity: 'Maceió' })))
      .toMatchObject({ merchantName: 'ACAI DA TIA', merchantCity: 'MACEIO' });
  });

  it('refuses a name or city with nothing left to write', () => {
    expect(() => buildPixPayload({ ...base, merchantName: ' ' })).toThrow(/merchantName/);
    expect(() => buildPixPayload({ ...base, merchantCity: '東京' })).toThrow(/merchantCity/);
  });

  it('takes a txid of up to 25 letters and digits, *** by default', () => {
    expect(buildPixPayload(base)).toContain('62070503***6304');
    expect(parsePixPayload(buildPixPayload({ ...base, txid: 'Pedido20260714A' })).txid).toBe('Pedido20260714A');
    expect(parsePixPayload(buildPixPayload({ ...base, txid: 'A'.repeat(25) })).fields['62']).toBe(`0525${'A'.repeat(25)}`);
    for (const txid of ['', 'pedido-1', 'A'.repeat(26), 'Pedido nº1']) {
      expect(() => buildPixPayload({ ...base, txid })).toThrow(/txid/);
    }
  });

  it('puts the description in subfield 02, without diacritics, while it fits in field 26', () => {
    const parsed = parsePixPayload(buildPixPayload({ ...base, description: 'Mesa 12, conta nº 3 — obrigado' }));
    expect(parsed.description).toBe('Mesa 12, conta no 3 obrigado');
    // GUI (18) + EVP key (40) + 4 for the subfield header leaves 37 characters of 99.
    expect(parsePixPayload(buildPixPayload({ ...base, description: 'x'.repeat(37) })).fields['26']).toHaveLength(99);
    expect(() => buildPixPayload({ ...base, description: 'x'.repeat(38) })).toThrow(/description: .* by 1 characters/);
    expect(buildPixPayload({ ...base, description: '' })).toBe(buildPixPayload(base));
  });
});

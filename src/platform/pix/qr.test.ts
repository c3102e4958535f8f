import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { buildPixPayload, PixCodeError } from './brcode.js';
import { pixQrPngBase64 } from './qr.js';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function decode(base64: string): string | undefined {
  const png = PNG.sync.read(Buffer.from(base64, 'base64'));
  // jsqr is CommonJS with `export default` types: under NodeNext the function is the default import's `default`.
  return jsqr.default(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

describe('pixQrPngBase64', () => {
  const payload = buildPixPayload({
    key: 'caixa@restaurante.com.br',
    amountCents: 8990,
    merchantName: 'Cantina São Jorge',
    merchantCity: 'São Paulo',
    txid: 'MESA12CONTA3',
    description: 'Conta da mesa 12',
  });

  it('is a base64 PNG, without a data: prefix, that decodes back to the payload', async () => {
    const base64 = await pixQrPngBase64(payload);
    expect(base64).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const bytes = Buffer.from(base64, 'base64');
    expect(bytes.subarray(0, 8).equals(PNG_MAGIC)).toBe(true);
    expect(decode(base64)).toBe(payload);
  });

  it('refuses a string that is not a valid BR Code', async () => {
    await expect(pixQrPngBase64('hello')).rejects.toThrow(PixCodeError);
    await expect(pixQrPngBase64(`${payload.slice(0, -4)}0000`)).rejects.toThrow(/CRC/);
  });
});

import QRCode from 'qrcode';
import { parsePixPayload } from './brcode.js';

/**
 * The QR code of a BR Code as a PNG, base64 without a `data:` prefix. The payload is checked first
 * (`parsePixPayload` throws `PixCodeError`), so a string that no bank app would accept is never drawn.
 * Error correction M and the standard 4-module quiet zone, 8 pixels a module: a static code of ~150
 * characters comes out at about 400 px, comfortable on a screen or a receipt.
 */
export async function pixQrPngBase64(payload: string): Promise<string> {
  const text = payload.trim();
  parsePixPayload(text);
  const png = await QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 });
  return png.toString('base64');
}

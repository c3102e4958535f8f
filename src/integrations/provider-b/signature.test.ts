import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkProviderBSignature, PROVIDER_B_SIGNATURE_HEADER, signProviderBPayload, verifyProviderBSignature } from './signature.js';

const secret = 'pb_whsec_0123456789';
const body = JSON.stringify({ event: 'canceled_with_charge', order_id: '106', store_id: '900109448' });
const at = new Date('2025-06-01T12:00:00Z');
const t = String(at.getTime() / 1000);

describe('provider_b webhook signature (t=<unix>,sign=<hex HMAC-SHA256 of "<t>.<raw body>">)', () => {
  it('signs `<t>.<raw body>` with HMAC-SHA256, lowercase hex', () => {
    expect(PROVIDER_B_SIGNATURE_HEADER).toBe('x-provider-b-signature');
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signProviderBPayload(body, secret, at)).toBe(`t=${t},sign=${expected}`);
    expect(signProviderBPayload(Buffer.from(body), secret, at)).toBe(`t=${t},sign=${expected}`);
  });

  it('accepts a valid, fresh signature (fields in any order, spaces, upper-case hex)', () => {
    const header = signProviderBPayload(body, secret, at);
    const sign = header.split('sign=')[1];
    expect(checkProviderBSignature(body, header, secret, { now: at })).toEqual({ valid: true });
    expect(checkProviderBSignature(Buffer.from(body), [header], secret, { now: at })).toEqual({ valid: true });
    expect(checkProviderBSignature(body, ` sign=${sign.toUpperCase()} , t=${t} `, secret, { now: at })).toEqual({ valid: true });
    expect(verifyProviderBSignature(body, header, secret, new Date(at.getTime() + 299_000))).toBe(true);
  });

  it('rejects a tampered body, another secret, or a changed timestamp', () => {
    const header = signProviderBPayload(body, secret, at);
    expect(checkProviderBSignature(body.replace('106', '107'), header, secret, { now: at })).toEqual({ valid: false, reason: 'mismatch' });
    expect(checkProviderBSignature(JSON.stringify(JSON.parse(body), null, 1), header, secret, { now: at })).toEqual({ valid: false, reason: 'mismatch' });
    expect(checkProviderBSignature(body, signProviderBPayload(body, 'other', at), secret, { now: at })).toEqual({ valid: false, reason: 'mismatch' });
    expect(checkProviderBSignature(body, header.replace(`t=${t}`, `t=${Number(t) + 1}`), secret, { now: at })).toEqual({ valid: false, reason: 'mismatch' });
  });

  it('rejects an old or future timestamp (replay), beyond 5 minutes', () => {
    const header = signProviderBPayload(body, secret, at);
    expect(checkProviderBSignature(body, header, secret, { now: new Date(at.getTime() + 301_000) })).toEqual({ valid: false, reason: 'expired' });
    expect(checkProviderBSignature(body, header, secret, { now: new Date(at.getTime() - 301_000) })).toEqual({ valid: false, reason: 'expired' });
    expect(checkProviderBSignature(body, header, secret, { now: new Date(at.getTime() + 3_600_000), toleranceSeconds: 7_200 })).toEqual({ valid: true });
  });

  it('rejects a missing, repeated or malformed header', () => {
    const header = signProviderBPayload(body, secret, at);
    const sign = header.split('sign=')[1];
    const reason = (h: string | string[] | undefined) => checkProviderBSignature(body, h, secret, { now: at });
    expect(reason(undefined)).toEqual({ valid: false, reason: 'missing_header' });
    expect(reason(' ')).toEqual({ valid: false, reason: 'missing_header' });
    expect(reason([header, header])).toEqual({ valid: false, reason: 'missing_header' });
    for (const bad of [sign, `sha256=${sign}`, `t=${t}`, `t=${t},sign=${sign.slice(1)}`, `t=abc,sign=${sign}`, `t=${t},t=${t},sign=${sign}`, `t=${t},sign=${sign},v=1`]) {
      expect(reason(bad), bad).toEqual({ valid: false, reason: 'malformed' });
    }
  });

  it('reports a missing secret apart (sandbox: accepted with a warning by the route) and never verifies without one', () => {
    const header = signProviderBPayload(body, '', at);
    expect(checkProviderBSignature(body, header, undefined, { now: at })).toEqual({ valid: false, reason: 'missing_secret' });
    expect(checkProviderBSignature(body, header, '', { now: at })).toEqual({ valid: false, reason: 'missing_secret' });
    expect(verifyProviderBSignature(body, header, '', at)).toBe(false);
  });
});

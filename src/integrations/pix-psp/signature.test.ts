import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkPixPspSignature, PIX_PSP_SIGNATURE_HEADER, signPixPspPayload, verifyPixPspSignature } from './signature.js';

const secret = 'whsec_pix_0123456789';
const body = JSON.stringify({ pix: [{ endToEndId: `E${'1'.repeat(31)}`, txid: 'a'.repeat(26), valor: '149.00', horario: '2025-01-01T12:00:00.000Z' }] });

describe('pix_psp webhook signature', () => {
  it('is HMAC-SHA256 of the raw body in lowercase hex, in x-pix-psp-signature', () => {
    expect(PIX_PSP_SIGNATURE_HEADER).toBe('x-pix-psp-signature');
    expect(signPixPspPayload(body, secret)).toBe(createHmac('sha256', secret).update(body).digest('hex'));
    expect(signPixPspPayload(Buffer.from(body), secret)).toBe(signPixPspPayload(body, secret));
  });

  it('accepts the signature of the exact body, with or without sha256= and in any case', () => {
    const sig = signPixPspPayload(body, secret);
    for (const header of [sig, `sha256=${sig}`, sig.toUpperCase(), [sig]]) expect(checkPixPspSignature(body, header, secret)).toEqual({ valid: true });
    expect(verifyPixPspSignature(Buffer.from(body), sig, secret)).toBe(true);
  });

  it('refuses another body, another secret, and a missing or malformed header', () => {
    const sig = signPixPspPayload(body, secret);
    expect(checkPixPspSignature(body.replace('149.00', '1.00'), sig, secret)).toEqual({ valid: false, reason: 'mismatch' });
    expect(checkPixPspSignature(JSON.stringify(JSON.parse(body), null, 1), sig, secret)).toEqual({ valid: false, reason: 'mismatch' });
    expect(checkPixPspSignature(body, signPixPspPayload(body, 'other'), secret)).toEqual({ valid: false, reason: 'mismatch' });
    expect(checkPixPspSignature(body, undefined, secret)).toEqual({ valid: false, reason: 'missing_header' });
    expect(checkPixPspSignature(body, [sig, sig], secret)).toEqual({ valid: false, reason: 'missing_header' });
    expect(checkPixPspSignature(body, sig.slice(1), secret)).toEqual({ valid: false, reason: 'malformed' });
  });

  it('reports a missing secret apart (accept with a warning) and never verifies without one', () => {
    const sig = signPixPspPayload(body, '');
    expect(checkPixPspSignature(body, sig, undefined)).toEqual({ valid: false, reason: 'missing_secret' });
    expect(verifyPixPspSignature(body, sig, '')).toBe(false);
  });
});

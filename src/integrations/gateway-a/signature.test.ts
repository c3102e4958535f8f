import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkGatewayASignature, signGatewayAPayload, verifyGatewayASignature } from './signature.js';

const secret = 'whsec_test_0123456789';
const body = JSON.stringify({ event: 'payment_intent.approved', data: { id: 'abc-123', status: 'approved' } });

describe('gateway_a webhook signature', () => {
  it('is HMAC-SHA256 of the raw body in lowercase hex (RFC 4231 test case 2)', () => {
    expect(signGatewayAPayload('what do ya want for nothing?', 'Jefe')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    expect(signGatewayAPayload(Buffer.from(body), secret)).toBe(createHmac('sha256', secret).update(body).digest('hex'));
  });

  it('accepts a valid signature, with or without a sha256= prefix and in any case', () => {
    const sig = signGatewayAPayload(body, secret);
    expect(verifyGatewayASignature(body, sig, secret)).toBe(true);
    expect(verifyGatewayASignature(Buffer.from(body), sig, secret)).toBe(true);
    expect(verifyGatewayASignature(body, `sha256=${sig}`, secret)).toBe(true);
    expect(verifyGatewayASignature(body, ` ${sig.toUpperCase()} `, secret)).toBe(true);
    expect(checkGatewayASignature(body, [sig], secret)).toEqual({ valid: true });
  });

  it('rejects a tampered body', () => {
    const sig = signGatewayAPayload(body, secret);
    const tampered = body.replace('approved', 'declined');
    expect(checkGatewayASignature(tampered, sig, secret)).toEqual({ valid: false, reason: 'mismatch' });
    // Re-serialising the same JSON with other spacing is a different raw body.
    expect(verifyGatewayASignature(JSON.stringify(JSON.parse(body), null, 2), sig, secret)).toBe(false);
  });

  it('rejects a signature made with another secret', () => {
    const sig = signGatewayAPayload(body, 'another-secret');
    expect(checkGatewayASignature(body, sig, secret)).toEqual({ valid: false, reason: 'mismatch' });
  });

  it('rejects a missing, empty, repeated or malformed header', () => {
    const sig = signGatewayAPayload(body, secret);
    expect(checkGatewayASignature(body, undefined, secret)).toEqual({ valid: false, reason: 'missing_header' });
    expect(checkGatewayASignature(body, '', secret)).toEqual({ valid: false, reason: 'missing_header' });
    expect(checkGatewayASignature(body, [sig, sig], secret)).toEqual({ valid: false, reason: 'missing_header' });
    expect(checkGatewayASignature(body, sig.slice(0, 63), secret)).toEqual({ valid: false, reason: 'malformed' });
    expect(checkGatewayASignature(body, 'z'.repeat(64), secret)).toEqual({ valid: false, reason: 'malformed' });
    expect(checkGatewayASignature(body, Buffer.from(sig, 'hex').toString('base64'), secret)).toEqual({ valid: false, reason: 'malformed' });
  });

  it('reports a missing secret so the route can apply spec 5.6, and never verifies without one', () => {
    const sig = signGatewayAPayload(body, '');
    expect(checkGatewayASignature(body, sig, undefined)).toEqual({ valid: false, reason: 'missing_secret' });
    expect(checkGatewayASignature(body, sig, '')).toEqual({ valid: false, reason: 'missing_secret' });
    expect(verifyGatewayASignature(body, sig, '')).toBe(false);
  });
});

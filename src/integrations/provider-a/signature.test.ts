import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkProviderASignature, PROVIDER_A_SIGNATURE_HEADER, signProviderAPayload, verifyProviderASignature } from './signature.js';

const DIR = '../shared/data/webhooks/ifood';
const raw = readFileSync(`${DIR}/ifood_webhook_PLACED_event.json`);
const published = readFileSync(`${DIR}/ifood_webhook_PLACED_event.X-IFood-Signature.txt`, 'utf8').trim();

describe('provider_a webhook signature', () => {
  it('reproduces the signature published with the iFood sample (HMAC-SHA256 hex, secret dummysecret)', () => {
    expect(published).toBe('6f9ed23a7b505a3b6907c5f6eb2ad1b056fbf35a643d365a9a072ed7aabca153');
    expect(signProviderAPayload(raw, 'dummysecret')).toBe(published);
    expect(checkProviderASignature(raw, published, 'dummysecret')).toEqual({ valid: true });
    expect(verifyProviderASignature(raw.toString('utf8'), published.toUpperCase(), 'dummysecret')).toBe(true);
    expect(PROVIDER_A_SIGNATURE_HEADER).toBe('x-provider-a-hmac-sha256');
  });

  it('is checked over the raw bytes: a re-serialised or tampered body fails', () => {
    const reserialised = JSON.stringify(JSON.parse(raw.toString('utf8')), null, 2);
    expect(checkProviderASignature(reserialised, published, 'dummysecret')).toEqual({ valid: false, reason: 'mismatch' });
    const tampered = raw.toString('utf8').replace('PLACED', 'CANCELLED');
    expect(checkProviderASignature(tampered, published, 'dummysecret')).toEqual({ valid: false, reason: 'mismatch' });
  });

  it('refuses another secret, a missing, repeated or malformed header', () => {
    expect(checkProviderASignature(raw, published, 'another')).toEqual({ valid: false, reason: 'mismatch' });
    expect(checkProviderASignature(raw, undefined, 'dummysecret')).toEqual({ valid: false, reason: 'missing_header' });
    expect(checkProviderASignature(raw, [published, published], 'dummysecret')).toEqual({ valid: false, reason: 'missing_header' });
    expect(checkProviderASignature(raw, published.slice(1), 'dummysecret')).toEqual({ valid: false, reason: 'malformed' });
  });

  it('reports a missing secret apart (sandbox: accepted with a warning by the route)', () => {
    expect(checkProviderASignature(raw, published, undefined)).toEqual({ valid: false, reason: 'missing_secret' });
    expect(checkProviderASignature(raw, undefined, '')).toEqual({ valid: false, reason: 'missing_secret' });
  });
});

import { describe, expect, it } from 'vitest';
import { keyCheckDigit, validKey } from './nfe.parser.js';

describe('NF-e access key', () => {
  it('verifies the mod 11 check digit', () => {
    expect(validKey('35180834128745000152550010000476491552806942')).toBe(true);
    expect(validKey('35180834128745000152550010000476491552806943')).toBe(false);
    expect(validKey('3518083412874500015255001000047649155280694')).toBe(false);
    expect(validKey('string')).toBe(false);
  });

  it('a remainder of 0 or 1 gives the digit 0', () => {
    // Found by search: keys whose weighted sum leaves 0 or 1.
    const base = '3518083412874500015255001000047649155280';
    const keys = Array.from({ length: 1000 }, (_, i) => `${base}${String(i).padStart(3, '0')}`);
    const zero = keys.filter((k) => keyCheckDigit(k) === 0);
    expect(zero.length).toBeGreaterThan(0);
    for (const k of zero.slice(0, 5)) expect(validKey(`${k}0`)).toBe(true);
  });

  it('takes the alphanumeric CNPJ (each character worth its code minus 48)', () => {
    // 12ABC34501DE35 (the official alphanumeric CNPJ example) in a key.
    const key43 = ['35', '2607', '12ABC34501DE35', '55', '001', '000000123', '1', '00000001'].join('');
    expect(key43).toHaveLength(43);
    const digit = keyCheckDigit(key43);
    expect(validKey(`${key43}${digit}`)).toBe(true);
    expect(validKey(`${key43}${(digit + 1) % 10}`)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { parsePixKey } from './pix-key.js';

describe('parsePixKey', () => {
  it.each([
    ['52998224725', 'cpf', '52998224725'],
    ['529.982.247-25', 'cpf', '52998224725'],
    [' 529.982.247-25 ', 'cpf', '52998224725'],
    ['11222333000181', 'cnpj', '11222333000181'],
    ['11.222.333/0001-81', 'cnpj', '11222333000181'],
    // The alphanumeric CNPJ (in force since July 2026), as br-documents.ts accepts it.
    ['12.abc.345/01de-35', 'cnpj', '12ABC34501DE35'],
    ['Caixa@Restaurante.COM.br', 'email', 'caixa@restaurante.com.br'],
    ['+5511987654321', 'phone', '+5511987654321'],
    ['+55 11 98765-4321', 'phone', '+5511987654321'],
    ['+55 (11) 98765-4321', 'phone', '+5511987654321'],
    ['(11) 98765-4321', 'phone', '+5511987654321'],
    ['(21)99876.5432', 'phone', '+5521998765432'],
    ['123E4567-E89B-42D3-A456-426614174000', 'evp', '123e4567-e89b-42d3-a456-426614174000'],
  ])('%s is a %s key stored as %s', (raw, type, key) => {
    expect(parsePixKey(raw)).toEqual({ type, key });
  });

  it.each([
    ['', 'empty'],
    ['52998224726', 'CPF with a wrong check digit'],
    ['111.111.111-11', 'CPF of one repeated digit'],
    ['11222333000182', 'CNPJ with a wrong check digit'],
    ['5299822472', '10 digits'],
    ['not an e-mail@', 'e-mail with nothing after @'],
    ['a b@c.com', 'e-mail with a space'],
    [`${'a'.repeat(66)}@example.com`, 'e-mail of 78 characters'],
    ['+1 212 555 0100', 'non-Brazilian phone'],
    ['+55 11 8765-4321', 'landline-length number (phone keys are mobiles)'],
    ['+55 01 98765-4321', 'DDD with a 0'],
    ['(11) 98765-43210', 'one digit too many'],
    ['123e4567-e89b-12d3-a456-426614174000', 'UUID that is not version 4'],
    ['123e4567e89b42d3a456426614174000', 'UUID without dashes'],
  ])('rejects %s (%s)', (raw) => {
    expect(parsePixKey(raw)).toBeNull();
  });

  it('takes an e-mail of exactly 77 characters', () => {
    const email = `${'a'.repeat(65)}@example.com`;
    expect(email).toHaveLength(77);
    expect(parsePixKey(email)).toEqual({ type: 'email', key: email });
  });

  describe('ambiguity: 11 bare digits are a CPF or nothing, never a phone', () => {
    it('a mobile number written without +55 or parentheses is not a key (its check digits fail as a CPF)', () => {
      expect(parsePixKey('11987654321')).toBeNull();
      expect(parsePixKey('11 98765-4321')).toBeNull();
    });

    it('digits that look like a mobile but are a valid CPF are a CPF', () => {
      expect(parsePixKey('11987654374')).toEqual({ type: 'cpf', key: '11987654374' });
    });

    it('the same digits written as a phone are a phone', () => {
      expect(parsePixKey('(11) 98765-4374')).toEqual({ type: 'phone', key: '+5511987654374' });
      expect(parsePixKey('+55 11 98765-4374')).toEqual({ type: 'phone', key: '+5511987654374' });
    });
  });
});

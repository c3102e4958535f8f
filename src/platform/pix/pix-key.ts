import { isValidCnpj, isValidCpf, stripDocument } from '../br-documents.js';

export type PixKeyType = 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp';

/** A PIX key in the form the DICT stores it, which is also the form that goes into a BR Code. */
export interface PixKey {
  type: PixKeyType;
  key: string;
}

/** The DICT's limit for an e-mail key. */
export const PIX_EMAIL_MAX = 77;

// The DICT's e-mail pattern (checked after lower-casing).
const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
// A random key (EVP) is a version-4 UUID; the DICT stores it in lower case.
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
// A phone key is a Brazilian mobile: DDD (two digits 1-9) and nine digits starting with 9.
const BR_MOBILE = /^([1-9]{2})(9\d{8})$/;

/**
 * Validates and normalises a PIX key typed by a person, or null when it is not one.
 *
 * - CPF: 11 digits with valid check digits, with or without `.`/`-` → digits only.
 * - CNPJ: 14 characters with valid check digits, with or without `.`/`/`/`-` → digits only (upper case for
 *   the alphanumeric CNPJ, which `br-documents.ts` accepts).
 * - E-mail: anything with `@` → lower case, at most 77 characters, DICT pattern.
 * - Phone: `+55` + DDD + 9-digit mobile → `+55DDNNNNNNNNN`; spaces, dashes, dots and parentheses are dropped.
 * - EVP: a version-4 UUID, any case → lower case.
 *
 * Ambiguity rule: a phone is recognised only when it is written as one, that is with a leading `+`
 * (`+55 11 98765-4321`) or with the DDD in parentheses (`(11) 98765-4321`). Bare digits are read as a
 * document: 11 of them are a CPF when the check digits hold and otherwise no key at all, never a phone,
 * because `11987654321` could be either and a payment must not go to the wrong kind of key.
 */
export function parsePixKey(raw: string): PixKey | null {
  const value = raw.trim();
  if (!value) return null;
  if (value.includes('@')) return parseEmail(value);
  if (EVP.test(value)) return { type: 'evp', key: value.toLowerCase() };
  if (value.startsWith('+') || /^\(\s*\d{2}\s*\)/.test(value)) return parsePhone(value);
  const doc = stripDocument(value);
  if (doc.length === 11) return isValidCpf(doc) ? { type: 'cpf', key: doc } : null;
  if (doc.length === 14) return isValidCnpj(doc) ? { type: 'cnpj', key: doc } : null;
  return null;
}

function parseEmail(value: string): PixKey | null {
  const key = value.toLowerCase();
  return key.length <= PIX_EMAIL_MAX && EMAIL.test(key) ? { type: 'email', key } : null;
}

function parsePhone(value: string): PixKey | null {
  const compact = value.replace(/[\s().-]/g, '');
  let national: string;
  if (compact.startsWith('+')) {
    if (!compact.startsWith('+55')) return null;
    national = compact.slice(3);
  } else national = compact;
  return BR_MOBILE.test(national) ? { type: 'phone', key: `+55${national}` } : null;
}

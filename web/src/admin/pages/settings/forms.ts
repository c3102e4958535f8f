/** Form helpers of the settings area (also used by reports): API errors by field, numbers and money typed in pt-BR. */
import { ApiError } from '../../../shared/api.js';
import { strings as s } from './strings.js';

export type Errors = Record<string, string | undefined>;

/** The API's field errors for `names`, and a general message (the API's, or a generic one) under `_form`. */
export function apiErrors(err: unknown, names: readonly string[]): Errors {
  if (!(err instanceof ApiError)) return { _form: s.unexpected };
  const out: Errors = {};
  for (const n of names) out[n] = err.fieldMessage(n);
  const anyField = names.some((n) => out[n]);
  out._form = err.status === 0 ? s.offline : anyField ? s.fixFields : err.message || s.unexpected;
  return out;
}

export const hasErrors = (e: Errors) => Object.values(e).some(Boolean);

/** `12,5` or `12.5` -> 12.5; null when not a number. */
export function parseNumber(text: string): number | null {
  const t = text.trim().replace(/\s/g, '').replace(',', '.');
  if (!/^-?\d+(\.\d+)?$/.test(t)) return null;
  return Number(t);
}

/** At most 2 decimals. */
export const twoDecimals = (n: number) => Math.round(n * 100) === n * 100 || Math.abs(Math.round(n * 100) - n * 100) < 1e-9;

export { centsToInput as moneyInput, parseMoney } from '../../ui/money-input.js';

/** A number -> `12,5` (for an input). */
export const numberInput = (n: number) => String(n).replace('.', ',');

export const isEmail = (v: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.trim());
export const isSlug = (v: string) => /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(v);
export const isCep = (v: string) => /^[0-9]{5}-?[0-9]{3}$/.test(v.trim());

/** A slug from a name: `Filial Centro` -> `filial-centro`. */
export function slugify(name: string) {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

/** CNPJ check digits (with or without punctuation). */
export function isCnpj(v: string) {
  const d = v.replace(/\D/g, '');
  if (d.length !== 14 || /^(\d)\1+$/.test(d)) return false;
  const digit = (len: number) => {
    const w = len === 12 ? [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] : [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    const sum = w.reduce((acc, x, i) => acc + x * Number(d[i]), 0);
    const r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  };
  return digit(12) === Number(d[12]) && digit(13) === Number(d[13]);
}

export const UFS = [
  'AC', 'AL', 'AP', 'AM', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MT', 'MS', 'MG', 'PA', 'PB',
  'PR', 'PE', 'PI', 'RJ', 'RN', 'RS', 'RO', 'RR', 'SC', 'SP', 'SE', 'TO',
] as const;

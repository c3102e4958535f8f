/** Small pieces the manager pages share: money input parsing, error text, a status line, a field id. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { fieldId } from '../../ui/Field.js';

/** `39,90`, `39.90`, `1.234,50`, `R$ 5` -> cents; null when not a number. Negative allowed with `allowNegative`. */
export function parseMoney(text: string, allowNegative = false): number | null {
  let s = text.replace(/R\$|\s/g, '');
  const negative = s.startsWith('-');
  if (negative) s = s.slice(1);
  if (!/^\d{1,3}(\.\d{3})*(,\d{1,2})?$|^\d+([.,]\d{1,2})?$/.test(s)) return null;
  if (s.includes(',')) s = s.replace(/\./g, '').replace(',', '.');
  const cents = Math.round(Number(s) * 100);
  if (!Number.isFinite(cents) || (negative && !allowNegative)) return null;
  return negative ? -cents : cents;
}

/** Cents -> `39,90` for an input. */
export const centsToInput = (cents: number) => (cents / 100).toFixed(2).replace('.', ',');

export const errorText = (err: unknown) => (err instanceof ApiError ? err.message || err.code : err instanceof Error ? err.message : String(err));

/** The API's field error for `name` (when `err` is an ApiError). */
export const apiField = (err: unknown, name: string) => (err instanceof ApiError ? err.fieldMessage(name) : undefined);

/** Stable ids for a form's fields. */
export function useIds<K extends string>(...names: K[]): Record<K, string> {
  const [ids] = useState(() => Object.fromEntries(names.map((n) => [n, fieldId(n)])) as Record<K, string>);
  return ids;
}

/** A polite status line (saved, failed) for a page or form. */
export function Status({ text, error }: { text: string; error?: boolean }) {
  if (!text) return null;
  return error ? (
    <p class="form-error" role="alert">
      {text}
    </p>
  ) : (
    <p class="notice" role="status">
      {text}
    </p>
  );
}

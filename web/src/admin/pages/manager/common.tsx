/** Small pieces the manager pages share: money input parsing, error text, a status line, a field id. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { fieldId } from '../../ui/Field.js';

export { centsToInput, parseMoney } from '../../ui/money-input.js';

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

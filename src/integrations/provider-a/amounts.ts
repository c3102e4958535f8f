/**
 * provider_a writes money as decimal BRL (`35.9`, sometimes as text `"35.90"`). Read into integer cents from
 * the decimal text, never by multiplying a float: `String(35.9)` is the shortest text giving back the same
 * double, so `35.9` -> "35.9" -> 3590 exactly. A third decimal and beyond (weighed items) rounds half away
 * from zero on the digits.
 */
import { ProviderAPayloadError } from './errors.js';

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

function decimalText(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const s = String(v);
    // 1e-7, 1e21: write the digits out (20 decimals is beyond what any amount carries).
    return /e/i.test(s) ? v.toFixed(20) : s;
  }
  if (typeof v === 'string' && DECIMAL.test(v.trim())) return v.trim();
  return null;
}

/** A decimal amount (number or text) -> integer cents; null when it is not one. */
export function decimalAmountToCents(v: unknown): number | null {
  const text = decimalText(v);
  const m = text === null ? null : DECIMAL.exec(text);
  if (!m) return null;
  const frac = (m[3] ?? '').padEnd(3, '0');
  const cents = Number(m[2]) * 100 + Number(frac.slice(0, 2)) + (frac[2] >= '5' ? 1 : 0);
  if (!Number.isSafeInteger(cents)) return null;
  return m[1] === '-' && cents !== 0 ? -cents : cents;
}

/** The amount at `path` in cents; `fallback` when absent (null/undefined), a payload error when unreadable or absent without fallback. */
export function centsAt(v: unknown, path: string, fallback?: number): number {
  if ((v === undefined || v === null) && fallback !== undefined) return fallback;
  const cents = decimalAmountToCents(v);
  if (cents === null) throw new ProviderAPayloadError(path, `expected a decimal amount, got ${JSON.stringify(v) ?? 'nothing'}`);
  return cents;
}

/**
 * Money on the wire: the service counts integer cents, the payment providers take and give decimal
 * reais (`45.9`), the Bacen API Pix as text with two decimals (`"45.90"`). Conversions never go through
 * float arithmetic on the cents.
 */

/** Integer cents to the two-decimal text of the Bacen API Pix (4590 -> "45.90"). */
export function centsToAmountText(cents: number): string {
  return `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** Integer cents to the provider's decimal amount (4590 -> 45.9). */
export function centsToDecimal(cents: number): number {
  return Number(centsToAmountText(cents));
}

/** A positive decimal amount with at most two decimals -> integer cents (45.9 -> 4590), or null for anything else. */
export function decimalToCents(v: unknown): number | null {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return null;
  const cents = Math.round(v * 100);
  return Math.abs(cents - v * 100) < 1e-6 && Number.isSafeInteger(cents) ? cents : null;
}

/** A positive amount as the Bacen API Pix writes it (`\d{1,10}\.\d{2}`, "45.90") -> integer cents, or null for anything else. */
export function amountTextToCents(v: unknown): number | null {
  const m = typeof v === 'string' ? /^(\d{1,10})\.(\d{2})$/.exec(v) : null;
  const cents = m ? Number(m[1]) * 100 + Number(m[2]) : 0;
  return cents > 0 ? cents : null;
}

/**
 * provider_b's money. Like the real platform's API, every amount is a JSON number (or numeric text) in
 * the currency's own units: for a Brazilian store, reais with up to two decimals (`28.9` = R$ 28,90).
 * The service counts integer cents, derived from the decimal text of the number (never `x * 100` on a
 * float): the whole part times 100 plus the first two decimals; a third decimal, should one come, rounds
 * half up. The getOrders sample of the data folder is from a store of another country whose amounts are
 * whole units (`28900`): read as reais they are R$ 28.900,00 = 2 890 000 cents.
 */

/**
 * A non-negative amount in currency units (number or numeric text) -> integer cents, or null for anything
 * else; `strict`: null as well for more than two decimals (what the simulator accepts).
 */
export function amountToCents(v: unknown, strict = false): number | null {
  let text: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    text = String(v);
  } else if (typeof v === 'string') {
    text = v.trim();
  } else {
    return null;
  }
  const m = /^(\d{1,13})(?:\.(\d+))?$/.exec(text); // exponent notation (1e-7, 1e21) and negatives are refused
  if (!m) return null;
  const frac = m[2] ?? '';
  if (strict && frac.length > 2) return null;
  let cents = Number(m[1]) * 100 + Number(`${frac}00`.slice(0, 2));
  if (frac.length > 2 && Number(frac[2]) >= 5) cents += 1;
  return Number.isSafeInteger(cents) ? cents : null;
}

/** Integer cents -> the API's amount in currency units (4590 -> 45.9), through its decimal text. */
export function centsToAmount(cents: number): number {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError(`not a cents amount: ${cents}`);
  return Number(`${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`);
}

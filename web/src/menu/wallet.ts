/**
 * The online card (wallet) of the checkout: the card form's checks and the tokenization, made by the browser
 * straight against the wallet gateway with the tenant's public key (`POST <walletTokenUrl>?public_key=...`),
 * as the gateway's client SDK does. Card data goes only there: never to this service, never to storage.
 */

export interface CardInput {
  number: string;
  holder: string;
  /** `MM/AA` as typed. */
  expiry: string;
  cvv: string;
}

export type CardField = keyof CardInput;

/** Why a card cannot be tokenized, by field (`other` when the gateway gives no field or cannot be reached). */
export type CardProblem = { field: CardField | 'other'; kind: 'invalid' | 'expired' | 'unavailable' | 'network' };

export const digitsOf = (s: string) => s.replace(/\D+/g, '');

/** `MM/AA` (or `MMAA`) as month and four-digit year; null when malformed. */
export function parseExpiry(s: string): { month: number; year: number } | null {
  const m = /^\s*(\d{1,2})\s*\/?\s*(\d{2})\s*$/.exec(s);
  if (!m) return null;
  const month = Number(m[1]);
  if (month < 1 || month > 12) return null;
  return { month, year: 2000 + Number(m[2]) };
}

/** Types the slash of `MM/AA` for the guest: `1128` -> `11/28`. */
export function formatExpiry(s: string): string {
  const d = digitsOf(s).slice(0, 4);
  return d.length > 2 ? `${d.slice(0, 2)}/${d.slice(2)}` : d;
}

/** Groups of four digits, as printed on the card. */
export function formatCardNumber(s: string): string {
  return digitsOf(s).slice(0, 19).replace(/(\d{4})(?=\d)/g, '$1 ');
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The first problem of each field the page can see before asking the gateway. */
export function checkCard(card: CardInput, now = new Date()): CardProblem[] {
  const problems: CardProblem[] = [];
  const number = digitsOf(card.number);
  if (number.length < 13 || number.length > 19 || !luhn(number)) problems.push({ field: 'number', kind: 'invalid' });
  if (!card.holder.trim()) problems.push({ field: 'holder', kind: 'invalid' });
  const exp = parseExpiry(card.expiry);
  if (!exp) problems.push({ field: 'expiry', kind: 'invalid' });
  else if (exp.year < now.getFullYear() || (exp.year === now.getFullYear() && exp.month < now.getMonth() + 1)) {
    problems.push({ field: 'expiry', kind: 'expired' });
  }
  if (!/^\d{3,4}$/.test(card.cvv.trim())) problems.push({ field: 'cvv', kind: 'invalid' });
  return problems;
}

/** The field a gateway refusal is about, from its message (`invalid card_number`, `card expired`...). */
function problemOf(status: number, message: string): CardProblem {
  if (status === 400) {
    if (/card_number/.test(message)) return { field: 'number', kind: 'invalid' };
    if (/security_code/.test(message)) return { field: 'cvv', kind: 'invalid' };
    if (/expired/.test(message)) return { field: 'expiry', kind: 'expired' };
    if (/expiration/.test(message)) return { field: 'expiry', kind: 'invalid' };
    if (/cardholder/.test(message)) return { field: 'holder', kind: 'invalid' };
  }
  return { field: 'other', kind: 'unavailable' };
}

export class CardTokenError extends Error {
  constructor(readonly problem: CardProblem) {
    super(`card token: ${problem.field} ${problem.kind}`);
    this.name = 'CardTokenError';
  }
}

/**
 * Makes a single-use card token at the gateway. Sent without cookies or credentials (`credentials: omit`),
 * and without a referrer; throws a CardTokenError on a refusal or a network failure.
 */
export async function tokenizeCard(url: string, publicKey: string, card: CardInput): Promise<string> {
  const exp = parseExpiry(card.expiry);
  const body = {
    card_number: digitsOf(card.number),
    security_code: card.cvv.trim(),
    expiration_month: exp?.month,
    expiration_year: exp?.year,
    cardholder: { name: card.holder.trim() },
  };
  let res: Response;
  try {
    res = await fetch(`${url}?public_key=${encodeURIComponent(publicKey)}`, {
      method: 'POST',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      cache: 'no-store',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new CardTokenError({ field: 'other', kind: 'network' });
  }
  const data = (await res.json().catch(() => null)) as { id?: unknown; message?: unknown } | null;
  if (!res.ok) throw new CardTokenError(problemOf(res.status, typeof data?.message === 'string' ? data.message : ''));
  if (typeof data?.id !== 'string' || !data.id) throw new CardTokenError({ field: 'other', kind: 'unavailable' });
  return data.id;
}

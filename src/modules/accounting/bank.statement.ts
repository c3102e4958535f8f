import { createHash } from 'node:crypto';
import { DATE_MAX, DATE_MIN } from '../../platform/schemas.js';
import { isCalendarDate } from '../../platform/time.js';

/**
 * What a statement file (OFX or CSV) reads as, and the helpers both parsers share: text decoding, amounts
 * with a decimal comma or point, dates, and the stable id of a line without a bank id. docs/decisions.md,
 * "Accounting: receivables and bank".
 */

export const STATEMENT_FORMATS = ['ofx', 'csv'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

export interface StatementLine {
  /** The bank's transaction id (OFX FITID; a later repeat in the same file gets `#n`), or one derived from the line. */
  fitId: string;
  date: string;
  /** Credits positive, debits negative. */
  amountCents: number;
  description: string;
}

export interface ParsedStatement {
  format: StatementFormat;
  /** The account the file names (OFX BANKACCTFROM), when it names one. */
  accounts: { bankId: string | null; acctId: string }[];
  lines: StatementLine[];
  /** Transactions and rows read (lines + skipped). */
  read: number;
  /** Read but not statement lines: balance rows, zero amounts, empty OFX transactions. */
  skipped: number;
}

/** A file that cannot be imported: the message says why (the service answers 400 on `file`). */
export class StatementError extends Error {
  constructor(
    message: string,
    readonly code = 'unreadable_statement',
  ) {
    super(message);
  }
}

/** UTF-8 when the bytes are valid UTF-8, else Windows-1252 (latin1): what Brazilian banks write whatever the header says. */
export function decodeText(bytes: Buffer): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = new TextDecoder('windows-1252').decode(bytes);
  }
  return text.replace(/^\uFEFF/, '');
}

/** Largest amount of a line, cents (10 billion currency units). */
const MAX_CENTS = 1_000_000_000_000;

/**
 * Cents of an amount as banks write it: `1.000,00`, `1000,00`, `-200,00`, `200,00-`, `(200,00)`, `200,00 D`,
 * `R$ 1.000,00`, `1000.00`. `decimal` is the file's decimal separator; a value holding both separators uses
 * the last one as the decimal, and a value with only the other one followed by 1 or 2 digits uses it.
 * Null when it is not an amount (or has non-zero digits past the cents).
 */
export function parseAmount(raw: string, decimal: ',' | '.'): number | null {
  let s = raw.replace(/R\$/gi, '').replace(/\s+/g, '');
  if (s === '') return null;
  let sign = 1;
  if (/^\(.*\)$/.test(s)) {
    sign = -1;
    s = s.slice(1, -1);
  }
  if (/^[+-]?[\d.,]+[DC]$/i.test(s)) {
    if (/D$/i.test(s)) sign = -sign;
    s = s.slice(0, -1);
  } else if (/^[\d.,]+-$/.test(s)) {
    sign = -sign;
    s = s.slice(0, -1);
  }
  if (s.startsWith('-')) {
    sign = -sign;
    s = s.slice(1);
  } else if (s.startsWith('+')) {
    s = s.slice(1);
  }
  const other = decimal === ',' ? '.' : ',';
  let dec: string = decimal;
  const lastComma = s.lastIndexOf(',');
  const lastDot = s.lastIndexOf('.');
  if (lastComma >= 0 && lastDot >= 0) dec = lastComma > lastDot ? ',' : '.';
  else if (!s.includes(decimal) && s.split(other).length === 2 && new RegExp(`\\${other}\\d{1,2}$`).test(s)) dec = other;
  const thousands = dec === ',' ? '.' : ',';
  const t = `\\${thousands}`;
  const d = `\\${dec}`;
  if (!new RegExp(`^(\\d{1,3}(${t}\\d{3})+|\\d+)(${d}\\d{1,6})?$`).test(s)) return null;
  const [int, frac = ''] = s.split(thousands).join('').split(dec) as [string, string?];
  if (/[1-9]/.test(frac.slice(2))) return null;
  const cents = Number(int) * 100 + Number(frac.slice(0, 2).padEnd(2, '0'));
  if (!Number.isSafeInteger(cents) || cents > MAX_CENTS) return null;
  return cents === 0 ? 0 : sign * cents;
}

/** `YYYY-MM-DD` when it is a real date in the platform's range, else null. */
export function calendarDate(y: string, m: string, d: string): string | null {
  const date = `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
  return isCalendarDate(date) && date >= DATE_MIN && date <= DATE_MAX ? date : null;
}

/** Description as compared for the derived id: trimmed, spaces collapsed, upper case. */
const normalDescription = (s: string) => s.trim().replace(/\s+/g, ' ').toUpperCase();

/**
 * The ids of lines without a bank id: a hash of the date, the amount, the description and the line's
 * occurrence number among the file's lines with the same three, so a re-import of the same file (or of a
 * longer period holding it) derives the same ids and two equal purchases on one day stay two lines.
 */
export function derivedIds(lines: { date: string; amountCents: number; description: string }[]): string[] {
  const seen = new Map<string, number>();
  return lines.map((l) => {
    const key = `${l.date}|${l.amountCents}|${normalDescription(l.description)}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return `h:${createHash('sha256').update(`${key}|${n}`).digest('hex').slice(0, 32)}`;
  });
}

/** Descriptions are kept to 500 characters. */
export const clip = (s: string) => s.trim().replace(/\s+/g, ' ').slice(0, 500);

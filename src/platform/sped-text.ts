/**
 * The text rules every SPED file shares (ECD manual of leiaute 8, chapter 2; EFD ICMS/IPI guide 3.0.1,
 * section 2; the EFD-Contribuições follows the same): ISO-8859-1 bytes, every line `|field|field|...|` ended by
 * CR LF, dates `ddmmaaaa`, amounts with a decimal comma and no thousands separator, alphanumeric fields without
 * `|` or control characters, 255 characters at most. Used by the ECD (accounting) and the EFD files (fiscal).
 */
import type { TenantRow } from '../db/schema/tenants.js';
import { isValidCnpj, stripDocument, UFS } from './br-documents.js';
import { InvalidRequest } from './domain-errors.js';

/** Typographic characters outside Latin-1 that names and memos often carry, and their plain forms. */
const PLAIN: Record<string, string> = {
  '\u2013': '-', '\u2014': '-', '\u2212': '-', '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201c': '"', '\u201d': '"', '\u201e': '"',
  '\u2026': '...', '\u2022': '-', '\u20ac': 'EUR', '\u00a0': ' ', '\u2122': 'TM',
};

/**
 * A value as an alphanumeric field: Latin-1 only (typographic marks made plain, accented letters outside
 * Latin-1 lose their accent, anything else becomes `?`), `|` and control characters become spaces, runs of
 * spaces collapse, trimmed, cut at `max` characters.
 */
export function text(value: string | null | undefined, max = 255): string {
  if (!value) return '';
  let out = '';
  for (const ch of value.normalize('NFC')) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || ch === '|') out += ' ';
    else if (code <= 0xff) out += ch;
    else if (PLAIN[ch] !== undefined) out += PLAIN[ch];
    else {
      const bare = ch.normalize('NFD').replace(/\p{M}/gu, '');
      out += bare.length > 0 && [...bare].every((c) => c.codePointAt(0)! <= 0xff) ? bare : '?';
    }
  }
  return out.replace(/\s+/g, ' ').trim().slice(0, max).trim();
}

/** `YYYY-MM-DD` -> `ddmmaaaa`. */
export const date = (iso: string) => `${iso.slice(8, 10)}${iso.slice(5, 7)}${iso.slice(0, 4)}`;

/** `ddmmaaaa` -> `YYYY-MM-DD` (null when it is not a real date). */
export function isoOf(ddmmaaaa: string): string | null {
  if (!/^\d{8}$/.test(ddmmaaaa)) return null;
  const iso = `${ddmmaaaa.slice(4)}-${ddmmaaaa.slice(2, 4)}-${ddmmaaaa.slice(0, 2)}`;
  const d = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === iso ? iso : null;
}

/** Non-negative integer cents -> `1234,56`. */
export function money(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new Error(`sped: amount ${cents} is not a non-negative integer of cents`);
  return `${Math.trunc(cents / 100)},${String(cents % 100).padStart(2, '0')}`;
}

/** `1234,56` (or `1234`, `1234,5`) -> cents; null when it is not an ECD amount. */
export function centsOf(value: string): number | null {
  const m = /^(\d{1,17})(?:,(\d{1,2}))?$/.exec(value);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
}

/** Digits only. */
export const digits = (value: string | null | undefined) => (value ?? '').replace(/\D/g, '');

/** A percentage (18, 12.5, 0.65) with `decimals` decimals and a comma: `18,00`, `0,6500`. */
export function rate(percent: number, decimals = 2): string {
  if (!Number.isFinite(percent) || percent < 0) throw new Error(`sped: rate ${percent} is not a non-negative number`);
  return percent.toFixed(decimals).replace('.', ',');
}

/** One register: `|REG|f1|f2|...|`. */
export const line = (fields: (string | number)[]) => `|${fields.map(String).join('|')}|`;

/** The file's bytes: lines joined and ended by CR LF, in ISO-8859-1 (every field went through `text`). */
export function encode(lines: string[]): Buffer {
  const body = lines.map((l) => `${l}\r\n`).join('');
  for (const ch of body) if (ch.codePointAt(0)! > 0xff) throw new Error(`sped: ${JSON.stringify(ch)} is not ISO-8859-1`);
  return Buffer.from(body, 'latin1');
}

/**
 * The company every SPED file opens with (register 0000): its name, CNPJ (14 digits, check digits valid), UF
 * and state registration (empty when exempt). 400 `cnpj_required`, `cnpj_invalid`, `state_required` naming
 * the file (`file`: "The SPED ECD", "The EFD").
 */
export function spedCompany(tenant: TenantRow, file: string) {
  const cnpj = stripDocument(tenant.cnpj ?? '');
  if (!cnpj) throw new InvalidRequest(`${file} identifies the company by its CNPJ: set the restaurant's CNPJ first`, 'cnpj_required');
  if (!isValidCnpj(cnpj)) throw new InvalidRequest("The restaurant's CNPJ is not valid (check digits do not match): correct it first", 'cnpj_invalid');
  const uf = (tenant.state ?? '').trim().toUpperCase();
  if (!(UFS as readonly string[]).includes(uf)) throw new InvalidRequest(`${file} needs the restaurant's state (UF): set it first`, 'state_required');
  const ie = (tenant.inscricaoEstadual ?? '').replace(/[^0-9A-Za-z]/g, '').toUpperCase();
  // Exempt (ISENTO): no state registration to declare.
  return { name: tenant.name, cnpj, uf, ie: ie === 'ISENTO' ? '' : ie };
}

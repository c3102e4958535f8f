import { parsePixKey } from './pix-key.js';

/**
 * The BR Code "copia e cola" of a static PIX charge: EMV QRCPS-MPM as laid down by Bacen's
 * "Manual de Padrões para Iniciação do Pix". Every field is ID (2 digits), length (2 digits, decimal,
 * so at most 99) and value; the payload ends with field 63, a CRC16-CCITT-FALSE over everything before
 * its value, `6304` included.
 */

/** The GUI that marks a merchant account template as PIX. */
export const PIX_GUI = 'br.gov.bcb.pix';

export const MERCHANT_NAME_MAX = 25;
export const MERCHANT_CITY_MAX = 15;
export const TXID_MAX = 25;
/** EMV's limit for field 54, the amount (`9999999999.99`). */
const AMOUNT_MAX_CHARS = 13;
const FIELD_MAX = 99;
const TXID = new RegExp(`^[A-Za-z0-9]{1,${TXID_MAX}}$`);

/** An input that cannot be put into a BR Code, or a payload that is not a well-formed one. */
export class PixCodeError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'PixCodeError';
  }
}

export interface PixPayloadInput {
  /** A PIX key in any form `parsePixKey` accepts; it is written normalised. */
  key: string;
  /** A positive number of cents; omitted, the payer types the amount. */
  amountCents?: number;
  /** Upper-cased, without diacritics, cut to 25 characters. */
  merchantName: string;
  /** Upper-cased, without diacritics, cut to 15 characters. */
  merchantCity: string;
  /** 1 to 25 of [A-Za-z0-9]; default `***` (none). */
  txid?: string;
  /** A message shown to the payer; diacritics are dropped, and it must fit in field 26 with the key. */
  description?: string;
}

/** CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF) of the UTF-8 bytes of `s`, as 4 upper-case hex digits. */
export function crc16ccitt(s: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(s, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function tlv(id: string, value: string): string {
  if (value.length > FIELD_MAX) throw new PixCodeError(id, `${value.length} characters do not fit in a BR Code field (at most ${FIELD_MAX})`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/** Printable ASCII only: diacritics dropped (`São` → `Sao`, `nº` → `no`), anything else non-ASCII removed, spaces collapsed. */
function toAscii(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').replace(/[^\x20-\x7e]/g, '').replace(/\s+/g, ' ').trim();
}

/**
 * Name and city are only shown to the payer (the bank shows the key holder's registered name), so they are
 * cut to their maximum rather than refused: a restaurant with a long name must still get a QR code.
 */
function label(field: string, value: string, max: number): string {
  const text = toAscii(value).toUpperCase().slice(0, max).trimEnd();
  if (!text) throw new PixCodeError(field, 'must have at least one letter or digit');
  return text;
}

function formatAmount(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents <= 0) throw new PixCodeError('amountCents', 'must be a positive whole number of cents');
  const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  if (text.length > AMOUNT_MAX_CHARS) throw new PixCodeError('amountCents', `does not fit in ${AMOUNT_MAX_CHARS} characters`);
  return text;
}

/** The "copia e cola" text of a static PIX charge; throws `PixCodeError` for an input that cannot fit. */
export function buildPixPayload(input: PixPayloadInput): string {
  const pixKey = parsePixKey(input.key);
  if (!pixKey) throw new PixCodeError('key', 'is not a valid PIX key');
  const txid = input.txid ?? '***';
  if (txid !== '***' && !TXID.test(txid)) {
    throw new PixCodeError('txid', `must be 1 to ${TXID_MAX} letters and digits`);
  }
  const description = input.description === undefined ? '' : toAscii(input.description);

  let account = tlv('00', PIX_GUI) + tlv('01', pixKey.key);
  if (description) account += tlv('02', description);
  if (account.length > FIELD_MAX) throw new PixCodeError('description', `key and description together are too long for field 26 by ${account.length - FIELD_MAX} characters`);

  const payload = tlv('00', '01')
    + tlv('26', account)
    + tlv('52', '0000')
    + tlv('53', '986')
    + (input.amountCents === undefined ? '' : tlv('54', formatAmount(input.amountCents)))
    + tlv('58', 'BR')
    + tlv('59', label('merchantName', input.merchantName, MERCHANT_NAME_MAX))
    + tlv('60', label('merchantCity', input.merchantCity, MERCHANT_CITY_MAX))
    + tlv('62', tlv('05', txid))
    + '6304';
  return payload + crc16ccitt(payload);
}

/** What a BR Code says, read back. Top-level and template fields are kept raw as well. */
export interface ParsedPixPayload {
  /** Top-level fields by ID, values as written (templates undecoded). */
  fields: Record<string, string>;
  /** The subfields of the PIX merchant account template (GUI `br.gov.bcb.pix`, any case). */
  merchantAccount: Record<string, string>;
  /** Subfield 01, for a static code. */
  key?: string;
  /** Subfield 02. */
  description?: string;
  /** Subfield 25, the location of a dynamic code. */
  url?: string;
  amountCents?: number;
  merchantName: string;
  merchantCity: string;
  /** Subfield 05 of field 62; `***` when the code names no transaction. */
  txid?: string;
  crc: string;
}

/** Splits a TLV string into its fields; throws on a truncated field or a repeated ID. */
function readTlv(text: string, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < text.length) {
    const head = text.slice(at, at + 4);
    if (!/^\d{4}$/.test(head)) throw new PixCodeError(where, `no ID and length at position ${at}`);
    const id = head.slice(0, 2);
    const length = Number(head.slice(2));
    const value = text.slice(at + 4, at + 4 + length);
    if (value.length !== length) throw new PixCodeError(where, `field ${id} is cut short`);
    if (id in out) throw new PixCodeError(where, `field ${id} appears twice`);
    out[id] = value;
    at += 4 + length;
  }
  return out;
}

/**
 * Reads a BR Code back and checks its CRC; throws `PixCodeError` when it is malformed, has no PIX merchant
 * account, or its CRC does not match.
 */
export function parsePixPayload(payload: string): ParsedPixPayload {
  const text = payload.trim();
  const fields = readTlv(text, 'payload');
  if (fields['00'] !== '01') throw new PixCodeError('00', 'payload format indicator must be 01');
  if (!text.endsWith(`6304${fields['63'] ?? ''}`) || !/^[0-9A-Fa-f]{4}$/.test(fields['63'] ?? '')) {
    throw new PixCodeError('63', 'the payload must end with a 4-digit hex CRC');
  }
  const crc = fields['63'].toUpperCase();
  const expected = crc16ccitt(text.slice(0, -4));
  if (crc !== expected) throw new PixCodeError('63', `CRC is ${crc}, the payload's is ${expected}`);

  let merchantAccount: Record<string, string> | undefined;
  for (let id = 26; id <= 51 && !merchantAccount; id++) {
    const template = fields[String(id)];
    if (template === undefined) continue;
    const sub = readTlv(template, String(id));
    if (sub['00']?.toLowerCase() === PIX_GUI) merchantAccount = sub;
  }
  if (!merchantAccount) throw new PixCodeError('26', `no merchant account with GUI ${PIX_GUI}`);
  if (fields['59'] === undefined) throw new PixCodeError('59', 'merchant name is required');
  if (fields['60'] === undefined) throw new PixCodeError('60', 'merchant city is required');

  const additional = fields['62'] === undefined ? {} : readTlv(fields['62'], '62');
  return {
    fields,
    merchantAccount,
    key: merchantAccount['01'],
    description: merchantAccount['02'],
    url: merchantAccount['25'],
    amountCents: fields['54'] === undefined ? undefined : parseAmount(fields['54']),
    merchantName: fields['59'],
    merchantCity: fields['60'],
    txid: additional['05'],
    crc,
  };
}

function parseAmount(text: string): number {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) throw new PixCodeError('54', `amount ${JSON.stringify(text)} is not a decimal number`);
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

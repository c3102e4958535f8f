import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Invalid } from '../../platform/domain-errors.js';

/**
 * A supplier's NF-e (model 55) read from its XML with fast-xml-parser, with or without the `nfeProc`
 * wrapper. Everything that makes the document unfit for a stock entry is a 400 on the `file` field with
 * a code: unreadable XML, another document (an event, a request), an NFC-e, a bad access key, a
 * protocol for another key or not an authorisation, a registered cancellation, a non-normal purpose.
 * docs/decisions.md, "Purchasing: supplier invoice import (issue 13)".
 */

/** A decimal written in the XML ("13.0390200"): its digits and how many of them are decimals. */
export interface Decimal {
  digits: bigint;
  scale: number;
}

export interface NfeLine {
  /** `det/@nItem`. */
  line: number;
  /** `cProd`, the supplier's product code. */
  code: string;
  /** `cEAN`, else `cEANTrib`, when a code ("SEM GTIN" and empty are null). */
  ean: string | null;
  name: string;
  /** `uCom` as written. */
  unit: string;
  quantity: Decimal;
  unitPrice: Decimal;
  /** `uTrib` / `qTrib`, the tax unit: tells the size of a box when `uCom` is one. */
  taxUnit: string | null;
  taxQuantity: Decimal | null;
  /** `vProd` in cents. */
  totalCents: number;
}

export interface Nfe {
  key: string;
  number: string;
  series: string;
  issuedAt: string | null;
  /** 1 production, 2 homologation (test). */
  environment: string;
  emitter: { document: string; name: string };
  /** `dest/CNPJ`; null when the recipient is a person or absent. */
  recipientCnpj: string | null;
  /** `total/ICMSTot/vNF` and `vProd` in cents. */
  totalCents: number;
  productsCents: number;
  lines: NfeLine[];
}

type Node = Record<string, unknown>;

const refuse = (code: string, message: string): never => {
  throw new Invalid([{ field: 'file', message }], { code, summary: message, in: 'body' });
};

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  // Codes keep their leading zeros: no value is turned into a number.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => name === 'det' || name === 'retEvento' || name === 'procEventoNFe',
  // Entity expansion stays bounded (fast-xml-parser's limits), no external entity is ever fetched.
  processEntities: { enabled: true, maxEntityCount: 20, maxExpandedLength: 10_000 },
});

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const child = (n: unknown, name: string): Node | undefined => (isNode(n) && isNode(n[name]) ? n[name] : undefined);

/** The text of an element (a plain value, or `#text` of an element with attributes); null when absent or empty. */
function text(n: unknown, name: string): string | null {
  if (!isNode(n)) return null;
  const v = n[name];
  const s = typeof v === 'string' ? v : isNode(v) && typeof v['#text'] === 'string' ? v['#text'] : null;
  return s === null || s.trim() === '' ? null : s.trim();
}

const attr = (n: unknown, name: string): string | null => (isNode(n) && typeof n[`@_${name}`] === 'string' ? (n[`@_${name}`] as string) : null);

/** First value of `name` anywhere under `n` (depth first), for naming a document that is not an NF-e. */
function findText(n: unknown, name: string, depth = 0): string | null {
  if (depth > 8) return null;
  if (Array.isArray(n)) {
    for (const x of n) {
      const found = findText(x, name, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (!isNode(n)) return null;
  const own = text(n, name);
  if (own) return own;
  for (const [k, v] of Object.entries(n)) {
    if (k.startsWith('@_') || k === '#text') continue;
    const found = findText(v, name, depth + 1);
    if (found) return found;
  }
  return null;
}

export function decimal(value: string | null, field: string, line?: number): Decimal {
  if (value === null || !/^\d{1,15}(\.\d{1,10})?$/.test(value)) {
    refuse('invalid_nfe', `${line ? `det ${line} ` : ''}${field} is not a decimal number: ${value ?? '(missing)'}`);
  }
  const [int, frac = ''] = value!.split('.');
  return { digits: BigInt(int + frac), scale: frac.length };
}

/** `num / den` rounded half up, for non-negative bigints. */
export const divRound = (num: bigint, den: bigint) => Number((2n * num + den) / (2n * den));

/** A decimal amount of reais in cents, rounded half up. */
export const centsOf = (d: Decimal) => divRound(d.digits * 100n, 10n ** BigInt(d.scale));

/** The access key's check digit (mod 11, weights 2 to 9 from the right; each character worth its code minus 48, as for the alphanumeric CNPJ). */
export function keyCheckDigit(key43: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = key43.length - 1; i >= 0; i--) {
    sum += (key43.charCodeAt(i) - 48) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

/** 44 characters: UF and month (6 digits), the emitter's CNPJ (12 alphanumeric + 2 digits), 23 digits, the check digit. */
export const validKey = (key: string) => /^\d{6}[0-9A-Z]{12}\d{26}$/.test(key) && keyCheckDigit(key.slice(0, 43)) === Number(key[43]);

const EVENTS: Record<string, string> = {
  '110110': 'a correction letter (CC-e)',
  '110111': 'a cancellation',
  '110112': 'a cancellation by substitution',
  '210200': 'a recipient confirmation',
  '210210': 'a recipient acknowledgement',
  '210220': 'a recipient unawareness',
  '210240': 'a recipient "operation not performed"',
};

const CANCELLATIONS = new Set(['110111', '110112']);
const AUTHORISED = new Set(['100', '150']);
const PURPOSES: Record<string, string> = { '2': 'complementary', '3': 'adjustment', '4': 'return', '5': 'credit note', '6': 'debit note' };

/** The NF-e of an upload, or a 400 saying why it cannot be imported. */
export function parseNfe(xml: string): Nfe {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) refuse('malformed_xml', `The file is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    return refuse('malformed_xml', `The file could not be read as XML: ${(err as Error).message}`);
  }
  const root = Object.keys(doc).find((k) => !k.startsWith('?'));
  const proc = child(doc, 'nfeProc');
  const nfe = proc ? child(proc, 'NFe') : child(doc, 'NFe');
  if (!nfe) {
    const event = findText(doc, 'tpEvento');
    if (event) refuse('not_nfe', `The file is ${EVENTS[event] ?? `an event (tpEvento ${event})`} of an NF-e, not an invoice: nothing to import`);
    return refuse('not_nfe', `The file is not an NF-e: its root element is <${root ?? '?'}>, expected <nfeProc> or <NFe>`);
  }
  const inf = child(nfe, 'infNFe');
  const ide = child(inf, 'ide');
  if (!inf || !ide) return refuse('not_nfe', 'The file is not an NF-e: <NFe> has no <infNFe> with <ide>');

  const model = text(ide, 'mod');
  if (model === '65') refuse('nfce', 'The file is an NFC-e (model 65), a receipt to a final consumer, not a supplier invoice (NF-e model 55)');
  if (model !== '55') refuse('not_nfe', `The file is not an NF-e model 55 (ide/mod is ${model ?? 'missing'})`);

  // The key: infNFe/@Id without "NFe", or the protocol's chNFe; both present must agree.
  const id = attr(inf, 'Id');
  const infProt = child(child(proc, 'protNFe'), 'infProt');
  const protKey = text(infProt, 'chNFe');
  const ownKey = id === null ? null : id.startsWith('NFe') ? id.slice(3) : id;
  const key = ownKey ?? protKey;
  if (!key) return refuse('invalid_key', 'The NF-e has no access key (infNFe/@Id nor protNFe/infProt/chNFe)');
  if (!validKey(key)) refuse('invalid_key', `The access key ${key} is not 44 characters with a valid check digit (mod 11)`);
  if (ownKey && protKey && ownKey !== protKey) {
    refuse('key_mismatch', `The authorisation protocol is for the key ${protKey}, not for this NF-e's key ${ownKey}`);
  }
  if (infProt) {
    const status = text(infProt, 'cStat');
    if (!status || !AUTHORISED.has(status)) {
      refuse('not_authorised', `The NF-e ${key} is not authorised: protocol status ${status ?? '(none)'} ${text(infProt, 'xMotivo') ?? ''}`.trim());
    }
  }
  // A registered cancellation of this key, carried in the same file (retEvento / procEventoNFe inside nfeProc).
  const events = [...((proc?.retEvento as unknown[]) ?? []), ...((proc?.procEventoNFe as unknown[]) ?? [])];
  for (const ev of events) {
    const info = child(ev, 'infEvento') ?? child(child(ev, 'retEvento'), 'infEvento');
    const type = text(info, 'tpEvento') ?? findText(ev, 'tpEvento');
    const evKey = text(info, 'chNFe') ?? findText(ev, 'chNFe');
    const status = text(info, 'cStat');
    if (type && CANCELLATIONS.has(type) && evKey === key && (status === '135' || status === '155' || status === null)) {
      refuse('cancelled', `The NF-e ${key} was cancelled (event ${type} registered${text(info, 'nProt') ? `, protocol ${text(info, 'nProt')}` : ''}): nothing to import`);
    }
  }

  const purpose = text(ide, 'finNFe') ?? '1';
  if (purpose !== '1') refuse('not_purchase', `The NF-e is a ${PURPOSES[purpose] ?? `purpose ${purpose}`} invoice (finNFe ${purpose}), not a sale of goods`);
  if (text(ide, 'tpNF') === '0') refuse('not_purchase', 'The NF-e is an entry invoice of its emitter (tpNF 0), not a sale to the recipient');

  const emit = child(inf, 'emit');
  const emitterDoc = text(emit, 'CNPJ') ?? text(emit, 'CPF');
  if (!emitterDoc) return refuse('invalid_nfe', 'The NF-e has no emitter CNPJ or CPF (emit)');
  const dest = child(inf, 'dest');

  const dets = (inf.det as unknown[] | undefined) ?? [];
  if (dets.length === 0) refuse('invalid_nfe', 'The NF-e has no item (det)');
  const lines = dets.map((det, i): NfeLine => {
    const line = Number(attr(det, 'nItem') ?? i + 1);
    const prod = child(det, 'prod');
    const code = text(prod, 'cProd');
    const name = text(prod, 'xProd');
    const unit = text(prod, 'uCom');
    if (!code || !name || !unit) return refuse('invalid_nfe', `det ${line} lacks cProd, xProd or uCom`);
    const gtin = [text(prod, 'cEAN'), text(prod, 'cEANTrib')].find((v) => v !== null && v.toUpperCase() !== 'SEM GTIN') ?? null;
    const taxQuantity = text(prod, 'qTrib');
    return {
      line,
      code,
      ean: gtin,
      name,
      unit,
      quantity: decimal(text(prod, 'qCom'), 'qCom', line),
      unitPrice: decimal(text(prod, 'vUnCom'), 'vUnCom', line),
      taxUnit: text(prod, 'uTrib'),
      taxQuantity: taxQuantity === null ? null : decimal(taxQuantity, 'qTrib', line),
      totalCents: centsOf(decimal(text(prod, 'vProd'), 'vProd', line)),
    };
  });
  const totals = child(child(inf, 'total'), 'ICMSTot');
  return {
    key,
    number: text(ide, 'nNF') ?? '',
    series: text(ide, 'serie') ?? '',
    issuedAt: text(ide, 'dhEmi') ?? text(ide, 'dEmi'),
    environment: text(ide, 'tpAmb') ?? '1',
    emitter: { document: emitterDoc.toUpperCase(), name: text(emit, 'xNome') ?? emitterDoc },
    recipientCnpj: text(dest, 'CNPJ')?.toUpperCase() ?? null,
    totalCents: centsOf(decimal(text(totals, 'vNF'), 'total/ICMSTot/vNF')),
    productsCents: centsOf(decimal(text(totals, 'vProd'), 'total/ICMSTot/vProd')),
    lines,
  };
}

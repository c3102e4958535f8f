/**
 * What the EFD writers are made from: the company, and the period's fiscal documents as they were sent
 * (`fiscal_documents.items` / `.taxes`, whose agreed shape is `EfdItem` / `EfdTaxes`), read leniently:
 * a missing or malformed value takes the default named below, so an old row never breaks a file.
 */

export interface EfdCompany {
  name: string;
  /** 14 digits. */
  cnpj: string;
  uf: string;
  /** Digits and letters; '' when exempt or unknown. */
  ie: string;
  cep: string;
  address: string;
  addressNumber: string;
  district: string;
  email: string;
  /** The tenant's `regimeTributario` as typed (`lucro_real`, `lucro_presumido`, `simples`...). */
  regime: string;
}

/** One line of a document, as sent (`fiscal_documents.items[]`). */
export interface EfdItem {
  code: string;
  description: string;
  ncm: string;
  cfop: string;
  quantity: number;
  unit: string;
  unitCents: number;
  totalCents: number;
  /** CST ICMS with its origin digit (`000`, `060`...); a CSOSN is mapped (see `cstIcms`). */
  taxCode: string;
}

/** The document's taxes, as sent (`fiscal_documents.taxes`); `icmsRate` in percent (18 = 18%). */
export interface EfdTaxes {
  icmsBaseCents: number;
  icmsCents: number;
  icmsRate: number;
  pisCents: number;
  cofinsCents: number;
}

export interface EfdDocument {
  model: 55 | 65;
  series: number;
  number: number;
  key: string;
  status: 'authorized' | 'cancelled';
  /** Emission date in the tenant's time zone, YYYY-MM-DD. */
  date: string;
  totalCents: number;
  customerCpf: string | null;
  items: EfdItem[];
  taxes: EfdTaxes;
}

/** A range of numbers voided at the authority in the period ("inutilização"). */
export interface EfdVoid {
  model: number;
  series: number;
  numberFrom: number;
  numberTo: number;
}

export interface EfdInput {
  company: EfdCompany;
  start: string;
  end: string;
  documents: EfdDocument[];
  voids: EfdVoid[];
}

const int = (v: unknown, fallback = 0) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.round(v)) : fallback);
const num = (v: unknown, fallback = 0) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback);
const str = (v: unknown, fallback = '') => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : fallback);

/** The agreed shape out of a jsonb row (defaults: CFOP 5102, unit UN, quantity 1, total = quantity x unit price). */
export function itemOf(raw: Record<string, unknown>, index: number): EfdItem {
  const quantity = num(raw.quantity, 1);
  const unitCents = int(raw.unitCents);
  return {
    code: str(raw.code, `ITEM${index + 1}`),
    description: str(raw.description, str(raw.code, `Item ${index + 1}`)),
    ncm: str(raw.ncm).replace(/\D/g, ''),
    cfop: str(raw.cfop, '5102').replace(/\D/g, '') || '5102',
    quantity,
    unit: str(raw.unit, 'UN').toUpperCase().slice(0, 6),
    unitCents,
    totalCents: typeof raw.totalCents === 'number' ? int(raw.totalCents) : Math.round(quantity * unitCents),
    taxCode: str(raw.taxCode).replace(/\D/g, ''),
  };
}

export function taxesOf(raw: Record<string, unknown>): EfdTaxes {
  return {
    icmsBaseCents: int(raw.icmsBaseCents),
    icmsCents: int(raw.icmsCents),
    icmsRate: num(raw.icmsRate),
    pisCents: int(raw.pisCents),
    cofinsCents: int(raw.cofinsCents),
  };
}

const CST = new Set(['00', '10', '20', '30', '40', '41', '50', '51', '60', '70', '90']);
/** CSTs whose operation has an own ICMS debit (base and rate in C190). */
export const TAXED_CST = new Set(['00', '10', '20', '51', '70', '90']);

/**
 * The 3-digit CST ICMS (table 4.3.1: origin + CST) of an item: `00` -> `000`, `060` stays; a Simples Nacional
 * CSOSN (the tenant's regime is Simples Nacional, or a code that is no CST) has no place in the table:
 * 500 (ICMS charged before by ST) -> `060`, any other -> `090`. Missing:
 * `000` when the document carries ICMS, else `041` (not taxed).
 */
export function cstIcms(taxCode: string, documentHasIcms: boolean, simplesNacional = false): string {
  if (simplesNacional && taxCode.length >= 3) return taxCode.endsWith('500') ? '060' : '090';
  if (taxCode.length === 2 && CST.has(taxCode)) return `0${taxCode}`;
  if (taxCode.length === 3 && /^[0-8]/.test(taxCode) && CST.has(taxCode.slice(1))) return taxCode;
  if (taxCode.length === 3 || taxCode.length === 4) return taxCode.endsWith('500') ? '060' : '090';
  return documentHasIcms ? '000' : '041';
}

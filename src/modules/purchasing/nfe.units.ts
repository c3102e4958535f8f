import type { NfeLine } from './nfe.parser.js';

/**
 * The commercial unit of an invoice line (`uCom`) in the inventory's terms: how much of a base unit
 * (kg, g, l, ml or un) one invoice unit holds, in thousandths. A box (CX, FD, PCT...) holds a number of
 * units written after it ("CX12"), else told by the tax unit (`qTrib` `uTrib` over `qCom`, "2 CX" taxed
 * as "24 UN" is 12 UN a box), else unknown (null). docs/decisions.md, "Purchasing: supplier invoice import".
 */

export type BaseUnit = 'kg' | 'g' | 'l' | 'ml' | 'un';

export interface Measure {
  base: BaseUnit;
  /** Thousandths of `base` in one invoice unit. */
  perMilli: number;
}

export interface LineMeasure {
  /** Null: a box of unknown size. */
  measure: Measure | null;
  box: boolean;
  /** The unit was not recognised and is taken as a count (un). */
  assumed: boolean;
}

const BASES: Record<string, BaseUnit> = {
  KG: 'kg', KGS: 'kg', KILO: 'kg', QUILO: 'kg',
  G: 'g', GR: 'g', GRS: 'g', GRAMA: 'g', GRAMAS: 'g',
  L: 'l', LT: 'l', LTS: 'l', LITRO: 'l', LITROS: 'l',
  ML: 'ml',
  UN: 'un', UND: 'un', UNID: 'un', UNIDADE: 'un', U: 'un', PC: 'un', PCA: 'un', PECA: 'un', RL: 'un', ROLO: 'un',
  KT: 'un', KIT: 'un', GF: 'un', GARRAFA: 'un', LATA: 'un', LA: 'un', BD: 'un', BALDE: 'un', POTE: 'un', BANDEJA: 'un',
};

/** Units that hold several of another: a box of n (n written after the unit or known from the tax unit). */
const BOXES = new Set(['CX', 'CXA', 'CAIXA', 'FD', 'FARDO', 'PCT', 'PT', 'PACOTE', 'DP', 'DISPLAY', 'EMB', 'SC', 'SACO', 'BAG']);
/** Boxes whose size is fixed. */
const FIXED: Record<string, number> = { DZ: 12, DUZIA: 12 };

/** "CX12" -> CX and 12; "Und" -> UND; "KG" -> KG. */
function split(unit: string): { name: string; count: number | null } {
  const u = unit.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase().replace(/[\s.]/g, '');
  const m = /^([A-Z]+)(?:[X/-]?(\d{1,6}))?$/.exec(u);
  if (!m) return { name: u, count: null };
  return { name: m[1], count: m[2] ? Number(m[2]) : null };
}

/** A known unit's measure, without the tax unit. */
function plain(unit: string): LineMeasure | null {
  const { name, count } = split(unit);
  const base = BASES[name];
  if (base) return { measure: { base, perMilli: (count && count > 0 ? count : 1) * 1000 }, box: false, assumed: false };
  if (FIXED[name]) return { measure: { base: 'un', perMilli: FIXED[name] * 1000 }, box: true, assumed: false };
  if (BOXES.has(name)) return { measure: count && count > 0 ? { base: 'un', perMilli: count * 1000 } : null, box: true, assumed: false };
  return null;
}

/** Thousandths of the tax unit's base in one commercial unit, from qTrib / qCom; null when not told. */
function fromTaxUnit(line: NfeLine): Measure | null {
  if (!line.taxUnit || !line.taxQuantity || line.quantity.digits === 0n) return null;
  const tax = plain(line.taxUnit);
  if (!tax?.measure || tax.box) return null;
  // qTrib x per / qCom, in thousandths, half up.
  const num = line.taxQuantity.digits * BigInt(tax.measure.perMilli) * 10n ** BigInt(line.quantity.scale);
  const den = line.quantity.digits * 10n ** BigInt(line.taxQuantity.scale);
  const perMilli = Number((2n * num + den) / (2n * den));
  return perMilli > 0 ? { base: tax.measure.base, perMilli } : null;
}

export function measureOf(line: NfeLine): LineMeasure {
  const known = plain(line.unit);
  if (known?.measure) return known;
  if (known?.box) return { measure: fromTaxUnit(line), box: true, assumed: false };
  // An unknown unit: the tax unit when it says more, else one counted unit.
  const taxed = fromTaxUnit(line);
  return taxed ? { measure: taxed, box: false, assumed: false } : { measure: { base: 'un', perMilli: 1000 }, box: false, assumed: true };
}

import type { IndirectCostType, IndirectUnitType } from '../../db/schema/bom.js';
import type { QuantityUnit } from '../../db/schema/inventory.js';

/**
 * The arithmetic of a cost sheet (docs: "Cost sheets (BOM)"). Exact in integers: a recipe line is
 * quantity (thousandths of its unit) x unit factor (thousandths of the stock unit) x cost (cents per stock
 * unit) = micro-cents; a percentage (millionths) of that is pico-cents. Nothing is rounded until the
 * totals: direct and indirect each rounded half up once, the total their sum.
 */

/** A recipe line as the inventory answers it. */
export interface CostLineInput {
  inventoryItemId: string;
  inventoryItemName: string;
  quantityMilli: number;
  unit: QuantityUnit;
  costCents: number;
  unitFactorMilli: number | null;
}

/** An indirect cost as stored: `value` cents (fixed) or millionths of the direct cost (percentage). */
export interface IndirectInput {
  id: string;
  type: IndirectCostType;
  label: string;
  unitType: IndirectUnitType;
  value: number;
}

const PICO_PER_CENT = 1_000_000_000_000n;
const MICRO_PER_CENT = 1_000_000n;

/** `num / den` rounded half up (both >= 0). */
const divHalfUp = (num: bigint, den: bigint) => (num * 2n + den) / (den * 2n);
/** `num / den` rounded up (both >= 0). */
const divUp = (num: bigint, den: bigint) => (num + den - 1n) / den;
/** A bigint of `unit`s per cent as a number of cents with at most 6 decimals (rounded half up below that). */
const toCents = (value: bigint, unitsPerCent: bigint) => {
  const micro = divHalfUp(value * MICRO_PER_CENT, unitsPerCent);
  return Number(micro) / 1e6;
};

/** The API's `valuePerUnit` of a stored indirect cost. */
export const valuePerUnitOf = (c: Pick<IndirectInput, 'unitType' | 'value'>) => (c.unitType === 'fixed' ? c.value : c.value / 1e6);

/** A recipe line's exact cost in micro-cents (0 when its unit no longer converts). */
export const lineMicro = (l: Pick<CostLineInput, 'quantityMilli' | 'unitFactorMilli' | 'costCents'>) =>
  l.unitFactorMilli === null ? 0n : BigInt(l.quantityMilli) * BigInt(l.unitFactorMilli) * BigInt(l.costCents);

export const ingredientLine = (l: CostLineInput) => ({
  inventoryItemId: l.inventoryItemId,
  inventoryItemName: l.inventoryItemName,
  quantityPerUnit: l.quantityMilli / 1000,
  unit: l.unit,
  currentCostPrice: l.costCents,
  lineCost: toCents(lineMicro(l), MICRO_PER_CENT),
});

export interface CostSheet {
  directCents: number;
  indirectCents: number;
  totalCents: number;
  lines: ReturnType<typeof ingredientLine>[];
  indirect: { _id: string; type: IndirectCostType; label: string; valuePerUnit: number; unitType: IndirectUnitType; amount: number }[];
}

/** Direct, indirect and total cost per unit of a dish, in cents. */
export function costSheet(lines: CostLineInput[], indirect: IndirectInput[]): CostSheet {
  const directMicro = lines.reduce((sum, l) => sum + lineMicro(l), 0n);
  const directPico = directMicro * MICRO_PER_CENT;
  let indirectPico = 0n;
  const indirectLines = indirect.map((c) => {
    const pico = c.unitType === 'fixed' ? BigInt(c.value) * PICO_PER_CENT : directMicro * BigInt(c.value);
    indirectPico += pico;
    return { _id: c.id, type: c.type, label: c.label, valuePerUnit: valuePerUnitOf(c), unitType: c.unitType, amount: toCents(pico, PICO_PER_CENT) };
  });
  const directCents = Number(divHalfUp(directPico, PICO_PER_CENT));
  const indirectCents = Number(divHalfUp(indirectPico, PICO_PER_CENT));
  return { directCents, indirectCents, totalCents: directCents + indirectCents, lines: lines.map(ingredientLine), indirect: indirectLines };
}

/** The price that leaves `marginMillionths` of it over `totalCents`: total / (1 - margin), rounded up to the cent. */
export const suggestedPrice = (totalCents: number, marginMillionths: number) =>
  Number(divUp(BigInt(totalCents) * 1_000_000n, 1_000_000n - BigInt(marginMillionths)));

/** (price - cost) / price in percent, 2 decimals (half away from zero); null at price 0. */
export function marginPercent(priceCents: number, costCents: number): number | null {
  if (priceCents <= 0) return null;
  const basisPoints = Number(divHalfUpSigned(BigInt(priceCents - costCents) * 10_000n, BigInt(priceCents)));
  return basisPoints / 100;
}

function divHalfUpSigned(num: bigint, den: bigint) {
  return num < 0n ? -divHalfUp(-num, den) : divHalfUp(num, den);
}

/** A number with at most 6 decimals as an integer of millionths, or null when it has more. */
export function millionths(value: number): number | null {
  const m = Math.round(value * 1e6);
  return Math.abs(value * 1e6 - m) < 1e-6 ? m : null;
}

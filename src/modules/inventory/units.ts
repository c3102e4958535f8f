import type { QuantityUnit, StockUnit } from '../../db/schema/inventory.js';

/**
 * Units of stock. An item is counted in `kg`, `l` or `un`; a recipe or a purchase may say the same
 * quantity in a smaller unit of the same kind (`g` for kg, `ml` for l) or in boxes (`cx`, of the item's
 * `packSize` units). Quantities are integer thousandths ("milli") throughout.
 */

/** How many of the stock unit one `unit` is, in thousandths (g: 1 = 0.001 kg), or null when the kinds differ. */
function factorMilli(unit: QuantityUnit, stock: StockUnit, packSizeMilli: number | null): number | null {
  if (unit === stock) return 1000;
  if (unit === 'g' && stock === 'kg') return 1;
  if (unit === 'ml' && stock === 'l') return 1;
  if (unit === 'cx') return packSizeMilli;
  return null;
}

/** True when a quantity in `unit` can be counted in `stock` (for an item with `packSizeMilli` per box). */
export const convertible = (unit: QuantityUnit, stock: StockUnit, packSizeMilli: number | null) => factorMilli(unit, stock, packSizeMilli) !== null;

/**
 * `valueMilli` thousandths of `unit` in thousandths of the stock unit, rounded half up to the thousandth
 * (150 g -> 0.150 kg = 150; 0.4 g -> 0.0004 kg = 0). Throws when the kinds differ (check `convertible`).
 */
export function toStockMilli(valueMilli: number, unit: QuantityUnit, stock: StockUnit, packSizeMilli: number | null): number {
  const factor = factorMilli(unit, stock, packSizeMilli);
  if (factor === null) throw new Error(`${unit} cannot be counted in ${stock}`);
  // valueMilli/1000 units x factor/1000 stock units each = valueMilli x factor / 10^6 stock units = .../1000 milli.
  return Number((BigInt(valueMilli) * BigInt(factor) * 2n + 1000n) / 2000n);
}

/** A cost in cents per stock unit times a quantity in thousandths: cents, rounded half up. */
export const costOf = (quantityMilli: number, costCents: number) => Number((BigInt(quantityMilli) * BigInt(costCents) * 2n + 1000n) / 2000n);

/** True for an EAN-8, UPC-A (12), EAN-13 or GTIN-14 code whose last digit is its check digit (GS1 mod 10). */
export function validEan(code: string): boolean {
  if (!/^(\d{8}|\d{12,14})$/.test(code)) return false;
  const digits = [...code].map(Number);
  const check = digits.pop()!;
  // From the right (next to the check digit), weights 3, 1, 3, 1...
  const sum = digits.reverse().reduce((acc, d, i) => acc + d * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

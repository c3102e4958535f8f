/**
 * Quantities (kilograms, litres, units) are exact decimals with 3 places: kept as integer thousandths
 * ("milli") wherever they are added, compared or stored, and turned back into numbers only for display.
 */

/** `quantity` in thousandths, as an integer (1.5 -> 1500). */
export const milli = (quantity: number) => Math.round(quantity * 1000);
/** Thousandths back to a number with at most 3 decimals (1500 -> 1.5). */
export const fromMilli = (value: number) => value / 1000;
/** Adds quantities without floating-point residue (0.1 + 0.2 kg is 0.3 kg). */
export const addQuantities = (a: number, b: number) => (milli(a) + milli(b)) / 1000;
/** True when `quantity` has at most 3 decimals. */
export const hasGramPrecision = (quantity: number) => Math.abs(quantity * 1000 - milli(quantity)) < 1e-6;

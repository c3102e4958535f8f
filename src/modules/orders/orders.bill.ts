import type { BillRounding, Discount, OrderLine, OrderRow } from '../../db/schema/orders.js';
import { milli } from '../../platform/quantity.js';

/**
 * The bill of an order, in integer cents: line amounts (price x quantity, kilograms to 3 decimals),
 * line discounts, the order discount, the service charge on what is left, and the cover charge.
 * Every rounding is half up to the cent, and what it moved is recorded in `rounding`.
 */

// Quantities are kept to 3 decimals (grams): in thousandths, as an integer (platform/quantity.ts).
export { addQuantities, hasGramPrecision, milli } from '../../platform/quantity.js';

/** `num / den` rounded half up, both non-negative integers; and what the rounding moved, in units. */
function divRound(num: number, den: number): { value: number; moved: number } {
  const value = Number((BigInt(num) * 2n + BigInt(den)) / (BigInt(den) * 2n));
  return { value, moved: value - num / den };
}

/** Cents of a discount on `base` cents: a percentage rounded half up, or an amount, never above `base`. */
function discountCents(d: Discount | undefined | null, base: number): { value: number; moved: number } {
  if (!d || base <= 0) return { value: 0, moved: 0 };
  if (d.kind === 'amount') return { value: Math.min(d.value, base), moved: 0 };
  const r = divRound(base * Math.round(d.value * 100), 10_000);
  return r.value > base ? { value: base, moved: 0 } : r;
}

/** Units still billed on a line (voided units come off). */
export const billedQuantity = (l: OrderLine) => (milli(l.quantity) - milli(l.voidedQuantity ?? 0)) / 1000;

export interface BillInput {
  items: OrderLine[];
  orderDiscount: Discount | null;
  serviceChargeBp: number;
  serviceChargeRemoved: boolean;
  covers: number;
  coverChargeUnit: number;
}

export type BillFields = Pick<
  OrderRow,
  'items' | 'itemsTotal' | 'discountTotal' | 'serviceCharge' | 'coverCharge' | 'total' | 'rounding'
>;

const keep4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** Computes every amount of a bill; the lines come back with `amount` and `discountAmount` written. */
export function computeBill(input: BillInput): BillFields {
  const rounding: BillRounding = { lines: 0, discounts: 0, serviceCharge: 0 };
  let itemsTotal = 0;
  let lineDiscounts = 0;
  const items = input.items.map((l) => {
    const gross = divRound(l.price * milli(billedQuantity(l)), 1000);
    const off = discountCents(l.discount, gross.value);
    rounding.lines += gross.moved;
    rounding.discounts -= off.moved;
    itemsTotal += gross.value;
    lineDiscounts += off.value;
    return { ...l, amount: gross.value, ...(l.discount ? { discountAmount: off.value } : { discountAmount: undefined }) };
  });
  for (const l of items) if (l.discountAmount === undefined) delete l.discountAmount;
  const order = discountCents(input.orderDiscount, itemsTotal - lineDiscounts);
  rounding.discounts -= order.moved;
  const discountTotal = lineDiscounts + order.value;
  const base = itemsTotal - discountTotal;
  const service = input.serviceChargeRemoved || input.serviceChargeBp <= 0 ? { value: 0, moved: 0 } : divRound(base * input.serviceChargeBp, 10_000);
  rounding.serviceCharge = service.moved;
  const coverCharge = input.covers * input.coverChargeUnit;
  return {
    items,
    itemsTotal,
    discountTotal,
    serviceCharge: service.value,
    coverCharge,
    total: base + service.value + coverCharge,
    rounding: { lines: keep4(rounding.lines), discounts: keep4(rounding.discounts), serviceCharge: keep4(rounding.serviceCharge) },
  };
}

/** The bill of a row, recomputed (after its lines or settings changed). */
export const billOf = (o: Pick<OrderRow, 'orderDiscount' | 'serviceChargeBp' | 'serviceChargeRemoved' | 'covers' | 'coverChargeUnit'>, items: OrderLine[]) =>
  computeBill({
    items,
    orderDiscount: o.orderDiscount,
    serviceChargeBp: o.serviceChargeBp,
    serviceChargeRemoved: o.serviceChargeRemoved,
    covers: o.covers,
    coverChargeUnit: o.coverChargeUnit,
  });

/**
 * Shares `total` among `weights` in proportion, to the cent, adding up exactly (largest remainder; ties
 * to the first). All-zero weights share equally.
 */
export function allocate(total: number, weights: number[]): number[] {
  if (weights.length === 0) return [];
  const w = weights.every((x) => x <= 0) ? weights.map(() => 1) : weights.map((x) => Math.max(0, x));
  const sum = BigInt(w.reduce((a, b) => a + b, 0));
  const exact = w.map((x) => BigInt(total) * BigInt(x));
  const shares = exact.map((e) => Number(e / sum));
  let left = total - shares.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, rem: e % sum })).sort((a, b) => (a.rem === b.rem ? a.i - b.i : a.rem > b.rem ? -1 : 1));
  for (const { i } of order) {
    if (left <= 0) break;
    shares[i] += 1;
    left -= 1;
  }
  return shares;
}

/** A discount staff may give alone: at most `limitBp` basis points of what it discounts. */
export function withinLimit(d: Pick<Discount, 'kind' | 'value'>, base: number, limitBp: number): boolean {
  if (d.kind === 'percent') return Math.round(d.value * 100) <= limitBp;
  return base > 0 ? d.value * 10_000 <= limitBp * base : d.value === 0;
}

/** One part of a split bill: its lines and its share of every amount, fixed when the bill is split. */
export type PartBill = Pick<OrderRow, 'items' | 'itemsTotal' | 'discountTotal' | 'serviceCharge' | 'coverCharge' | 'total'>;

type ParentBill = Pick<OrderRow, 'items' | 'discountTotal' | 'serviceCharge' | 'coverCharge' | 'total' | 'orderNumber'>;

/**
 * N equal parts: totals that differ by at most a cent, and the discount, service charge and cover
 * charge each shared out so that every amount of the parts adds up to the parent's exactly.
 */
export function splitEqually(parent: ParentBill & Pick<OrderRow, 'itemsTotal'>, n: number): PartBill[] {
  const weights = Array.from({ length: n }, () => 1);
  const totals = allocate(parent.total, weights);
  const service = allocate(parent.serviceCharge, weights);
  const cover = allocate(parent.coverCharge, weights);
  const discount = allocate(parent.discountTotal, weights);
  return totals.map((total, i) => {
    const itemsTotal = total - service[i] - cover[i] + discount[i];
    const name = `Parte ${i + 1}/${n} do pedido ${parent.orderNumber}`;
    return {
      items: [{ menuItem: null, name, price: itemsTotal, quantity: 1, unit: 'un', amount: itemsTotal }],
      itemsTotal,
      discountTotal: discount[i],
      serviceCharge: service[i],
      coverCharge: cover[i],
      total,
    };
  });
}

/**
 * Parts by lines: `taken[p][l]` is the quantity (thousandths) part p takes of line l. Each line's
 * amount and discount follow its units; the order discount and service charge are shared in proportion
 * to what each part consumed, the cover charge equally; every amount adds up to the parent's exactly.
 */
export function splitByLines(parent: ParentBill, taken: number[][]): PartBill[] {
  const parts = taken.map(() => ({ items: [] as OrderLine[], gross: 0, lineDiscount: 0 }));
  parent.items.forEach((line, l) => {
    const weights = taken.map((t) => t[l] ?? 0);
    const amounts = allocate(line.amount ?? 0, weights);
    const discounts = allocate(line.discountAmount ?? 0, weights);
    weights.forEach((q, p) => {
      if (q <= 0) return;
      const { voidedQuantity: _voided, ...rest } = line;
      parts[p].items.push({ ...rest, quantity: q / 1000, amount: amounts[p], ...(line.discount ? { discountAmount: discounts[p] } : {}) });
      parts[p].gross += amounts[p];
      parts[p].lineDiscount += discounts[p];
    });
  });
  const lineDiscounts = parent.items.reduce((s, l) => s + (l.discountAmount ?? 0), 0);
  const orderDiscount = allocate(parent.discountTotal - lineDiscounts, parts.map((p) => p.gross - p.lineDiscount));
  const service = allocate(parent.serviceCharge, parts.map((p, i) => p.gross - p.lineDiscount - orderDiscount[i]));
  const cover = allocate(parent.coverCharge, parts.map(() => 1));
  return parts.map((p, i) => {
    const discountTotal = p.lineDiscount + orderDiscount[i];
    return {
      items: p.items,
      itemsTotal: p.gross,
      discountTotal,
      serviceCharge: service[i],
      coverCharge: cover[i],
      total: p.gross - discountTotal + service[i] + cover[i],
    };
  });
}

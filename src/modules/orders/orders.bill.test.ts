import { describe, expect, it } from 'vitest';
import type { Discount, OrderLine } from '../../db/schema/orders.js';
import { allocate, computeBill, splitByLines, splitEqually, withinLimit, type BillInput } from './orders.bill.js';

/** The bill arithmetic: integer cents, half-up rounding recorded, splits that add up exactly. */

const line = (overrides: Partial<OrderLine> = {}): OrderLine => ({ menuItem: 'item-1', name: 'Moqueca', price: 7450, quantity: 1, ...overrides });
const off = (kind: Discount['kind'], value: number): Discount => ({ kind, value, reason: 'r', by: 'u', at: '2024-01-01T00:00:00.000Z' });
const bill = (input: Partial<BillInput>) =>
  computeBill({ items: [], orderDiscount: null, serviceChargeBp: 0, serviceChargeRemoved: false, covers: 0, coverChargeUnit: 0, ...input });

/** A small seeded generator (mulberry32): the same cases on every run. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('computeBill', () => {
  it('sums price x quantity in integer cents, exact for large totals', () => {
    expect(bill({}).total).toBe(0);
    expect(bill({ items: [line({ quantity: 2 }), line({ price: 1, quantity: 3 })] }).itemsTotal).toBe(14903);
    expect(bill({ items: [line({ price: 99_999_999, quantity: 1000 })] }).total).toBe(99_999_999_000);
  });

  it('prices weighed lines to the cent, half up, and records what rounding moved', () => {
    // 0.347 kg at R$ 49,90/kg = 1731.53 cents -> 1732; 0.125 kg at R$ 10,00 = 125 exactly.
    const b = bill({ items: [line({ unit: 'kg', quantity: 0.347, price: 4990 }), line({ unit: 'kg', quantity: 0.125, price: 1000 })] });
    expect(b.items.map((l) => l.amount)).toEqual([1732, 125]);
    expect(b.total).toBe(1857);
    expect(b.rounding!.lines).toBeCloseTo(0.47, 4);
    // 0.0005 of a cent rounds up: 1 g at 50 cents/kg = 0.05 cents -> 0.
    expect(bill({ items: [line({ unit: 'kg', quantity: 0.001, price: 500 })] }).total).toBe(1);
    expect(bill({ items: [line({ unit: 'kg', quantity: 0.001, price: 499 })] }).total).toBe(0);
  });

  it('takes line discounts, then the order discount, then 10% service on what is left, then the cover', () => {
    const b = bill({
      items: [line({ price: 1995, quantity: 1, discount: off('percent', 10) }), line({ price: 3000, quantity: 2 })],
      orderDiscount: off('amount', 500),
      serviceChargeBp: 1000,
      covers: 3,
      coverChargeUnit: 1200,
    });
    // Line 1: 1995 - 199.5 -> 200 (half up); line 2: 6000.
    expect(b.items[0].discountAmount).toBe(200);
    expect(b.itemsTotal).toBe(7995);
    expect(b.discountTotal).toBe(700);
    // Service: 10% of 7295 = 729.5 -> 730.
    expect(b.serviceCharge).toBe(730);
    expect(b.coverCharge).toBe(3600);
    expect(b.total).toBe(7995 - 700 + 730 + 3600);
    expect(b.rounding).toEqual({ lines: 0, discounts: -0.5, serviceCharge: 0.5 });
  });

  it('drops the service charge when the customer removes it, and never discounts below zero', () => {
    expect(bill({ items: [line()], serviceChargeBp: 1000, serviceChargeRemoved: true }).total).toBe(7450);
    const b = bill({ items: [line({ discount: off('amount', 99_999) })], orderDiscount: off('percent', 100), serviceChargeBp: 1000 });
    expect(b.items[0].discountAmount).toBe(7450);
    expect(b.total).toBe(0);
  });

  it('leaves voided units out of the bill', () => {
    expect(bill({ items: [line({ quantity: 3, voidedQuantity: 2 })] }).total).toBe(7450);
    expect(bill({ items: [line({ unit: 'kg', quantity: 0.5, voidedQuantity: 0.5, price: 4990 })] }).total).toBe(0);
  });

  it('always gives whole cents that add up: total = items - discounts + service + cover', () => {
    const next = rng(42);
    for (let i = 0; i < 500; i++) {
      const items = Array.from({ length: 1 + Math.floor(next() * 5) }, () => {
        const kg = next() < 0.3;
        const l = line({ price: Math.floor(next() * 20_000), unit: kg ? 'kg' : 'un', quantity: kg ? Math.ceil(next() * 3000) / 1000 : 1 + Math.floor(next() * 5) });
        if (next() < 0.3) l.discount = next() < 0.5 ? off('percent', Math.floor(next() * 10_000) / 100) : off('amount', Math.floor(next() * 5000));
        return l;
      });
      const b = bill({ items, serviceChargeBp: next() < 0.5 ? 1000 : 1250, covers: Math.floor(next() * 4), coverChargeUnit: 900, orderDiscount: next() < 0.3 ? off('percent', 15) : null });
      for (const n of [b.itemsTotal, b.discountTotal, b.serviceCharge, b.coverCharge, b.total]) expect(Number.isInteger(n) && n >= 0).toBe(true);
      expect(b.total).toBe(b.itemsTotal - b.discountTotal + b.serviceCharge + b.coverCharge);
      expect(b.itemsTotal).toBe(b.items.reduce((s, l) => s + l.amount!, 0));
      expect(Math.abs(b.rounding!.serviceCharge)).toBeLessThanOrEqual(0.5);
    }
  });
});

describe('allocate', () => {
  it('shares equally with the odd cents on the first parts', () => {
    expect(allocate(1000, [1, 1, 1])).toEqual([334, 333, 333]);
    expect(allocate(1001, [1, 1, 1])).toEqual([334, 334, 333]);
    expect(allocate(1, [1, 1])).toEqual([1, 0]);
    expect(allocate(0, [1, 1, 1])).toEqual([0, 0, 0]);
    expect(allocate(777, [5])).toEqual([777]);
  });

  it('shares in proportion, adding up exactly, zero weights sharing equally', () => {
    expect(allocate(100, [1, 3])).toEqual([25, 75]);
    expect(allocate(10, [0, 0])).toEqual([5, 5]);
    expect(allocate(10, [0, 7])).toEqual([0, 10]);
    const next = rng(7);
    for (let i = 0; i < 500; i++) {
      const total = Math.floor(next() * 10_000_000);
      const weights = Array.from({ length: 1 + Math.floor(next() * 10) }, () => Math.floor(next() * 1_000_000_000_000));
      const shares = allocate(total, weights);
      expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
      expect(shares.every(Number.isInteger)).toBe(true);
    }
  });
});

describe('splitting a bill', () => {
  const parent = {
    orderNumber: '20240101-0001',
    ...bill({
      items: [line({ price: 1995, quantity: 3, discount: off('percent', 10) }), line({ unit: 'kg', quantity: 0.347, price: 4990 }), line({ price: 333, quantity: 1 })],
      orderDiscount: off('amount', 101),
      serviceChargeBp: 1000,
      covers: 3,
      coverChargeUnit: 777,
    }),
  };
  const sums = (parts: ReturnType<typeof splitEqually>) => ({
    itemsTotal: parts.reduce((s, p) => s + p.itemsTotal, 0),
    discountTotal: parts.reduce((s, p) => s + p.discountTotal, 0),
    serviceCharge: parts.reduce((s, p) => s + p.serviceCharge, 0),
    coverCharge: parts.reduce((s, p) => s + p.coverCharge, 0),
    total: parts.reduce((s, p) => s + p.total, 0),
  });
  const { itemsTotal, discountTotal, serviceCharge, coverCharge, total } = parent;
  const ofParent = { itemsTotal, discountTotal, serviceCharge, coverCharge, total };

  it('into equal parts shares every amount exactly, totals a cent apart at most', () => {
    for (let n = 2; n <= 12; n++) {
      const parts = splitEqually(parent, n);
      expect(sums(parts)).toEqual(ofParent);
      const totals = parts.map((p) => p.total);
      expect(Math.max(...totals) - Math.min(...totals)).toBeLessThanOrEqual(1);
      for (const p of parts) expect(p.total).toBe(p.itemsTotal - p.discountTotal + p.serviceCharge + p.coverCharge);
    }
  });

  it('by lines keeps each line with its part and shares the service charge exactly', () => {
    // Part 0: 2 moquecas; part 1: 1 moqueca, the weighed line and the last one.
    const parts = splitByLines(parent, [
      [2000, 0, 0],
      [1000, 347, 1000],
    ]);
    expect(sums(parts)).toEqual(ofParent);
    expect(parts[0].items).toHaveLength(1);
    expect(parts[0].items[0].quantity).toBe(2);
    expect(parts[1].items.map((l) => l.quantity)).toEqual([1, 0.347, 1]);
    // The moqueca line's discount follows its units: 2 of 3 units' worth on part 0.
    expect(parts[0].items[0].discountAmount! + parts[1].items[0].discountAmount!).toBe(parent.items[0].discountAmount);
    for (const p of parts) expect(p.total).toBe(p.itemsTotal - p.discountTotal + p.serviceCharge + p.coverCharge);
  });
});

describe('the staff discount limit', () => {
  it('compares percentages and amounts with the limit in basis points', () => {
    expect(withinLimit({ kind: 'percent', value: 10 }, 5000, 1000)).toBe(true);
    expect(withinLimit({ kind: 'percent', value: 10.01 }, 5000, 1000)).toBe(false);
    expect(withinLimit({ kind: 'amount', value: 500 }, 5000, 1000)).toBe(true);
    expect(withinLimit({ kind: 'amount', value: 501 }, 5000, 1000)).toBe(false);
    expect(withinLimit({ kind: 'amount', value: 1 }, 0, 1000)).toBe(false);
  });
});

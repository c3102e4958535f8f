import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, type OrderLine, type OrderStatus } from '../../db/schema/orders.js';
import { canMove, compactDate, FINAL_STATUSES, isOpen, mergeLines, staffOrderNumber } from './orders.rules.js';

/** Pure rules of orders: no database, no app. */

const line = (overrides: Partial<OrderLine> = {}): OrderLine => ({ menuItem: 'item-1', name: 'Moqueca', price: 7450, quantity: 1, ...overrides });

const ponto = (...options: string[]) => ({ groupId: 'g-ponto', groupName: 'Ponto', options: options.map((name) => ({ name, priceAdjustment: 0 })) });
const extras = (...options: string[]) => ({ groupId: 'g-extras', groupName: 'Adicionais', options: options.map((name) => ({ name, priceAdjustment: 300 })) });

describe('order status', () => {
  it('has delivered and cancelled as its only final states', () => {
    expect([...FINAL_STATUSES].sort()).toEqual(['cancelled', 'delivered']);
    const open = ORDER_STATUSES.filter(isOpen);
    expect(open).toEqual(['pending', 'confirmed', 'preparing', 'ready']);
    expect(isOpen('delivered')).toBe(false);
    expect(isOpen('cancelled')).toBe(false);
  });

  // Every move the kitchen flow allows, written out: forward (skipping allowed), one step back while
  // open (a correction: the kitchen's recall), or cancel while open.
  const ALLOWED: Record<OrderStatus, OrderStatus[]> = {
    pending: ['confirmed', 'preparing', 'ready', 'delivered', 'cancelled'],
    confirmed: ['pending', 'preparing', 'ready', 'delivered', 'cancelled'],
    preparing: ['confirmed', 'ready', 'delivered', 'cancelled'],
    ready: ['preparing', 'delivered', 'cancelled'],
    delivered: [],
    cancelled: [],
  };

  for (const from of ORDER_STATUSES) {
    for (const to of ORDER_STATUSES) {
      const allowed = ALLOWED[from].includes(to);
      it(`${allowed ? 'allows' : 'refuses'} ${from} -> ${to}`, () => {
        expect(canMove(from, to)).toBe(allowed);
      });
    }
  }

  it('refuses more than one step back, staying put, and leaving a final state', () => {
    expect(canMove('preparing', 'pending')).toBe(false);
    expect(canMove('ready', 'pending')).toBe(false);
    expect(canMove('delivered', 'ready')).toBe(false);
    expect(canMove('pending', 'pending')).toBe(false);
    expect(canMove('delivered', 'cancelled')).toBe(false);
    expect(canMove('cancelled', 'pending')).toBe(false);
  });
});

describe('mergeLines', () => {
  it('adds to the quantity of the same dish and appends anything else', () => {
    const existing = [line({ quantity: 2 }), line({ menuItem: 'item-2', name: 'Caipirinha', price: 1800 })];
    const merged = mergeLines(existing, [line({ quantity: 3 }), line({ menuItem: 'item-3', name: 'Pudim', price: 1200 })]);
    expect(merged.map((l) => [l.menuItem, l.quantity])).toEqual([
      ['item-1', 5],
      ['item-2', 1],
      ['item-3', 1],
    ]);
  });

  it('merges repeats inside the same round too', () => {
    expect(mergeLines([], [line(), line({ quantity: 2 }), line()])).toEqual([line({ quantity: 4 })]);
  });

  it('changes neither its inputs nor shares objects with them', () => {
    const existing = [line({ quantity: 2 })];
    const added = [line({ quantity: 1 }), line({ menuItem: 'item-2' })];
    const before = structuredClone({ existing, added });
    const merged = mergeLines(existing, added);
    expect({ existing, added }).toEqual(before);
    expect(merged[0]).not.toBe(existing[0]);
    expect(merged[1]).not.toBe(added[1]);
    merged[1].quantity = 99;
    expect(added[1].quantity).toBe(1);
  });

  it('handles empty inputs', () => {
    expect(mergeLines([], [])).toEqual([]);
    expect(mergeLines([line()], [])).toEqual([line()]);
    expect(mergeLines([], [line()])).toEqual([line()]);
  });

  it('keeps dishes with different notes apart, and treats missing notes as empty ones', () => {
    expect(mergeLines([line({ notes: 'sem cebola' })], [line()])).toHaveLength(2);
    expect(mergeLines([line({ notes: 'sem cebola' })], [line({ notes: 'sem coentro' })])).toHaveLength(2);
    expect(mergeLines([line({ notes: 'sem cebola' })], [line({ notes: 'sem cebola' })])).toEqual([line({ notes: 'sem cebola', quantity: 2 })]);
    expect(mergeLines([line({ notes: '' })], [line()])).toHaveLength(1);
  });

  it('compares the chosen options whatever their order, and keeps different choices apart', () => {
    const a = line({ modifiers: [ponto('Ao ponto'), extras('Bacon', 'Queijo')] });
    const sameChoicesReordered = line({ modifiers: [extras('Queijo', 'Bacon'), ponto('Ao ponto')] });
    expect(mergeLines([a], [sameChoicesReordered]).map((l) => l.quantity)).toEqual([2]);

    expect(mergeLines([a], [line({ modifiers: [ponto('Mal passada'), extras('Bacon', 'Queijo')] })])).toHaveLength(2);
    expect(mergeLines([a], [line({ modifiers: [ponto('Ao ponto'), extras('Bacon')] })])).toHaveLength(2);
    expect(mergeLines([a], [line({ modifiers: [ponto('Ao ponto')] })])).toHaveLength(2);
    expect(mergeLines([a], [line()])).toHaveLength(2);
  });

  it('treats no modifiers and an empty modifier list as the same choice', () => {
    expect(mergeLines([line({ modifiers: [] })], [line()])).toHaveLength(1);
  });

  it('keeps different menu items apart even with the same name and price', () => {
    expect(mergeLines([line()], [line({ menuItem: 'item-other' })])).toHaveLength(2);
  });

  it('adds kilograms without floating-point residue', () => {
    const kg = (quantity: number) => line({ unit: 'kg', quantity, price: 4990 });
    expect(mergeLines([kg(0.1)], [kg(0.2)])[0].quantity).toBe(0.3);
  });

  it('gives more of a discounted or voided dish a line of its own', () => {
    const discount = { kind: 'percent' as const, value: 50, reason: 'cortesia', by: 'u', at: '2024-01-01T00:00:00.000Z' };
    expect(mergeLines([line({ discount })], [line()])).toHaveLength(2);
    expect(mergeLines([line({ voidedQuantity: 1, quantity: 2 })], [line()])).toHaveLength(2);
  });
});

describe('order numbers', () => {
  it('compacts a local date', () => {
    expect(compactDate('2024-03-05')).toBe('20240305');
    expect(compactDate('1999-12-31')).toBe('19991231');
  });

  it('numbers staff orders by day with a sequence of at least four digits', () => {
    expect(staffOrderNumber('2024-03-05', 1)).toBe('20240305-0001');
    expect(staffOrderNumber('2024-03-05', 42)).toBe('20240305-0042');
    expect(staffOrderNumber('2024-03-05', 9999)).toBe('20240305-9999');
    // Past 9999 the number grows instead of wrapping or being cut.
    expect(staffOrderNumber('2024-03-05', 10000)).toBe('20240305-10000');
    expect(staffOrderNumber('2024-12-31', 123456)).toBe('20241231-123456');
  });
});

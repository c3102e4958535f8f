import { describe, expect, it } from 'vitest';
import { manualClock } from '../../platform/clock.js';
import { refundLedger, viewRefund, type RefundablePayment, type SimRefund } from './refunds.js';

/** Deterministic pseudo-random numbers (mulberry32), so a failing sequence can be replayed by its seed. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] };
}

describe('refund ledger of the simulators', () => {
  it('validates the request: key required, a positive amount with at most two decimals', () => {
    const ledger = refundLedger(manualClock());
    const payment = { id: '1', amountCents: 1000, approved: true };
    const ask = (key: unknown, amount: unknown) => ledger.refund({ paymentId: '1', payment, key, body: { amount } });
    for (const key of [undefined, '', '  ', 'k'.repeat(257), ['a']]) expect(ask(key, 1)).toMatchObject({ refusal: { status: 400, code: 'bad_request' } });
    for (const amount of [0, -1, 1.001, '1', Number.NaN, Infinity]) expect(ask('k', amount)).toMatchObject({ refusal: { status: 400, code: 'bad_request' } });
    expect(ask('k', 0.1)).toMatchObject({ refund: { amountCents: 10 }, replayed: false });
    expect(ask('k2', null)).toMatchObject({ refund: { amountCents: 990 } });
  });

  it('shows a refund as the provider does (decimal amount, numeric ids)', () => {
    const r: SimRefund = { id: 7, paymentId: '90000000001', amountCents: 4590, status: 'approved', idempotencyKey: 'k', createdAt: '2025-01-01T00:00:00.000Z' };
    expect(viewRefund(r)).toMatchObject({ id: 7, payment_id: 90000000001, amount: 45.9, status: 'approved', date_created: r.createdAt });
    expect(viewRefund({ ...r, paymentId: 'pay_x' }).payment_id).toBe('pay_x');
  });

  it('never gives back more than was approved, whatever the sequence of requests (property)', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = random(seed);
      const ledger = refundLedger(manualClock());
      const payments: RefundablePayment[] = Array.from({ length: rnd.int(1, 5) }, (_, i) => ({
        id: String(100 + i),
        amountCents: rnd.int(1, 20_000),
        approved: rnd.int(0, 3) > 0,
      }));
      const approved = payments.filter((p) => p.approved).reduce((s, p) => s + p.amountCents, 0);
      const keys = Array.from({ length: 12 }, (_, i) => `key-${i}`);
      const firstAnswer = new Map<string, { refund: SimRefund; request: string }>();
      let made = 0;
      for (let step = 0; step < 60; step++) {
        const paymentId = rnd.pick([...payments.map((p) => p.id), 'unknown']);
        const payment = payments.find((p) => p.id === paymentId);
        const key = rnd.pick(keys);
        const left = payment ? payment.amountCents - ledger.refundedCents(paymentId) : 0;
        // The whole rest, any amount, or one close to what is left (the edge an off-by-one would cross).
        const cents = rnd.pick([undefined, rnd.int(1, 25_000), Math.max(1, left + rnd.int(-2, 2))]);
        const amount = cents === undefined ? undefined : cents / 100;
        const out = ledger.refund({ paymentId, payment, key, body: amount === undefined ? {} : { amount } });
        const context = `seed ${seed} step ${step}`;
        const request = `${paymentId}:${cents ?? 'rest'}`;
        if ('refund' in out) {
          if (out.replayed) expect({ refund: out.refund, request }, context).toEqual(firstAnswer.get(key));
          else {
            expect(firstAnswer.has(key), context).toBe(false);
            expect(payment?.approved, context).toBe(true);
            expect(out.refund.amountCents, context).toBeGreaterThanOrEqual(1);
            expect(out.refund.amountCents, context).toBeLessThanOrEqual(left);
            firstAnswer.set(key, { refund: out.refund, request });
            made++;
          }
        } else if (out.refusal.code === 'amount_exceeds_refundable') {
          expect(Math.round(amount! * 100), context).toBeGreaterThan(left);
        } else if (!firstAnswer.has(key) && payment?.approved && left > 0) {
          throw new Error(`${context}: refused ${out.refusal.code} though ${left} cents were left`);
        }
        const all = ledger.list();
        expect(all, context).toHaveLength(made);
        for (const p of payments) expect(ledger.refundedCents(p.id), context).toBeLessThanOrEqual(p.approved ? p.amountCents : 0);
        expect(ledger.captured(payments), context).toBe(approved - all.reduce((s, r) => s + r.amountCents, 0));
      }
    }
  });
});

/**
 * The refunds a simulated payment provider remembers, shared by the gateway_a and wallet simulators
 * (both follow the Mercado Pago refunds API): `POST /v1/payments/{id}/refunds` with `X-Idempotency-Key`
 * and `{ amount?: <decimal> }`. Partial refunds add up to at most the payment; the same key replays the
 * first refund; only approved payments can be refunded. The simulator decides who may see which payment.
 */
import type { FastifyReply } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import { centsToDecimal, decimalToCents } from '../money.js';
import { send } from './server.js';

export interface SimRefund {
  id: number;
  paymentId: string;
  amountCents: number;
  status: 'approved';
  idempotencyKey: string;
  createdAt: string;
}

/** The refund as the provider's API shows it. */
export interface SimRefundView {
  id: number;
  payment_id: number | string;
  amount: number;
  status: 'approved';
  date_created: string;
  refund_mode: 'standard';
  source: { type: 'collector' };
}

/** What the ledger needs of a payment. */
export interface RefundablePayment {
  id: string;
  amountCents: number;
  /** Only an approved payment can be refunded. */
  approved: boolean;
}

export interface RefundRequest {
  /** The id in the path. */
  paymentId: string;
  /** That payment, undefined when it does not exist for the caller (404). */
  payment: RefundablePayment | undefined;
  /** The `X-Idempotency-Key` header as received. */
  key: unknown;
  body: Record<string, unknown>;
  /** Whose keys these are (the wallet's account); keys of different scopes never meet. */
  scope?: string;
}

export type RefundOutcome = { refund: SimRefund; replayed: boolean } | { refusal: { status: 400 | 404 | 409; code: string; message: string } };

export function viewRefund(r: SimRefund): SimRefundView {
  return {
    id: r.id,
    payment_id: /^\d{1,15}$/.test(r.paymentId) ? Number(r.paymentId) : r.paymentId,
    amount: centsToDecimal(r.amountCents),
    status: r.status,
    date_created: r.createdAt,
    refund_mode: 'standard',
    source: { type: 'collector' },
  };
}

const refuse = (status: 400 | 404 | 409, code: string, message: string): RefundOutcome => ({ refusal: { status, code, message } });

export function refundLedger(clock: Clock) {
  const byPayment = new Map<string, SimRefund[]>();
  const byKey = new Map<string, { request: string; refund: SimRefund }>();
  let nextId = 20_000_000_000 + Math.floor(Math.random() * 1_000_000);

  const refundsOf = (paymentId: string): SimRefund[] => (byPayment.get(paymentId) ?? []).map((r) => ({ ...r }));
  const refundedCents = (paymentId: string): number => (byPayment.get(paymentId) ?? []).reduce((sum, r) => sum + r.amountCents, 0);

  function refund({ paymentId, payment, key, body, scope = '' }: RefundRequest): RefundOutcome {
    if (typeof key !== 'string' || !key.trim() || key.length > 256) return refuse(400, 'bad_request', 'header X-Idempotency-Key is required');
    const asked = body.amount === undefined || body.amount === null ? null : decimalToCents(body.amount);
    if (asked === null && body.amount !== undefined && body.amount !== null) {
      return refuse(400, 'bad_request', 'amount must be a positive amount with at most two decimals');
    }
    const slot = `${scope}:${key}`;
    const request = `${paymentId}:${asked ?? 'rest'}`;
    const seen = byKey.get(slot);
    if (seen) {
      if (seen.request !== request) return refuse(409, 'idempotency_key_reused', 'this X-Idempotency-Key was used with another refund request');
      return { refund: { ...seen.refund }, replayed: true };
    }
    if (!payment) return refuse(404, 'not_found', `payment ${paymentId} not found`);
    if (!payment.approved) return refuse(400, 'payment_not_refundable', `payment ${paymentId} is not approved and cannot be refunded`);
    const left = payment.amountCents - refundedCents(payment.id);
    if (left <= 0) return refuse(400, 'already_refunded', `payment ${paymentId} is already fully refunded`);
    const cents = asked ?? left;
    if (cents > left) return refuse(400, 'amount_exceeds_refundable', `refund of ${centsToDecimal(cents)} exceeds the ${centsToDecimal(left)} left on payment ${paymentId}`);
    const r: SimRefund = { id: nextId++, paymentId: payment.id, amountCents: cents, status: 'approved', idempotencyKey: key, createdAt: clock.now().toISOString() };
    byPayment.set(payment.id, [...(byPayment.get(payment.id) ?? []), r]);
    byKey.set(slot, { request, refund: r });
    return { refund: { ...r }, replayed: false };
  }

  return {
    refund,
    refundsOf,
    refundedCents,
    /** Every refund, oldest first. */
    list: (): SimRefund[] => [...byPayment.values()].flat().sort((a, b) => a.id - b.id).map((r) => ({ ...r })),
    /** Approved amounts minus what was refunded of them, in cents: the money the provider still holds. */
    captured(payments: Iterable<RefundablePayment>): number {
      let cents = 0;
      for (const p of payments) if (p.approved) cents += p.amountCents - refundedCents(p.id);
      return cents;
    },
  };
}
export type RefundLedger = ReturnType<typeof refundLedger>;

/** Answers an outcome: 201 with the refund (`x-idempotency-replayed` on a replay), or the refusal in the provider's error shape. */
export function replyRefund(reply: FastifyReply, out: RefundOutcome, replyError: (status: number, code: string, message: string) => unknown) {
  if ('refusal' in out) return replyError(out.refusal.status, out.refusal.code, out.refusal.message);
  if (out.replayed) reply.header('x-idempotency-replayed', 'true');
  return send(reply, 201, viewRefund(out.refund));
}

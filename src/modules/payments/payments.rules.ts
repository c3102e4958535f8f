import type { OrderRow, PaymentMethod, PaymentStatus } from '../../db/schema/orders.js';
import type { PaymentRow } from '../../db/schema/payments.js';

/** The order's payment fields, all derived from its payments (the ledger). */
export interface OrderPaymentFields {
  paymentStatus: PaymentStatus | null;
  paymentMethod: PaymentMethod | null;
  paymentGateway: PaymentRow['gateway'] | null;
  paymentTransactionId: string | null;
  paymentIntentId: string | null;
  paymentTerminalSerial: string | null;
  paymentAttempts: number;
  paymentStartedAt: Date | null;
  amountPaid: number;
  paidAt: Date | null;
}

/**
 * What the ledger says of an order:
 * - `amountPaid`: the sum of approved payments (one refunded, or whose refund is decided, no longer counts);
 * - `paymentStatus`: `processing` while one is in flight, `approved` once nothing is due, `declined`
 *   when the last attempt was declined and something is still due, else null (nothing yet, or part paid);
 * - the method: the one method of the approved payments, `mixed` for several; before any approval, the
 *   last attempt's, or what the order said (a guest's declared method) when there is no payment.
 */
export function deriveOrderPayment(order: Pick<OrderRow, 'total' | 'paymentMethod'>, rows: readonly PaymentRow[]): OrderPaymentFields {
  const last = rows.at(-1) ?? null;
  // A payment whose refund is decided no longer pays the bill, even before the gateway confirms it (a
  // late approval being given back must not make a bill look paid and block the real payment).
  const approved = rows.filter((p) => p.status === 'approved' && !p.refundRequestedAt);
  const amountPaid = approved.reduce((sum, p) => sum + p.amount, 0);
  const processing = rows.find((p) => p.status === 'processing');
  const due = order.total - amountPaid;
  const status: PaymentStatus | null = processing
    ? 'processing'
    : amountPaid > 0 && due <= 0
      ? 'approved'
      : last?.status === 'declined'
        ? 'declined'
        : null;
  const methods = [...new Set(approved.map((p) => p.method))];
  const method = methods.length > 1 ? 'mixed' : (methods[0] ?? last?.method ?? order.paymentMethod);
  const lastApproved = approved.at(-1) ?? null;
  return {
    paymentStatus: status,
    paymentMethod: method,
    paymentGateway: last?.gateway ?? null,
    paymentTransactionId: (processing ? null : (lastApproved?.transactionId ?? last?.transactionId)) ?? null,
    paymentIntentId: last?.intentId ?? null,
    paymentTerminalSerial: last?.terminalSerial ?? null,
    paymentAttempts: last?.attempt ?? 0,
    paymentStartedAt: last?.createdAt ?? null,
    amountPaid,
    paidAt: status === 'approved' ? (lastApproved?.settledAt ?? null) : null,
  };
}

/**
 * How a requested amount applies to what is due. Cash may be handed over above it (the change is
 * given back); a card or PIX payment above it is refused, since a tip has its own field.
 */
export function applyAmount(
  method: PaymentMethod,
  due: number,
  requested: number | undefined,
): { amount: number; tendered: number | null } | { error: string } {
  if (requested === undefined) return { amount: due, tendered: null };
  if (requested <= 0) return { error: 'must be more than zero' };
  if (requested <= due) return { amount: requested, tendered: null };
  if (method === 'cash') return { amount: due, tendered: requested };
  return { error: `is more than the amount due (${due} cents): only cash may be handed over above it; a tip goes in tip` };
}

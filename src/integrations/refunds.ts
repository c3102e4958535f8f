/**
 * Refunds as both payment providers take them (the Mercado Pago refunds API):
 * `POST /v1/payments/{id}/refunds` with `X-Idempotency-Key` and `{ amount?: <decimal> }` (none: the whole
 * rest). Partial refunds are allowed; more than what is left is refused (400), an unknown payment too (404).
 * What the clients send and read, in the service's terms (cents); the simulators' side is `simulator/refunds.ts`.
 */
import type { IntegrationErrorClass } from './errors.js';
import { badResponse, type ProviderResponse } from './http.js';
import { centsToDecimal, decimalToCents } from './money.js';

export interface RefundInput {
  /** The provider's payment id (gateway_a: the `paymentId` of an approved intent; wallet: the charge id). */
  paymentId: string;
  /** Integer cents, at least 1; omitted: everything not yet refunded. */
  amountCents?: number;
  /** Same key -> same refund, never a second one. Use one key per refund the service decides. */
  idempotencyKey: string;
}

export interface Refund {
  refundId: string;
  paymentId: string;
  amountCents: number;
  status: 'approved';
}

/** Why the input cannot be sent (checked before any request), or null. */
export function refundInputProblem({ paymentId, amountCents, idempotencyKey }: RefundInput): string | null {
  if (!paymentId) return 'paymentId is required';
  if (amountCents !== undefined && (!Number.isSafeInteger(amountCents) || amountCents < 1)) return 'amountCents must be a positive integer';
  if (!idempotencyKey || idempotencyKey.length > 256) return 'idempotencyKey must be 1 to 256 characters';
  return null;
}

/** The request: its path, body and idempotency header. */
export function refundRequest({ paymentId, amountCents, idempotencyKey }: RefundInput) {
  return {
    path: `/v1/payments/${encodeURIComponent(paymentId)}/refunds`,
    body: amountCents === undefined ? {} : { amount: centsToDecimal(amountCents) },
    headers: { 'x-idempotency-key': idempotencyKey },
  };
}

/** A 2xx answer read into a refund; throws the `unavailable` error of an answer that is not one. */
export function readRefund(errors: IntegrationErrorClass, res: ProviderResponse, paymentId: string): Refund {
  const b = res.body as { id?: unknown; payment_id?: unknown; amount?: unknown; status?: unknown } | null;
  const id = b?.id;
  if ((typeof id !== 'string' && typeof id !== 'number') || id === '') throw badResponse(errors, 'refund', res, 'no refund id');
  const answered = b?.payment_id;
  if (answered !== undefined && answered !== null && String(answered) !== paymentId) {
    throw badResponse(errors, 'refund', res, `refund of payment ${String(answered)}, not ${paymentId}`);
  }
  const amountCents = decimalToCents(b?.amount);
  if (amountCents === null) throw badResponse(errors, 'refund', res, 'no amount');
  if (b?.status !== 'approved') throw badResponse(errors, 'refund', res, `status ${String(b?.status)}`);
  return { refundId: String(id), paymentId, amountCents, status: 'approved' };
}

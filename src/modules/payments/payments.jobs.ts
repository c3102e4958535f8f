import { defineJob } from '../../platform/jobs.js';

/** A terminal payment to cancel once it has been `processing` for PAYMENT_TIMEOUT_MS. */
export interface PaymentExpiryJob {
  tenantId: string;
  paymentId: string;
  /** The card terminal (gateway_a); absent for a PIX charge. */
  terminalSerial?: string;
  /** The terminal intent, or the PIX charge txid. */
  intentId: string;
}

/** An approved payment whose refund was decided: given back through the gateway that took it. */
export interface RefundJob {
  tenantId: string;
  paymentId: string;
}

/** A wallet charge approved for an order that then could not be created: nothing records it but this job. */
export interface WalletRefundJob {
  tenantId: string;
  chargeId: string;
  amountCents: number;
}

/** The payment jobs (handlers and the sweep's schedule in `index.ts`). */
export const paymentJobs = {
  /** Sent with the intent (in its transaction), due after the timeout; one per payment. */
  expire: defineJob<PaymentExpiryJob>('payments.expire', { retryLimit: 3, retryDelay: 5 }),
  /** Safety net for an expiry job lost with a crashed process: expires what is overdue (every minute). */
  sweep: defineJob('payments.sweep'),
  /** Retried until the gateway confirms (about a day of retries with backoff). */
  refund: defineJob<RefundJob>('payments.refund', { retryLimit: 20, retryDelay: 30, retryBackoff: true }),
  walletRefund: defineJob<WalletRefundJob>('payments.wallet-refund', { retryLimit: 20, retryDelay: 30, retryBackoff: true }),
};

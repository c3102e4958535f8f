import { defineJob } from '../../platform/jobs.js';

/** A terminal payment to cancel once it has been `processing` for PAYMENT_TIMEOUT_MS. */
export interface PaymentExpiryJob {
  tenantId: string;
  orderId: string;
  attempt: number;
  terminalSerial: string;
  intentId: string;
}

/** The payment jobs of the orders module (handlers and the sweep's schedule in `index.ts`). */
export const paymentJobs = {
  /** Sent with the intent (in its transaction), due after the timeout; one per payment attempt. */
  expire: defineJob<PaymentExpiryJob>('payments.expire', { retryLimit: 3, retryDelay: 5 }),
  /** Safety net for an expiry job lost with a crashed process: expires what is overdue (every minute). */
  sweep: defineJob('payments.sweep'),
};

import { defineJob } from '../../platform/jobs.js';

/** What an automatic posting is of (`journal_entries.source_type`); docs/decisions.md, "Accounting: automatic postings". */
export const POSTING_SOURCES = ['payment', 'payment_refund', 'sale_cost', 'sale_cost_return', 'purchase_receipt', 'purchase_invoice', 'operating_expense'] as const;
export type PostingSource = (typeof POSTING_SOURCES)[number];

/**
 * An event to post: a payment approved (`payment`, sourceId the payment) or refunded (`payment_refund`,
 * the payment), a deduction event's cost (`sale_cost` / `sale_cost_return`, sourceId its first movement),
 * goods received (`purchase_receipt`, sourceId its first movement; `purchase_invoice`, the imported invoice), an
 * operating expense created, changed or deleted (`operating_expense`, the expense: the job brings the books in
 * line with it as it is then, so one job per change, keyed by the change).
 */
export interface PostingJob {
  tenantId: string;
  sourceType: PostingSource;
  sourceId: string;
  /** Stock events: the movements of the event (they share no other key). */
  movementIds?: string[];
  /** `purchase_receipt`: the purchase order. */
  refId?: string;
}

/** The accounting jobs (handler in `index.ts`). */
export const accountingJobs = {
  /**
   * Sent in the transaction of the event (a rollback sends nothing), one per source (`singletonKey`
   * `${sourceType}:${sourceId}`: a second send is dropped); retried with backoff for about an hour and a half.
   */
  post: defineJob<PostingJob>('accounting.post', { retryLimit: 10, retryDelay: 10, retryBackoff: true }),
};

/** The job's dedupe key. */
export const postingKey = (sourceType: PostingSource, sourceId: string) => `${sourceType}:${sourceId}`;

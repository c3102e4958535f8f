import { defineJob } from '../../platform/jobs.js';

/** One pending document to take forward: send it (again), or ask the provider how it went. */
export interface AdvanceJob {
  tenantId: string;
  documentId: string;
}

/** The emission queue (`GET /fiscal/queue/stats`): 8 attempts, 10 s doubling (about 40 minutes in all). */
export const fiscalJobs = {
  advance: defineJob<AdvanceJob>('fiscal.advance', { retryLimit: 7, retryDelay: 10, retryBackoff: true }),
};

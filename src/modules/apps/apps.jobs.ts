import { defineJob } from '../../platform/jobs.js';

/**
 * One attempt of one webhook delivery (`attempt`: its number); the handler schedules the next attempt
 * itself (backoff, Retry-After). The queue's own retries only cover a run that died or threw (a process
 * stopped mid-attempt): that run's attempt is taken again.
 */
export const appsJobs = {
  deliver: defineJob<{ tenantId: string; deliveryId: string; attempt?: number }>('apps.deliver', {
    retryLimit: 3,
    retryDelay: 30,
    expireInSeconds: 120,
    concurrency: 4,
  }),
};

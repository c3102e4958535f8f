import { defineJob } from '../../platform/jobs.js';

/**
 * The delivery queues (spec 8): the order job has 3 attempts with backoff (2 s, then about 5 s); the same
 * event id is dropped as a duplicate (`singletonKey`). The cleanup keeps the last 100 completed and 50 failed
 * jobs of these queues (pg-boss 10 has no such option).
 */
export const deliveryJobs = {
  order: defineJob<{ tenantId: string; eventId: string }>('delivery.order', { retryLimit: 2, retryDelay: 2, retryBackoff: true }),
  sync: defineJob<{ tenantId: string; integrationId: string; itemId: string; runId: string | null }>('delivery.sync', {
    retryLimit: 2,
    retryDelay: 2,
    retryBackoff: true,
  }),
  status: defineJob<{ tenantId: string; pushId: string }>('delivery.status', { retryLimit: 4, retryDelay: 5, retryBackoff: true }),
  cleanup: defineJob('delivery.cleanup'),
};

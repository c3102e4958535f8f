import { defineJob } from '../../platform/jobs.js';

/** One tenant's sales snapshot of one local day (YYYY-MM-DD). */
export interface BuildSnapshotJob {
  tenantId: string;
  day: string;
}

/** The demand prediction's jobs (handlers and the tick's schedule in `index.ts`). */
export const predictionJobs = {
  /**
   * Every hour (UTC, on the hour): a `buildSnapshot` job for each active tenant whose local clock passed 02:00
   * in the last hour, for its yesterday. Hourly because tenants live in different time zones.
   */
  snapshotTick: defineJob('purchasing.snapshot-tick'),
  /** Idempotent (the day's rows are replaced); one per tenant and day (singleton key). */
  buildSnapshot: defineJob<BuildSnapshotJob>('purchasing.build-snapshot', { retryLimit: 5, retryDelay: 60 }),
};

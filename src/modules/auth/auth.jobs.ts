import { defineJob } from '../../platform/jobs.js';

/** The auth module's jobs (handlers in `index.ts`). */
export const authJobs = {
  /** Looks the address up and mails the reset link, after `forgot` has answered (the same answer whether or not it exists). */
  resetMail: defineJob<{ email: string }>('auth.password-reset-mail', { retryLimit: 2, retryDelay: 10 }),
};

import { defineJob } from '../../platform/jobs.js';

export interface InvitationMail {
  userId: string;
  tenantName: string;
  role: string;
  /** A new account: the mail carries a link to choose a password. */
  created: boolean;
}

/** The auth module's jobs (handlers in `index.ts`). */
export const authJobs = {
  /** Looks the address up and mails the reset link, after `forgot` has answered (the same answer whether or not it exists). */
  resetMail: defineJob<{ email: string }>('auth.password-reset-mail', { retryLimit: 2, retryDelay: 10 }),
  /** Mails an invitation into a tenant (with a link to choose a password when the account is new), after the invite has answered. */
  invitationMail: defineJob<InvitationMail>('auth.invitation-mail', { retryLimit: 2, retryDelay: 10 }),
};

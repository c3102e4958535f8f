import { passwordResetTokens, refreshTokens } from '../../db/schema/users.js';
import { defineModule } from '../../platform/module.js';
import { auditModule } from '../audit/index.js';
import { usersModule } from '../users/index.js';
import { authJobs } from './auth.jobs.js';
import { authRoutes } from './auth.routes.js';
import { authService } from './auth.service.js';

export type { AuthService } from './auth.service.js';

/** Authentication (spec 5): login, rotating refresh tokens, password change and reset by mail. */
export const authModule = defineModule({
  name: 'auth',
  needs: [usersModule, auditModule],
  tables: [refreshTokens, passwordResetTokens],
  services: (deps, { users, audit }) => ({ auth: authService(deps, users, audit) }),
  routes: (app, services) => authRoutes(app, services),
  jobs: {
    declared: authJobs,
    handlers: ({ auth }) => ({ resetMail: (data) => auth.sendResetMail(data), invitationMail: (data) => auth.sendInvitationMail(data) }),
  },
});

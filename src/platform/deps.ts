import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Bypass, TenantDb } from '../db/scopes.js';
import type { ApiCredentials } from './auth/api-credentials.js';
import type { JwtSigner } from './auth/jwt.js';
import type { MemberCache } from './auth/principal.js';
import type { Clock } from './clock.js';
import type { Jobs } from './jobs.js';
import type { Mailer } from './mail.js';
import type { Metrics } from './metrics.js';
import type { Realtime } from './realtime.js';
import type { TenantResolver } from './tenancy.js';

/** What every service is built from; passed in so tests can swap parts. */
export interface Deps {
  /** Tables without a tenant (users, tenants, tokens); tenant tables answer it with nothing (src/db/scopes.ts). */
  db: Db;
  /** A handle bound to a tenant, for jobs and sockets (routes get theirs from the guard chain: `ctxOf(req).db`, `tenantOf(req).db`). */
  tenantDb: (tenantId: string) => TenantDb;
  /** The named way across tenants; each use is listed in `BYPASS_USES` and docs/decisions.md. */
  bypass: Bypass;
  config: Config;
  clock: Clock;
  jwt: JwtSigner;
  tenants: TenantResolver;
  /** Guard-chain cache of user memberships; call `forget(userId)` after changing a user or membership. */
  members: MemberCache;
  log: FastifyBaseLogger;
  /** Background jobs: `register` handlers in the service factory, `send` (with `tx` inside a transaction). */
  jobs: Jobs;
  /** Socket.io events to the kitchen, inventory and order-tracking rooms; emit after commit. */
  realtime: Realtime;
  /** The public developer API's credential check, plugged in by the apps module. */
  apiCredentials: ApiCredentials;
  /** Outgoing mail (SMTP, the log, or memory in tests); send from a job, not while answering. */
  mail: Mailer;
  /** Prometheus metrics of this app (`/metrics`): `metrics.counter(...)` for what the module counts. */
  metrics: Metrics;
}

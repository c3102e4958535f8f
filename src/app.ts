import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { installGuards } from './platform/auth/guards.js';
import { memberCache } from './platform/auth/principal.js';
import { apiCredentials } from './platform/auth/api-credentials.js';
import { createJobs, type Jobs, type JobsOptions } from './platform/jobs.js';
import { createRealtime, type Realtime, type RealtimeOptions } from './platform/realtime.js';
import { jwtSigner } from './platform/auth/jwt.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { Deps } from './platform/deps.js';
import { healthRoutes } from './platform/health.js';
import { genReqId, installErrorHandling } from './platform/http.js';
import { installOpenApi } from './platform/openapi.js';
import { installSecurityHeaders } from './platform/security-headers.js';
import { tenantResolver } from './platform/tenancy.js';
import { installValidators } from './platform/validation.js';
import { webPages } from './platform/web.js';
import { makeMailer, type Mailer } from './platform/mail.js';
import { createMetrics, installMetrics } from './platform/metrics.js';
import { buildModules, registerRoutes, startSchedules, type ServicesOf } from './platform/module.js';
import { auditModule } from './modules/audit/index.js';
import { authModule } from './modules/auth/index.js';
import { branchesModule } from './modules/branches/index.js';
import { menuModule } from './modules/menu/index.js';
import { ordersModule } from './modules/orders/index.js';
import { paymentsModule } from './modules/payments/index.js';
import { reportsModule } from './modules/reports/index.js';
import { inventoryModule } from './modules/inventory/index.js';
import { purchasingModule } from './modules/purchasing/index.js';
import { accountingModule } from './modules/accounting/index.js';
import { bomModule } from './modules/bom/index.js';
import { dreModule } from './modules/dre/index.js';
import { fiscalModule } from './modules/fiscal/index.js';
import { appsModule } from './modules/apps/index.js';
import { deliveryModule } from './modules/delivery/index.js';
import { reservationsModule } from './modules/reservations/index.js';
import { shiftsModule } from './modules/shifts/index.js';
import { storefrontModule } from './modules/storefront/index.js';
import { tablesModule } from './modules/tables/index.js';
import { tenantsModule } from './modules/tenants/index.js';
import { usersModule } from './modules/users/index.js';
import { rateLimiter, type RateLimiter } from './platform/rate-limit.js';
import { idempotency, type Idempotency } from './platform/idempotency.js';
import { buildIntegrations, injectDeliverer, type Integrations, type IntegrationsOptions } from './integrations/registry.js';

export interface AppOptions {
  database: Database;
  config: Config;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
  /** Job queue tuning. Workers run when the role is worker or all, unless `jobs.workers` says otherwise. */
  jobs?: Partial<Pick<JobsOptions, 'workers' | 'scheduler' | 'pollingIntervalMs' | 'poolSize' | 'stopTimeoutMs' | 'boss'>>;
  realtime?: Partial<Pick<RealtimeOptions, 'heartbeatIntervalMs' | 'heartbeatTimeoutMs' | 'maxTrackedOrders' | 'maxJoinsPerMinute'>>;
  /** Integration overrides (tests pass a fetch or a webhook deliverer). */
  integrations?: IntegrationsOptions;
  /** Outgoing mail; default SMTP when `SMTP_URL` is set, else the log (tests pass a memory transport). */
  mailer?: Mailer;
}

/**
 * Log options: JSON lines, or readable lines through pino-pretty (in a worker thread) when the format is
 * `pretty` (LOG_FORMAT, default: pretty on a terminal); credentials redacted wherever they could appear.
 */
export function loggerOptions(level: string, format: Config['logFormat'] = 'json'): FastifyServerOptions['logger'] {
  return {
    level,
    ...(format === 'pretty' && {
      transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } },
    }),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-api-key"]',
        '*.password',
        '*.refreshToken',
        '*.accessToken',
        '*.token',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  };
}

/**
 * The business modules (`src/modules/<name>/index.ts`). Their services are built in dependency order,
 * their routes mounted in this order, their jobs and schedules registered (`platform/module.ts`).
 */
export const MODULES = [
  auditModule,
  authModule,
  tenantsModule,
  usersModule,
  branchesModule,
  shiftsModule,
  menuModule,
  tablesModule,
  reservationsModule,
  ordersModule,
  paymentsModule,
  reportsModule,
  inventoryModule,
  purchasingModule,
  accountingModule,
  dreModule,
  bomModule,
  fiscalModule,
  appsModule,
  deliveryModule,
  storefrontModule,
] as const;

/** Every module's services by name (`services.orders`, `services.menu`...) and the platform's rate limiter and idempotency store. */
export type Services = ServicesOf<typeof MODULES> & { rateLimits: RateLimiter; idempotency: Idempotency };

export type App = FastifyInstance & { services: Services; deps: Deps; jobs: Jobs; realtime: Realtime; integrations: Integrations };

export async function buildApp(opts: AppOptions): Promise<App> {
  const { database, config } = opts;
  const clock = opts.clock ?? systemClock;
  const app = Fastify({
    logger: opts.logger ?? loggerOptions(config.logLevel, config.logFormat),
    genReqId,
    // Fastify accepts a hop count too; its types list only booleans, strings and functions.
    trustProxy: (config.trustProxy ?? false) as boolean | string,
    bodyLimit: 1024 * 1024,
  });
  installValidators(app);
  installErrorHandling(app);
  installSecurityHeaders(app, { corsOrigins: config.corsOrigins });
  await installOpenApi(app);

  const jwt = jwtSigner(config.jwtSecret, clock);
  // Jobs and realtime: started when the app is ready, stopped when it closes (see docs/decisions.md).
  const jobs = createJobs({ database, log: app.log, workers: config.role !== 'api', ...opts.jobs });
  // Metrics first: the request histogram's hook must see every route (`/metrics`, platform/metrics.ts).
  const metrics = createMetrics(app.log);
  installMetrics(app, metrics, { jobs, database, token: config.metricsToken });
  const realtime = createRealtime({ database, db: database.db, jwt, log: app.log, clock, ...opts.realtime });
  if (config.role !== 'worker') realtime.attach(app.server);
  const deps: Deps = {
    db: database.db,
    tenantDb: (tenantId) => database.tenant(tenantId),
    bypass: database.bypass,
    config,
    clock,
    jwt,
    tenants: tenantResolver(database.db, database.tenant),
    members: memberCache(database.tenant),
    apiCredentials: apiCredentials(),
    log: app.log,
    jobs,
    realtime,
    mail: opts.mailer ?? makeMailer(config, app.log),
    metrics,
  };
  // A change to a user's access also re-checks their kitchen and inventory sockets, here and in the other processes.
  deps.members.onForget((userId) => realtime.userChanged(userId));
  // In-process simulators deliver their webhooks through the app itself (no socket, same route and signature check).
  const integrations = buildIntegrations(config, { clock, log: app.log, deliverWebhook: injectDeliverer(app), ...opts.integrations });
  const modules = buildModules(MODULES, { ...deps, integrations }, jobs);
  const platformServices = { rateLimits: rateLimiter(deps.db, deps.clock), idempotency: idempotency(deps.db, deps.clock) };
  const services: Services = { ...modules.services, ...platformServices };
  app.addHook('onReady', async () => {
    await realtime.start();
    await jobs.start();
    await startSchedules(modules, jobs);
  });
  app.addHook('preClose', async () => {
    // Stop taking WebSocket clients and new jobs at once; running jobs finish during onClose.
    realtime.disconnectLocal();
    void jobs.stopWorkers();
  });
  app.addHook('onClose', async () => {
    // Each step logged (debug), so a shutdown that runs over its 20 s shows where it waited.
    await jobs.stop();
    app.log.debug('shutdown: job queue stopped');
    await realtime.close();
    app.log.debug('shutdown: realtime closed');
    await integrations.close();
    app.log.debug('shutdown: integrations closed');
    await deps.mail.close();
  });

  healthRoutes(app, database);
  await integrations.mountSimulators(app);
  await app.register(async (scope) => {
    installGuards(scope, deps);
    registerRoutes(scope, modules, MODULES, { ...platformServices, config });
  });
  await app.register(webPages, { connectOrigins: [integrations.wallet.tokenizationUrl] });

  return Object.assign(app as FastifyInstance, { services, deps, jobs, realtime, integrations });
}

import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { installGuards } from './platform/auth/guards.js';
import { memberCache } from './platform/auth/principal.js';
import { createJobs, type Jobs, type JobsOptions } from './platform/jobs.js';
import { createRealtime, type Realtime, type RealtimeOptions } from './platform/realtime.js';
import { jwtSigner } from './platform/auth/jwt.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { Deps } from './platform/deps.js';
import { healthRoutes } from './platform/health.js';
import { genReqId, installErrorHandling } from './platform/http.js';
import { installOpenApi } from './platform/openapi.js';
import { tenantResolver } from './platform/tenancy.js';
import { installValidators } from './platform/validation.js';
import { makeMailer, type Mailer } from './platform/mail.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { authService } from './modules/auth/auth.service.js';
import { tenantsRoutes } from './modules/tenants/tenants.routes.js';
import { tenantsService } from './modules/tenants/tenants.service.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { usersService } from './modules/users/users.service.js';
import { menuRoutes } from './modules/menu/menu.routes.js';
import { menuService } from './modules/menu/menu.service.js';
import { tablesRoutes } from './modules/tables/tables.routes.js';
import { tablesService } from './modules/tables/tables.service.js';
import { reservationsRoutes } from './modules/reservations/reservations.routes.js';
import { reservationsService } from './modules/reservations/reservations.service.js';
import { rateLimiter } from './platform/rate-limit.js';
import { idempotency } from './platform/idempotency.js';
import { injectDeliverer, makePaymentProviders, type PaymentProviders, type PaymentProvidersOptions } from './integrations/providers.js';
import { branchesService } from './modules/branches/branches.service.js';
import { ordersRoutes } from './modules/orders/orders.routes.js';
import { ordersService } from './modules/orders/orders.service.js';
import { paymentsRoutes } from './modules/orders/payments.routes.js';
import { PAYMENT_SWEEP_JOB, paymentsService } from './modules/orders/payments.service.js';

export interface AppOptions {
  database: Database;
  config: Config;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
  /** Job queue tuning. Workers run when the role is worker or all, unless `jobs.workers` says otherwise. */
  jobs?: Partial<Pick<JobsOptions, 'workers' | 'scheduler' | 'pollingIntervalMs' | 'poolSize' | 'stopTimeoutMs' | 'boss'>>;
  realtime?: Partial<Pick<RealtimeOptions, 'heartbeatIntervalMs' | 'heartbeatTimeoutMs' | 'maxTrackedOrders' | 'maxJoinsPerMinute'>>;
  /** Payment provider overrides (tests pass a fetch or a webhook deliverer). */
  payments?: PaymentProvidersOptions;
  /** Outgoing mail; default SMTP when `SMTP_URL` is set, else the log (tests pass a memory transport). */
  mailer?: Mailer;
}

/** Log options: JSON lines, with credentials redacted wherever they could appear. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
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

export function buildServices(deps: Deps, providers: PaymentProviders) {
  const branches = branchesService(deps);
  const users = usersService(deps, branches);
  const auth = authService(deps, users);
  const tenants = tenantsService(deps);
  const rateLimits = rateLimiter(deps.db, deps.clock);
  const menu = menuService(deps);
  const tables = tablesService(deps);
  const reservations = reservationsService(deps);
  const orders = ordersService(deps, { menu, tables, branches });
  const payments = paymentsService(deps, { orders, providers, tenants, branches });
  return { users, auth, tenants, rateLimits, menu, tables, reservations, branches, orders, payments, idempotency: idempotency(deps.db, deps.clock) };
}

export type Services = ReturnType<typeof buildServices>;

export type App = FastifyInstance & { services: Services; deps: Deps; jobs: Jobs; realtime: Realtime; providers: PaymentProviders };

export async function buildApp(opts: AppOptions): Promise<App> {
  const { database, config } = opts;
  const clock = opts.clock ?? systemClock;
  const app = Fastify({
    logger: opts.logger ?? loggerOptions(config.logLevel),
    genReqId,
    // Fastify accepts a hop count too; its types list only booleans, strings and functions.
    trustProxy: (config.trustProxy ?? false) as boolean | string,
    bodyLimit: 1024 * 1024,
  });
  installValidators(app);
  installErrorHandling(app);
  await installOpenApi(app);

  const jwt = jwtSigner(config.jwtSecret, clock);
  // Jobs and realtime: started when the app is ready, stopped when it closes (see docs/decisions.md).
  const jobs = createJobs({ database, log: app.log, workers: config.role !== 'api', ...opts.jobs });
  const realtime = createRealtime({ database, db: database.db, jwt, log: app.log, clock, ...opts.realtime });
  if (config.role !== 'worker') realtime.attach(app.server);
  const deps: Deps = {
    db: database.db,
    config,
    clock,
    jwt,
    tenants: tenantResolver(database.db),
    members: memberCache(database.db),
    log: app.log,
    jobs,
    realtime,
    mail: opts.mailer ?? makeMailer(config, app.log),
  };
  // A change to a user's access also re-checks their kitchen and inventory sockets, here and in the other processes.
  deps.members.onForget((userId) => realtime.userChanged(userId));
  // In-process simulators deliver their webhooks through the app itself (no socket, same route and signature check).
  const providers = makePaymentProviders(config, { clock, log: app.log, gatewayAWebhook: injectDeliverer(app), ...opts.payments });
  const services = buildServices(deps, providers);
  realtime.setOrderLookup(async (slug, orderNumber) => {
    const tenant = await deps.tenants.bySlug(slug);
    const order = tenant?.isActive ? await services.orders.findByNumber(tenant.id, orderNumber) : null;
    return order ? { tenantId: order.tenantId, orderNumber: order.orderNumber } : null;
  });
  app.addHook('onReady', async () => {
    await realtime.start();
    await jobs.start();
    await jobs.schedule(PAYMENT_SWEEP_JOB, '* * * * *');
  });
  app.addHook('preClose', async () => {
    // Stop taking WebSocket clients and new jobs at once; running jobs finish during onClose.
    realtime.disconnectLocal();
    void jobs.stopWorkers();
  });
  app.addHook('onClose', async () => {
    await jobs.stop();
    await realtime.close();
    await providers.close();
    await deps.mail.close();
  });

  healthRoutes(app, database);
  await providers.mountSimulators(app);
  await app.register(async (scope) => {
    installGuards(scope, deps);
    authRoutes(scope, services);
    tenantsRoutes(scope, services);
    usersRoutes(scope, services);
    menuRoutes(scope, services);
    tablesRoutes(scope, services);
    reservationsRoutes(scope, { ...services, config });
    ordersRoutes(scope, services);
    paymentsRoutes(scope, services);
  });

  return Object.assign(app as FastifyInstance, { services, deps, jobs, realtime, providers });
}

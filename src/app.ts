import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { installGuards } from './platform/auth/guards.js';
import { jwtSigner } from './platform/auth/jwt.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { Deps } from './platform/deps.js';
import { healthRoutes } from './platform/health.js';
import { genReqId, installErrorHandling } from './platform/http.js';
import { installOpenApi } from './platform/openapi.js';
import { tenantResolver } from './platform/tenancy.js';
import { installValidators } from './platform/validation.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { authService } from './modules/auth/auth.service.js';
import { tenantsRoutes } from './modules/tenants/tenants.routes.js';
import { tenantsService } from './modules/tenants/tenants.service.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { usersService } from './modules/users/users.service.js';

export interface AppOptions {
  database: Database;
  config: Config;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
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

export function buildServices(deps: Deps) {
  const users = usersService(deps);
  const auth = authService(deps, users);
  const tenants = tenantsService(deps);
  return { users, auth, tenants };
}

export type Services = ReturnType<typeof buildServices>;

export type App = FastifyInstance & { services: Services; deps: Deps };

export async function buildApp(opts: AppOptions): Promise<App> {
  const { database, config } = opts;
  const clock = opts.clock ?? systemClock;
  const app = Fastify({
    logger: opts.logger ?? loggerOptions(config.logLevel),
    genReqId,
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { removeAdditional: true } },
  });
  installValidators(app);
  installErrorHandling(app);
  await installOpenApi(app);

  const deps: Deps = {
    db: database.db,
    config,
    clock,
    jwt: jwtSigner(config.jwtSecret, clock),
    tenants: tenantResolver(database.db),
    log: app.log,
  };
  const services = buildServices(deps);

  healthRoutes(app, database);
  await app.register(async (scope) => {
    installGuards(scope, deps);
    authRoutes(scope, services);
    tenantsRoutes(scope, services);
    usersRoutes(scope, services);
  });

  return Object.assign(app as FastifyInstance, { services, deps });
}

import { apiKeys, appInstallations, apps, appWebhookDeliveries } from '../../db/schema/apps.js';
import { defineModule } from '../../platform/module.js';
import { auditModule } from '../audit/index.js';
import { menuModule } from '../menu/index.js';
import { ordersModule } from '../orders/index.js';
import { reservationsModule } from '../reservations/index.js';
import { usersModule } from '../users/index.js';
import { apiKeysService } from './apikeys.service.js';
import { seedDemoApp } from './apps.demo.js';
import { appsJobs } from './apps.jobs.js';
import { catalogRoutes } from './catalog.routes.js';
import { catalogService } from './catalog.service.js';
import { credentials } from './credentials.js';
import { installationsRoutes } from './installations.routes.js';
import { installationsService } from './installations.service.js';
import { publicApiRoutes } from './public-api.routes.js';
import { publicApiService } from './public-api.service.js';
import { webhooksRoutes } from './webhooks.routes.js';
import { webhooksService } from './webhooks.service.js';

export type { CatalogService } from './catalog.service.js';
export type { InstallationsService } from './installations.service.js';

/**
 * The App marketplace (spec sections 4.1, 4.2, 5, 6, 8, 9): the operator's Apps, tenants' installations,
 * the public developer API `/public/v1` with its credentials, and signed webhooks to Apps.
 */
export const appsModule = defineModule({
  name: 'apps',
  needs: [usersModule, ordersModule, menuModule, reservationsModule, auditModule],
  tables: [apps, appInstallations, apiKeys, appWebhookDeliveries],
  services(deps, { users, orders, audit }) {
    const catalog = catalogService(deps);
    deps.apiCredentials.use(credentials(deps, { users }));
    return {
      catalog,
      apiKeys: apiKeysService(deps, { users }),
      installations: installationsService(deps, { catalog, audit }),
      publicApi: publicApiService(deps, { orders }),
      webhooks: webhooksService(deps, { orders }),
    };
  },
  routes(app, services) {
    catalogRoutes(app, services);
    installationsRoutes(app, services);
    publicApiRoutes(app, services);
    webhooksRoutes(app, services);
  },
  demoSeed: (services) => seedDemoApp(services),
  jobs: { declared: appsJobs, handlers: ({ webhooks }) => ({ deliver: (data) => webhooks.deliver(data) }) },
});

import { catalogSyncRuns, deliveryEvents, deliveryStatusPushes, marketplaceIntegrations } from '../../db/schema/delivery.js';
import { cron, defineModule } from '../../platform/module.js';
import { menuModule } from '../menu/index.js';
import { ordersModule } from '../orders/index.js';
import { paymentsModule } from '../payments/index.js';
import { seedDemoDelivery } from './delivery.demo.js';
import { deliveryJobs } from './delivery.jobs.js';
import { ingestRoutes } from './ingest.routes.js';
import { ingestService } from './ingest.service.js';
import { integrationsRoutes } from './integrations.routes.js';
import { integrationsService } from './integrations.service.js';
import { syncRoutes } from './sync.routes.js';
import { syncService } from './sync.service.js';

/**
 * Delivery platforms (spec 4.14): a tenant's integrations with provider_a, provider_b and provider_c,
 * their signed order webhooks into the order queue, catalog sync and status push.
 */
export const deliveryModule = defineModule({
  name: 'delivery',
  needs: [menuModule, ordersModule, paymentsModule],
  tables: [marketplaceIntegrations, deliveryEvents, deliveryStatusPushes, catalogSyncRuns],
  services(deps, { menu, orders, payments }) {
    const integrations = integrationsService(deps);
    return {
      deliveryIntegrations: integrations,
      deliveryIngest: ingestService(deps, { integrations, menu, orders, payments }),
      deliverySync: syncService(deps, { integrations, menu, orders }),
    };
  },
  routes(app, services) {
    integrationsRoutes(app, services);
    ingestRoutes(app, services);
    syncRoutes(app, services);
  },
  jobs: {
    declared: deliveryJobs,
    handlers: ({ deliveryIngest, deliverySync }) => ({
      order: (data) => deliveryIngest.runOrderJob(data),
      sync: (data, job) => deliverySync.runSyncJob(data, job),
      status: (data, job) => deliverySync.runStatusJob(data, job),
      cleanup: () => deliveryIngest.cleanup(),
    }),
  },
  schedules: [cron(deliveryJobs.cleanup, '*/10 * * * *')],
  demoSeed: (services, demo) => seedDemoDelivery(services, demo),
});

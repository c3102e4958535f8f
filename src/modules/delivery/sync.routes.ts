import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { OrderPushesParams, StatusPushList, SyncRunsResponse } from './sync.schemas.js';
import type { SyncService } from './sync.service.js';

const tags = ['delivery'];
/** A full sync pushes the whole menu to the platforms: the tenant admin's decision (the spec says only "JWT"). */
const tenantAdmin = { roles: ['admin'] } as const;

const syncDescription =
  'Opens a catalog sync run per integration (total = the active menu items) and queues one job per (item, integration); ' +
  'each item goes to the platform with its external code for that provider (else its id), price and availability. ' +
  'When every item is counted the run finishes and the integration\'s `lastSyncAt` and `syncedItemCount` are set.';

/** Catalog sync (spec 4.14) and what the platforms were told of their orders' statuses. */
export function syncRoutes(app: RouteApp, { deliverySync: sync }: { deliverySync: SyncService }) {
  app.post('/t/:slug/marketplace/integrations/sync', {
    schema: {
      tags,
      summary: 'Full catalog sync to every active delivery platform (202: queued)',
      description: `${syncDescription} No active integration: \`runs\` is empty.`,
      params: TenantParams,
      response: withErrors({ 202: SyncRunsResponse }),
    },
    config: { auth: tenantAdmin },
    handler: async (req, reply) => reply.code(202).send(await sync.syncAll(ctxOf(req).db)),
  });

  app.post('/t/:slug/marketplace/integrations/:id/sync', {
    schema: {
      tags,
      summary: 'Full catalog sync to one delivery platform (202: queued); 409 when the integration is inactive',
      description: syncDescription,
      params: TenantIdParams,
      response: withErrors({ 202: SyncRunsResponse }, [400, 401, 403, 404, 409]),
    },
    config: { auth: tenantAdmin },
    handler: async (req, reply) => reply.code(202).send(await sync.syncOne(ctxOf(req).db, req.params.id)),
  });

  app.get('/t/:slug/marketplace/orders/:orderId/pushes', {
    schema: {
      tags,
      summary: 'The status changes of a platform order and what its platform was told of each, oldest first',
      description:
        '`pending` (queued or retrying), `pushed`, `skipped` (the platform has no such status: provider_c only accepts and ' +
        'cancels), `failed` (refused, or out of attempts; `error` says why). Empty for an order that did not come from a platform.',
      params: OrderPushesParams,
      response: withErrors({ 200: StatusPushList }),
    },
    config: { auth: { roles: ['admin', 'branch_manager'] } },
    handler: (req) => sync.orderPushes(ctxOf(req), req.params.orderId),
  });
}

import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, withErrors } from '../../platform/schemas.js';
import { Installation } from './installations.schemas.js';
import { DeliveriesQuery, DeliveryPage } from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const tenantAdmin = { roles: ['admin'] } as const;

/** The tenant admin's view of the webhooks to an installed App: the delivery log, and enabling them after a 410. */
export function webhooksRoutes(app: RouteApp, { webhooks }: { webhooks: WebhooksService }) {
  app.get('/t/:slug/admin/marketplace/installations/:id/deliveries', {
    schema: {
      tags: ['marketplace'],
      summary: 'The webhook delivery log of an installation, newest first, with every attempt (page from 1, limit 20 up to 100)',
      params: TenantIdParams,
      querystring: DeliveriesQuery,
      response: withErrors({ 200: DeliveryPage }),
    },
    config: { auth: tenantAdmin },
    handler: (req) => webhooks.deliveries(ctxOf(req), req.params.id, req.query),
  });

  app.post('/t/:slug/admin/marketplace/installations/:id/webhooks/enable', {
    schema: {
      tags: ['marketplace'],
      summary: 'Send webhooks to the App again after it answered 410 Gone (no-op when enabled); 409 on a revoked installation',
      description: 'Events that happened while webhooks were disabled are not sent.',
      params: TenantIdParams,
      response: withErrors({ 200: Installation }, [400, 401, 403, 404, 409]),
    },
    config: { auth: tenantAdmin },
    handler: (req) => webhooks.enableWebhooks(ctxOf(req), req.params.id),
  });
}

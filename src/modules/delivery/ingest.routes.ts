import { ctxOf, tenantOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { DELIVERY_PROVIDERS } from '../../db/schema/delivery.js';
import { DeliveryEvent, DeliveryEventPage, DeliveryEventsQuery, WebhookReceipt } from './ingest.schemas.js';
import type { IngestService } from './ingest.service.js';

const SIGNATURES = {
  provider_a: 'HMAC-SHA256 of the raw body, hex, in x-provider-a-hmac-sha256',
  provider_b: 'x-provider-b-signature: t=<unix>,sign=<hex HMAC-SHA256 of "<t>.<raw body>">',
  provider_c: "RS256 JWT in Authorization: Bearer, checked against the integration's jwksUrl (aud = merchant id)",
} as const;

/** Platform webhooks (spec 4.14) and the review queue of their events. */
export function ingestRoutes(app: RouteApp, { deliveryIngest }: { deliveryIngest: IngestService }) {
  // The signatures cover the exact bytes received: these routes keep the raw body.
  app.register(async (raw) => {
    raw.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer', bodyLimit: 256 * 1024 }, (_req, body, done) => done(null, body));
    for (const provider of DELIVERY_PROVIDERS) {
      raw.post(`/t/:slug/webhooks/${provider}`, {
        schema: {
          tags: ['delivery'],
          summary: `${provider} order events (${SIGNATURES[provider]}); a repeated idempotency key answers { deduplicated: true }`,
          description:
            'Idempotency key: the `idempotency-key` header, else the event id of the body, kept 24 hours. ' +
            'Without a secret (or JWKS URL) on the integration the event is accepted unchecked (sandbox), with a warning in the log.',
          security: [],
          params: TenantParams,
          response: withErrors({ 200: WebhookReceipt }, [400, 401, 404, 503]),
        },
        config: { auth: { public: true } },
        handler: (req) => deliveryIngest.receive(tenantOf(req), provider, Buffer.isBuffer(req.body) ? req.body : Buffer.from(''), req.headers),
      });
    }
  });

  app.get('/t/:slug/marketplace/events', {
    schema: {
      tags: ['delivery'],
      summary: "The delivery platforms' events, newest first (status=needs_review: the orders waiting for a person); page from 1, limit 20 up to 100",
      params: TenantParams,
      querystring: DeliveryEventsQuery,
      response: withErrors({ 200: DeliveryEventPage }),
    },
    config: { auth: { roles: ['admin', 'branch_manager'] } },
    handler: (req) => deliveryIngest.listEvents(ctxOf(req).db, req.query),
  });

  app.post('/t/:slug/marketplace/events/:id/retry', {
    schema: {
      tags: ['delivery'],
      summary: 'Queue a needs_review or failed event again (e.g. after setting the missing external code on a menu item); 409 otherwise',
      params: TenantIdParams,
      response: withErrors({ 200: DeliveryEvent }, [400, 401, 403, 404, 409]),
    },
    config: { auth: { roles: ['admin'] } },
    handler: (req) => deliveryIngest.retry(ctxOf(req).db, req.params.id),
  });
}

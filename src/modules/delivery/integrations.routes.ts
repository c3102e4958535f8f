import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { CreateIntegrationBody, Integration, IntegrationList, UpdateIntegrationBody } from './integrations.schemas.js';
import type { IntegrationsService } from './integrations.service.js';

const tenantAdmin = { roles: ['admin'] } as const;
const tags = ['delivery'];

/** The tenant admin's integrations with the delivery platforms (spec 2 MarketplaceIntegration, 4.14). Secrets are write-only. */
export function integrationsRoutes(app: RouteApp, { deliveryIntegrations: integrations }: { deliveryIntegrations: IntegrationsService }) {
  app.get('/t/:slug/marketplace/integrations', {
    schema: {
      tags,
      summary: 'The tenant\'s delivery platform integrations (never a secret: only whether it is set)',
      params: TenantParams,
      response: withErrors({ 200: IntegrationList }),
    },
    config: { auth: tenantAdmin },
    handler: (req) => integrations.list(ctxOf(req).db),
  });

  app.post('/t/:slug/marketplace/integrations', {
    schema: {
      tags,
      summary: 'Connect a delivery platform (one integration per provider); inactive unless `active: true`',
      description:
        'Secrets (client secret, webhook secret) are stored encrypted and never answered. With `active: true` the credentials ' +
        'are checked first by asking the platform for a token: 422 `credentials_refused` when it refuses them, 503 ' +
        '`provider_unavailable` when it cannot be reached. 409 `integration_exists` when the tenant has that provider already.',
      params: TenantParams,
      body: CreateIntegrationBody,
      response: withErrors({ 201: Integration }, [400, 401, 403, 404, 409, 422, 503]),
    },
    config: { auth: tenantAdmin },
    handler: async (req, reply) => reply.code(201).send(await integrations.create(ctxOf(req).db, req.body)),
  });

  app.get('/t/:slug/marketplace/integrations/:id', {
    schema: {
      tags,
      summary: 'One delivery platform integration',
      params: TenantIdParams,
      response: withErrors({ 200: Integration }),
    },
    config: { auth: tenantAdmin },
    handler: (req) => integrations.view(ctxOf(req).db, req.params.id),
  });

  app.put('/t/:slug/marketplace/integrations/:id', {
    schema: {
      tags,
      summary: 'Change credentials fields, the webhook secret (null clears it) or the JWKS URL',
      description:
        'Fields left out are kept. New credentials drop the cached platform token; on an active integration they are checked ' +
        'with the platform first (422 `credentials_refused`, 503 `provider_unavailable`: nothing changed).',
      params: TenantIdParams,
      body: UpdateIntegrationBody,
      response: withErrors({ 200: Integration }, [400, 401, 403, 404, 409, 422, 503]),
    },
    config: { auth: tenantAdmin },
    handler: (req) => integrations.update(ctxOf(req).db, req.params.id, req.body),
  });

  app.post('/t/:slug/marketplace/integrations/:id/activate', {
    schema: {
      tags,
      summary: 'Activate: the platform must give a token for the credentials (a repeat answers the active integration)',
      description: '422 `credentials_refused` (with the platform\'s reason) or 503 `provider_unavailable`: the integration stays inactive.',
      params: TenantIdParams,
      response: withErrors({ 200: Integration }, [400, 401, 403, 404, 409, 422, 503]),
    },
    config: { auth: tenantAdmin },
    handler: (req) => integrations.activate(ctxOf(req).db, req.params.id),
  });

  app.post('/t/:slug/marketplace/integrations/:id/deactivate', {
    schema: {
      tags,
      summary: 'Deactivate: its webhooks are refused and nothing is pushed to the platform (a repeat is a no-op)',
      params: TenantIdParams,
      response: withErrors({ 200: Integration }),
    },
    config: { auth: tenantAdmin },
    handler: (req) => integrations.deactivate(ctxOf(req).db, req.params.id),
  });
}

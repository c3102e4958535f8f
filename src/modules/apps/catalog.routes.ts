import { Type } from '@sinclair/typebox';
import type { RouteApp } from '../../platform/http.js';
import { IdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { App, AppSlugParams, CreateAppBody, CreatedApp, OperatorApp, UpdateAppBody } from './catalog.schemas.js';
import type { CatalogService } from './catalog.service.js';

const superadmin = { superadmin: true } as const;
const tenantAdmin = { roles: ['admin'] } as const;

/** The operator's App routes (`/api/superadmin/apps`) and the tenant admin's marketplace (spec 4.1). */
export function catalogRoutes(app: RouteApp, { catalog }: { catalog: CatalogService }) {
  app.get('/api/superadmin/apps', {
    schema: { tags: ['superadmin'], summary: 'Every App of the marketplace, any status, with its active installations', response: withErrors({ 200: Type.Array(OperatorApp) }, [401, 403]) },
    config: { auth: superadmin },
    handler: () => catalog.list(),
  });

  app.post('/api/superadmin/apps', {
    schema: {
      tags: ['superadmin'],
      summary: 'Create an App (draft); the client secret is answered once',
      body: CreateAppBody,
      response: withErrors({ 201: CreatedApp }, [400, 401, 403, 409]),
    },
    config: { auth: superadmin },
    handler: async (req, reply) => reply.code(201).send(await catalog.create(req.body)),
  });

  app.get('/api/superadmin/apps/:id', {
    schema: { tags: ['superadmin'], summary: 'An App', params: IdParams, response: withErrors({ 200: OperatorApp }) },
    config: { auth: superadmin },
    handler: (req) => catalog.get(req.params.id),
  });

  app.patch('/api/superadmin/apps/:id', {
    schema: {
      tags: ['superadmin'],
      summary: 'Change an App\'s name, description, scopes or webhook URL (409 once deprecated)',
      params: IdParams,
      body: UpdateAppBody,
      response: withErrors({ 200: OperatorApp }, [400, 401, 403, 404, 409]),
    },
    config: { auth: superadmin },
    handler: (req) => catalog.update(req.params.id, req.body),
  });

  app.post('/api/superadmin/apps/:id/publish', {
    schema: {
      tags: ['superadmin'],
      summary: 'Publish an App: tenants see it and may install it (a repeat is a no-op; 409 once deprecated)',
      params: IdParams,
      response: withErrors({ 200: OperatorApp }, [400, 401, 403, 404, 409]),
    },
    config: { auth: superadmin },
    handler: (req) => catalog.publish(req.params.id),
  });

  app.get('/t/:slug/admin/marketplace/apps', {
    schema: { tags: ['marketplace'], summary: 'Published Apps', params: TenantParams, response: withErrors({ 200: Type.Array(App) }) },
    config: { auth: tenantAdmin },
    handler: () => catalog.listPublished(),
  });

  app.get('/t/:slug/admin/marketplace/apps/:appSlug', {
    schema: { tags: ['marketplace'], summary: 'A published App (404 for a draft or deprecated one)', params: AppSlugParams, response: withErrors({ 200: App }) },
    config: { auth: tenantAdmin },
    handler: (req) => catalog.getPublished(req.params.appSlug),
  });
}

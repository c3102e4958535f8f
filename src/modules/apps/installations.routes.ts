import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { pageWindow, sendPage } from '../../platform/pagination.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { AppSlugParams } from './catalog.schemas.js';
import { INSTALLATIONS_PAGE, InstallationsQuery, InstallBody, Installation, InstallationWithApp, Installed } from './installations.schemas.js';
import type { InstallationsService } from './installations.service.js';

const tenantAdmin = { roles: ['admin'] } as const;

/** The tenant admin's installations (spec 4.1). */
export function installationsRoutes(app: RouteApp, { installations }: { installations: InstallationsService }) {
  app.get('/t/:slug/admin/marketplace/installations', {
    schema: {
      tags: ['marketplace'],
      summary: 'Active installations, each with its App',
      params: TenantParams,
      querystring: InstallationsQuery,
      response: withErrors({ 200: Type.Array(InstallationWithApp) }),
    },
    config: { auth: tenantAdmin },
    handler: async (req, reply) => {
      const { installations: rows, total } = await installations.list(ctxOf(req), req.query);
      return sendPage(req, reply, pageWindow(req.query, INSTALLATIONS_PAGE), total, rows);
    },
  });

  app.post('/t/:slug/admin/marketplace/apps/:appSlug/install', {
    schema: {
      tags: ['marketplace'],
      summary: 'Install a published App with some of its scopes; the access token is answered only here',
      description:
        'Checked in this order: the App is published (400 `app_not_published`), the scopes are a subset of the App\'s ' +
        '(400 `invalid_scopes`), no active installation of it in this tenant (409 `already_installed`: revoke it first).',
      params: AppSlugParams,
      body: InstallBody,
      response: withErrors({ 201: Installed }, [400, 401, 403, 404, 409]),
    },
    config: { auth: tenantAdmin },
    handler: async (req, reply) => reply.code(201).send(await installations.install(ctxOf(req), req.params.appSlug, req.body.scopes)),
  });

  app.delete('/t/:slug/admin/marketplace/installations/:id', {
    schema: {
      tags: ['marketplace'],
      summary: 'Revoke an installation: its token fails at once and its webhooks stop (a repeat keeps the first revokedAt)',
      params: TenantIdParams,
      response: withErrors({ 200: Installation }),
    },
    config: { auth: tenantAdmin },
    handler: (req) => installations.revoke(ctxOf(req), req.params.id),
  });
}

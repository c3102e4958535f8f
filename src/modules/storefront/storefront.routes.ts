import { ctxOf, tenantOf } from '../../platform/auth/guards.js';
import { onlyFor } from '../../platform/business-type.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantParams, withErrors } from '../../platform/schemas.js';
import { Storefront, STOREFRONT_CACHE_CONTROL, StorefrontQuery, TableQrFile, TableQrParams, TableQrQuery } from './storefront.schemas.js';
import type { StorefrontService } from './storefront.service.js';

const tags = ['storefront'];
const restaurantOnly = onlyFor(['restaurant'], 'Table QR codes');

export function storefrontRoutes(app: RouteApp, { storefront }: { storefront: StorefrontService }) {
  app.get('/t/:slug/storefront', {
    schema: {
      tags,
      summary: 'What the customer menu and kitchen pages need first: the tenant, the PDV and table asked for, the wallet key (public)',
      description: '404 when `pdv` names no active point of sale of the tenant; `table` is null when the tenant has no live table with that number.',
      security: [],
      params: TenantParams,
      querystring: StorefrontQuery,
      response: withErrors({ 200: Storefront }, [400, 403, 404]),
    },
    config: { auth: { public: true } },
    handler: async (req, reply) => {
      const view = await storefront.storefront(tenantOf(req), req.query);
      reply.header('cache-control', STOREFRONT_CACHE_CONTROL);
      return view;
    },
  });

  app.get('/t/:slug/pdvs/:pdvId/table-qr', {
    schema: {
      tags,
      summary: 'Printable QR codes of the tables for a PDV (HTML, A4), or one table as PNG (format=png&table=N)',
      description:
        'Each code opens `<PUBLIC_URL>/t/<slug>/b/<pdv slug>/menu?table=<number>`. 400 when format=png has no table; ' +
        '404 for an unknown PDV or table; branch managers only for the PDVs of their branches.',
      params: TableQrParams,
      querystring: TableQrQuery,
      response: withErrors({ 200: TableQrFile }, [400, 401, 403, 404]),
    },
    config: { auth: { roles: ['admin', 'branch_manager'] } },
    onRequest: restaurantOnly,
    handler: async (req, reply) => {
      const file = await storefront.tableQr(ctxOf(req), req.params.pdvId, req.query);
      return reply.type(file.type).header('cache-control', 'no-store').send(file.body);
    },
  });
}

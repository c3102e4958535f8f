import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantParams, withErrors } from '../../platform/schemas.js';
import type { FiscalService } from './fiscal.service.js';
import { NcmMatch, NcmSearchQuery } from './ncm.schemas.js';

/** `GET /t/:slug/fiscal/ncm` (spec 4.9: fiscal routes need admin or superadmin). */
export function ncmRoutes(app: RouteApp, { fiscal }: { fiscal: FiscalService }) {
  app.get('/t/:slug/fiscal/ncm', {
    schema: {
      tags: ['fiscal'],
      summary: 'NCM search: 8-digit codes starting with the digits given first (score 1), then by trigram similarity of the description',
      description: 'Accents and case ignored; the text searched is the code’s description, everyday aliases and the descriptions above it.',
      params: TenantParams,
      querystring: NcmSearchQuery,
      response: withErrors({ 200: Type.Array(NcmMatch) }),
    },
    config: { auth: { roles: ['admin'] } },
    handler: (req) => fiscal.searchNcm(ctxOf(req).db, req.query),
  });
}

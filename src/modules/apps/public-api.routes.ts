import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import { onlyFor } from '../../platform/business-type.js';
import type { RouteApp } from '../../platform/http.js';
import { pageWindow, sendPage, slicePage } from '../../platform/pagination.js';
import { RateLimited } from '../../platform/rate-limit.js';
import { withErrors } from '../../platform/schemas.js';
import { AdminMenuItem, type MenuService } from '../menu/index.js';
import { Order } from '../orders/index.js';
import { CreateReservationBody, Reservation, type ReservationsService } from '../reservations/index.js';
import { PUBLIC_MENU_ITEMS_PAGE, PUBLIC_ORDERS_PAGE, PUBLIC_RESERVATIONS_PAGE, PublicMenuItemsQuery, PublicOrdersQuery, PublicReservationsQuery } from './public-api.schemas.js';
import type { PublicApiService } from './public-api.service.js';

const TAG = 'public-api';
/** Both credentials of section 5: the installation token (target) and the legacy key (deprecated). */
const security: Record<string, string[]>[] = [{ installationToken: [] }, { apiKey: [] }];
const errors = [400, 401, 403, 404, 410] as const;
const restaurantOnly = onlyFor(['restaurant'], 'Reservations');

const describe = (scope: string, text: string) =>
  `${text} Needs the \`${scope}\` scope with an installation token (legacy keys have every scope). ` +
  '200 requests per rolling 60 s per credential; `X-RateLimit-*` headers on every answer, 429 with `Retry-After` past it.';

/** The public developer API (spec 4.2): the installation's tenant, raw unwrapped arrays. */
export function publicApiRoutes(
  app: RouteApp,
  { publicApi, menu, reservations }: { publicApi: PublicApiService; menu: MenuService; reservations: ReservationsService },
) {
  app.get('/public/v1/orders', {
    schema: {
      tags: [TAG],
      summary: 'The tenant\'s orders, newest first (by default those of the last 7 days)',
      description: describe(
        'orders.read',
        'Optional `status`; `from`/`to` (YYYY-MM-DD, at most 31 days) choose another period. At most 1000 orders an answer ' +
          '(`limit`, default 1000); `page` reads further, `X-Total-Count` gives the number of orders.',
      ),
      security,
      querystring: PublicOrdersQuery,
      response: withErrors({ 200: Type.Array(Order), 429: RateLimited }, [...errors]),
    },
    config: { auth: { api: { scope: 'orders.read' } } },
    handler: async (req, reply) => {
      const { orders, total } = await publicApi.orders(ctxOf(req), req.query);
      return sendPage(req, reply, pageWindow(req.query, PUBLIC_ORDERS_PAGE), total, orders);
    },
  });

  app.get('/public/v1/menu/items', {
    schema: {
      tags: [TAG],
      summary: 'Every menu item of the tenant (available or not), with its fiscal fields',
      description: describe('menu.read', 'Cache it: 60 s while in active use, 5 min otherwise. At most 1000 items an answer (`limit`, `page`, `X-Total-Count`).'),
      security,
      querystring: PublicMenuItemsQuery,
      response: withErrors({ 200: Type.Array(AdminMenuItem), 429: RateLimited }, [...errors]),
    },
    config: { auth: { api: { scope: 'menu.read' } } },
    handler: async (req, reply) => {
      const window = pageWindow(req.query, PUBLIC_MENU_ITEMS_PAGE);
      const { rows, total } = slicePage(await menu.listItems(ctxOf(req).db), window);
      return sendPage(req, reply, window, total, rows);
    },
  });

  app.get('/public/v1/reservations', {
    schema: {
      tags: [TAG],
      summary: 'Reservations, optionally of one date',
      description: describe('reservations.read', 'Restaurants only (403 for markets and bakeries).'),
      security,
      querystring: PublicReservationsQuery,
      response: withErrors({ 200: Type.Array(Reservation), 429: RateLimited }, [...errors]),
    },
    config: { auth: { api: { scope: 'reservations.read' } } },
    onRequest: restaurantOnly,
    handler: async (req, reply) => {
      const { reservations: rows, total } = await reservations.list(ctxOf(req).db, req.query);
      return sendPage(req, reply, pageWindow(req.query, PUBLIC_RESERVATIONS_PAGE), total, rows);
    },
  });

  app.post('/public/v1/reservations', {
    schema: {
      tags: [TAG],
      summary: 'Create a reservation (pending) as the restaurant would',
      description: describe('reservations.write', 'Validated like the panel\'s reservation (a deliberate change: the spec\'s v1 took any JSON).'),
      security,
      body: CreateReservationBody,
      response: withErrors({ 201: Reservation, 429: RateLimited }, [...errors, 409]),
    },
    config: { auth: { api: { scope: 'reservations.write' } } },
    onRequest: restaurantOnly,
    handler: async (req, reply) => reply.code(201).send(await reservations.create(ctxOf(req).tenant, req.body)),
  });
}

import { Type } from '@sinclair/typebox';
import { ctxOf, tenantOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { pageWindow, sendPage } from '../../platform/pagination.js';
import { onlyFor } from '../../platform/business-type.js';
import type { Config } from '../../config.js';
import { countAccepted, RateLimited, type RateLimiter } from '../../platform/rate-limit.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  RESERVATIONS_PAGE,
  CreateReservationBody,
  Reservation,
  ReservationsQuery,
  SeatReservationBody,
  UpdateReservationBody,
} from './reservations.schemas.js';
import type { ReservationsService } from './reservations.service.js';

/** Prefix of the rate-limit key of public reservation requests: `reservations:create:<tenantId>:<ip>`. */
export const RESERVATION_LIMIT_NAME = 'reservations:create';

/** Spec "JWT" writes: admins, branch managers and staff (the floor); accountants are refused. */
const floorRoles = { roles: ['admin', 'branch_manager', 'staff'] } as const;
const restaurantOnly = onlyFor(['restaurant'], 'Tables and reservations');

export function reservationsRoutes(
  app: RouteApp,
  { reservations, rateLimits, config }: { reservations: ReservationsService; rateLimits: RateLimiter; config: Pick<Config, 'reservationRateLimit'> },
) {
  // The spec's planned limit ("POST reservations: 10 per minute", not active): off unless RESERVATION_RATE_LIMIT is set.
  const setting = config.reservationRateLimit ?? null;
  const limit = setting && { name: RESERVATION_LIMIT_NAME, ...setting };

  app.get('/t/:slug/reservations', {
    schema: {
      tags: ['reservations'],
      summary: 'Reservations by date and time, optionally filtered',
      params: TenantParams,
      querystring: ReservationsQuery,
      response: withErrors({ 200: Type.Array(Reservation) }),
    },
    config: { auth: { roles: ['admin'] } },
    onRequest: restaurantOnly,
    handler: async (req, reply) => {
      const { reservations: rows, total } = await reservations.list(ctxOf(req).db, req.query);
      return sendPage(req, reply, pageWindow(req.query, RESERVATIONS_PAGE), total, rows);
    },
  });

  app.post('/t/:slug/reservations', {
    schema: {
      tags: ['reservations'],
      summary: 'Request a reservation (public; optionally rate limited per restaurant and client address, RESERVATION_RATE_LIMIT)',
      description:
        'Without a token: a guest asks for a slot (`tableId` and `durationMinutes` are 400). With a floor token (admin, branch_manager, ' +
        'staff): the restaurant books it, and may hold a table (`tableId`) for `durationMinutes` (default 120); two holds of a table ' +
        'that overlap are 409 `table_reserved`. Staff bookings are not rate limited.',
      security: [{}, { bearer: [] }],
      params: TenantParams,
      body: CreateReservationBody,
      response: withErrors({ 201: Reservation, 429: RateLimited }, [400, 401, 403, 404, 409]),
    },
    config: { auth: { optional: true, roles: floorRoles.roles } },
    onRequest: restaurantOnly,
    handler: async (req, reply) => {
      const tenant = tenantOf(req);
      const input = req.body;
      // Optional auth: a token makes it the restaurant's booking (the guard checked the role), none a guest's request.
      if (req.principal) return reply.code(201).send(await reservations.create(ctxOf(req).tenant, input));
      if (!limit) return reply.code(201).send(await reservations.create(tenant, input, { guest: true }));
      // Counted per restaurant and client address, and only when the reservation is created.
      const key = `${limit.name}:${tenant.id}:${req.ip}`;
      const created = await countAccepted(rateLimits, reply, key, limit, tenant.db, (counted) =>
        reservations.create({ db: counted, timezone: tenant.timezone }, input, { guest: true }),
      );
      return created ? reply.code(201).send(created.value) : reply;
    },
  });

  app.put('/t/:slug/reservations/:id', {
    schema: {
      tags: ['reservations'],
      summary: 'Change status or details, table and duration (409 for a forbidden move, a cancelled reservation or an overlapping hold)',
      params: TenantIdParams,
      body: UpdateReservationBody,
      response: withErrors({ 200: Reservation }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floorRoles },
    onRequest: restaurantOnly,
    handler: (req) => reservations.update(ctxOf(req).tenant, req.params.id, req.body),
  });

  app.post('/t/:slug/reservations/:id/seat', {
    schema: {
      tags: ['reservations'],
      summary: 'Seat the party (from pending or confirmed): its table, or `tableId`, becomes occupied; `orderId` links the open tab of that table',
      description:
        'Without `orderId`, the tab opened next on the table is linked to the reservation when it opens. A table with an open order is 409 ' +
        '`table_in_use` unless `orderId` names its tab; another table than the reservation\'s must not be held by an overlapping ' +
        'reservation (409 `table_reserved`). Seating again changes nothing.',
      params: TenantIdParams,
      body: SeatReservationBody,
      response: withErrors({ 200: Reservation }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floorRoles },
    onRequest: restaurantOnly,
    // The body is optional: a bare POST seats the party at its reserved table.
    preValidation: async (req) => {
      req.body ??= {};
    },
    handler: (req) => reservations.seat(ctxOf(req).db, req.params.id, req.body),
  });

  app.post('/t/:slug/reservations/:id/no-show', {
    schema: {
      tags: ['reservations'],
      summary: 'The party did not come (from pending or confirmed; again: no change)',
      params: TenantIdParams,
      response: withErrors({ 200: Reservation }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floorRoles },
    onRequest: restaurantOnly,
    handler: (req) => reservations.noShow(ctxOf(req).db, req.params.id),
  });

  app.delete('/t/:slug/reservations/:id', {
    schema: {
      tags: ['reservations'],
      summary: 'Cancel a reservation (the record is kept; 409 once seated or marked no-show)',
      params: TenantIdParams,
      response: withErrors({ 200: Reservation }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floorRoles },
    onRequest: restaurantOnly,
    handler: (req) => reservations.cancel(ctxOf(req).db, req.params.id),
  });
}

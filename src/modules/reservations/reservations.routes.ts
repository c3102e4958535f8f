import { Type } from '@sinclair/typebox';
import { ctxOf, tenantOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { onlyFor } from '../../platform/business-type.js';
import type { Config } from '../../config.js';
import { countAccepted, RateLimited, type RateLimiter } from '../../platform/rate-limit.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  CreateReservationBody,
  Reservation,
  ReservationsQuery,
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
    handler: (req) => reservations.list(ctxOf(req).db, req.query),
  });

  app.post('/t/:slug/reservations', {
    schema: {
      tags: ['reservations'],
      summary: 'Request a reservation (public; optionally rate limited per restaurant and client address, RESERVATION_RATE_LIMIT)',
      security: [],
      params: TenantParams,
      body: CreateReservationBody,
      response: withErrors({ 201: Reservation, 429: RateLimited }, [400, 403, 404]),
    },
    config: { auth: { public: true } },
    onRequest: restaurantOnly,
    handler: async (req, reply) => {
      const tenant = tenantOf(req);
      const input = req.body;
      if (!limit) return reply.code(201).send(await reservations.create(tenant, input));
      // Counted per restaurant and client address, and only when the reservation is created.
      const key = `${limit.name}:${tenant.id}:${req.ip}`;
      const created = await countAccepted(rateLimits, reply, key, limit, tenant.db, (counted) =>
        reservations.create({ db: counted, timezone: tenant.timezone }, input),
      );
      return created ? reply.code(201).send(created.value) : reply;
    },
  });

  app.put('/t/:slug/reservations/:id', {
    schema: {
      tags: ['reservations'],
      summary: 'Change status or details (409 for a forbidden move or a cancelled reservation)',
      params: TenantIdParams,
      body: UpdateReservationBody,
      response: withErrors({ 200: Reservation }, [400, 401, 403, 404, 409]),
    },
    config: { auth: floorRoles },
    onRequest: restaurantOnly,
    handler: (req) => reservations.update(ctxOf(req).tenant, req.params.id, req.body),
  });

  app.delete('/t/:slug/reservations/:id', {
    schema: {
      tags: ['reservations'],
      summary: 'Cancel a reservation (the record is kept)',
      params: TenantIdParams,
      response: withErrors({ 200: Reservation }),
    },
    config: { auth: floorRoles },
    onRequest: restaurantOnly,
    handler: (req) => reservations.cancel(ctxOf(req).db, req.params.id),
  });
}

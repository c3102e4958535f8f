import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { onlyFor } from '../../platform/business-type.js';
import { limitPerIp, RateLimited, type RateLimiter } from '../../platform/rate-limit.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  CreateReservationBody,
  Reservation,
  ReservationsQuery,
  UpdateReservationBody,
  type CreateReservationInput,
  type ReservationsFilter,
  type UpdateReservationInput,
} from './reservations.schemas.js';
import type { ReservationsService } from './reservations.service.js';

/** Public reservation requests per client IP (the spec's planned per-endpoint limit). */
export const RESERVATION_CREATE_LIMIT = { name: 'reservations:create', limit: 10, windowMs: 60_000 } as const;

/** Spec "JWT" writes: admins, branch managers and staff (the floor); accountants are refused. */
const floorRoles = { roles: ['admin', 'branch_manager', 'staff'] } as const;
const restaurantOnly = onlyFor(['restaurant'], 'Tables and reservations');

type IdParams = { slug: string; id: string };

export function reservationsRoutes(
  app: FastifyInstance,
  { reservations, rateLimits }: { reservations: ReservationsService; rateLimits: RateLimiter },
) {
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
    handler: (req) => reservations.list(req.ctx.tenantId, req.query as ReservationsFilter),
  });

  app.post('/t/:slug/reservations', {
    schema: {
      tags: ['reservations'],
      summary: 'Request a reservation (public; 10 per minute per client IP)',
      security: [],
      params: TenantParams,
      body: CreateReservationBody,
      response: withErrors({ 201: Reservation, 429: RateLimited }, [400, 403, 404]),
    },
    config: { auth: { public: true } },
    onRequest: [restaurantOnly, limitPerIp(rateLimits, RESERVATION_CREATE_LIMIT)],
    handler: async (req, reply) => reply.code(201).send(await reservations.create(req.tenant!, req.body as CreateReservationInput)),
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
    handler: (req) => reservations.update(req.ctx.tenant, (req.params as IdParams).id, req.body as UpdateReservationInput),
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
    handler: (req) => reservations.cancel(req.ctx.tenantId, (req.params as IdParams).id),
  });
}

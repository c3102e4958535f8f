import { newId } from '../../db/ids.js';
import type { ReservationRow } from '../../db/schema/tables.js';
import type { Db } from '../../db/client.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Invalid, NotFound } from '../../platform/domain-errors.js';
import type { TxRunner } from '../../platform/rate-limit.js';
import type { TenantRef } from '../../platform/tenancy.js';
import * as q from './reservations.queries.js';
import { isCalendarDate } from '../../platform/time.js';
import { canMove, slotInPast } from './reservations.rules.js';
import type { CreateReservationInput, ReservationsFilter, ReservationView, UpdateReservationInput } from './reservations.schemas.js';

export function toReservationView(r: ReservationRow): ReservationView {
  return {
    _id: r.id,
    customerName: r.customerName,
    customerPhone: r.customerPhone,
    customerEmail: r.customerEmail,
    date: r.date,
    time: r.time,
    partySize: r.partySize,
    notes: r.notes,
    status: r.status,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** The tenant facts reservation rules need: its id and time zone. */
export type ReservationTenant = Pick<TenantRef, 'id' | 'timezone'>;

export function reservationsService({ db, clock }: Deps) {
  /** A real date, and not a slot that is already over in the tenant's time zone. */
  function checkSlot(tenant: ReservationTenant, date: string, time: string) {
    if (!isCalendarDate(date)) throw new Invalid('date', `${date} is not a real calendar date`);
    const past = slotInPast(date, time, clock.now(), tenant.timezone);
    if (past === 'date') throw new Invalid('date', `must be today or later in the restaurant's time zone (${tenant.timezone})`);
    if (past === 'time') throw new Invalid('time', `${time} today has already passed in the restaurant's time zone (${tenant.timezone})`);
  }

  return {
    async list(tenantId: string, filter: ReservationsFilter = {}): Promise<ReservationView[]> {
      if (filter.date && !isCalendarDate(filter.date)) throw new Invalid('date', `${filter.date} is not a real calendar date`);
      return (await q.listReservations(db, tenantId, filter)).map(toReservationView);
    },

    /**
     * A new pending reservation. `within` (the route's rate limit) runs the insert in its transaction,
     * so the request is counted only when the reservation is created; the slot is checked before.
     */
    async create(tenant: ReservationTenant, input: CreateReservationInput, within?: TxRunner): Promise<ReservationView> {
      checkSlot(tenant, input.date, input.time);
      const insert = (tx: Db) =>
        q.insertReservation(tx, {
          tenantId: tenant.id,
          id: newId(),
          customerName: input.customerName.trim(),
          customerPhone: input.customerPhone.trim(),
          customerEmail: input.customerEmail?.toLowerCase() ?? null,
          date: input.date,
          time: input.time,
          partySize: input.partySize,
          notes: input.notes?.trim() || null,
          status: 'pending',
        });
      return toReservationView(await (within ? within(insert) : insert(db)));
    },

    /**
     * Status and details. Moves: pending -> confirmed, pending|confirmed -> cancelled (a `Conflict` otherwise);
     * a cancelled reservation is final and cannot be edited. A new date or time must not be in the past.
     */
    async update(tenant: ReservationTenant, id: string, input: UpdateReservationInput): Promise<ReservationView> {
      return db.transaction(async (tx) => {
        const current = await q.findReservation(tx, tenant.id, id, { lock: true });
        if (!current) throw new NotFound('Reservation');
        if (current.status === 'cancelled') throw new Conflict('The reservation is cancelled; a cancelled reservation is final', 'reservation_cancelled');
        if (input.status && !canMove(current.status, input.status)) {
          throw new Conflict(`A ${current.status} reservation cannot become ${input.status}`, 'invalid_transition');
        }
        const date = input.date ?? current.date;
        const time = input.time ?? current.time;
        if (date !== current.date || time !== current.time) checkSlot(tenant, date, time);
        const { customerName, customerPhone, customerEmail, notes, ...rest } = input;
        const row = await q.updateReservation(tx, tenant.id, id, {
          ...rest,
          ...(customerName !== undefined ? { customerName: customerName.trim() } : {}),
          ...(customerPhone !== undefined ? { customerPhone: customerPhone.trim() } : {}),
          ...(customerEmail !== undefined ? { customerEmail: customerEmail?.toLowerCase() ?? null } : {}),
          ...(notes !== undefined ? { notes: notes?.trim() || null } : {}),
        });
        return toReservationView(row!);
      });
    },

    /** DELETE cancels: the record is kept with status `cancelled`; cancelling again changes nothing. */
    async cancel(tenantId: string, id: string): Promise<ReservationView> {
      return db.transaction(async (tx) => {
        const current = await q.findReservation(tx, tenantId, id, { lock: true });
        if (!current) throw new NotFound('Reservation');
        if (current.status === 'cancelled') return toReservationView(current);
        return toReservationView((await q.updateReservation(tx, tenantId, id, { status: 'cancelled' }))!);
      });
    },
  };
}

export type ReservationsService = ReturnType<typeof reservationsService>;

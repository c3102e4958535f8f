import { newId } from '../../db/ids.js';
import type { ReservationRow } from '../../db/schema/tables.js';
import type { TenantDb } from '../../db/scopes.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Invalid, NotFound } from '../../platform/domain-errors.js';
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

/** The tenant facts reservation rules need: its database handle and its time zone. */
export type ReservationTenant = Pick<TenantRef, 'db' | 'timezone'>;

export function reservationsService({ clock }: Deps) {
  /** A real date, and not a slot that is already over in the tenant's time zone. */
  function checkSlot(tenant: ReservationTenant, date: string, time: string) {
    if (!isCalendarDate(date)) throw new Invalid('date', `${date} is not a real calendar date`);
    const past = slotInPast(date, time, clock.now(), tenant.timezone);
    if (past === 'date') throw new Invalid('date', `must be today or later in the restaurant's time zone (${tenant.timezone})`);
    if (past === 'time') throw new Invalid('time', `${time} today has already passed in the restaurant's time zone (${tenant.timezone})`);
  }

  return {
    async list(t: TenantDb, filter: ReservationsFilter = {}): Promise<ReservationView[]> {
      if (filter.date && !isCalendarDate(filter.date)) throw new Invalid('date', `${filter.date} is not a real calendar date`);
      return t.run(async (tx) => (await q.listReservations(tx.db, tx.tenantId, filter)).map(toReservationView));
    },

    /**
     * A new pending reservation. The slot is checked before the transaction opens, so a rate-limited
     * route whose handle counts the request in its transaction counts only reservations it creates.
     */
    async create(tenant: ReservationTenant, input: CreateReservationInput): Promise<ReservationView> {
      checkSlot(tenant, input.date, input.time);
      const row = await tenant.db.run((tx) =>
        q.insertReservation(tx.db, {
          tenantId: tx.tenantId,
          id: newId(),
          customerName: input.customerName.trim(),
          customerPhone: input.customerPhone.trim(),
          customerEmail: input.customerEmail?.toLowerCase() ?? null,
          date: input.date,
          time: input.time,
          partySize: input.partySize,
          notes: input.notes?.trim() || null,
          status: 'pending',
        }),
      );
      return toReservationView(row);
    },

    /**
     * Status and details. Moves: pending -> confirmed, pending|confirmed -> cancelled (a `Conflict` otherwise);
     * a cancelled reservation is final and cannot be edited. A new date or time must not be in the past.
     */
    update: (tenant: ReservationTenant, id: string, input: UpdateReservationInput): Promise<ReservationView> =>
      tenant.db.run(async (tx) => {
        const current = await q.findReservation(tx.db, tx.tenantId, id, { lock: true });
        if (!current) throw new NotFound('Reservation');
        if (current.status === 'cancelled') throw new Conflict('The reservation is cancelled; a cancelled reservation is final', 'reservation_cancelled');
        if (input.status && !canMove(current.status, input.status)) {
          throw new Conflict(`A ${current.status} reservation cannot become ${input.status}`, 'invalid_transition');
        }
        const date = input.date ?? current.date;
        const time = input.time ?? current.time;
        if (date !== current.date || time !== current.time) checkSlot(tenant, date, time);
        const { customerName, customerPhone, customerEmail, notes, ...rest } = input;
        const row = await q.updateReservation(tx.db, tx.tenantId, id, {
          ...rest,
          ...(customerName !== undefined ? { customerName: customerName.trim() } : {}),
          ...(customerPhone !== undefined ? { customerPhone: customerPhone.trim() } : {}),
          ...(customerEmail !== undefined ? { customerEmail: customerEmail?.toLowerCase() ?? null } : {}),
          ...(notes !== undefined ? { notes: notes?.trim() || null } : {}),
        });
        return toReservationView(row!);
      }),

    /** DELETE cancels: the record is kept with status `cancelled`; cancelling again changes nothing. */
    cancel: (t: TenantDb, id: string): Promise<ReservationView> =>
      t.run(async (tx) => {
        const current = await q.findReservation(tx.db, tx.tenantId, id, { lock: true });
        if (!current) throw new NotFound('Reservation');
        if (current.status === 'cancelled') return toReservationView(current);
        return toReservationView((await q.updateReservation(tx.db, tx.tenantId, id, { status: 'cancelled' }))!);
      }),
  };
}

export type ReservationsService = ReturnType<typeof reservationsService>;

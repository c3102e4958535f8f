import { newId } from '../../db/ids.js';
import type { ReservationRow } from '../../db/schema/tables.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Invalid, NotFound } from '../../platform/domain-errors.js';
import type { TenantRef } from '../../platform/tenancy.js';
import type { TablesService } from '../tables/index.js';
import { pageWindow } from '../../platform/pagination.js';
import * as q from './reservations.queries.js';
import { addDays, isCalendarDate } from '../../platform/time.js';
import { canMove, DEFAULT_DURATION, isHolding, overlaps, slotInPast } from './reservations.rules.js';
import {
  RESERVATIONS_PAGE,
  type CreateReservationInput,
  type ReservationsFilter,
  type ReservationView,
  type SeatReservationInput,
  type UpdateReservationInput,
} from './reservations.schemas.js';

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
    table: r.tableId,
    durationMinutes: r.durationMinutes,
    order: r.orderId,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** The tenant facts reservation rules need: its database handle and its time zone. */
export type ReservationTenant = Pick<TenantRef, 'db' | 'timezone'>;

type Table = NonNullable<Awaited<ReturnType<TablesService['lock']>>>;
type Hold = Pick<ReservationRow, 'date' | 'time' | 'durationMinutes'> & { id: string | null };

const cancelled = () => new Conflict('The reservation is cancelled; a cancelled reservation is final', 'reservation_cancelled');
const badMove = (from: string, to: string) => new Conflict(`A ${from} reservation cannot become ${to}`, 'invalid_transition');

/**
 * Locks: tables before reservations, as the orders module's transactions take them (order, then table,
 * then the reservation a tab event touches), so two transactions never wait on each other in a circle.
 */
export function reservationsService({ clock }: Deps, tables: TablesService) {
  /** A real date, and not a slot that is already over in the tenant's time zone. */
  function checkSlot(tenant: ReservationTenant, date: string, time: string) {
    if (!isCalendarDate(date)) throw new Invalid('date', `${date} is not a real calendar date`);
    const past = slotInPast(date, time, clock.now(), tenant.timezone);
    if (past === 'date') throw new Invalid('date', `must be today or later in the restaurant's time zone (${tenant.timezone})`);
    if (past === 'time') throw new Invalid('time', `${time} today has already passed in the restaurant's time zone (${tenant.timezone})`);
  }

  /** The table, locked until the transaction ends; a 400 on `field` when it is not a live table of the tenant. */
  async function lockTable(tx: TenantTx, tableId: string, field = 'tableId'): Promise<Table> {
    const table = await tables.lock(tx, tableId);
    if (!table) throw new Invalid(field, `unknown table ${tableId}`);
    return table;
  }

  /**
   * 409 `table_reserved` when `hold` overlaps another reservation holding the table (pending, confirmed,
   * seated). Call it with the table locked: every writer of a table's holds locks it first, so two
   * overlapping holds written at once take turns and the second sees the first. A hold may run past
   * midnight (at most 600 minutes), so the days around it are read too.
   */
  async function assertFree(tx: TenantTx, table: Table, hold: Hold) {
    const others = await q.listHolding(tx.db, tx.tenantId, table._id, addDays(hold.date, -1), addDays(hold.date, 1), hold.id);
    const clash = others.find((o) => overlaps(o, hold));
    if (clash) {
      throw new Conflict(
        `Table ${table.number} is held by another reservation on ${clash.date} from ${clash.time} for ${clash.durationMinutes} minutes`,
        'table_reserved',
        [{ field: 'reservation', message: clash.id }],
      );
    }
  }

  /**
   * Seats the party of `current` (locked, its table `table` locked too, or none): status `seated`, the
   * table occupied, and the tab linked when `orderId` names the open tab of the table. A table with an
   * open order is taken (409 `table_in_use`) unless that order is the one named.
   */
  async function seatIn(tx: TenantTx, current: ReservationRow, table: Table | null, orderId: string | undefined): Promise<ReservationRow> {
    if (current.status === 'cancelled') throw cancelled();
    if (current.status === 'seated') {
      // Seating again changes nothing; naming the tab of a party seated before it was opened links it.
      if (table?._id !== (current.tableId ?? undefined) || (orderId && current.orderId && orderId !== current.orderId)) {
        throw new Conflict('The party is already seated: move its tab to change its table', 'invalid_transition');
      }
      if (!orderId || orderId === current.orderId) return current;
    } else if (!canMove(current.status, 'seated')) {
      throw badMove(current.status, 'seated');
    }
    if (orderId && !table) throw new Invalid('orderId', 'the reservation has no table: give the tableId of the tab');
    if (table) {
      if (table._id !== current.tableId) await assertFree(tx, table, current);
      const active = await tables.activeOrderOf(tx, table._id);
      if (orderId) {
        if (!active || !active.isTab || active.id !== orderId) throw new Invalid('orderId', `is not the open tab of table ${table.number}`);
      } else if (active && current.status !== 'seated') {
        throw new Conflict(
          `Order ${active.orderNumber} is open on table ${table.number}: give its orderId to seat the party at that tab, or choose another table`,
          'table_in_use',
        );
      }
      // Another party seated there before its tab opened still has the table.
      const waiting = current.status === 'seated' ? null : await q.findSeatedWithoutOrder(tx.db, tx.tenantId, table._id);
      if (waiting && waiting.id !== current.id) {
        throw new Conflict(`Table ${table.number} is taken by another seated party (${waiting.customerName}): choose another table`, 'table_in_use');
      }
      if (table.status !== 'occupied') await tables.setStatus(tx, table._id, 'occupied');
    }
    return (await q.updateReservation(tx.db, tx.tenantId, current.id, {
      status: 'seated',
      tableId: table?._id ?? null,
      orderId: orderId ?? current.orderId,
    }))!;
  }

  /**
   * Locks the table the reservation will hold (`tableId`, or its own when undefined), then the
   * reservation. `NotFound` when the reservation is missing; the table is null when there is none or it
   * is not a live table (the caller decides whether that is an error).
   */
  async function lockBoth(tx: TenantTx, id: string, tableId: string | null | undefined) {
    const target = tableId === undefined ? ((await q.findReservation(tx.db, tx.tenantId, id))?.tableId ?? null) : tableId;
    let table = target ? await tables.lock(tx, target) : null;
    const current = await q.findReservation(tx.db, tx.tenantId, id, { lock: true });
    if (!current) throw new NotFound('Reservation');
    // Its table changed between the two reads: lock the one it has now (rare, so out of order).
    if (tableId === undefined && current.tableId !== target) table = current.tableId ? await tables.lock(tx, current.tableId) : null;
    return { current, table };
  }

  // A seated party's reservation follows its tab: linked when the tab opens on its table, moved with
  // it (still holding its window, so a move onto a table held by another reservation is refused), and
  // pointed at the order its tab was merged into.
  tables.onTabEvent(async (tx, event) => {
    if (event.kind === 'opened') {
      const seated = await q.findSeatedWithoutOrder(tx.db, tx.tenantId, event.tableId);
      if (seated) await q.updateReservation(tx.db, tx.tenantId, seated.id, { orderId: event.orderId });
      return;
    }
    const linked = await q.findByOrder(tx.db, tx.tenantId, event.orderId);
    for (const r of linked) {
      if (event.kind === 'merged') {
        // The party joined another table's tab: it sits there now, under that table's own hold, so its table is released.
        await q.updateReservation(tx.db, tx.tenantId, r.id, { orderId: event.into, tableId: null });
      } else if (r.status === 'seated' && r.tableId !== event.to) {
        const table = await lockTable(tx, event.to);
        await assertFree(tx, table, r);
        await q.updateReservation(tx.db, tx.tenantId, r.id, { tableId: event.to });
      }
    }
  });

  return {
    /** One page (RESERVATIONS_PAGE) by date and time, and the number of matching reservations. */
    async list(t: TenantDb, filter: ReservationsFilter = {}): Promise<{ reservations: ReservationView[]; total: number }> {
      if (filter.date && !isCalendarDate(filter.date)) throw new Invalid('date', `${filter.date} is not a real calendar date`);
      return t.run(async (tx) => {
        const { rows, total } = await q.listReservations(tx.db, tx.tenantId, filter, pageWindow(filter, RESERVATIONS_PAGE));
        return { reservations: rows.map(toReservationView), total };
      });
    },

    /**
     * A new pending reservation, holding `tableId` for `durationMinutes` when given (staff only: a guest
     * asks for a slot, the restaurant chooses the table). The slot is checked before the transaction
     * opens, so a rate-limited route whose handle counts the request in its transaction counts only
     * reservations it creates.
     */
    async create(tenant: ReservationTenant, input: CreateReservationInput, { guest = false } = {}): Promise<ReservationView> {
      checkSlot(tenant, input.date, input.time);
      if (guest) {
        for (const field of ['tableId', 'durationMinutes'] as const) {
          if (input[field] !== undefined) throw new Invalid(field, "is set by the restaurant's staff (send a staff token)");
        }
      }
      const durationMinutes = input.durationMinutes ?? DEFAULT_DURATION;
      const row = await tenant.db.run(async (tx) => {
        if (input.tableId) {
          const table = await lockTable(tx, input.tableId);
          await assertFree(tx, table, { id: null, date: input.date, time: input.time, durationMinutes });
        }
        return q.insertReservation(tx.db, {
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
          tableId: input.tableId ?? null,
          durationMinutes,
        });
      });
      return toReservationView(row);
    },

    /**
     * Status and details. Moves: pending -> confirmed; pending|confirmed -> seated, no_show, cancelled (a
     * `Conflict` otherwise); a cancelled reservation is final and cannot be edited; a seated or no-show
     * one keeps its slot and table. A new date or time must not be in the past; a new slot or table must
     * not overlap another hold of the table (409 `table_reserved`). `seated` here seats as `seat` does.
     */
    update: (tenant: ReservationTenant, id: string, input: UpdateReservationInput): Promise<ReservationView> =>
      tenant.db.run(async (tx) => {
        const { current, table: locked } = await lockBoth(tx, id, input.tableId);
        if (current.status === 'cancelled') throw cancelled();
        if (input.status && !canMove(current.status, input.status)) throw badMove(current.status, input.status);
        const date = input.date ?? current.date;
        const time = input.time ?? current.time;
        const durationMinutes = input.durationMinutes ?? current.durationMinutes;
        const tableId = input.tableId !== undefined ? input.tableId : current.tableId;
        const slotChanged = date !== current.date || time !== current.time || durationMinutes !== current.durationMinutes || tableId !== current.tableId;
        if (slotChanged && (current.status === 'seated' || current.status === 'no_show')) {
          throw new Conflict(`A ${current.status} reservation keeps its date, time, duration and table`, 'reservation_closed');
        }
        if (date !== current.date || time !== current.time) checkSlot(tenant, date, time);
        const status = input.status ?? current.status;
        const seats = status === 'seated' && current.status !== 'seated';
        if (tableId && !locked && (slotChanged || seats)) throw new Invalid('tableId', `unknown table ${tableId}`);
        if (locked && slotChanged && isHolding(status)) await assertFree(tx, locked, { id, date, time, durationMinutes });
        const { customerName, customerPhone, customerEmail, notes, status: _status, tableId: _tableId, ...rest } = input;
        let row = (await q.updateReservation(tx.db, tx.tenantId, id, {
          ...rest,
          tableId,
          ...(status !== 'seated' ? { status } : {}),
          ...(customerName !== undefined ? { customerName: customerName.trim() } : {}),
          ...(customerPhone !== undefined ? { customerPhone: customerPhone.trim() } : {}),
          ...(customerEmail !== undefined ? { customerEmail: customerEmail?.toLowerCase() ?? null } : {}),
          ...(notes !== undefined ? { notes: notes?.trim() || null } : {}),
        }))!;
        if (seats) row = await seatIn(tx, row, locked, undefined);
        return toReservationView(row);
      }),

    /**
     * Seats the party (from pending or confirmed): at `tableId`, else the reservation's table (or none),
     * which becomes occupied; `orderId` links the table's open tab at once, else the tab opened next on
     * the table is linked when it opens.
     */
    seat: (t: TenantDb, id: string, input: SeatReservationInput): Promise<ReservationView> =>
      t.run(async (tx) => {
        const { current, table } = await lockBoth(tx, id, input.tableId);
        if (input.tableId && !table) throw new Invalid('tableId', `unknown table ${input.tableId}`);
        if (!input.tableId && current.tableId && !table && current.status !== 'cancelled') {
          throw new Invalid('tableId', 'the reservation’s table was deleted: give another one');
        }
        return toReservationView(await seatIn(tx, current, table, input.orderId));
      }),

    /** The party did not come (from pending or confirmed); marking it again changes nothing. */
    noShow: (t: TenantDb, id: string): Promise<ReservationView> =>
      t.run(async (tx) => {
        const current = await q.findReservation(tx.db, tx.tenantId, id, { lock: true });
        if (!current) throw new NotFound('Reservation');
        if (current.status === 'cancelled') throw cancelled();
        if (current.status === 'no_show') return toReservationView(current);
        if (!canMove(current.status, 'no_show')) throw badMove(current.status, 'no_show');
        return toReservationView((await q.updateReservation(tx.db, tx.tenantId, id, { status: 'no_show' }))!);
      }),

    /** DELETE cancels: the record is kept with status `cancelled`; cancelling again changes nothing; a seated or no-show reservation is 409. */
    cancel: (t: TenantDb, id: string): Promise<ReservationView> =>
      t.run(async (tx) => {
        const current = await q.findReservation(tx.db, tx.tenantId, id, { lock: true });
        if (!current) throw new NotFound('Reservation');
        if (current.status === 'cancelled') return toReservationView(current);
        if (!canMove(current.status, 'cancelled')) throw badMove(current.status, 'cancelled');
        return toReservationView((await q.updateReservation(tx.db, tx.tenantId, id, { status: 'cancelled' }))!);
      }),
  };
}

export type ReservationsService = ReturnType<typeof reservationsService>;

import { Type, type Static } from '@sinclair/typebox';
import { RESERVATION_STATUSES } from '../../db/schema/tables.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, CalendarDate, Email, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';
import { DEFAULT_DURATION, MAX_DURATION, MIN_DURATION } from './reservations.rules.js';

export const MAX_PARTY_SIZE = 50;

const Name = Type.String({ minLength: 1, maxLength: 120, pattern: '\\S' });
/** 8 to 15 digits (E.164 length), optionally with +, spaces, dots, dashes and parentheses: (11) 98765-4321. */
const Phone = Type.String({
  maxLength: 30,
  pattern: '^\\+?(?:[ ().-]*[0-9]){8,15}[ ().-]*$',
  description: 'phone number: 8 to 15 digits, e.g. (11) 98765-4321 or +55 11 98765-4321',
});
const DateString = CalendarDate('today or later in the tenant time zone');
const Time = Type.String({ pattern: '^(?:[01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, 24 h' });
const PartySize = Type.Integer({ minimum: 1, maximum: MAX_PARTY_SIZE });
const Notes = Type.String({ maxLength: 1000 });
const Duration = Type.Integer({
  minimum: MIN_DURATION,
  maximum: MAX_DURATION,
  description: `minutes the table is held from \`time\` (default ${DEFAULT_DURATION})`,
});
export const ReservationStatusSchema = StringEnum(RESERVATION_STATUSES);

export const Reservation = Type.Object(
  {
    _id: Type.String(),
    customerName: Type.String(),
    customerPhone: Type.String(),
    customerEmail: Nullable(Type.String()),
    date: Type.String({ description: 'YYYY-MM-DD' }),
    time: Type.String({ description: 'HH:MM' }),
    partySize: Type.Integer(),
    notes: Nullable(Type.String()),
    status: ReservationStatusSchema,
    table: Nullable(Type.String({ description: 'the table held for it (id)' })),
    durationMinutes: Type.Integer({ description: 'minutes the table is held from `time`' }),
    order: Nullable(Type.String({ description: 'the tab of the seated party (order id)' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Reservation' },
);

export const CreateReservationBody = Body({
  customerName: Name,
  customerPhone: Phone,
  customerEmail: Type.Optional(Email),
  date: DateString,
  time: Time,
  partySize: PartySize,
  notes: Type.Optional(Notes),
  tableId: Type.Optional(Id),
  durationMinutes: Type.Optional(Duration),
});

export const UpdateReservationBody = Body({
  customerName: Type.Optional(Name),
  customerPhone: Type.Optional(Phone),
  customerEmail: Type.Optional(Nullable(Email, { description: 'null clears it' })),
  date: Type.Optional(DateString),
  time: Type.Optional(Time),
  partySize: Type.Optional(PartySize),
  notes: Type.Optional(Nullable(Notes, { description: 'null clears it' })),
  tableId: Type.Optional(Nullable(Id, { description: 'the table to hold; null holds none' })),
  durationMinutes: Type.Optional(Duration),
  status: Type.Optional(
    StringEnum(RESERVATION_STATUSES, {
      description: 'pending -> confirmed; pending|confirmed -> seated, no_show or cancelled; seated, no_show and cancelled are final (409)',
    }),
  ),
});

export const SeatReservationBody = Body({
  tableId: Type.Optional(Id),
  orderId: Type.Optional(Id),
});

/**
 * Reservations pile up over the years; the panel asks for one date, the public API for one date or all. The default is
 * the maximum, so today's callers keep every row of a day; X-Total-Count shows a truncation.
 */
export const RESERVATIONS_PAGE = pageLimits({ default: 500, maximum: 500, what: 'reservations' });

export const ReservationsQuery = Type.Object({
  date: Type.Optional(DateString),
  status: Type.Optional(ReservationStatusSchema),
  ...pageQuery(RESERVATIONS_PAGE),
});

export type ReservationView = Static<typeof Reservation>;
export type CreateReservationInput = Static<typeof CreateReservationBody>;
export type UpdateReservationInput = Static<typeof UpdateReservationBody>;
export type SeatReservationInput = Static<typeof SeatReservationBody>;
export type ReservationsFilter = Static<typeof ReservationsQuery>;

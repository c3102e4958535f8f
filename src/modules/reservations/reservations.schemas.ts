import { Type, type Static } from '@sinclair/typebox';
import { RESERVATION_STATUSES } from '../../db/schema/tables.js';
import { Body, CalendarDate, Email, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

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
});

export const UpdateReservationBody = Body({
  customerName: Type.Optional(Name),
  customerPhone: Type.Optional(Phone),
  customerEmail: Type.Optional(Nullable(Email, { description: 'null clears it' })),
  date: Type.Optional(DateString),
  time: Type.Optional(Time),
  partySize: Type.Optional(PartySize),
  notes: Type.Optional(Nullable(Notes, { description: 'null clears it' })),
  status: Type.Optional(
    StringEnum(RESERVATION_STATUSES, { description: 'pending -> confirmed, pending|confirmed -> cancelled; cancelled is final (409)' }),
  ),
});

export const ReservationsQuery = Type.Object({
  date: Type.Optional(DateString),
  status: Type.Optional(ReservationStatusSchema),
});

export type ReservationView = Static<typeof Reservation>;
export type CreateReservationInput = Static<typeof CreateReservationBody>;
export type UpdateReservationInput = Static<typeof UpdateReservationBody>;
export type ReservationsFilter = Static<typeof ReservationsQuery>;

import { Type } from '@sinclair/typebox';
import { ORDER_STATUSES } from '../../db/schema/orders.js';
import { CalendarDate, StringEnum } from '../../platform/schemas.js';

export const PublicOrdersQuery = Type.Object({
  status: Type.Optional(StringEnum(ORDER_STATUSES)),
  from: Type.Optional(CalendarDate('First day (tenant time zone); default 6 days before `to`')),
  to: Type.Optional(CalendarDate('Last day; default today')),
});

export const PublicReservationsQuery = Type.Object({
  date: Type.Optional(CalendarDate('Only this date')),
});

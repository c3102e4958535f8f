import { Type } from '@sinclair/typebox';
import { ORDER_STATUSES } from '../../db/schema/orders.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { CalendarDate, StringEnum } from '../../platform/schemas.js';

/**
 * The spec's public lists are unpaginated arrays: they stay arrays and, by default, answer as many rows as before (the
 * default is the maximum); `page` and `limit` read past it, and X-Total-Count (with `Link` rel="next") shows there is more.
 */
export const PUBLIC_ORDERS_PAGE = pageLimits({ default: 1000, maximum: 1000, what: 'orders' });
export const PUBLIC_RESERVATIONS_PAGE = pageLimits({ default: 500, maximum: 500, what: 'reservations' });

export const PUBLIC_MENU_ITEMS_PAGE = pageLimits({ default: 1000, maximum: 1000, what: 'items' });
export const PublicMenuItemsQuery = Type.Object(pageQuery(PUBLIC_MENU_ITEMS_PAGE));

export const PublicOrdersQuery = Type.Object({
  status: Type.Optional(StringEnum(ORDER_STATUSES)),
  from: Type.Optional(CalendarDate('First day (tenant time zone); default 6 days before `to`')),
  to: Type.Optional(CalendarDate('Last day; default today')),
  ...pageQuery(PUBLIC_ORDERS_PAGE),
});

export const PublicReservationsQuery = Type.Object({
  date: Type.Optional(CalendarDate('Only this date')),
  ...pageQuery(PUBLIC_RESERVATIONS_PAGE),
});

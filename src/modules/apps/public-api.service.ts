import type { Static } from '@sinclair/typebox';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Clock } from '../../platform/clock.js';
import { Invalid } from '../../platform/domain-errors.js';
import { pageWindow } from '../../platform/pagination.js';
import { addDays, localDate } from '../../platform/time.js';
import type { OrdersService } from '../orders/index.js';
import { PUBLIC_ORDERS_PAGE, type PublicOrdersQuery } from './public-api.schemas.js';

/** Longest period of one public orders call (most orders a page: PUBLIC_ORDERS_PAGE). */
export const PUBLIC_ORDERS_MAX_DAYS = 31;

/** What the public API reads beyond other modules' plain lists. */
export function publicApiService({ clock }: { clock: Clock }, { orders }: { orders: OrdersService }) {
  return {
    /** The orders of the public API: the last 7 days by default, newest first, a page of at most 1000, and their number. */
    orders: (ctx: TenantCtx, query: Static<typeof PublicOrdersQuery>) => publicOrders(orders, clock, ctx, query),
  };
}
export type PublicApiService = ReturnType<typeof publicApiService>;

async function publicOrders(orders: OrdersService, clock: Clock, ctx: TenantCtx, query: Static<typeof PublicOrdersQuery>) {
  const to = query.to ?? (query.from ? addDays(query.from, 6) : localDate(clock.now(), ctx.tenant.timezone));
  const from = query.from ?? addDays(to, -6);
  if ((Date.parse(to) - Date.parse(from)) / 86_400_000 >= PUBLIC_ORDERS_MAX_DAYS) {
    throw new Invalid('to', `the period is at most ${PUBLIC_ORDERS_MAX_DAYS} days`, { in: 'querystring' });
  }
  const window = pageWindow(query, PUBLIC_ORDERS_PAGE);
  return orders.list(ctx, { status: query.status, from, to, page: window.page, limit: window.limit });
}

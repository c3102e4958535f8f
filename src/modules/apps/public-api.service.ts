import type { Static } from '@sinclair/typebox';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Clock } from '../../platform/clock.js';
import { Invalid } from '../../platform/domain-errors.js';
import { addDays, localDate } from '../../platform/time.js';
import type { OrdersService } from '../orders/index.js';
import type { PublicOrdersQuery } from './public-api.schemas.js';

/** Longest period of one public orders call, and most orders in its answer (the list is unpaginated). */
export const PUBLIC_ORDERS_MAX_DAYS = 31;
export const PUBLIC_ORDERS_MAX = 1000;

/** What the public API reads beyond other modules' plain lists. */
export function publicApiService({ clock }: { clock: Clock }, { orders }: { orders: OrdersService }) {
  return {
    /** The orders of the public API: the last 7 days by default, newest first, at most 1000. */
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
  const { orders: list } = await orders.list(ctx, { status: query.status, from, to, limit: PUBLIC_ORDERS_MAX });
  return list;
}

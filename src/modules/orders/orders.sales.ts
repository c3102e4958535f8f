import { and, count, gte, isNotNull, lt, ne, eq, sum } from 'drizzle-orm';
import type { TenantDb } from '../../db/scopes.js';
import { orders } from '../../db/schema/orders.js';

/** A half-open instant range [start, end). */
export interface SalesRange {
  start: Date;
  end: Date;
}

/** The bills of the orders paid in full in a range, summed, integer cents (`orders` is a count). */
export interface SalesTotals {
  orders: number;
  /** Sum of the line amounts (before discounts). */
  itemsTotal: number;
  /** Line discounts plus order discounts. */
  discountTotal: number;
  serviceCharge: number;
  coverCharge: number;
  /** itemsTotal - discountTotal + serviceCharge + coverCharge. */
  total: number;
}

/**
 * For the income statement (dre module): the orders paid in full (`paid_at`) in the range and not
 * cancelled, summed in one aggregate select (a split parent never takes a payment: its paid parts count).
 */
export function salesOfPeriod(t: TenantDb, range: SalesRange): Promise<SalesTotals> {
  return t.run(async (tx) => {
    const [row] = await tx.db
      .select({
        orders: count(),
        itemsTotal: sum(orders.itemsTotal),
        discountTotal: sum(orders.discountTotal),
        serviceCharge: sum(orders.serviceCharge),
        coverCharge: sum(orders.coverCharge),
        total: sum(orders.total),
      })
      .from(orders)
      .where(
        and(
          eq(orders.tenantId, tx.tenantId),
          isNotNull(orders.paidAt),
          gte(orders.paidAt, range.start),
          lt(orders.paidAt, range.end),
          ne(orders.status, 'cancelled'),
        ),
      );
    return {
      orders: Number(row?.orders ?? 0),
      itemsTotal: Number(row?.itemsTotal ?? 0),
      discountTotal: Number(row?.discountTotal ?? 0),
      serviceCharge: Number(row?.serviceCharge ?? 0),
      coverCharge: Number(row?.coverCharge ?? 0),
      total: Number(row?.total ?? 0),
    };
  });
}

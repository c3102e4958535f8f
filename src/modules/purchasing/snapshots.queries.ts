import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { orders } from '../../db/schema/orders.js';

/**
 * The daily sales snapshot's one read of the orders module's table (listed in MODULE_READS of
 * test/module-boundaries.test.ts; docs/decisions.md, "Purchasing: demand prediction"): units sold per menu
 * item in a local day, one aggregate select over the day's orders. Nothing here writes.
 *
 * An order counts when it is not cancelled, is not a part of a split bill (the split parent carries the
 * lines), and was sold: paid in full (`payment_status = 'approved'`, at `paid_at`, the reports' revenue
 * rule), else split (at `split_at`, where the inventory deducts it), else delivered (at `closed_at`). It
 * counts on the local day of that moment. A line's units are its billed quantity (quantity minus voided
 * units), in thousandths; lines without a menu item are skipped.
 */

export interface SoldItem {
  menuItemId: string;
  quantityMilli: number;
  /** Orders with a billed line of the item. */
  orders: number;
}

/** A half-open instant range [start, end), ISO strings. */
export interface DayRange {
  start: string;
  end: string;
}

export async function soldInDay(db: Db, tenantId: string, r: DayRange): Promise<SoldItem[]> {
  const moment = sql`case when ${orders.paymentStatus} = 'approved' then ${orders.paidAt}
    when ${orders.splitAt} is not null then ${orders.splitAt}
    when ${orders.status} = 'delivered' then ${orders.closedAt} end`;
  const within = (col: typeof orders.paidAt) => sql`(${col} >= ${r.start}::timestamptz and ${col} < ${r.end}::timestamptz)`;
  const result: unknown = await db.execute(sql`
    with sold as (
      select ${orders.id} as id, ${orders.items} as items from ${orders}
      where ${orders.tenantId} = ${tenantId} and ${orders.status} <> 'cancelled' and not ${orders.isSplitBill}
        and (${within(orders.paidAt)} or ${within(orders.splitAt)} or ${within(orders.closedAt)})
        and ${moment} >= ${r.start}::timestamptz and ${moment} < ${r.end}::timestamptz
    ),
    lines as (
      select sold.id, line->>'menuItem' as menu_item_id,
        round(((line->>'quantity')::numeric - coalesce((line->>'voidedQuantity')::numeric, 0)) * 1000) as billed
      from sold cross join lateral jsonb_array_elements(sold.items) as line
      where line->>'menuItem' is not null
    )
    select menu_item_id, sum(billed) as quantity_milli, count(distinct id) as orders
    from lines where billed > 0
    group by menu_item_id
    order by menu_item_id`);
  const rows = typeof result === 'object' && result !== null && 'rows' in result && Array.isArray(result.rows) ? (result.rows as Record<string, unknown>[]) : null;
  if (!rows) throw new Error('snapshots: the driver answered a select without rows');
  return rows.map((r) => ({ menuItemId: String(r.menu_item_id), quantityMilli: Number(r.quantity_milli), orders: Number(r.orders) }));
}

import { and, eq, gte, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { TenantDb } from '../../db/scopes.js';
import { inventoryItems, inventoryMovements } from '../../db/schema/inventory.js';

/** The cost of what left stock in a range, integer cents. */
export interface CostOfSales {
  /** sale exits - sale returns + production exits, summed exactly and rounded once (half away from zero). */
  cents: number;
  /** `exit` movements of reason `sale`, rounded once. */
  sales: number;
  /** `entry` movements of reason `return` of an order (a sale given back: cancelled, lines voided), rounded once. */
  returns: number;
  /** `exit` movements of reason `production`, rounded once. */
  production: number;
}

/**
 * For the income statement (dre module): the movements of the range at their recorded unit cost (a
 * movement without one, such as a manual production exit, at the item's current cost), quantity x cost
 * summed exactly by the database and rounded to the cent once.
 */
export function costOfSalesPart() {
  return {
    costOfSales: (t: TenantDb, range: { start: Date; end: Date }): Promise<CostOfSales> =>
      t.run(async (tx) => {
        const m = inventoryMovements;
        const i = inventoryItems;
        // Thousandths of a cent: quantity in thousandths x cents per unit.
        const exact = sql`${m.quantityMilli}::numeric * coalesce(${m.unitCostCents}, ${i.costCents}, 0)`;
        const isSale = sql`${m.type} = 'exit' and ${m.reason} = 'sale'`;
        const isReturn = sql`${m.type} = 'entry' and ${m.reason} = 'return' and ${m.orderId} is not null`;
        const isProduction = sql`${m.type} = 'exit' and ${m.reason} = 'production'`;
        const total = (where: ReturnType<typeof sql>) => sql<string>`round(coalesce(sum(${exact}) filter (where ${where}), 0) / 1000)`;
        const [row] = await tx.db
          .select({
            cents: sql<string>`round(coalesce(sum(case when ${isReturn} then -${exact} when ${isSale} or ${isProduction} then ${exact} else 0 end), 0) / 1000)`,
            sales: total(isSale),
            returns: total(isReturn),
            production: total(isProduction),
          })
          .from(m)
          .leftJoin(i, and(eq(i.tenantId, m.tenantId), eq(i.id, m.itemId)))
          .where(
            and(
              eq(m.tenantId, tx.tenantId),
              gte(m.createdAt, range.start),
              lt(m.createdAt, range.end),
              or(eq(m.reason, 'sale'), eq(m.reason, 'production'), and(eq(m.reason, 'return'), isNotNull(m.orderId))),
            ),
          );
        return { cents: Number(row?.cents ?? 0), sales: Number(row?.sales ?? 0), returns: Number(row?.returns ?? 0), production: Number(row?.production ?? 0) };
      }),
  };
}

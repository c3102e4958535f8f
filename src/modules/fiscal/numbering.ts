import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { fiscalCounters } from '../../db/schema/fiscal.js';

/**
 * The next number of a branch's model and series, allocated in the caller's transaction: the counter row
 * is created at 1 or incremented, and stays locked until the transaction ends, so concurrent emissions
 * queue on it and a rolled-back one leaves no gap (numbers are gapless; a number whose document is later
 * rejected is voided through the provider, see documents.service.ts).
 */
export async function nextNumber(db: Db, tenantId: string, branchKey: string, model: number, series: number): Promise<number> {
  const [row] = await db
    .insert(fiscalCounters)
    .values({ tenantId, branchKey, model, series, last: 1 })
    .onConflictDoUpdate({
      target: [fiscalCounters.tenantId, fiscalCounters.branchKey, fiscalCounters.model, fiscalCounters.series],
      set: { last: sql`${fiscalCounters.last} + 1` },
    })
    .returning({ last: fiscalCounters.last });
  return row.last;
}

import { and, eq } from 'drizzle-orm';
import { periodClosings } from '../../db/schema/accounting.js';
import type { TenantTx } from '../../db/scopes.js';
import { Conflict } from '../../platform/domain-errors.js';

/** `YYYY-MM` of a `YYYY-MM-DD` date. */
export const periodOf = (date: string) => ({ year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)) });

const label = (p: { year: number; month: number }) => `${p.year}-${String(p.month).padStart(2, '0')}`;

/** 409 `period_closed` naming the month. */
export const periodClosed = (p: { year: number; month: number }) =>
  new Conflict(`The period ${label(p)} is closed: reopen it to post, reverse or date entries in it`, 'period_closed', [
    { field: 'period', message: label(p) },
  ]);

/**
 * Refuses (409 `period_closed`) work dated in a closed month. The period row is read `for share`, so a
 * later close or reopen of that month (which locks the row `for update`) waits for this transaction. A
 * month's FIRST close has no row to wait on: it locks the month's entries and the year's entry counter
 * instead (ledger.queries.ts `lockMonthWrites`), which every new entry, posting and reversal holds, so a
 * posting that commits first is in the closing's trial balance and one that comes after is refused.
 */
export async function assertPeriodOpen(tx: TenantTx, date: string): Promise<void> {
  const p = periodOf(date);
  const [row] = await tx.db
    .select({ status: periodClosings.status })
    .from(periodClosings)
    .where(and(eq(periodClosings.tenantId, tx.tenantId), eq(periodClosings.year, p.year), eq(periodClosings.month, p.month)))
    .for('share');
  if (row?.status === 'closed') throw periodClosed(p);
}

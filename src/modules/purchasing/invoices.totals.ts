import { and, count, eq, gte, lt, sum } from 'drizzle-orm';
import type { TenantDb } from '../../db/scopes.js';
import { importedInvoices } from '../../db/schema/purchasing.js';

/**
 * For the income statement (dre module): the supplier invoices (NF-e) imported in a range, their totals
 * summed in cents. The import date stands for the invoice's date (the emission date is not stored).
 */
export function invoiceTotalsPart() {
  return {
    importedInvoicesTotal: (t: TenantDb, range: { start: Date; end: Date }): Promise<{ invoices: number; totalCents: number }> =>
      t.run(async (tx) => {
        const [row] = await tx.db
          .select({ invoices: count(), total: sum(importedInvoices.totalCents) })
          .from(importedInvoices)
          .where(and(eq(importedInvoices.tenantId, tx.tenantId), gte(importedInvoices.createdAt, range.start), lt(importedInvoices.createdAt, range.end)));
        return { invoices: Number(row?.invoices ?? 0), totalCents: Number(row?.total ?? 0) };
      }),
  };
}

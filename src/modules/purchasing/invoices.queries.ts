import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { importedInvoices, supplierItemMappings, suppliers } from '../../db/schema/purchasing.js';

/** SQL of the supplier invoice import: imported invoices, supplier item mappings, the supplier by CNPJ. */

export const INVOICE_KEY = 'imported_invoices_key';

export async function findInvoiceByKey(db: Db, tenantId: string, nfeKey: string) {
  const [row] = await db
    .select()
    .from(importedInvoices)
    .where(and(eq(importedInvoices.tenantId, tenantId), eq(importedInvoices.nfeKey, nfeKey)));
  return row ?? null;
}

export async function findInvoice(db: Db, tenantId: string, id: string) {
  const [row] = await db
    .select()
    .from(importedInvoices)
    .where(and(eq(importedInvoices.tenantId, tenantId), eq(importedInvoices.id, id)));
  return row ?? null;
}

export async function insertInvoice(db: Db, row: typeof importedInvoices.$inferInsert) {
  const [created] = await db.insert(importedInvoices).values(row).returning();
  return created;
}

export async function setInvoiceSummary(db: Db, tenantId: string, id: string, summary: Record<string, unknown>) {
  await db
    .update(importedInvoices)
    .set({ summary })
    .where(and(eq(importedInvoices.tenantId, tenantId), eq(importedInvoices.id, id)));
}

export function mappingsOf(db: Db, tenantId: string, supplierCnpj: string) {
  return db
    .select()
    .from(supplierItemMappings)
    .where(and(eq(supplierItemMappings.tenantId, tenantId), eq(supplierItemMappings.supplierCnpj, supplierCnpj)));
}

/** Remembers (or replaces) the item a supplier's product code stands for. */
export async function upsertMapping(
  db: Db,
  row: { tenantId: string; supplierCnpj: string; supplierCode: string; itemId: string; factorMilli: number; now: Date },
) {
  await db
    .insert(supplierItemMappings)
    .values({ ...row, createdAt: row.now, updatedAt: row.now })
    .onConflictDoUpdate({
      target: [supplierItemMappings.tenantId, supplierItemMappings.supplierCnpj, supplierItemMappings.supplierCode],
      set: { itemId: row.itemId, factorMilli: row.factorMilli, updatedAt: sql`excluded.updated_at` },
    });
}

/** The tenant's supplier with this CNPJ, the oldest when several. */
export async function supplierIdByCnpj(db: Db, tenantId: string, cnpj: string) {
  const [row] = await db
    .select({ id: suppliers.id })
    .from(suppliers)
    .where(and(eq(suppliers.tenantId, tenantId), eq(suppliers.cnpj, cnpj)))
    .orderBy(suppliers.createdAt)
    .limit(1);
  return row?.id ?? null;
}

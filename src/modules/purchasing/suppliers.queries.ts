import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { purchaseOrders, suppliers, type SupplierRow } from '../../db/schema/purchasing.js';

/** One page of the suppliers by name (the id breaks ties), and the number of matching suppliers. */
export async function listSuppliers(db: Db, tenantId: string, filter: { active?: boolean }, page: { offset: number; limit: number }) {
  const where = and(eq(suppliers.tenantId, tenantId), filter.active === undefined ? undefined : eq(suppliers.active, filter.active));
  const rows = await db.select().from(suppliers).where(where).orderBy(asc(suppliers.name), asc(suppliers.id)).limit(page.limit).offset(page.offset);
  const [total] = await db.select({ n: count() }).from(suppliers).where(where);
  return { rows, total: total!.n };
}

export async function findSupplier(db: Db, tenantId: string, id: string): Promise<SupplierRow | null> {
  const [row] = await db
    .select()
    .from(suppliers)
    .where(and(eq(suppliers.tenantId, tenantId), eq(suppliers.id, id)));
  return row ?? null;
}

/** A supplier locked for the rest of the transaction (against a delete while an order is made for it), or null. */
export async function lockSupplier(db: Db, tenantId: string, id: string): Promise<SupplierRow | null> {
  const [row] = await db
    .select()
    .from(suppliers)
    .where(and(eq(suppliers.tenantId, tenantId), eq(suppliers.id, id)))
    .for('update');
  return row ?? null;
}

/** The supplier with this CNPJ (14 characters), or null. */
export async function findSupplierByCnpj(db: Db, tenantId: string, cnpj: string): Promise<SupplierRow | null> {
  const [row] = await db
    .select()
    .from(suppliers)
    .where(and(eq(suppliers.tenantId, tenantId), eq(suppliers.cnpj, cnpj)))
    .orderBy(asc(suppliers.createdAt), asc(suppliers.id))
    .limit(1);
  return row ?? null;
}

/**
 * Serialises the writers of one CNPJ of a tenant until the transaction ends, so the "one supplier per CNPJ"
 * check cannot be passed by two creates at once (the index on cnpj is not unique).
 */
export async function lockCnpj(db: Db, tenantId: string, cnpj: string) {
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`suppliers-cnpj:${tenantId}:${cnpj}`}))`);
}

export async function insertSupplier(db: Db, row: typeof suppliers.$inferInsert) {
  const [created] = await db.insert(suppliers).values(row).returning();
  return created!;
}

export async function updateSupplier(db: Db, tenantId: string, id: string, fields: Partial<typeof suppliers.$inferInsert>) {
  const [row] = await db
    .update(suppliers)
    .set(fields)
    .where(and(eq(suppliers.tenantId, tenantId), eq(suppliers.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteSupplier(db: Db, tenantId: string, id: string) {
  await db.delete(suppliers).where(and(eq(suppliers.tenantId, tenantId), eq(suppliers.id, id)));
}

/** How many purchase orders (any status) name the supplier. */
export async function ordersOfSupplier(db: Db, tenantId: string, supplierId: string) {
  const [row] = await db
    .select({ n: count() })
    .from(purchaseOrders)
    .where(and(eq(purchaseOrders.tenantId, tenantId), eq(purchaseOrders.supplierId, supplierId)));
  return row!.n;
}

/** A supplier held (shared lock) until the transaction ends, so it is not deleted under a new order naming it, or null. */
export async function holdSupplier(db: Db, tenantId: string, id: string): Promise<SupplierRow | null> {
  const [row] = await db
    .select()
    .from(suppliers)
    .where(and(eq(suppliers.tenantId, tenantId), eq(suppliers.id, id)))
    .for('share');
  return row ?? null;
}

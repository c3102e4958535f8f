import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { accountMappings, receivables, type ReceivableRow } from '../../db/schema/accounting.js';

/** SQL of the automatic postings: the card receivable a payment creates (and closes on refund), the account mappings. */

/** A card sale's receivable, once per payment (`receivables_source_key`): a second insert adds nothing. */
export async function insertCardReceivable(db: Db, row: typeof receivables.$inferInsert): Promise<void> {
  await db.insert(receivables).values(row).onConflictDoNothing();
}

/** The receivable of a card sale (by its payment), locked until the transaction ends (a settlement waits), or null. */
export async function lockCardReceivable(db: Db, tenantId: string, paymentId: string): Promise<ReceivableRow | null> {
  const [row] = await db
    .select()
    .from(receivables)
    .where(and(eq(receivables.tenantId, tenantId), eq(receivables.source, 'card_sale'), eq(receivables.sourceId, paymentId)))
    .for('update');
  return row ?? null;
}

export async function updateReceivable(db: Db, tenantId: string, id: string, patch: Partial<typeof receivables.$inferInsert>): Promise<void> {
  await db
    .update(receivables)
    .set(patch)
    .where(and(eq(receivables.tenantId, tenantId), eq(receivables.id, id)));
}

export const listMappings = (db: Db, tenantId: string) => db.select().from(accountMappings).where(eq(accountMappings.tenantId, tenantId));

/** Sets a key's account (one row per tenant and key: a second PUT replaces it). */
export async function upsertMapping(db: Db, row: { tenantId: string; key: string; accountId: string; updatedBy: string | null; now: Date }): Promise<void> {
  await db
    .insert(accountMappings)
    .values({ tenantId: row.tenantId, key: row.key, accountId: row.accountId, updatedBy: row.updatedBy, updatedAt: row.now })
    .onConflictDoUpdate({
      target: [accountMappings.tenantId, accountMappings.key],
      set: { accountId: sql`excluded.account_id`, updatedBy: sql`excluded.updated_by`, updatedAt: sql`excluded.updated_at` },
    });
}

export async function deleteMapping(db: Db, tenantId: string, key: string): Promise<void> {
  await db.delete(accountMappings).where(and(eq(accountMappings.tenantId, tenantId), eq(accountMappings.key, key)));
}

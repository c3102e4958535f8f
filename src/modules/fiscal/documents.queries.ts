import { and, count, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { fiscalDocuments, fiscalFiles, fiscalNumberVoids, type FiscalDocumentRow, type FiscalStatus, type FiscalType } from '../../db/schema/fiscal.js';

/** SQL on fiscal documents, their files and the voided numbers. */

export async function insertDocument(db: Db, row: typeof fiscalDocuments.$inferInsert): Promise<FiscalDocumentRow> {
  const [created] = await db.insert(fiscalDocuments).values(row).returning();
  return created!;
}

export async function findDocument(db: Db, tenantId: string, id: string, opts: { lock?: boolean } = {}): Promise<FiscalDocumentRow | null> {
  const q = db
    .select()
    .from(fiscalDocuments)
    .where(and(eq(fiscalDocuments.tenantId, tenantId), eq(fiscalDocuments.id, id)));
  const [row] = opts.lock ? await q.for('update') : await q;
  return row ?? null;
}

/** The pending or authorized document of an order and type (at most one: the partial unique index). */
export async function findActive(db: Db, tenantId: string, orderId: string, tipo: FiscalType): Promise<FiscalDocumentRow | null> {
  const rows = await db
    .select()
    .from(fiscalDocuments)
    .where(and(eq(fiscalDocuments.tenantId, tenantId), eq(fiscalDocuments.orderId, orderId), eq(fiscalDocuments.tipo, tipo)))
    .for('update');
  return rows.find((r) => r.status === 'pending' || r.status === 'authorized') ?? null;
}

export async function updateDocument(db: Db, tenantId: string, id: string, fields: Partial<typeof fiscalDocuments.$inferInsert>): Promise<FiscalDocumentRow> {
  const [row] = await db
    .update(fiscalDocuments)
    .set(fields)
    .where(and(eq(fiscalDocuments.tenantId, tenantId), eq(fiscalDocuments.id, id)))
    .returning();
  return row!;
}

/** A page of documents, newest first, and how many match. */
export async function listDocuments(db: Db, tenantId: string, f: { status?: FiscalStatus; offset: number; limit: number }) {
  const where = and(eq(fiscalDocuments.tenantId, tenantId), f.status ? eq(fiscalDocuments.status, f.status) : undefined);
  const rows = await db
    .select()
    .from(fiscalDocuments)
    .where(where)
    .orderBy(desc(fiscalDocuments.createdAt), desc(fiscalDocuments.id))
    .limit(f.limit)
    .offset(f.offset);
  const [{ n }] = (await db.select({ n: count() }).from(fiscalDocuments).where(where)) as [{ n: number }];
  return { rows, total: Number(n) };
}

/** Writes (or replaces) one of a document's files. */
export async function putFile(db: Db, tenantId: string, documentId: string, kind: 'xml' | 'danfe', contentType: string, body: string) {
  await db
    .insert(fiscalFiles)
    .values({ tenantId, documentId, kind, contentType, body })
    .onConflictDoUpdate({ target: [fiscalFiles.tenantId, fiscalFiles.documentId, fiscalFiles.kind], set: { contentType, body } });
}

export async function findFile(db: Db, tenantId: string, documentId: string, kind: 'xml' | 'danfe') {
  const [row] = await db
    .select()
    .from(fiscalFiles)
    .where(and(eq(fiscalFiles.tenantId, tenantId), eq(fiscalFiles.documentId, documentId), eq(fiscalFiles.kind, kind)));
  return row ?? null;
}

export async function insertNumberVoid(db: Db, row: typeof fiscalNumberVoids.$inferInsert) {
  const [created] = await db.insert(fiscalNumberVoids).values(row).returning();
  return created!;
}

export async function updateNumberVoid(db: Db, tenantId: string, id: string, fields: Partial<typeof fiscalNumberVoids.$inferInsert>) {
  await db
    .update(fiscalNumberVoids)
    .set(fields)
    .where(and(eq(fiscalNumberVoids.tenantId, tenantId), eq(fiscalNumberVoids.id, id)));
}

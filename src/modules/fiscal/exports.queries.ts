import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { fiscalDocuments, fiscalExports, fiscalFiles, fiscalNumberVoids } from '../../db/schema/fiscal.js';

/** The local date (tenant's time zone) a document belongs to: its emission, or its creation before it was sent. */
const localDate = (tz: string) => sql<string>`to_char((coalesce(${fiscalDocuments.emittedAt}, ${fiscalDocuments.createdAt}) at time zone ${tz})::date, 'YYYY-MM-DD')`;

/** Authorised and cancelled documents emitted in [start, end] (local dates), in model, series, number order. */
export function documentsBetween(db: Db, tenantId: string, tz: string, start: string, end: string, statuses: ('authorized' | 'cancelled')[]) {
  const day = localDate(tz);
  return db
    .select({
      id: fiscalDocuments.id,
      model: fiscalDocuments.model,
      series: fiscalDocuments.series,
      number: fiscalDocuments.number,
      status: fiscalDocuments.status,
      nfeKey: fiscalDocuments.nfeKey,
      customerCpf: fiscalDocuments.customerCpf,
      totalCents: fiscalDocuments.totalCents,
      items: fiscalDocuments.items,
      taxes: fiscalDocuments.taxes,
      date: day,
    })
    .from(fiscalDocuments)
    .where(and(eq(fiscalDocuments.tenantId, tenantId), inArray(fiscalDocuments.status, statuses), sql`${day} between ${start} and ${end}`))
    .orderBy(asc(fiscalDocuments.model), asc(fiscalDocuments.series), asc(fiscalDocuments.number));
}

/** Number ranges voided at the authority, dated by their last update (when the authority answered), in [start, end]. */
export function voidsBetween(db: Db, tenantId: string, tz: string, start: string, end: string) {
  const day = sql<string>`to_char((${fiscalNumberVoids.updatedAt} at time zone ${tz})::date, 'YYYY-MM-DD')`;
  return db
    .select({
      model: fiscalNumberVoids.model,
      series: fiscalNumberVoids.series,
      numberFrom: fiscalNumberVoids.numberFrom,
      numberTo: fiscalNumberVoids.numberTo,
    })
    .from(fiscalNumberVoids)
    .where(and(eq(fiscalNumberVoids.tenantId, tenantId), eq(fiscalNumberVoids.status, 'voided'), sql`${day} between ${start} and ${end}`));
}

/** The XML of these documents. */
export function xmlOf(db: Db, tenantId: string, documentIds: string[]) {
  if (documentIds.length === 0) return Promise.resolve([]);
  return db
    .select({ documentId: fiscalFiles.documentId, body: fiscalFiles.body })
    .from(fiscalFiles)
    .where(and(eq(fiscalFiles.tenantId, tenantId), eq(fiscalFiles.kind, 'xml'), inArray(fiscalFiles.documentId, documentIds)));
}

export async function insertExport(db: Db, row: typeof fiscalExports.$inferInsert) {
  await db.insert(fiscalExports).values(row);
}

export async function exportByToken(db: Db, tenantId: string, token: string) {
  const [row] = await db
    .select()
    .from(fiscalExports)
    .where(and(eq(fiscalExports.tenantId, tenantId), eq(fiscalExports.token, token)));
  return row ?? null;
}

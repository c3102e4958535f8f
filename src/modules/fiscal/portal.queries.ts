import { and, count, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { fiscalDocuments, type FiscalDocumentRow, type FiscalStatus } from '../../db/schema/fiscal.js';

/** SQL of the accountant portal on fiscal_documents (written by the documents part). */

/** When a document counts for a period: its emission, or its creation before it was sent. */
const dated = sql`coalesce(${fiscalDocuments.emittedAt}, ${fiscalDocuments.createdAt})`;

export interface Period {
  from?: Date;
  /** Exclusive. */
  to?: Date;
}

const inPeriod = (p: Period): SQL[] => [...(p.from ? [gte(dated, p.from)] : []), ...(p.to ? [lt(dated, p.to)] : [])];

/** Documents of a period by status and type. */
export async function countsBy(db: Db, tenantId: string, p: Period) {
  return db
    .select({ status: fiscalDocuments.status, tipo: fiscalDocuments.tipo, n: count() })
    .from(fiscalDocuments)
    .where(and(eq(fiscalDocuments.tenantId, tenantId), ...inPeriod(p)))
    .groupBy(fiscalDocuments.status, fiscalDocuments.tipo);
}

/** A page of documents, newest first, and how many match. */
export async function pageOf(db: Db, tenantId: string, f: Period & { status?: FiscalStatus; offset: number; limit: number }) {
  const where = and(eq(fiscalDocuments.tenantId, tenantId), ...(f.status ? [eq(fiscalDocuments.status, f.status)] : []), ...inPeriod(f));
  const rows = await db.select().from(fiscalDocuments).where(where).orderBy(desc(dated), desc(fiscalDocuments.id)).offset(f.offset).limit(f.limit);
  const [{ n }] = await db.select({ n: count() }).from(fiscalDocuments).where(where);
  return { rows, total: n };
}

export async function findDocument(db: Db, tenantId: string, id: string): Promise<FiscalDocumentRow | null> {
  const [row] = await db.select().from(fiscalDocuments).where(and(eq(fiscalDocuments.tenantId, tenantId), eq(fiscalDocuments.id, id)));
  return row ?? null;
}

/** The period's documents the authority accepted (authorised, or cancelled after): what the summaries add up. */
export async function acceptedIn(db: Db, tenantId: string, p: Period) {
  return db
    .select({
      id: fiscalDocuments.id,
      orderId: fiscalDocuments.orderId,
      tipo: fiscalDocuments.tipo,
      status: fiscalDocuments.status,
      totalCents: fiscalDocuments.totalCents,
      taxes: fiscalDocuments.taxes,
    })
    .from(fiscalDocuments)
    .where(and(eq(fiscalDocuments.tenantId, tenantId), sql`${fiscalDocuments.status} in ('authorized', 'cancelled')`, ...inPeriod(p)));
}

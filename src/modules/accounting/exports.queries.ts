import { and, asc, eq, gte, lte, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { chartAccounts, journalEntries, journalLines, systemAccounts } from '../../db/schema/accounting.js';

export interface ExportLine {
  entryId: string;
  entryNumber: string;
  competenceDate: string;
  description: string;
  /** The entry this one reverses (its number), on a counter-entry. */
  reverses: string | null;
  sourceType: string | null;
  lineNo: number;
  accountCode: string;
  accountName: string;
  debitCents: number;
  creditCents: number;
  memo: string | null;
}

/**
 * Every line of the posted entries whose competence date is in `[start, end]`, by date, entry number (its
 * numeric part: length first) and line, with the account's current code and name (the line's copy when
 * the account is gone).
 */
export function postedLinesBetween(db: Db, tenantId: string, start: string, end: string): Promise<ExportLine[]> {
  const original = alias(journalEntries, 'original');
  return db
    .select({
      entryId: journalEntries.id,
      entryNumber: journalEntries.entryNumber,
      competenceDate: journalEntries.competenceDate,
      description: journalEntries.description,
      reverses: original.entryNumber,
      sourceType: journalEntries.sourceType,
      lineNo: journalLines.lineNo,
      accountCode: sql<string>`coalesce(${chartAccounts.code}, ${systemAccounts.code}, ${journalLines.accountCode})`,
      accountName: sql<string>`coalesce(${chartAccounts.name}, ${systemAccounts.name}, ${journalLines.accountName})`,
      debitCents: journalLines.debitCents,
      creditCents: journalLines.creditCents,
      memo: journalLines.memo,
    })
    .from(journalLines)
    .innerJoin(journalEntries, and(eq(journalEntries.tenantId, journalLines.tenantId), eq(journalEntries.id, journalLines.entryId)))
    .leftJoin(original, and(eq(original.tenantId, journalEntries.tenantId), eq(original.id, journalEntries.reversesId)))
    .leftJoin(chartAccounts, and(eq(chartAccounts.tenantId, journalLines.tenantId), eq(chartAccounts.id, journalLines.accountId)))
    .leftJoin(systemAccounts, eq(systemAccounts.id, journalLines.accountId))
    .where(
      and(
        eq(journalLines.tenantId, tenantId),
        eq(journalEntries.tenantId, tenantId),
        eq(journalEntries.status, 'posted'),
        gte(journalEntries.competenceDate, start),
        lte(journalEntries.competenceDate, end),
      ),
    )
    .orderBy(asc(journalEntries.competenceDate), sql`length(${journalEntries.entryNumber})`, asc(journalEntries.entryNumber), asc(journalLines.lineNo));
}

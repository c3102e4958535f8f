import { and, asc, desc, inArray, like, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { ncmCodes } from '../../db/schema/fiscal.js';

/** SQL on the shared NCM table (read-only for tenants). */

export interface NcmHit {
  code: string;
  display: string;
  description: string;
  category: string;
  score: number;
}

const chapterFilter = (chapters: string[] | null) => (chapters ? inArray(sql`left(${ncmCodes.code}, 2)`, chapters) : undefined);
const columns = { code: ncmCodes.code, display: ncmCodes.display, description: ncmCodes.description, category: ncmCodes.category };

/** 8-digit codes starting with `digits`, in code order. */
export async function byPrefix(db: Db, digits: string, chapters: string[] | null, limit: number): Promise<NcmHit[]> {
  return db
    .select({ ...columns, score: sql<number>`1::float8` })
    .from(ncmCodes)
    .where(and(sql`length(${ncmCodes.code}) = 8`, like(ncmCodes.code, `${digits}%`), chapterFilter(chapters)))
    .orderBy(asc(ncmCodes.code))
    .limit(limit);
}

/** Lowest word similarity (`<%`, over the GIN trigram index) of a text match. */
export const WORD_THRESHOLD = 0.4;

/**
 * 8-digit codes whose searched text (own description and aliases | the codes above it | everyday names) holds
 * something like `text`, scored (0.5 strict word similarity with the whole text + 0.3 with the code's own part
 * + 0.2 plain similarity with its own part (a closer, shorter own description first) + 0.5 with the everyday
 * names) / 1.5, so 0 to 1; best first.
 */
export async function byText(db: Db, text: string, chapters: string[] | null, limit: number): Promise<NcmHit[]> {
  await db.execute(sql.raw(`set local pg_trgm.word_similarity_threshold = ${WORD_THRESHOLD}`));
  const own = sql`split_part(${ncmCodes.searchText}, ' | ', 1)`;
  const everyday = sql`split_part(${ncmCodes.searchText}, ' | ', 3)`;
  // An everyday name (alias) that holds the words wins over a description that merely mentions them.
  const score = sql<number>`round(((0.5 * strict_word_similarity(${text}, ${ncmCodes.searchText}) + 0.3 * strict_word_similarity(${text}, ${own})
    + 0.2 * similarity(${text}, ${own}) + 0.5 * strict_word_similarity(${text}, ${everyday})) / 1.5)::numeric, 4)::float8`;
  return db
    .select({ ...columns, score })
    .from(ncmCodes)
    .where(and(sql`${text} <% ${ncmCodes.searchText}`, sql`length(${ncmCodes.code}) = 8`, chapterFilter(chapters)))
    .orderBy(desc(score), asc(ncmCodes.code))
    .limit(limit);
}

/** Descriptions of the given codes (the headings above the hits). */
export async function descriptionsOf(db: Db, codes: string[]): Promise<Map<string, string>> {
  if (codes.length === 0) return new Map();
  const rows = await db
    .select({ code: ncmCodes.code, description: ncmCodes.description })
    .from(ncmCodes)
    .where(inArray(ncmCodes.code, codes));
  return new Map(rows.map((r) => [r.code, r.description]));
}

/** The chapters (two digits) and their descriptions. */
export async function chapters(db: Db): Promise<{ code: string; description: string }[]> {
  return db
    .select({ code: ncmCodes.code, description: ncmCodes.description })
    .from(ncmCodes)
    .where(sql`length(${ncmCodes.code}) = 2`)
    .orderBy(asc(ncmCodes.code));
}

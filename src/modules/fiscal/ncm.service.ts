import type { TenantDb } from '../../db/scopes.js';
import type { FiscalParts } from './fiscal.service.js';
import { searchable } from './ncm.data.js';
import * as q from './ncm.queries.js';
import type { NcmMatchView, NcmSearchInput } from './ncm.schemas.js';

/** A code query: digits, with or without the dots and spaces of the published form. */
const CODE_QUERY = /^[\d.\s]+$/;

/** NCM search (spec 4.9): code prefix matches first, then trigram similarity on the accent-free description. */
export function ncmPart(_parts: FiscalParts) {
  /** The chapter filter as chapter codes: two digits as given, or every chapter whose description contains the words. */
  let chapterList: { code: string; text: string }[] | null = null;
  async function chaptersOf(db: TenantDb, category: string | undefined): Promise<string[] | null> {
    if (category === undefined) return null;
    const digits = category.trim();
    if (/^\d{1,2}$/.test(digits)) return [digits.padStart(2, '0')];
    chapterList ??= (await db.run((tx) => q.chapters(tx.db))).map((c) => ({ code: c.code, text: searchable(c.description) }));
    const wanted = searchable(category);
    return chapterList.filter((c) => ` ${c.text} `.includes(` ${wanted}`)).map((c) => c.code);
  }

  return {
    async searchNcm(db: TenantDb, input: NcmSearchInput): Promise<NcmMatchView[]> {
      const limit = input.limit ?? 10;
      const chapters = await chaptersOf(db, input.category);
      if (chapters?.length === 0) return [];
      return db.run(async (tx) => {
        const query = input.q.trim();
        let hits: q.NcmHit[] = [];
        if (CODE_QUERY.test(query)) {
          const digits = query.replace(/\D/g, '');
          hits = await q.byPrefix(tx.db, digits, chapters, limit);
        }
        const text = searchable(query);
        if (hits.length < limit && /[a-z]/.test(text)) hits = [...hits, ...(await q.byText(tx.db, text, chapters, limit - hits.length))];
        const above = new Set<string>();
        for (const h of hits) for (const len of [4, 5, 6, 7]) above.add(h.code.slice(0, len));
        const names = await q.descriptionsOf(tx.db, [...above]);
        return hits.map((h) => {
          const path = [4, 5, 6, 7].map((len) => names.get(h.code.slice(0, len))).filter((d): d is string => d !== undefined);
          return {
            code: h.code,
            display: h.display,
            description: h.description,
            fullDescription: [...path, h.description].join(' > '),
            category: h.category,
            score: Number(h.score),
          };
        });
      });
    },
  };
}

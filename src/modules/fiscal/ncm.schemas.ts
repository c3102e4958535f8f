import { Type, type Static } from '@sinclair/typebox';

/** NCM search (spec 4.9: `{ code, description, category, score }`, limit default 10). */

export const NCM_LIMIT_MAX = 50;

export const NcmSearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '[\\p{L}\\p{N}]',
    description: 'a code or its start (2203, 2203.00, 22030000) or words of the description; accents and case ignored',
  }),
  category: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: '[\\p{L}\\p{N}]',
    description: 'the chapter: its two digits (22) or words of its description (bebidas); accents and case ignored',
  })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: NCM_LIMIT_MAX, description: `default 10, at most ${NCM_LIMIT_MAX}` })),
});
export type NcmSearchInput = Static<typeof NcmSearchQuery>;

export const NcmMatch = Type.Object(
  {
    code: Type.String({ pattern: '^[0-9]{8}$', description: 'the 8 digits an NF-e item carries (only 8-digit codes are listed)' }),
    display: Type.String({ description: 'as published: 2203.00.00' }),
    description: Type.String({ description: 'the code’s own description, without the dashes of its level' }),
    fullDescription: Type.String({ description: 'the descriptions of the heading and subheadings above it, then its own, joined by " > "' }),
    category: Type.String({ description: 'the chapter’s description' }),
    score: Type.Number({ minimum: 0, maximum: 1, description: '1 for a code prefix match; otherwise the trigram similarity' }),
  },
  { $id: 'NcmMatch' },
);
export type NcmMatchView = Static<typeof NcmMatch>;

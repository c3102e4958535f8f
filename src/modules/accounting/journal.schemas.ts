import { Type, type Static } from '@sinclair/typebox';
import { ENTRY_STATUSES } from '../../db/schema/accounting.js';
import { Body, CalendarDate, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/** The journal (spec 2 "JournalEntry", 3 "JournalEntry", 4.11 `/journal`). Amounts in currency units (12.34). */

const Amount = (description: string) => Type.Number({ minimum: 0, maximum: 10_000_000_000, description });

export const JournalLine = Type.Object({
  accountId: Id,
  accountCode: Type.String({ description: 'as when the entry was made' }),
  accountName: Type.String({ description: 'as when the entry was made' }),
  debit: Type.Number(),
  credit: Type.Number(),
  memo: Nullable(Type.String()),
});

export const JournalEntry = Type.Object(
  {
    _id: Id,
    entryNumber: Type.String({ description: 'JE-YYYY-NNNNN: the competence year and the tenant’s counter of that year' }),
    competenceDate: Type.String({ format: 'date' }),
    description: Type.String(),
    status: StringEnum(ENTRY_STATUSES, {
      description: 'draft, then posted; a reversed entry stays posted (its `reversedBy` names the counter-entry, both count and cancel out)',
    }),
    totalAmount: Type.Number({ description: 'the sum of the debits (= the sum of the credits)' }),
    lines: Type.Array(JournalLine),
    reverses: Nullable(Id, { description: 'on a counter-entry: the entry it reverses' }),
    reversedBy: Nullable(Id, { description: 'on a reversed entry: its counter-entry' }),
    reversalReason: Nullable(Type.String()),
    source: Nullable(
      Type.Object({
        type: Type.String({ description: 'payment, payment_refund, sale_cost, sale_cost_return, purchase_receipt, purchase_invoice, receivable...' }),
        id: Type.String(),
      }),
      { description: 'what posted it automatically (null for an entry made by hand)' },
    ),
    createdAt: Timestamp,
    postedAt: Nullable(Timestamp),
  },
  { $id: 'JournalEntry' },
);
export type JournalEntryView = Static<typeof JournalEntry>;

export const JournalPage = Type.Object({
  data: Type.Array(JournalEntry),
  total: Type.Integer({ description: 'entries matching the filter' }),
  page: Type.Integer(),
  totalPages: Type.Integer(),
});
export type JournalPageView = Static<typeof JournalPage>;

export const ListJournalQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'from 1 (default 1)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'default 20, at most 100' })),
  status: Type.Optional(StringEnum(ENTRY_STATUSES)),
});
export type ListJournalInput = Static<typeof ListJournalQuery>;

export const CreateEntryBody = Body({
  competenceDate: CalendarDate('the month must be open'),
  description: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }),
  lines: Type.Array(
    Body({
      accountId: Id,
      debit: Type.Optional(Amount('currency units, at most 2 decimals; default 0')),
      credit: Type.Optional(Amount('currency units, at most 2 decimals; default 0')),
      memo: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    }),
    { minItems: 2, maxItems: 500, description: 'each line a debit or a credit (one of them > 0) on an active analytic account; debits = credits to the cent' },
  ),
});
export type CreateEntryInput = Static<typeof CreateEntryBody>;

export const ReverseEntryBody = Body({
  reason: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }),
});
export type ReverseEntryInput = Static<typeof ReverseEntryBody>;

import { Type, type Static } from '@sinclair/typebox';
import { RECEIVABLE_SOURCES, RECEIVABLE_STATUSES } from '../../db/schema/accounting.js';
import { Body, CalendarDate, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/** Receivables (spec 4.11 `/receivables`). Amounts in currency units (12.34), at most 2 decimals. */

const Amount = (description: string, minimum = 0.01) => Type.Number({ minimum, maximum: 10_000_000_000, description });

/** How a receipt came in: `cash` is debited to the cash account, every other method to the bank. */
export const SETTLE_METHODS = ['cash', 'pix', 'bank_transfer', 'boleto', 'credit_card', 'debit_card', 'voucher', 'check'] as const;
export type SettleMethod = (typeof SETTLE_METHODS)[number];

export const AccountRef = Type.Object({ id: Id, code: Type.String(), name: Type.String() });

export const Settlement = Type.Object({
  amount: Type.Number({ description: 'received in cash or in the bank' }),
  fee: Type.Number({ description: 'kept by the acquirer (card_fees); the receivable goes down by amount + fee' }),
  paymentMethod: StringEnum(SETTLE_METHODS),
  date: Type.String({ format: 'date' }),
  entryId: Id,
  at: Timestamp,
  by: Nullable(Id),
});

export const Receivable = Type.Object(
  {
    _id: Id,
    source: StringEnum(RECEIVABLE_SOURCES, { description: 'card_sale (an automatic posting of a card payment) or manual (a sale on credit)' }),
    sourceId: Nullable(Type.String(), { description: 'the payment of a card sale' }),
    customerName: Nullable(Type.String()),
    description: Type.String(),
    account: AccountRef,
    method: Nullable(Type.String(), { description: 'the payment method of a card sale' }),
    amount: Type.Number(),
    received: Type.Number({ description: 'settled so far, fees included' }),
    fees: Type.Number({ description: 'of which kept by the acquirer' }),
    writtenOff: Type.Number(),
    outstanding: Type.Number({ description: 'amount - received - writtenOff' }),
    issueDate: Type.String({ format: 'date' }),
    dueDate: Type.String({ format: 'date' }),
    status: StringEnum(RECEIVABLE_STATUSES),
    settlements: Type.Array(Settlement),
    writeOffReason: Nullable(Type.String()),
    entryId: Nullable(Id, { description: 'the entry that recognised it (manual receivables)' }),
    writeOffEntryId: Nullable(Id),
    createdAt: Timestamp,
  },
  { $id: 'Receivable' },
);
export type ReceivableView = Static<typeof Receivable>;

export const ReceivablePage = Type.Object({
  data: Type.Array(Receivable),
  total: Type.Integer({ description: 'receivables matching the filter' }),
  page: Type.Integer(),
  totalPages: Type.Integer(),
});
export type ReceivablePageView = Static<typeof ReceivablePage>;

export const ListReceivablesQuery = Type.Object({
  status: Type.Optional(StringEnum(RECEIVABLE_STATUSES)),
  source: Type.Optional(StringEnum(RECEIVABLE_SOURCES)),
  dueFrom: Type.Optional(CalendarDate('due on or after')),
  dueTo: Type.Optional(CalendarDate('due on or before')),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'from 1 (default 1)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'default 20, at most 100' })),
});
export type ListReceivablesInput = Static<typeof ListReceivablesQuery>;

export const AGING_BUCKETS = ['overdue over 90 days', 'overdue 61-90 days', 'overdue 31-60 days', 'overdue up to 30 days', 'not yet due'] as const;

export const Aging = Type.Object({
  asOf: Type.String({ format: 'date', description: 'the tenant’s local today' }),
  grandTotal: Type.Number({ description: 'outstanding of the open and partial receivables' }),
  buckets: Type.Array(
    Type.Object({
      label: StringEnum(AGING_BUCKETS),
      total: Type.Number(),
      count: Type.Integer(),
    }),
    { description: 'always five, in this order: over 90 days overdue, 61-90, 31-60, 1-30, not yet due (due today or later)' },
  ),
});
export type AgingView = Static<typeof Aging>;

export const CreateReceivableBody = Body({
  customerName: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  description: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }),
  amount: Amount('currency units, at most 2 decimals'),
  issueDate: Type.Optional(CalendarDate('default the tenant’s today; not after today; its month open')),
  dueDate: CalendarDate('on or after the issue date'),
  revenueAccountId: Type.Optional(Id),
});
export type CreateReceivableInput = Static<typeof CreateReceivableBody>;

export const SettleBody = Body({
  amount: Amount('received, currency units, at most 2 decimals; amount + fee at most the outstanding'),
  paymentMethod: StringEnum(SETTLE_METHODS, { description: 'cash is debited to the cash account, the others to the bank' }),
  date: Type.Optional(CalendarDate('default the tenant’s today; not before the issue date nor after today; its month open')),
  fee: Type.Optional(Amount('kept by the acquirer (card_fees), currency units; default 0', 0)),
  bankAccountId: Type.Optional(Id),
});
export type SettleInput = Static<typeof SettleBody>;

export const WriteOffBody = Body({
  reason: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }),
});
export type WriteOffInput = Static<typeof WriteOffBody>;

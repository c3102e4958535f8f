import { Type, type Static } from '@sinclair/typebox';
import { BANK_ACCOUNT_TYPES, STATEMENT_LINE_STATUSES } from '../../db/schema/accounting.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, CalendarDate, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';
import { STATEMENT_FORMATS } from './bank.statement.js';
import { AccountRef } from './receivables.schemas.js';

/** Bank accounts and statements (spec 4.11 `/bank`). Amounts in currency units (12.34): credits positive, debits negative. */

const Text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, pattern: '\\S', ...(description ? { description } : {}) });

export const BankAccount = Type.Object(
  {
    _id: Id,
    name: Type.String(),
    bank: Type.String(),
    agency: Type.String(),
    account: Type.String(),
    type: StringEnum(BANK_ACCOUNT_TYPES),
    ledgerAccount: AccountRef,
    active: Type.Boolean(),
    unmatchedLines: Type.Integer({ description: 'statement lines still to reconcile' }),
    createdAt: Timestamp,
  },
  { $id: 'BankAccount' },
);
export type BankAccountView = Static<typeof BankAccount>;

export const CreateBankAccountBody = Body({
  name: Text(120),
  bank: Text(60, 'the bank’s code (001, 237, 341, 260...) or name; a numeric code is checked against an OFX file’s BANKID'),
  agency: Text(20),
  account: Text(30, 'with its check digit (12345-6); checked against an OFX file’s ACCTID'),
  type: StringEnum(BANK_ACCOUNT_TYPES),
  ledgerAccountId: Type.Optional(Id),
});
export type CreateBankAccountInput = Static<typeof CreateBankAccountBody>;

export const ImportResult = Type.Object({
  importId: Id,
  format: StringEnum(STATEMENT_FORMATS),
  linesRead: Type.Integer({ description: 'transactions (OFX) or rows (CSV) read: added + duplicates + skipped' }),
  linesAdded: Type.Integer(),
  duplicates: Type.Integer({ description: 'lines already in the statement (same bank transaction id): not added again' }),
  skipped: Type.Integer({ description: 'read but not transactions: balance rows, zero amounts, empty OFX transactions' }),
});
export type ImportResultView = Static<typeof ImportResult>;

export const MatchedEntry = Type.Object({
  _id: Id,
  entryNumber: Type.String(),
  competenceDate: Type.String({ format: 'date' }),
  description: Type.String(),
});

export const StatementLine = Type.Object(
  {
    _id: Id,
    date: Type.String({ format: 'date' }),
    amount: Type.Number({ description: 'credits positive, debits negative' }),
    description: Type.String(),
    fitId: Type.String({ description: 'the bank’s transaction id (OFX FITID), or one derived from the line (`h:...`, CSV)' }),
    status: StringEnum(STATEMENT_LINE_STATUSES),
    matchedEntry: Nullable(MatchedEntry),
    matchedAt: Nullable(Timestamp),
    ignoredReason: Nullable(Type.String()),
    importId: Id,
  },
  { $id: 'BankStatementLine' },
);
export type StatementLineView = Static<typeof StatementLine>;

/** Statement lines: hundreds a month per account, forever. The panel reads them whole today: the default is the maximum. */
export const STATEMENT_PAGE = pageLimits({ default: 500, maximum: 500, what: 'lines' });

export const StatementQuery = Type.Object({
  status: Type.Optional(StringEnum(STATEMENT_LINE_STATUSES)),
  from: Type.Optional(CalendarDate('lines on or after')),
  to: Type.Optional(CalendarDate('lines on or before')),
  ...pageQuery(STATEMENT_PAGE),
});
export type StatementInput = Static<typeof StatementQuery>;

export const AutoMatchResult = Type.Object({
  matched: Type.Integer({ description: 'lines matched by this run' }),
  unmatched: Type.Integer({ description: 'lines of the account still unmatched' }),
  pairs: Type.Array(
    Type.Object({
      lineId: Id,
      date: Type.String({ format: 'date' }),
      amount: Type.Number(),
      entryId: Id,
      entryNumber: Type.String(),
      competenceDate: Type.String({ format: 'date' }),
    }),
  ),
});
export type AutoMatchView = Static<typeof AutoMatchResult>;

export const LineParams = Type.Object({ slug: Type.String({ maxLength: 64 }), id: Id, lineId: Id });

export const MatchBody = Body({ entryId: Id });
export type MatchInput = Static<typeof MatchBody>;

export const IgnoreBody = Body({ reason: Type.Optional(Type.String({ maxLength: 500 })) });
export type IgnoreInput = Static<typeof IgnoreBody>;

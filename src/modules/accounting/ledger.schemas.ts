import { Type, type Static } from '@sinclair/typebox';
import { ACCOUNT_NATURES, PERIOD_STATUSES } from '../../db/schema/accounting.js';
import { Body, CalendarDate, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/** A period's status in the API: `open` for a month never closed (no closing row), else the row's. */
export const PERIOD_VIEW_STATUSES = ['open', ...PERIOD_STATUSES] as const;
export type PeriodViewStatus = (typeof PERIOD_VIEW_STATUSES)[number];

const Year = Type.Integer({ minimum: 2000, maximum: 2099 });
const Month = Type.Integer({ minimum: 1, maximum: 12 });
const Money = (description: string) => Type.Number({ description: `currency units, 2 decimals; ${description}` });

export const BalanceteQuery = Type.Object({ year: Year, month: Month });
export type BalanceteQuery = Static<typeof BalanceteQuery>;

export const BalanceteRow = Type.Object({
  accountId: Id,
  accountCode: Type.String({ description: "the account's current code" }),
  accountName: Type.String({ description: "the account's current name" }),
  nature: StringEnum(ACCOUNT_NATURES),
  totalDebit: Money("the month's posted debits"),
  totalCredit: Money("the month's posted credits"),
  balance: Money('debits - credits for ativo, custo, despesa; credits - debits for passivo, patrimonio_liquido, receita'),
});
export type BalanceteRow = Static<typeof BalanceteRow>;

export const RazaoQuery = Type.Object({
  accountId: Id,
  startDate: CalendarDate('first day, included'),
  endDate: CalendarDate('last day, included; not before startDate'),
});
export type RazaoQuery = Static<typeof RazaoQuery>;

export const RazaoLine = Type.Object({
  entryNumber: Type.String(),
  competenceDate: Type.String({ format: 'date' }),
  description: Type.String(),
  debit: Money('this line'),
  credit: Money('this line'),
  runningBalance: Money('by the balance rule, from the balance of the posted entries before startDate'),
});
export type RazaoLine = Static<typeof RazaoLine>;

export const PeriodBody = Body({ year: Year, month: Month });
export type PeriodBody = Static<typeof PeriodBody>;

export const PeriodClosing = Type.Object({
  year: Type.Integer(),
  month: Type.Integer(),
  status: StringEnum(PERIOD_VIEW_STATUSES, { description: 'open: never closed' }),
  closedAt: Nullable(Timestamp, { description: 'the last closing' }),
  closedBy: Nullable(Id),
  reopenedAt: Nullable(Timestamp, { description: 'the last reopening (kept when the month is closed again)' }),
  reopenedBy: Nullable(Id),
  trialBalanceSnapshot: Nullable(Type.Array(BalanceteRow), { description: 'the balancete of the month at its last closing' }),
});
export type PeriodClosing = Static<typeof PeriodClosing>;

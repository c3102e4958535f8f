import { Type, type Static } from '@sinclair/typebox';
import { CalendarDate, Id } from '../../platform/schemas.js';

const Cents = (description: string) => Type.Integer({ description: `${description}, integer cents` });

/** The money columns every report shares (docs/decisions.md, "Branch reports"). */
const MoneyFields = {
  revenue: Cents('sum of the totals of the orders paid in full in the period, not cancelled'),
  cash: Cents('their approved payments in cash (refunds requested left out)'),
  card: Cents('their approved payments by card (credit_card, debit_card, card)'),
  pix: Cents('their approved payments by PIX'),
  other: Cents('their approved payments by any other method (voucher...); revenue = cash + card + pix + other'),
  tips: Cents('tips of those payments, not part of revenue'),
  orders: Type.Integer({ description: 'orders counted' }),
  shifts: Type.Integer({ description: 'shifts started in the period' }),
};

export const Money = Type.Object(MoneyFields);

export const DailyReportQuery = Type.Object({
  date: Type.Optional(CalendarDate('the local day in the tenant time zone; default today')),
});

export const DailyReport = Type.Object({
  date: Type.String({ description: 'YYYY-MM-DD, the local day reported' }),
  totals: Money,
  byPdv: Type.Array(Type.Object({ pdvId: Id, pdvName: Type.String(), ...MoneyFields }), { description: 'every PDV of the branch, by name' }),
});

export const PeriodQuery = Type.Object({
  from: Type.Optional(CalendarDate('first local day; default `to`')),
  to: Type.Optional(CalendarDate('last local day, included; default today; at most 366 days in all')),
});

export const CompareQuery = Type.Object({
  from: CalendarDate('first local day'),
  to: CalendarDate('last local day, included; on or after `from`, at most 366 days in all'),
});

const AverageTicket = Cents('revenue / orders rounded half up, 0 without orders');

export const BranchComparison = Type.Object({
  branchId: Id,
  branchName: Type.String(),
  ...MoneyFields,
  averageTicket: AverageTicket,
});

export const CompareReport = Type.Object({
  from: Type.String(),
  to: Type.String(),
  totals: Type.Object({ ...MoneyFields, averageTicket: AverageTicket }),
  branches: Type.Array(BranchComparison, { description: 'the branches the caller may see, by name' }),
});

export const BranchStats = Type.Object({
  from: Type.String(),
  to: Type.String(),
  totalRevenue: Cents('revenue of the period (the daily report rule)'),
  totalOrders: Type.Integer(),
  activeShifts: Type.Integer({ description: 'open shifts at the branch now' }),
  activeOperators: Type.Integer({ description: 'distinct operators of those shifts' }),
  lowStockItems: Type.Integer({ description: 'always 0 until the inventory exists' }),
});

export type DailyReportView = Static<typeof DailyReport>;
export type CompareReportView = Static<typeof CompareReport>;
export type BranchStatsView = Static<typeof BranchStats>;

import { Type, type Static } from '@sinclair/typebox';
import { CalendarDate, StringEnum } from '../../platform/schemas.js';

/** The accounting reports (spec 4.11 "Reports"): integer cents, computed from posted entries only. */

const Cents = (description: string) => Type.Integer({ description: `integer cents; ${description}` });

export const BalanceSheetQuery = Type.Object({
  asOf: Type.Optional(CalendarDate("the last day counted, included; default the tenant's local today")),
});
export type BalanceSheetQuery = Static<typeof BalanceSheetQuery>;

export const BalanceSheetLine = Type.Object({
  code: Type.String({ description: "the account's code (3.2 / 3.3 also for the unclosed results, see the description)" }),
  name: Type.String(),
  balance: Cents('by the balance rule; negative for a contra account (depreciação acumulada)'),
});
export type BalanceSheetLine = Static<typeof BalanceSheetLine>;

const Lines = (description: string) => Type.Array(BalanceSheetLine, { description });

export const BalanceSheet = Type.Object({
  asOf: Type.String({ format: 'date' }),
  ativo: Type.Object({
    circulante: Lines('analytic accounts under 1.1 with a balance, by code'),
    naoCirculante: Lines('analytic accounts under 1.2, and asset accounts outside 1.1 and 1.2'),
    total: Cents('the sum of the asset lines'),
  }),
  passivoEPatrimonio: Type.Object({
    circulante: Lines('liability accounts under 2.1, and liability accounts outside 2.1 and 2.2'),
    naoCirculante: Lines('liability accounts under 2.2'),
    patrimonioLiquido: Lines(
      'equity accounts, plus the results not closed into equity: 3.3 Resultado do exercício (this year up to asOf) and ' +
        '3.2 Lucros ou prejuízos acumulados (earlier years), each added to the account of that code when it has a balance',
    ),
    total: Cents('equals ativo.total when every entry balances'),
  }),
});
export type BalanceSheet = Static<typeof BalanceSheet>;

export const CASH_FLOW_METHODS = ['direct', 'indirect'] as const;
export type CashFlowMethod = (typeof CASH_FLOW_METHODS)[number];

export const CashFlowQuery = Type.Object({
  start: Type.Optional(CalendarDate('first day, included; default the first day of the current month (tenant time)')),
  end: Type.Optional(CalendarDate("last day, included; default the tenant's local today; not before start")),
  method: Type.Optional(StringEnum(CASH_FLOW_METHODS, { description: 'default direct' })),
});
export type CashFlowQuery = Static<typeof CashFlowQuery>;

export const CashFlowLine = Type.Object({
  description: Type.String(),
  amount: Cents('inflows positive, outflows negative'),
});
export type CashFlowLine = Static<typeof CashFlowLine>;

const Activity = Type.Object({
  entradas: Type.Array(CashFlowLine, { description: 'lines with a positive amount' }),
  saidas: Type.Array(CashFlowLine, { description: 'lines with a negative amount' }),
  total: Cents('the sum of the lines: the same by both methods'),
});
export type CashFlowActivity = Static<typeof Activity>;

export const CashFlow = Type.Object({
  period: Type.Object({ start: Type.String({ format: 'date' }), end: Type.String({ format: 'date' }) }),
  method: StringEnum(CASH_FLOW_METHODS),
  operacional: Activity,
  investimento: Activity,
  financiamento: Activity,
  saldoInicial: Cents('beyond the spec: the cash and bank balance at the end of the day before start'),
  saldoFinal: Cents('the cash and bank balance at the end of `end` = saldoInicial + the three totals'),
});
export type CashFlow = Static<typeof CashFlow>;

import { Type, type Static } from '@sinclair/typebox';
import { FISCAL_STATUSES } from '../../db/schema/fiscal.js';
import { Body, CalendarDate, Email, StringEnum } from '../../platform/schemas.js';
import { FiscalDoc } from './documents.schemas.js';

/** The accountant portal (spec 4.9 `/t/:slug/accountant/...`). Money in integer cents, as the FiscalDoc's `total`. */

const Cents = (description: string) => Type.Integer({ description: `cents; ${description}` });

export const DashboardQuery = Type.Object({
  year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 2099, description: 'default the tenant’s current year' })),
  month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, description: '1-12, default the tenant’s current month' })),
});
export type DashboardInput = Static<typeof DashboardQuery>;

export const Dashboard = Type.Object({
  year: Type.Integer(),
  month: Type.Integer(),
  authorized: Type.Integer({ description: 'documents of the month (created in it, the tenant’s time zone) now authorised' }),
  rejected: Type.Integer(),
  pending: Type.Integer(),
  cancelled: Type.Integer(),
  byType: Type.Object(
    { nfe: Type.Integer(), nfce: Type.Integer(), nfse: Type.Integer({ description: 'always 0: services invoices (NFS-e) are not issued here' }) },
    { description: 'documents of the month by type, whatever their status' },
  ),
});
export type DashboardView = Static<typeof Dashboard>;

export const DocumentsQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'from 1 (default 1)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'default 20, at most 100' })),
  status: Type.Optional(StringEnum(FISCAL_STATUSES)),
  startDate: Type.Optional(CalendarDate('created on or after this day (the tenant’s time zone)')),
  endDate: Type.Optional(CalendarDate('created on or before this day; not before startDate')),
});
export type DocumentsInput = Static<typeof DocumentsQuery>;

export const DocumentsPage = Type.Object({
  data: Type.Array(FiscalDoc, { description: 'newest first' }),
  total: Type.Integer({ description: 'documents matching the filters' }),
});
export type DocumentsPageView = Static<typeof DocumentsPage>;

export const PeriodQuery = Type.Object({
  startDate: CalendarDate('first day of the period (the tenant’s time zone)'),
  endDate: CalendarDate('last day of the period, included; not before startDate, at most 366 days after it'),
});
export type PeriodInput = Static<typeof PeriodQuery>;

export const SplitPayment = Type.Object({
  periodo: Type.Object({ inicio: Type.String({ format: 'date' }), fim: Type.String({ format: 'date' }) }),
  orderCount: Type.Integer({ description: 'orders with an authorised document in the period' }),
  totalRevenue: Cents('total of the authorised documents'),
  totalTax: Cents('ICMS + PIS + COFINS the documents carry (what is due under the current rules)'),
  totalNet: Cents('totalRevenue - totalTax'),
  splitPaymentImpact: Cents('CBS + IBS the payment processor would withhold at settlement under split payment (LC 214/2025)'),
  taxBreakdown: Type.Object({
    icms: Type.Integer(),
    pis: Type.Integer(),
    cofins: Type.Integer(),
    cbs: Type.Integer({ description: 'totalRevenue x rates.cbs, rounded' }),
    ibs: Type.Integer({ description: 'totalRevenue x rates.ibs, rounded' }),
    rates: Type.Object({
      cbs: Type.Number({ description: '0.009 (0.9%, the 2026 test rate)' }),
      ibs: Type.Number({ description: '0.001 (0.1%, the 2026 test rate)' }),
    }),
    compensable: Type.Boolean({ description: 'true in 2026: CBS and IBS paid in the test year are deducted from PIS and COFINS' }),
  }),
});
export type SplitPaymentView = Static<typeof SplitPayment>;

export const Dere = Type.Object({
  periodo: Type.Object({ inicio: Type.String({ format: 'date' }), fim: Type.String({ format: 'date' }) }),
  receitaBruta: Cents('total of the documents the authority accepted in the period (authorised, including those cancelled since)'),
  deducoes: Type.Object({
    cancelamentos: Cents('documents of the period cancelled since'),
    impostos: Cents('ICMS + PIS + COFINS of the documents still authorised'),
    total: Type.Integer(),
  }),
  receitaLiquida: Cents('receitaBruta - deducoes.total'),
  orderCount: Type.Integer({ description: 'orders with a document still authorised' }),
  byType: Type.Object({ nfe: Type.Integer(), nfce: Type.Integer() }, { description: 'cents of the documents still authorised, by type' }),
  byPayment: Type.Record(Type.String(), Type.Integer(), {
    description: 'cents of the documents still authorised by their order’s payment method (cash, pix, credit_card, debit_card, voucher, card, mixed for '
      + 'several payments); `nao_informado` when the order has none',
  }),
});
export type DereView = Static<typeof Dere>;

export const InviteBody = Body({
  email: Email,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' })),
});
export type InviteInput = Static<typeof InviteBody>;

export const InviteResult = Type.Object({ message: Type.String() });

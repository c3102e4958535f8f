import { Type, type Static, type TInteger, type TOptional } from '@sinclair/typebox';
import { PAYMENT_METHODS, type PaymentMethod } from '../../db/schema/orders.js';
import { CASH_MOVEMENT_KINDS, SHIFT_STATUSES } from '../../db/schema/shifts.js';
import { Body, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';
import { Pdv } from '../branches/index.js';

/** Largest amount of one entry (opening float, movement, counted per method): 10 million reais. */
const MAX_CENTS = 1_000_000_000;
const Cents = (description: string, minimum = 0) => Type.Integer({ minimum, maximum: MAX_CENTS, description: `${description}, integer cents` });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S' });

export const BranchParams = Type.Object({ slug: Type.String({ maxLength: 64 }), id: Id });
export const ShiftParams = Type.Object({ slug: Type.String({ maxLength: 64 }), id: Id, shiftId: Id });

const Person = Type.Object({ _id: Type.String(), name: Type.String() });
const PdvRef = Type.Object({ _id: Type.String(), name: Type.String(), slug: Type.String() });

/** Integer cents per payment method, every method present (0 when none). */
export const Amounts = Type.Object(Object.fromEntries(PAYMENT_METHODS.map((m) => [m, Type.Integer()])) as Record<PaymentMethod, TInteger>, {
  description: 'cents per payment method; card is a card of unknown kind (online wallet payments)',
});

export const Shift = Type.Object(
  {
    _id: Type.String(),
    pdv: PdvRef,
    branch: Type.String(),
    user: Type.Object({ _id: Type.String(), name: Type.String() }, { description: 'the operator working the shift' }),
    openedBy: Person,
    startedAt: Timestamp,
    openingFloat: Type.Integer({ description: 'cash in the drawer at the start, cents' }),
    status: StringEnum(SHIFT_STATUSES),
    closedAt: Nullable(Timestamp),
    closedBy: Nullable(Person),
  },
  { $id: 'Shift' },
);

export const CashMovement = Type.Object(
  {
    _id: Type.String(),
    shift: Type.String(),
    kind: StringEnum(CASH_MOVEMENT_KINDS, { description: 'withdrawal ("sangria": cash taken out) or addition ("suprimento": cash put in)' }),
    amount: Type.Integer({ description: 'cents, > 0' }),
    reason: Type.String(),
    createdBy: Person,
    createdAt: Timestamp,
  },
  { $id: 'CashMovement' },
);

const Totals = Type.Object({
  expected: Type.Integer({ description: 'cents, every method' }),
  counted: Type.Integer({ description: 'cents, every method' }),
  difference: Type.Integer({ description: 'counted - expected, cents: negative is money missing' }),
});

/** A shift with its cash movements and, once closed, its closing report (null while open: the count is blind). */
export const ShiftReport = Type.Object(
  {
    ...Shift.properties,
    notes: Nullable(Type.String({ description: 'closing notes' })),
    movements: Type.Array(CashMovement, { description: 'oldest first' }),
    cashMovements: Type.Object({
      additions: Type.Integer({ description: 'cents put in ("suprimento")' }),
      withdrawals: Type.Integer({ description: 'cents taken out ("sangria")' }),
    }),
    sales: Nullable(Amounts, { description: 'approved payments of the shift (amount + tip) per method, refunds left out; null while open' }),
    expected: Nullable(Amounts, {
      description: 'per method: cash = openingFloat + cash sales + additions - withdrawals; any other = its sales. Null while open',
    }),
    counted: Nullable(Amounts, { description: 'what was counted at the close, per method (a method not given counts 0)' }),
    difference: Nullable(Amounts, { description: 'counted - expected per method; negative is money missing' }),
    totals: Nullable(Totals),
  },
  { $id: 'ShiftReport' },
);

export const ShiftPage = Type.Object({
  data: Type.Array(Type.Object({ ...Shift.properties, totals: Nullable(Totals, { description: 'of the closing report; null while open' }) })),
  total: Type.Integer({ description: 'shifts of the branch the caller may see' }),
  page: Type.Integer(),
  totalPages: Type.Integer(),
});

/** A branch's PDV (as the branch routes show it) with the shift open at it now. */
export const PdvWithShift = Type.Object({
  ...Pdv.properties,
  activeShift: Nullable(
    Type.Object({ _id: Type.String(), user: Person, startedAt: Timestamp, openingFloat: Type.Integer({ description: 'cents' }) }),
  ),
});

/** The spec's active-shift entry. */
export const ActiveShift = Type.Object({
  _id: Type.String(),
  pdv: PdvRef,
  user: Type.Object({ _id: Type.String(), name: Type.String(), email: Type.String() }),
  startedAt: Timestamp,
  openingFloat: Type.Integer({ description: 'cents' }),
  status: StringEnum(SHIFT_STATUSES),
});

export const OpenShiftBody = Body({
  pdvId: Id,
  openingFloat: Cents('cash in the drawer at the start'),
  userId: Id,
});

export const MovementBody = Body({
  kind: StringEnum(CASH_MOVEMENT_KINDS, { description: 'withdrawal ("sangria") or addition ("suprimento")' }),
  amount: Cents('cash taken out or put in', 1),
  reason: Text(200),
});

export const CloseShiftBody = Body({
  counted: Type.Object(
    {
      ...(Object.fromEntries(PAYMENT_METHODS.map((m) => [m, Type.Optional(Cents(`${m} counted`))])) as Record<PaymentMethod, TOptional<TInteger>>),
      cash: Cents('cash counted in the drawer'),
    },
    { additionalProperties: false, description: 'what was counted per method (cash required); a method not given counts 0' },
  ),
  notes: Type.Optional(Type.String({ maxLength: 1000 })),
});

export const ListShiftsQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'from 1 (default 1)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'shifts a page (default 20)' })),
});

export type ShiftView = Static<typeof Shift>;
export type CashMovementView = Static<typeof CashMovement>;
export type ShiftReportView = Static<typeof ShiftReport>;
export type ShiftPageView = Static<typeof ShiftPage>;
export type PdvWithShiftView = Static<typeof PdvWithShift>;
export type ActiveShiftView = Static<typeof ActiveShift>;
export type OpenShiftInput = Static<typeof OpenShiftBody>;
export type MovementInput = Static<typeof MovementBody>;
export type CloseShiftInput = Static<typeof CloseShiftBody>;
export type ListShiftsInput = Static<typeof ListShiftsQuery>;

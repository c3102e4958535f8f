import { Type, type Static } from '@sinclair/typebox';
import { KITCHEN_STATIONS, MENU_UNITS } from '../../db/schema/menu.js';
import { DELIVERY_PROVIDERS } from '../../db/schema/delivery.js';
import {
  ADJUSTMENT_KINDS,
  DISCOUNT_KINDS,
  ORDER_SOURCES,
  ORDER_STATUSES,
  ORDER_TYPES,
  PAYMENT_GATEWAYS,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
} from '../../db/schema/orders.js';
import { Body, CalendarDate, Id, Nullable, StringEnum, TenantParams, Timestamp } from '../../platform/schemas.js';

const OrderStatus = StringEnum(ORDER_STATUSES);
const OrderType = StringEnum(ORDER_TYPES);
const PaymentMethod = StringEnum(PAYMENT_METHODS);
const PaymentGateway = StringEnum(PAYMENT_GATEWAYS);
const PaymentStatus = StringEnum(PAYMENT_STATUSES);

export const MAX_LINES = 100;
export const ModifierSelection = Type.Object(
  { groupId: Id, options: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 }) },
  { additionalProperties: false },
);

/**
 * One line of a new order. Staff send `menuItem`, guest checkout sends `menuItemId` (spec 4.7 shapes
 * a and b); either is accepted. Prices are never taken from the client.
 */
export const OrderLineBody = Type.Object(
  {
    menuItem: Type.Optional(Id),
    menuItemId: Type.Optional(Id),
    quantity: Type.Number({ minimum: 0.001, maximum: 999, description: 'units; kilograms to 3 decimals for an item sold by weight (unit kg)' }),
    notes: Type.Optional(Type.String({ maxLength: 500 })),
    allergens: Type.Optional(Type.Array(Type.String({ maxLength: 60 }), { maxItems: 30 })),
    modifiers: Type.Optional(Type.Array(ModifierSelection, { maxItems: 20 })),
  },
  { additionalProperties: false },
);
const Lines = Type.Array(OrderLineBody, { minItems: 1, maxItems: MAX_LINES });

const GUEST_PAYMENT = ['pix', 'card', 'cash'] as const;

export const CreateOrderBody = Body({
  items: Lines,
  orderType: StringEnum(ORDER_TYPES),
  customerName: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  customerPhone: Type.Optional(Type.String({ pattern: '^\\+?[0-9 ()-]{8,20}$' })),
  customerEmail: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  table: Type.Optional(
    Type.Union([Id, Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]{1,6}$' })], {
      description: 'table id, or the table number from the QR code',
    }),
  ),
  pdv: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'PDV id or slug; required for guest checkout' })),
  paymentMethod: Type.Optional(StringEnum(PAYMENT_METHODS, { description: 'guest checkout accepts pix, card or cash' })),
  covers: Type.Optional(Type.Integer({ minimum: 0, maximum: 500, description: 'people at the table, for the cover charge (dine_in, staff orders)' })),
});
export type CreateOrderInput = Static<typeof CreateOrderBody>;
export { GUEST_PAYMENT };

export const AddItemsBody = Body({ items: Lines });
export const CloseTabBody = Body({ paymentMethod: Type.Optional(StringEnum(PAYMENT_METHODS)) });
export const StatusBody = Body({ status: StringEnum(ORDER_STATUSES) });
export const SplitBody = Body({
  parts: Type.Optional(Type.Integer({ minimum: 2, maximum: 50, description: 'split into N equal parts' })),
  lines: Type.Optional(
    Type.Array(
      Type.Array(Type.Object({ line: Type.Integer({ minimum: 0 }), quantity: Type.Number({ minimum: 0.001 }) }, { additionalProperties: false }), {
        minItems: 1,
      }),
      { minItems: 2, maxItems: 50, description: 'one entry per part: the lines (index into items) and quantities it takes' },
    ),
  ),
});

const Reason = Type.String({ minLength: 1, maxLength: 200, description: 'why: shown on the bill history' });
export const DiscountBody = Body({
  line: Type.Optional(Type.Integer({ minimum: 0, description: 'index into items; without it, a discount on the whole order' })),
  kind: StringEnum(DISCOUNT_KINDS),
  value: Type.Number({ minimum: 0.01, maximum: 100_000_000, description: 'cents (amount) or a percentage to 2 decimals (percent)' }),
  reason: Reason,
});
export const DiscountQuery = Type.Object({ line: Type.Optional(Type.Integer({ minimum: 0, description: 'the line whose discount goes; without it, the order discount' })) });
export const VoidBody = Body({
  line: Type.Integer({ minimum: 0, description: 'index into items' }),
  quantity: Type.Number({ minimum: 0.001, maximum: 999, description: 'units (kilograms for a weighed line) taken off' }),
  reason: Reason,
});
export const BillBody = Body({
  serviceChargeRemoved: Type.Optional(Type.Boolean({ description: 'the customer declines the (optional) service charge; false puts it back' })),
  covers: Type.Optional(Type.Integer({ minimum: 0, maximum: 500, description: 'people at the table, for the cover charge' })),
  reason: Type.Optional(Reason),
});

// Running the floor (issue 11).
export const MoveTableBody = Body({ tableId: Id });
export const MergeBody = Body({ orderId: Id });
export const MoveLinesBody = Body({
  toOrderId: Id,
  lines: Type.Array(
    Type.Object(
      {
        line: Type.Integer({ minimum: 0, description: 'index into items of this order' }),
        quantity: Type.Number({ minimum: 0.001, maximum: 999, description: 'units (kilograms to 3 decimals for a weighed line) to move' }),
      },
      { additionalProperties: false },
    ),
    { minItems: 1, maxItems: MAX_LINES },
  ),
});

export const ListOrdersQuery = Type.Object({
  status: Type.Optional(StringEnum(ORDER_STATUSES)),
  from: Type.Optional(CalendarDate('first day (tenant time zone), default today')),
  to: Type.Optional(CalendarDate('last day (tenant time zone), default from')),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'page, from 1 (default 1); X-Total-Count gives the number of orders' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'orders a page (default 200)' })),
  pdvIds: Type.Optional(Type.Array(Id, { maxItems: 100, description: 'also accepted as pdvIds[]=...' })),
});

const DiscountView = Type.Object({
  kind: StringEnum(DISCOUNT_KINDS),
  value: Type.Number({ description: 'cents (amount) or percentage (percent)' }),
  reason: Type.String(),
  by: Type.Optional(Type.String({ description: 'user id (not on public views)' })),
  at: Type.Optional(Timestamp),
});

/** The parts of a bill, in cents, on the order, the checkout view and the receipt. */
export const BillView = {
  itemsTotal: Type.Integer({ description: 'cents: sum of the line amounts' }),
  discountTotal: Type.Integer({ description: 'cents: line discounts plus the order discount' }),
  discount: Nullable(DiscountView, { description: 'the discount on the whole order' }),
  serviceChargePercent: Type.Number({ description: 'the service charge rate of this bill (0 for none)' }),
  serviceChargeRemoved: Type.Boolean({ description: 'the customer declined the service charge' }),
  serviceCharge: Type.Integer({ description: 'cents: on itemsTotal - discountTotal, rounded half up' }),
  covers: Type.Integer({ description: 'people charged the cover' }),
  coverCharge: Type.Integer({ description: 'cents: covers x the cover charge per person' }),
  rounding: Type.Object(
    { lines: Type.Number(), discounts: Type.Number(), serviceCharge: Type.Number() },
    { description: 'what rounding to whole cents moved (rounded - exact, in cents)' },
  ),
};

export const OrderLineView = Type.Object({
  menuItem: Nullable(Type.String()),
  name: Type.String(),
  price: Type.Integer({ description: 'unit price in cents, modifiers included (per kg for unit kg)' }),
  quantity: Type.Number({ description: 'units, or kilograms to 3 decimals (unit kg)' }),
  unit: Type.Optional(StringEnum(MENU_UNITS)),
  amount: Type.Optional(Type.Integer({ description: 'cents: price x quantity (less voided units), rounded half up' })),
  discount: Type.Optional(DiscountView),
  discountAmount: Type.Optional(Type.Integer({ description: 'cents taken off this line' })),
  voidedQuantity: Type.Optional(Type.Number({ description: 'units taken off by voids' })),
  notes: Type.Optional(Type.String()),
  allergens: Type.Optional(Type.Array(Type.String())),
  modifiers: Type.Optional(
    Type.Array(
      Type.Object({
        groupId: Type.String(),
        groupName: Type.String(),
        options: Type.Array(Type.Object({ name: Type.String(), priceAdjustment: Type.Integer() })),
      }),
    ),
  ),
  station: Type.Optional(StringEnum(KITCHEN_STATIONS, { description: 'where the line is prepared (the item\'s station when ordered); absent: kitchen' })),
  preparationTime: Type.Optional(Type.Number({ description: 'minutes: the item\'s preparation time when ordered' })),
});

export const Order = Type.Object(
  {
    _id: Type.String(),
    orderNumber: Type.String(),
    items: Type.Array(OrderLineView),
    customerName: Nullable(Type.String()),
    customerPhone: Nullable(Type.String()),
    customerEmail: Nullable(Type.String()),
    status: OrderStatus,
    type: OrderType,
    table: Nullable(Type.String()),
    pdv: Nullable(Type.String()),
    paymentMethod: Nullable(PaymentMethod),
    isSplitBill: Type.Boolean(),
    splitBillReference: Nullable(Type.String()),
    isTab: Type.Boolean(),
    source: StringEnum(ORDER_SOURCES, { description: 'who made it: staff, guest, wallet checkout, split part, or a delivery platform (marketplace)' }),
    externalProvider: Nullable(StringEnum(DELIVERY_PROVIDERS), { description: 'the delivery platform of a marketplace order' }),
    externalId: Nullable(Type.String({ description: 'the platform\'s order id' })),
    marketplace: Nullable(
      Type.Object({
        displayId: Nullable(Type.String({ description: 'the short number the platform shows the courier and the customer' })),
        fulfilment: StringEnum(['delivery', 'takeout'] as const),
        placedAt: Timestamp,
        deliveryAddress: Nullable(Type.String()),
        notes: Nullable(Type.String()),
        totals: Type.Object({
          itemsCents: Type.Integer(),
          discountCents: Type.Integer(),
          deliveryFeeCents: Type.Integer(),
          serviceFeeCents: Type.Integer(),
          tipCents: Type.Integer(),
          totalCents: Type.Integer(),
        }),
        payment: Type.Object({ method: Type.String(), prepaid: Type.Boolean() }),
      }),
      { description: 'a delivery platform\'s details: its number, delivery address, its totals and fees (what the customer paid there)' },
    ),
    ...BillView,
    total: Type.Integer({ description: 'cents: itemsTotal - discountTotal + serviceCharge + coverCharge (tips are on payments)' }),
    amountPaid: Type.Integer({ description: 'cents collected by approved payments' }),
    amountDue: Type.Integer({ description: 'cents still to collect: total - amountPaid (never below 0)' }),
    isSplit: Type.Boolean({ description: 'the bill was split: its parts are paid, not this order' }),
    adjustments: Type.Array(
      Type.Object({
        kind: StringEnum(ADJUSTMENT_KINDS),
        line: Type.Optional(Type.Integer()),
        detail: Type.String(),
        reason: Type.Optional(Type.String()),
        by: Type.String({ description: 'user id' }),
        at: Timestamp,
      }),
      { description: 'discounts, voids, service charge or cover changes, and moves of the table or of lines, oldest first' },
    ),
    statusHistory: Type.Array(
      Type.Object({
        from: OrderStatus,
        to: OrderStatus,
        at: Timestamp,
        by: Type.String({ description: 'user id' }),
        correction: Type.Boolean({ description: 'a step back (the kitchen recalled the order)' }),
      }),
      { description: 'changes made through PUT status, oldest first' },
    ),
    pixPayload: Nullable(Type.String()),
    pixQrCodeBase64: Nullable(Type.String()),
    paymentGateway: Nullable(PaymentGateway),
    paymentTransactionId: Nullable(Type.String()),
    paymentStatus: Nullable(PaymentStatus, { description: '`approved` exactly when amountDue is 0; null before any payment and while part is paid' }),
    paymentAttempts: Type.Integer(),
    receiptToken: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
);
export type OrderView = Static<typeof Order>;

/**
 * What anyone holding the order number may see (HTTP tracking and the tracking room): never a receipt
 * token, payment ids, the customer's name, phone or e-mail. Staff numbers are sequential, hence
 * guessable: their orders show status and times only. Guest and wallet numbers are random: their
 * orders also show type, lines, total and payment status.
 */
export const TrackedOrder = Type.Object({
  orderNumber: Type.String(),
  status: OrderStatus,
  type: Type.Optional(StringEnum(ORDER_TYPES, { description: 'guest orders only' })),
  items: Type.Optional(Type.Array(Type.Object({ name: Type.String(), quantity: Type.Number(), price: Type.Integer() }), { description: 'guest orders only' })),
  serviceCharge: Type.Optional(Type.Integer({ description: 'cents of service charge in the total (guest orders only)' })),
  total: Type.Optional(Type.Integer({ description: 'guest orders only' })),
  paymentStatus: Type.Optional(Nullable(PaymentStatus, { description: 'guest orders only' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type TrackedOrderView = Static<typeof TrackedOrder>;

/** The public `paymentUpdate` of the tracking room (guest orders only): no receipt token, no payment ids. */
export interface TrackedPaymentView {
  orderNumber: string;
  paymentStatus: string | null;
}

/**
 * The guest checkout answer (public POST /orders, wallet checkout): the customer's order without their
 * phone, e-mail or the payment ids; the only place the receipt token and link are given out.
 */
export const CheckoutOrder = Type.Object({
  _id: Type.String(),
  orderNumber: Type.String(),
  items: Type.Array(OrderLineView),
  customerName: Nullable(Type.String()),
  status: OrderStatus,
  type: OrderType,
  table: Nullable(Type.String()),
  pdv: Nullable(Type.String()),
  paymentMethod: Nullable(PaymentMethod),
  isTab: Type.Boolean(),
  ...BillView,
  total: Type.Integer({ description: 'cents' }),
  amountPaid: Type.Integer({ description: 'cents' }),
  amountDue: Type.Integer({ description: 'cents' }),
  pixPayload: Nullable(Type.String()),
  pixQrCodeBase64: Nullable(Type.String()),
  paymentGateway: Nullable(PaymentGateway),
  paymentStatus: Nullable(PaymentStatus),
  paymentAttempts: Type.Integer(),
  receiptToken: Nullable(Type.String({ description: 'set once paid (wallet checkout); valid 10 minutes' })),
  receiptUrl: Nullable(Type.String({ description: 'public receipt link, set with receiptToken' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type CheckoutOrderView = Static<typeof CheckoutOrder>;

export const Receipt = Type.Object({
  tenant: Type.Object({ name: Type.String(), cnpj: Nullable(Type.String()) }),
  orderNumber: Type.String(),
  items: Type.Array(
    Type.Object({
      name: Type.String(),
      quantity: Type.Number(),
      unit: StringEnum(MENU_UNITS),
      price: Type.Integer(),
      amount: Type.Integer({ description: 'cents' }),
      discountAmount: Type.Integer({ description: 'cents' }),
    }),
  ),
  ...BillView,
  total: Type.Integer(),
  payments: Type.Array(
    Type.Object({
      method: PaymentMethod,
      amount: Type.Integer({ description: 'cents applied to the bill' }),
      tip: Type.Integer({ description: 'cents' }),
      tendered: Nullable(Type.Integer({ description: 'cents handed over in cash' })),
      change: Type.Integer({ description: 'cents given back' }),
      paidAt: Nullable(Timestamp),
    }),
    { description: 'the approved payments of the bill' },
  ),
  tipTotal: Type.Integer({ description: 'cents' }),
  paymentMethod: Nullable(PaymentMethod),
  paymentGateway: Nullable(PaymentGateway),
  paymentTransactionId: Nullable(Type.String()),
  paidAt: Nullable(Timestamp),
  expiresAt: Timestamp,
});

/** `Idempotency-Key` of the routes that create orders (the key's own rules are checked by `platform/idempotency.ts`). */
export { IdempotencyHeaders } from '../../platform/schemas.js';

export const OrderNumberParams = Type.Object({ ...TenantParams.properties, number: Type.String({ pattern: '^[0-9]{8}-[0-9a-f]{4,10}$' }) });
export const TableIdParams = Type.Object({ ...TenantParams.properties, tableId: Id });
export const ReceiptParams = Type.Object({ ...TenantParams.properties, token: Type.String({ pattern: '^[0-9a-f]{32}$' }) });

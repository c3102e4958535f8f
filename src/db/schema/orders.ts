import { bigint, boolean, date, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { pdvs } from './branches.js';
import type { MenuUnit, Station } from './menu.js';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { diningTables } from './tables.js';
import { DELIVERY_PROVIDERS } from './delivery.js';
import { tenants } from './tenants.js';

export const ORDER_STATUSES = ['pending', 'confirmed', 'preparing', 'ready', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const ORDER_TYPES = ['dine_in', 'takeout'] as const;
export const PAYMENT_METHODS = ['cash', 'credit_card', 'debit_card', 'pix', 'voucher', 'mixed', 'card'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export const PAYMENT_GATEWAYS = ['mock', 'gateway_a', 'wallet', 'pix_psp', 'marketplace'] as const;
export const PAYMENT_STATUSES = ['processing', 'approved', 'declined'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const ORDER_SOURCES = ['staff', 'guest', 'wallet', 'split', 'marketplace'] as const;

export interface OrderLineModifier {
  groupId: string;
  groupName: string;
  options: { name: string; priceAdjustment: number }[];
}

/** A status change made through `PUT .../status` (a correction is a step back: the kitchen's recall). */
export interface StatusChange {
  from: OrderStatus;
  to: OrderStatus;
  at: string;
  by: string;
  correction: boolean;
}

export const DISCOUNT_KINDS = ['amount', 'percent'] as const;

/** A discount on a line or on the whole order: `value` is cents (`amount`) or a percentage (`percent`). */
export interface Discount {
  kind: (typeof DISCOUNT_KINDS)[number];
  value: number;
  reason: string;
  by: string;
  at: string;
}

export const ADJUSTMENT_KINDS = ['discount', 'discount_removed', 'void', 'service_charge', 'covers', 'table_moved', 'merged', 'lines_moved'] as const;

/** A change to a bill after it was made: a discount, a void, the service charge, a move of the table or of lines. */
export interface BillAdjustment {
  kind: (typeof ADJUSTMENT_KINDS)[number];
  /** Index of the line, for line discounts and voids. */
  line?: number;
  detail: string;
  reason?: string;
  by: string;
  at: string;
}

/** Rounded minus exact, in cents (fractions of a cent): what rounding to whole cents moved, per part of the bill. */
export interface BillRounding {
  lines: number;
  discounts: number;
  serviceCharge: number;
}

/** One line of an order: name and prices copied from the menu when the line was added. */
/** A delivery platform's order details kept on the order (the lines are the order's own). */
export interface MarketplaceDetails {
  displayId: string | null;
  fulfilment: 'delivery' | 'takeout';
  placedAt: string;
  deliveryAddress: string | null;
  notes: string | null;
  /** The platform's figures, in cents: what the customer paid there, with its fees. */
  totals: { itemsCents: number; discountCents: number; deliveryFeeCents: number; serviceFeeCents: number; tipCents: number; totalCents: number };
  payment: { method: string; prepaid: boolean };
}

export interface OrderLine {
  /** Null on the synthetic line of an equal split part. */
  menuItem: string | null;
  name: string;
  /** Unit price in cents, modifiers included (per kg for `unit: kg`). */
  price: number;
  /** Units, or kilograms to 3 decimals for `unit: kg`. */
  quantity: number;
  /** Absent on lines written before items could be sold by weight: `un`. */
  unit?: MenuUnit;
  /** price x quantity rounded to the cent (written with every change of the bill). */
  amount?: number;
  discount?: Discount;
  /** The line discount in cents. */
  discountAmount?: number;
  /** Units taken off the line by voids (the line stays, so line numbers do not move). */
  voidedQuantity?: number;
  notes?: string;
  allergens?: string[];
  modifiers?: OrderLineModifier[];
  /** The item's station when the line was made; absent on lines written before stations: `kitchen`. */
  station?: Station;
  /** The item's preparation time in minutes when the line was made (absent when the item had none). */
  preparationTime?: number;
}

export const orders = pgTable(
  'orders',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    orderNumber: text('order_number').notNull(),
    source: text('source', { enum: ORDER_SOURCES }).notNull(),
    status: text('status', { enum: ORDER_STATUSES }).notNull().default('pending'),
    type: text('type', { enum: ORDER_TYPES }).notNull(),
    tableId: id('table_id'),
    pdvId: id('pdv_id'),
    items: jsonb('items').$type<OrderLine[]>().notNull(),
    /** Sum of the line amounts, in cents. */
    itemsTotal: bigint('items_total', { mode: 'number' }).notNull().default(0),
    /** Line discounts plus the order discount, in cents. */
    discountTotal: bigint('discount_total', { mode: 'number' }).notNull().default(0),
    orderDiscount: jsonb('order_discount').$type<Discount>(),
    /** Service charge rate in basis points, taken from the PDV or tenant when the order was made. */
    serviceChargeBp: integer('service_charge_bp').notNull().default(0),
    /** The customer declined the (optional) service charge. */
    serviceChargeRemoved: boolean('service_charge_removed').notNull().default(false),
    serviceCharge: bigint('service_charge', { mode: 'number' }).notNull().default(0),
    /** People at the table, for the cover charge. */
    covers: integer('covers').notNull().default(0),
    coverChargeUnit: bigint('cover_charge_unit', { mode: 'number' }).notNull().default(0),
    coverCharge: bigint('cover_charge', { mode: 'number' }).notNull().default(0),
    rounding: jsonb('rounding').$type<BillRounding>(),
    adjustments: jsonb('adjustments').$type<BillAdjustment[]>().notNull().default([]),
    /** itemsTotal - discountTotal + serviceCharge + coverCharge, in cents (tips are on payments). */
    total: bigint('total', { mode: 'number' }).notNull(),
    customerName: text('customer_name'),
    customerPhone: text('customer_phone'),
    customerEmail: text('customer_email'),
    paymentMethod: text('payment_method', { enum: PAYMENT_METHODS }),
    /** The open tab of its table (a dine-in order that collects rounds until close-tab). */
    isTab: boolean('is_tab').notNull().default(false),
    isSplitBill: boolean('is_split_bill').notNull().default(false),
    splitBillReference: text('split_bill_reference'),
    pixPayload: text('pix_payload'),
    pixQrCodeBase64: text('pix_qr_code_base64'),
    paymentGateway: text('payment_gateway', { enum: PAYMENT_GATEWAYS }),
    paymentTransactionId: text('payment_transaction_id'),
    paymentIntentId: text('payment_intent_id'),
    /** Card terminal the current attempt was sent to (gateway_a), needed to cancel it. */
    paymentTerminalSerial: text('payment_terminal_serial'),
    paymentStatus: text('payment_status', { enum: PAYMENT_STATUSES }),
    paymentAttempts: integer('payment_attempts').notNull().default(0),
    /** Cents collected by approved payments (the payments ledger's sum); due = total - amountPaid. */
    amountPaid: bigint('amount_paid', { mode: 'number' }).notNull().default(0),
    /** Set when the bill was split into parts: the parts are paid, this order no more. */
    splitAt: ts('split_at'),
    /** The shift open at its PDV when the order was made. */
    shiftId: id('shift_id'),
    statusHistory: jsonb('status_history').$type<StatusChange[]>().notNull().default([]),
    paymentStartedAt: ts('payment_started_at'),
    paidAt: ts('paid_at'),
    receiptToken: text('receipt_token'),
    receiptExpiresAt: ts('receipt_expires_at'),
    createdBy: id('created_by'),
    /** A delivery platform's order (`source: marketplace`): the platform and its order id (one order per pair). */
    externalProvider: text('external_provider', { enum: DELIVERY_PROVIDERS }),
    externalId: text('external_id'),
    /** What the platform said beyond the lines: its short number, fulfilment, address, totals and fees, payment. */
    marketplace: jsonb('marketplace').$type<MarketplaceDetails>(),
    closedAt: ts('closed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('orders_number_key').on(t.tenantId, t.orderNumber),
    uniqueIndex('orders_receipt_token_key').on(t.tenantId, t.receiptToken),
    uniqueIndex('orders_external_key').on(t.tenantId, t.externalProvider, t.externalId),
    index('orders_payment_intent_idx').on(t.paymentIntentId),
    // At most one open tab per table.
    uniqueIndex('orders_open_tab_key')
      .on(t.tenantId, t.tableId)
      .where(sql`${t.isTab} and ${t.status} not in ('delivered', 'cancelled')`),
    index('orders_created_idx').on(t.tenantId, t.createdAt),
    index('orders_status_idx').on(t.tenantId, t.status, t.createdAt),
    index('orders_shift_idx').on(t.tenantId, t.shiftId),
    index('orders_paid_idx').on(t.tenantId, t.paidAt),
    foreignKey({ name: 'orders_table_fk', columns: [t.tenantId, t.tableId], foreignColumns: [diningTables.tenantId, diningTables.id] }),
    foreignKey({ name: 'orders_pdv_fk', columns: [t.tenantId, t.pdvId], foreignColumns: [pdvs.tenantId, pdvs.id] }),
  ],
);

/** Daily sequence of staff order numbers (`YYYYMMDD-NNNN`), per tenant, in the tenant's time zone. */
export const orderCounters = pgTable(
  'order_counters',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    last: integer('last').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.day] })],
);

export type OrderRow = typeof orders.$inferSelect;

import { sql } from 'drizzle-orm';
import { bigint, foreignKey, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { orders, PAYMENT_GATEWAYS, PAYMENT_METHODS } from './orders.js';
import { tenants } from './tenants.js';

/** A payment attempt's life: `processing` only for a card terminal; a refund ends an approved one. */
export const PAYMENT_RECORD_STATUSES = ['processing', 'approved', 'declined', 'cancelled', 'refunded'] as const;
export type PaymentRecordStatus = (typeof PAYMENT_RECORD_STATUSES)[number];
/** Why money was given back. */
export const REFUND_REASONS = ['order_cancelled', 'late_approval'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/**
 * The payment ledger: one row per attempt to collect money for an order. The order's payment fields
 * (`paymentStatus`, `amountPaid`...) are derived from its rows, in the transaction of every change.
 */
export const payments = pgTable(
  'payments',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    orderId: id('order_id').notNull(),
    /** 1, 2, ... per order: the order's `paymentAttempts` is the last one. */
    attempt: integer('attempt').notNull(),
    method: text('method', { enum: PAYMENT_METHODS }).notNull(),
    gateway: text('gateway', { enum: PAYMENT_GATEWAYS }).notNull(),
    /** Cents applied to the bill (never more than was due when it started). */
    amount: bigint('amount', { mode: 'number' }).notNull(),
    /** Cents of tip on top of the amount (not part of the bill). */
    tip: bigint('tip', { mode: 'number' }).notNull().default(0),
    /** Cash handed over, when more than the amount; the change is `tendered - amount`. */
    tendered: bigint('tendered', { mode: 'number' }),
    status: text('status', { enum: PAYMENT_RECORD_STATUSES }).notNull(),
    intentId: text('intent_id'),
    transactionId: text('transaction_id'),
    terminalSerial: text('terminal_serial'),
    /** The shift open at the order's PDV when the payment was taken (its drawer, for cash). */
    shiftId: id('shift_id'),
    createdBy: id('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    settledAt: ts('settled_at'),
    /** Set when a refund was decided (in the transaction that decided it); the payment stays approved until the gateway confirms. */
    refundRequestedAt: ts('refund_requested_at'),
    refundReason: text('refund_reason', { enum: REFUND_REASONS }),
    refundId: text('refund_id'),
    refundedAt: ts('refunded_at'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ name: 'payments_order_fk', columns: [t.tenantId, t.orderId], foreignColumns: [orders.tenantId, orders.id] }).onDelete('cascade'),
    uniqueIndex('payments_attempt_key').on(t.tenantId, t.orderId, t.attempt),
    // One payment in flight per order: a second one at the same time loses here, whatever the code did.
    uniqueIndex('payments_one_processing_key').on(t.tenantId, t.orderId).where(sql`${t.status} = 'processing'`),
    index('payments_intent_idx').on(t.intentId),
    index('payments_shift_idx').on(t.tenantId, t.shiftId),
    index('payments_settled_idx').on(t.tenantId, t.settledAt),
    index('payments_processing_idx').on(t.createdAt).where(sql`${t.status} = 'processing'`),
    index('payments_refund_pending_idx').on(t.refundRequestedAt).where(sql`${t.status} = 'approved' and ${t.refundRequestedAt} is not null`),
  ],
);

export type PaymentRow = typeof payments.$inferSelect;

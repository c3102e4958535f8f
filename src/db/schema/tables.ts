import { sql } from 'drizzle-orm';
import { date, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

export const TABLE_STATUSES = ['available', 'occupied', 'reserved'] as const;
export type TableStatus = (typeof TABLE_STATUSES)[number];

export const RESERVATION_STATUSES = ['pending', 'confirmed', 'seated', 'no_show', 'cancelled'] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];

/** Dining tables. Soft-deleted, so orders that name a table keep a valid reference; a number is unique among live tables. */
export const diningTables = pgTable(
  'dining_tables',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    number: integer('number').notNull(),
    capacity: integer('capacity').notNull(),
    status: text('status', { enum: TABLE_STATUSES }).notNull().default('available'),
    location: text('location'),
    deletedAt: ts('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('dining_tables_number_key').on(t.tenantId, t.number).where(sql`${t.deletedAt} is null`),
  ],
);

export const reservations = pgTable(
  'reservations',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    customerName: text('customer_name').notNull(),
    customerPhone: text('customer_phone').notNull(),
    customerEmail: text('customer_email'),
    date: date('date', { mode: 'string' }).notNull(),
    time: text('time').notNull(),
    partySize: integer('party_size').notNull(),
    notes: text('notes'),
    status: text('status', { enum: RESERVATION_STATUSES }).notNull().default('pending'),
    /** The table held for it; two live reservations of one table may not overlap. */
    tableId: id('table_id'),
    /** How long the table is held, from `time`. */
    durationMinutes: integer('duration_minutes').notNull().default(120),
    /** The tab opened when the party was seated. */
    orderId: id('order_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('reservations_date_idx').on(t.tenantId, t.date, t.time),
    index('reservations_table_idx').on(t.tenantId, t.tableId, t.date),
  ],
);

export type DiningTableRow = typeof diningTables.$inferSelect;
export type ReservationRow = typeof reservations.$inferSelect;

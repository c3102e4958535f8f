import { char, timestamp } from 'drizzle-orm/pg-core';

/** Shared column builders: ids are char(24), timestamps are UTC timestamptz. */
export const id = (name: string) => char(name, { length: 24 });
export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

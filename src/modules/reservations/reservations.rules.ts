import type { ReservationStatus } from '../../db/schema/tables.js';
import { localDate } from '../../platform/time.js';

/** `YYYY-MM-DD` that names a day of the calendar (no 2025-02-30). */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** The wall-clock time (HH:MM, 24 h) of an instant in a time zone. */
export function localTime(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${part('hour')}:${part('minute')}`;
}

/**
 * Whether a reservation slot is already over in the tenant's time zone: a day before today,
 * or today at a time that has passed (the current minute still counts as bookable).
 */
export function slotInPast(date: string, time: string, now: Date, timeZone: string): 'date' | 'time' | null {
  const today = localDate(now, timeZone);
  if (date < today) return 'date';
  if (date === today && time < localTime(now, timeZone)) return 'time';
  return null;
}

/**
 * pending -> confirmed, pending|confirmed -> cancelled; staying put is allowed;
 * cancelled is final; nothing goes back to pending.
 */
const MOVES: Record<ReservationStatus, readonly ReservationStatus[]> = {
  pending: ['pending', 'confirmed', 'cancelled'],
  confirmed: ['confirmed', 'cancelled'],
  cancelled: [],
};

export function canMove(from: ReservationStatus, to: ReservationStatus): boolean {
  return MOVES[from].includes(to);
}

/** A calendar date `days` after (or before) a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

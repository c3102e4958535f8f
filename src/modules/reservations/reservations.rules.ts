import type { ReservationStatus } from '../../db/schema/tables.js';
import { localDate, localTime } from '../../platform/time.js';

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
 * pending -> confirmed; pending|confirmed -> seated, no_show or cancelled; staying put is allowed;
 * seated, no_show and cancelled are final; nothing goes back to pending.
 */
const MOVES: Record<ReservationStatus, readonly ReservationStatus[]> = {
  pending: ['pending', 'confirmed', 'seated', 'no_show', 'cancelled'],
  confirmed: ['confirmed', 'seated', 'no_show', 'cancelled'],
  seated: ['seated'],
  no_show: ['no_show'],
  cancelled: [],
};

export function canMove(from: ReservationStatus, to: ReservationStatus): boolean {
  return MOVES[from].includes(to);
}

/** The statuses whose reservation holds its table: two of them on one table may not overlap. */
export const HOLDING_STATUSES = ['pending', 'confirmed', 'seated'] as const satisfies readonly ReservationStatus[];

export const isHolding = (status: ReservationStatus) => (HOLDING_STATUSES as readonly ReservationStatus[]).includes(status);

export const MIN_DURATION = 15;
export const MAX_DURATION = 600;
export const DEFAULT_DURATION = 120;

/** A reservation's hold of its table in minutes since 1970-01-01 (local days): [start, end). */
export function windowOf(r: { date: string; time: string; durationMinutes: number }): { start: number; end: number } {
  const day = Math.round(Date.parse(`${r.date}T00:00:00Z`) / 86_400_000);
  const [h, m] = r.time.split(':').map(Number);
  const start = day * 1440 + h * 60 + m;
  return { start, end: start + r.durationMinutes };
}

/** Two holds overlap when each starts before the other ends (one ending at 22:00 and one starting then do not). */
export function overlaps(a: { date: string; time: string; durationMinutes: number }, b: { date: string; time: string; durationMinutes: number }): boolean {
  const x = windowOf(a);
  const y = windowOf(b);
  return x.start < y.end && y.start < x.end;
}

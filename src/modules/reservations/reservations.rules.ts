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

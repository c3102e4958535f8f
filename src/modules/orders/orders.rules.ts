import { addQuantities } from './orders.bill.js';
import type { OrderLine, OrderStatus } from '../../db/schema/orders.js';

/** Forward order of the kitchen flow; `cancelled` is reachable from any state before `delivered`. */
const FLOW: OrderStatus[] = ['pending', 'confirmed', 'preparing', 'ready', 'delivered'];
export const FINAL_STATUSES: readonly OrderStatus[] = ['delivered', 'cancelled'];

export const isOpen = (status: OrderStatus) => !FINAL_STATUSES.includes(status);

/**
 * Status moves: forward along pending -> confirmed -> preparing -> ready -> delivered (steps may be
 * skipped: a counter sale goes straight to delivered), cancel from any open state, one step back for a
 * correction while the order is open (the kitchen's recall: ready -> preparing), and nothing leaves
 * `delivered` or `cancelled`.
 */
export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  if (!isOpen(from)) return false;
  if (to === 'cancelled') return true;
  return FLOW.indexOf(to) > FLOW.indexOf(from) || isCorrection(from, to);
}

/** One step back along the flow, from an open status. */
export const isCorrection = (from: OrderStatus, to: OrderStatus) => isOpen(from) && to !== 'cancelled' && FLOW.indexOf(to) === FLOW.indexOf(from) - 1;

/** The chosen options of a line, independent of order (jsonb does not keep key order). */
const choiceKey = (l: OrderLine) =>
  (l.modifiers ?? [])
    .map((g) => `${g.groupId}:${g.options.map((o) => o.name).sort().join(',')}`)
    .sort()
    .join('|');

/**
 * Two lines are the same dish when item, modifiers, notes and unit price all match: a round added after
 * a price change gets its own line, so the earlier units keep the price they were sold at.
 */
function sameDish(a: OrderLine, b: OrderLine): boolean {
  // A line with a discount or voided units keeps its story: more of the dish is a new line.
  if (a.discount || a.voidedQuantity || b.discount || b.voidedQuantity) return false;
  return a.menuItem === b.menuItem && a.price === b.price && (a.notes ?? '') === (b.notes ?? '') && choiceKey(a) === choiceKey(b);
}

/** Adds lines to a tab: the same dish gets its quantity incremented, anything else a new line. */
export function mergeLines(existing: OrderLine[], added: OrderLine[]): OrderLine[] {
  const lines = existing.map((l) => ({ ...l }));
  for (const line of added) {
    const same = lines.find((l) => sameDish(l, line));
    if (same) same.quantity = addQuantities(same.quantity, line.quantity);
    else lines.push({ ...line });
  }
  return lines;
}

/** `YYYYMMDD` of a local date `YYYY-MM-DD`. */
export const compactDate = (day: string) => day.replaceAll('-', '');
export const staffOrderNumber = (day: string, seq: number) => `${compactDate(day)}-${String(seq).padStart(4, '0')}`;

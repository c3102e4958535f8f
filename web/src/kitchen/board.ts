/** The kitchen board's rules, without the DOM: which orders a station sees, where they go, how late they are. */

export const STATIONS = ['kitchen', 'bar', 'desserts'] as const;
export type Station = (typeof STATIONS)[number];
export const BOARD_STATUSES = ['pending', 'confirmed', 'preparing', 'ready'] as const;
export type BoardStatus = (typeof BOARD_STATUSES)[number];
export type OrderStatus = BoardStatus | 'delivered' | 'cancelled';

/** Expected preparation time (minutes) of a card whose lines give none. */
export const DEFAULT_PREPARATION_MINUTES = 15;

/** The parts of an order line (`GET /t/:slug/orders`, kitchen events) the board uses. */
export interface KitchenLine {
  name: string;
  quantity: number;
  unit?: 'un' | 'kg';
  notes?: string;
  allergens?: string[];
  modifiers?: { groupName: string; options: { name: string }[] }[];
  /** Absent on lines of older orders: those count as kitchen. */
  station?: Station | null;
  preparationTime?: number | null;
}

export interface KitchenOrder {
  _id: string;
  orderNumber: string;
  status: OrderStatus;
  type: 'dine_in' | 'takeout';
  table: string | null;
  customerName: string | null;
  items: KitchenLine[];
  createdAt: string;
  updatedAt: string;
}

export const isStation = (v: unknown): v is Station => typeof v === 'string' && (STATIONS as readonly string[]).includes(v);
export const isBoardStatus = (s: string): s is BoardStatus => (BOARD_STATUSES as readonly string[]).includes(s);

export const lineStation = (line: KitchenLine): Station => (isStation(line.station) ? line.station : 'kitchen');

/** The lines of an order this station prepares (none: the order is not shown). */
export const linesFor = (order: KitchenOrder, station: Station) => order.items.filter((l) => lineStation(l) === station);

/** Forward step of a bump; `ready` goes to `delivered` (off the board). */
export function nextStatus(status: BoardStatus): OrderStatus {
  const flow: OrderStatus[] = ['pending', 'confirmed', 'preparing', 'ready', 'delivered'];
  return flow[flow.indexOf(status) + 1]!;
}

/** One step back (the API's correction rule, orders.rules.ts); `pending` has none. */
export function previousStatus(status: BoardStatus): BoardStatus | null {
  const i = BOARD_STATUSES.indexOf(status);
  return i > 0 ? BOARD_STATUSES[i - 1]! : null;
}

/**
 * Puts a received order into the board: newer `updatedAt` wins (a late event never rolls a card back),
 * and an order that left the board's statuses is removed.
 */
export function upsert(orders: Map<string, KitchenOrder>, order: KitchenOrder): Map<string, KitchenOrder> {
  const current = orders.get(order._id);
  if (current && Date.parse(current.updatedAt) > Date.parse(order.updatedAt)) return orders;
  const next = new Map(orders);
  if (isBoardStatus(order.status)) next.set(order._id, order);
  else next.delete(order._id);
  return next;
}

/** The orders of one column for a station, oldest first (the one waiting longest on top). */
export function column(orders: Iterable<KitchenOrder>, status: BoardStatus, station: Station): KitchenOrder[] {
  return [...orders]
    .filter((o) => o.status === status && linesFor(o, station).length > 0)
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.orderNumber.localeCompare(b.orderNumber));
}

/** Expected minutes for a card: the longest preparation time among its lines. */
export function expectedMinutes(lines: KitchenLine[]): number {
  const times = lines.map((l) => l.preparationTime ?? 0).filter((t) => t > 0);
  return times.length ? Math.max(...times) : DEFAULT_PREPARATION_MINUTES;
}

export type Lateness = 'normal' | 'warning' | 'late';

/** Amber past 75 % of the expected time, red once it is over. */
export function lateness(elapsedMinutes: number, expected: number): Lateness {
  if (elapsedMinutes > expected) return 'late';
  if (elapsedMinutes >= expected * 0.75) return 'warning';
  return 'normal';
}

export const elapsedMinutes = (createdAt: string, now: number) => Math.max(0, Math.floor((now - Date.parse(createdAt)) / 60_000));

/** `?station=`, else the last choice on this device, else the kitchen. */
export function initialStation(search: string, stored: string | null): Station {
  const fromUrl = new URLSearchParams(search).get('station');
  if (isStation(fromUrl)) return fromUrl;
  return isStation(stored) ? stored : 'kitchen';
}

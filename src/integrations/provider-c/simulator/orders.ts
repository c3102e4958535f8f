/**
 * The simulator's orders: built from what a test or a person asks for (items with options and notes,
 * customer, address, fees) in Uber Eats' order-details shape, and moved by the service's status pushes
 * (`accept_pos_order`: CREATED -> ACCEPTED; `cancel`: -> CANCELED).
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import type { UberCartItem, UberLocation, UberMoney, UberOrder } from '../order.js';
import { SimulatorError } from './state.js';

type Obj = Record<string, unknown>;

/** `R$ 15,50` from 1550. */
export const formatBrl = (cents: number) => `${cents < 0 ? '-' : ''}R$ ${Math.trunc(Math.abs(cents) / 100)},${String(Math.abs(cents) % 100).padStart(2, '0')}`;
const brl = (amount: number): UberMoney => ({ amount, currency_code: 'BRL', formatted_amount: formatBrl(amount) });

const TYPES = ['DELIVERY_BY_UBER', 'DELIVERY_BY_RESTAURANT', 'PICK_UP', 'DINE_IN'] as const;

const DEFAULT_ITEMS = [
  { code: 'X-BURGER', name: 'X-Burger', quantity: 2, unitPriceCents: 2590, notes: 'sem cebola', options: [{ code: 'BACON', name: 'Bacon extra', unitPriceCents: 400 }] },
  { code: 'COCA-350', name: 'Coca-Cola lata 350 ml', quantity: 1, unitPriceCents: 750 },
];

function obj(v: unknown): Obj {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}
const bad = (message: string) => new SimulatorError(400, 'bad_request', message);
function text(v: unknown, name: string, fallback?: string): string {
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw bad(`${name} is required`);
  }
  if (typeof v !== 'string' || !v.trim()) throw bad(`${name} must be a non-empty string`);
  return v.trim();
}
function optText(v: unknown, name: string): string | undefined {
  return v === undefined || v === null ? undefined : text(v, name);
}
function cents(v: unknown, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw bad(`${name} must be a non-negative integer (cents)`);
  return v as number;
}
function quantity(v: unknown, name: string): number {
  if (v === undefined) return 1;
  if (!Number.isSafeInteger(v) || (v as number) < 1 || (v as number) > 999) throw bad(`${name} must be an integer from 1 to 999`);
  return v as number;
}

function cartItem(v: unknown, i: number): UberCartItem {
  const it = obj(v);
  const at = `items[${i}]`;
  const code = text(it.code, `${at}.code`);
  const unit = cents(it.unitPriceCents, `${at}.unitPriceCents`, NaN);
  if (Number.isNaN(unit)) throw bad(`${at}.unitPriceCents is required`);
  const qty = quantity(it.quantity, `${at}.quantity`);
  if (it.options !== undefined && !Array.isArray(it.options)) throw bad(`${at}.options must be a list`);
  const options = ((it.options as unknown[]) ?? []).map((o, j) => {
    const op = obj(o);
    const oat = `${at}.options[${j}]`;
    const price = cents(op.unitPriceCents, `${oat}.unitPriceCents`, 0);
    const q = quantity(op.quantity, `${oat}.quantity`);
    const code = text(op.code, `${oat}.code`);
    return { id: code, external_data: code, title: text(op.name, `${oat}.name`), quantity: q, price: { unit_price: brl(price), total_price: brl(price * q) } };
  });
  const perUnit = unit + options.reduce((s, o) => s + o.price.total_price.amount, 0);
  const notes = optText(it.notes, `${at}.notes`);
  return {
    id: code,
    instance_id: randomUUID(),
    external_data: code,
    title: text(it.name, `${at}.name`),
    quantity: qty,
    price: { unit_price: brl(unit), total_price: brl(perUnit * qty), base_unit_price: brl(unit), base_total_price: brl(unit * qty) },
    selected_modifier_groups: options.length ? [{ id: `${code}-extras`, title: 'Adicionais', selected_items: options, removed_items: [] }] : [],
    ...(notes ? { special_instructions: notes } : {}),
  };
}

function location(v: unknown): { location: UberLocation; notes?: string } {
  const a = obj(v);
  const street = text(a.street, 'address.street', 'Rua Augusta');
  const number = optText(a.number, 'address.number') ?? '1500';
  const loc: UberLocation = {
    type: 'GOOGLE_PLACE',
    street_address: `${street}, ${number}`,
    unit_number: optText(a.complement, 'address.complement'),
    neighborhood: optText(a.neighborhood, 'address.neighborhood') ?? 'Consolação',
    city: optText(a.city, 'address.city') ?? 'São Paulo',
    state: optText(a.state, 'address.state') ?? 'SP',
    postal_code: optText(a.postalCode, 'address.postalCode') ?? '01305-100',
    country: 'BR',
  };
  const parts = [loc.street_address, loc.unit_number, loc.neighborhood, `${loc.city} - ${loc.state}`, loc.postal_code].filter(Boolean);
  const notes = optText(a.reference, 'address.reference');
  return { location: { ...loc, formatted_address: parts.join(', '), latitude: -23.5558, longitude: -46.6623 }, ...(notes ? { notes } : {}) };
}

/** An order as the platform would show it, from a control request's body. */
export function buildOrder(input: Obj, now: Date): UberOrder {
  const storeId = text(input.storeId, 'storeId');
  const type = (input.type ?? 'DELIVERY_BY_UBER') as UberOrder['type'];
  if (!TYPES.includes(type)) throw bad(`type must be one of ${TYPES.join(', ')}`);
  if (input.items !== undefined && (!Array.isArray(input.items) || input.items.length === 0)) throw bad('items must be a non-empty list');
  const items = ((input.items as unknown[] | undefined) ?? DEFAULT_ITEMS).map(cartItem);
  const c = obj(input.customer);
  const subTotal = items.reduce((s, i) => s + i.price.total_price.amount, 0);
  const delivery = type.startsWith('DELIVERY') ? cents(input.deliveryFeeCents, 'deliveryFeeCents', 599) : 0;
  const discount = cents(input.discountCents, 'discountCents', 0);
  const small = cents(input.serviceFeeCents, 'serviceFeeCents', 0);
  const tip = cents(input.tipCents, 'tipCents', 0);
  const total = subTotal - discount + delivery + small + tip;
  if (total < 0) throw bad('the discount is larger than the order');
  const id = randomUUID();
  const notes = optText(input.notes, 'notes');
  return {
    id,
    display_id: id.replace(/-/g, '').slice(0, 5).toUpperCase(),
    current_state: 'CREATED',
    type,
    brand: 'UBER_EATS',
    placed_at: now.toISOString(),
    store: { id: storeId, name: text(input.storeName, 'storeName', 'Loja simulada') },
    eater: {
      first_name: text(c.firstName, 'customer.firstName', 'Maria'),
      last_name: text(c.lastName, 'customer.lastName', 'S.'),
      phone: text(c.phone, 'customer.phone', '+55 11 4003-0000'),
      phone_code: '123 45 678',
      ...(c.email !== undefined ? { email: text(c.email, 'customer.email') } : {}),
      ...(c.document !== undefined ? { tax_id: text(c.document, 'customer.document') } : {}),
      ...(type.startsWith('DELIVERY') ? { delivery: { ...location(input.address), type: 'LEAVE_AT_DOOR' } } : {}),
    },
    cart: { items, ...(notes ? { special_instructions: notes } : {}) },
    payment: {
      charges: {
        total: brl(total),
        sub_total: brl(subTotal),
        tax: brl(0),
        ...(delivery ? { delivery_fee: brl(delivery) } : {}),
        ...(small ? { small_order_fee: brl(small) } : {}),
        ...(tip ? { tip: brl(tip) } : {}),
        ...(discount ? { total_promo_applied: brl(discount) } : {}),
        ...(input.cash === true ? { cash_amount_due: brl(total) } : {}),
      },
    },
  };
}

export function orderBook(clock: Clock) {
  const orders = new Map<string, UberOrder>();
  function find(id: string): UberOrder {
    const o = orders.get(id);
    if (!o) throw new SimulatorError(404, 'not_found', `order ${id} not found`);
    return o;
  }
  return {
    create(input: Obj): UberOrder {
      const order = buildOrder(input, clock.now());
      orders.set(order.id, order);
      return order;
    },
    find,
    get: (id: string) => orders.get(id),
    /** Oldest first. */
    list: (): UberOrder[] => [...orders.values()],
    get size() {
      return orders.size;
    },
    /** The service's status push; accepting twice is harmless, accepting a cancelled order is refused. */
    act(id: string, action: 'accept_pos_order' | 'cancel' | 'platform_cancel'): UberOrder {
      const o = find(id);
      if (action === 'accept_pos_order') {
        if (o.current_state === 'CANCELED' || o.current_state === 'DENIED') throw new SimulatorError(409, 'invalid_state', `order ${id} is ${o.current_state}`);
        o.current_state = 'ACCEPTED';
      } else {
        if (o.current_state === 'FINISHED') throw new SimulatorError(409, 'invalid_state', `order ${id} is FINISHED`);
        o.current_state = 'CANCELED';
      }
      return o;
    },
  };
}
export type OrderBook = ReturnType<typeof orderBook>;

/**
 * provider_c's order, shaped like Uber Eats' `GET /v2/eats/order/{order_id}`, read into the NormalizedOrder
 * of `../delivery.ts`. Money in that API is `{ amount, currency_code, formatted_amount }` with `amount` an
 * integer in minor units (1550 = R$ 15,50), so cents are read as they are, never through a float; a
 * currency other than BRL is refused.
 *
 * Where each field comes from:
 * - externalId `id`, displayId `display_id`, placedAt `placed_at`; fulfilment from `type`
 *   (`DELIVERY_BY_UBER` / `DELIVERY_BY_RESTAURANT` -> delivery, `PICK_UP` / `DINE_IN` -> takeout).
 * - customer `eater.first_name` + `last_name`, `phone`, `email`, `tax_id` (CPF, when the eater gave it).
 * - address `eater.delivery.location` (else the first `deliveries[].location` that has a street):
 *   `street_address` ("Rua Augusta, 1500" is split at the last comma when a number follows), `unit_number`
 *   -> complement, `neighborhood`, `city`, `state`, `postal_code`, `formatted_address`; `eater.delivery.notes` -> reference.
 * - lines `cart.items[]`: code `id` (the id the catalog sync gave the item), else `external_data`; `title`,
 *   `quantity`, unit price `price.base_unit_price` (without modifiers) else `price.unit_price`, total
 *   `price.total_price`; options from `selected_modifier_groups[].selected_items[]` (nested groups flattened);
 *   `special_instructions` -> notes. Order notes `cart.special_instructions`.
 * - totals `payment.charges`: items `sub_total`, discount `total_promo_applied`, delivery `delivery_fee`,
 *   service `small_order_fee` + `bag_fee` + `pick_and_pack_fee`, tip `tip`, total `total` (what the eater pays).
 * - payment: Uber Eats collects online (`ONLINE`, prepaid) unless `charges.cash_amount_due` > 0 (`CASH`, not prepaid).
 */
import type { NormalizedAddress, NormalizedLine, NormalizedOption, NormalizedOrder } from '../delivery.js';

export interface UberMoney {
  amount: number;
  currency_code: string;
  formatted_amount?: string;
}

export interface UberSelectedItem {
  id: string;
  title: string;
  external_data?: string;
  quantity: number;
  price: { unit_price: UberMoney; total_price: UberMoney };
  selected_modifier_groups?: UberModifierGroup[];
}

export interface UberModifierGroup {
  id: string;
  title: string;
  external_data?: string;
  selected_items: UberSelectedItem[];
  removed_items?: unknown[];
}

export interface UberCartItem extends UberSelectedItem {
  instance_id?: string;
  price: { unit_price: UberMoney; total_price: UberMoney; base_unit_price?: UberMoney; base_total_price?: UberMoney };
  special_instructions?: string;
}

export interface UberLocation {
  type?: string;
  street_address?: string;
  unit_number?: string;
  neighborhood?: string;
  city?: string;
  state?: string;
  postal_code?: string;
  country?: string;
  formatted_address?: string;
  latitude?: number;
  longitude?: number;
}

export type UberCharges = Partial<
  Record<'total' | 'sub_total' | 'tax' | 'total_fee' | 'delivery_fee' | 'small_order_fee' | 'bag_fee' | 'pick_and_pack_fee' | 'tip', UberMoney>
> &
  Partial<Record<'total_promo_applied' | 'cash_amount_due', UberMoney>>;

/** The order as `GET /v2/eats/order/{order_id}` answers it (the fields this service reads or the simulator writes). */
export interface UberOrder {
  id: string;
  display_id: string;
  current_state: 'CREATED' | 'ACCEPTED' | 'DENIED' | 'FINISHED' | 'CANCELED';
  type: 'DELIVERY_BY_UBER' | 'DELIVERY_BY_RESTAURANT' | 'PICK_UP' | 'DINE_IN';
  brand: 'UBER_EATS';
  placed_at: string;
  store: { id: string; name: string };
  eater: {
    first_name: string;
    last_name?: string;
    phone?: string;
    phone_code?: string;
    email?: string;
    tax_id?: string;
    delivery?: { location: UberLocation; type?: string; notes?: string };
  };
  cart: { items: UberCartItem[]; special_instructions?: string };
  payment: { charges: UberCharges };
  deliveries?: { first_name?: string; vehicle?: unknown; location?: UberLocation; current_state?: string }[];
}

type Obj = Record<string, unknown>;

/** The order's store (`store.id`), when it names one: the client checks it against the tenant's merchant id. */
export const storeIdOf = (payload: unknown): string | null => str(obj(obj(payload)?.store)?.id);

/** Reads an Uber Eats order (v2 order details) into the service's order; throws a clear Error on a body it cannot read. */
export function normalizeProviderCOrder(payload: unknown): NormalizedOrder {
  const o = obj(payload);
  if (!o) throw bad('the order is not a JSON object');
  const id = str(o.id);
  if (!id) throw bad('the order has no id');
  const placedAt = str(o.placed_at);
  if (!placedAt || Number.isNaN(Date.parse(placedAt))) throw bad(`order ${id}: placed_at is missing or not a date`);
  const eater = obj(o.eater) ?? {};
  const cart = obj(o.cart);
  if (!cart || !Array.isArray(cart.items) || cart.items.length === 0) throw bad(`order ${id}: cart.items is missing or empty`);
  const items = cart.items.map((it, i) => line(it, `order ${id}: cart.items[${i}]`));
  const charges = obj(obj(o.payment)?.charges);
  if (!charges) throw bad(`order ${id}: payment.charges is missing`);
  const at = (k: string) => money(charges[k], `order ${id}: payment.charges.${k}`);
  const itemsCents = at('sub_total') ?? items.reduce((s, l) => s + l.totalCents, 0);
  const discountCents = Math.abs(at('total_promo_applied') ?? 0);
  const deliveryFeeCents = at('delivery_fee') ?? 0;
  const serviceFeeCents = (at('small_order_fee') ?? 0) + (at('bag_fee') ?? 0) + (at('pick_and_pack_fee') ?? 0);
  const tipCents = at('tip') ?? 0;
  const totalCents = at('total') ?? itemsCents - discountCents + deliveryFeeCents + serviceFeeCents + tipCents;
  const cash = at('cash_amount_due') ?? 0;
  const fulfilment = fulfilmentOf(o.type, id);
  const name = [str(eater.first_name), str(eater.last_name)].filter(Boolean).join(' ');
  return {
    provider: 'provider_c',
    externalId: id,
    displayId: str(o.display_id),
    placedAt: new Date(placedAt).toISOString(),
    fulfilment,
    customer: { name: name || 'Uber Eats customer', phone: str(eater.phone), email: str(eater.email), document: str(eater.tax_id) },
    deliveryAddress: fulfilment === 'delivery' ? address(o, eater) : null,
    items,
    notes: str(cart.special_instructions),
    totals: { itemsCents, discountCents, deliveryFeeCents, serviceFeeCents, tipCents, totalCents },
    payment: cash > 0 ? { method: 'CASH', prepaid: false } : { method: 'ONLINE', prepaid: true },
  };
}

function fulfilmentOf(type: unknown, id: string): 'delivery' | 'takeout' {
  const t = str(type)?.toUpperCase();
  if (t?.startsWith('DELIVERY')) return 'delivery';
  if (t === 'PICK_UP' || t === 'DINE_IN' || t === 'TAKE_OUT') return 'takeout';
  throw bad(`order ${id}: unknown type ${JSON.stringify(type)}`);
}

function line(v: unknown, where: string): NormalizedLine {
  const it = obj(v);
  if (!it) throw bad(`${where} is not an object`);
  const name = str(it.title);
  if (!name) throw bad(`${where} has no title`);
  const quantity = it.quantity;
  if (typeof quantity !== 'number' || !Number.isFinite(quantity) || quantity <= 0) throw bad(`${where}.quantity must be a positive number`);
  const price = obj(it.price);
  if (!price) throw bad(`${where} has no price`);
  const unitPriceCents = money(price.base_unit_price, `${where}.price.base_unit_price`) ?? money(price.unit_price, `${where}.price.unit_price`);
  const totalCents = money(price.total_price, `${where}.price.total_price`);
  if (unitPriceCents === null || totalCents === null) throw bad(`${where}: price.unit_price and price.total_price are required`);
  return {
    externalCode: str(it.id) ?? str(it.external_data),
    name,
    quantity,
    unitPriceCents,
    totalCents,
    options: options(it.selected_modifier_groups, where),
    notes: str(it.special_instructions),
  };
}

function options(groups: unknown, where: string): NormalizedOption[] {
  if (groups === undefined || groups === null) return [];
  if (!Array.isArray(groups)) throw bad(`${where}.selected_modifier_groups is not a list`);
  return groups.flatMap((g, gi) => {
    const selected = obj(g)?.selected_items;
    if (!Array.isArray(selected)) return [];
    return selected.flatMap((s, si): NormalizedOption[] => {
      const at = `${where}.selected_modifier_groups[${gi}].selected_items[${si}]`;
      const o = obj(s);
      const name = str(o?.title);
      if (!o || !name) throw bad(`${at} has no title`);
      const quantity = typeof o.quantity === 'number' && o.quantity > 0 ? o.quantity : 1;
      const unitPriceCents = money(obj(o.price)?.unit_price, `${at}.price.unit_price`) ?? 0;
      return [{ externalCode: str(o.id) ?? str(o.external_data), name, quantity, unitPriceCents }, ...options(o.selected_modifier_groups, at)];
    });
  });
}

function address(o: Obj, eater: Obj): NormalizedAddress | null {
  const delivery = obj(eater.delivery);
  const hasStreet = (l: Obj | null) => Boolean(l && (str(l.street_address) || str(l.formatted_address)));
  let loc = obj(delivery?.location);
  if (!hasStreet(loc) && Array.isArray(o.deliveries)) loc = o.deliveries.map((d) => obj(obj(d)?.location)).find(hasStreet) ?? null;
  if (!loc || !hasStreet(loc)) return null;
  const full = str(loc.street_address);
  const m = full ? /^(.*\S)\s*,\s*(\d+[A-Za-z]?|s\/n|S\/N)$/.exec(full) : null;
  const a = {
    street: m ? m[1] : full,
    number: m ? m[2] : null,
    complement: str(loc.unit_number),
    neighborhood: str(loc.neighborhood),
    city: str(loc.city),
    state: str(loc.state),
    postalCode: str(loc.postal_code),
    reference: str(delivery?.notes),
  };
  const built = [full, a.complement, a.neighborhood, [a.city, a.state].filter(Boolean).join(' - '), a.postalCode].filter(Boolean).join(', ');
  return { ...a, formatted: str(loc.formatted_address) ?? built };
}

/**
 * An Uber money object -> integer cents; null when absent. `amount` is in minor units: an integer (or a
 * string of digits, optionally signed); a fraction or another currency than BRL is an error, not a guess.
 */
export function money(v: unknown, where: string): number | null {
  if (v === undefined || v === null) return null;
  const m = obj(v);
  if (!m) throw bad(`${where} is not a money object`);
  const currency = m.currency_code;
  if (currency !== undefined && currency !== 'BRL') throw bad(`${where}: currency ${JSON.stringify(currency)} is not BRL`);
  const a = m.amount;
  const cents = typeof a === 'number' ? a : typeof a === 'string' && /^-?\d{1,15}$/.test(a) ? Number(a) : NaN;
  if (!Number.isSafeInteger(cents)) throw bad(`${where}.amount must be an integer in minor units, got ${JSON.stringify(a)}`);
  return cents;
}

function obj(v: unknown): Obj | null {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

const bad = (message: string) => new Error(`provider_c order: ${message}`);

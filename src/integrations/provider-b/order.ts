/**
 * provider_b's order (one element of the array `GET .../orders?storeId=` answers, the Rappi getOrders
 * shape) read into the service's `NormalizedOrder`. Amounts: see `amounts.ts`.
 *
 * Reading rules (docs in /tmp/apps/decisions-provider_b.md):
 * - externalId and displayId: `order_detail.order_id` (the platform shows the same number to the courier).
 * - item / topping code: `sku` (the restaurant's code, what the catalog push sends), else the platform's `id`.
 * - a line's `price` is one unit without toppings; a subitem's `quantity` is per unit of its line, so the
 *   line total is (price + sum(subitem price x quantity)) x quantity (this is how `total_products` adds up).
 * - totals: items `total_products`, discount `total_discounts`, delivery fee `charges.shipping`, service fee
 *   `charges.service_fee`, tip `other_totals.tip`, total `total_order`, all as the platform states them.
 * - customer: `customer` first, `billing_information` for what it lacks (email comes from billing).
 * - `delivery_method` pickup / takeout / take_away -> takeout (no address); anything else -> delivery.
 * - payment: `payment_method` as named; prepaid unless it is cash.
 */
import type { NormalizedAddress, NormalizedLine, NormalizedOption, NormalizedOrder } from '../delivery.js';
import { amountToCents } from './amounts.js';
import { ProviderBPayloadError } from './errors.js';

type Obj = Record<string, unknown>;

export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A non-empty string, or a finite number as text (ids come as either). */
export function idOf(v: unknown): string | null {
  if (typeof v === 'string') return v.trim() === '' ? null : v.trim();
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : null;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

class Reader {
  constructor(private readonly where: string) {}

  fail(path: string, what: string): never {
    throw new ProviderBPayloadError(`${this.where}: ${path} ${what}`);
  }

  object(v: unknown, path: string): Obj {
    return isObject(v) ? v : this.fail(path, 'is not an object');
  }

  id(v: unknown, path: string): string {
    return idOf(v) ?? this.fail(path, 'is missing');
  }

  /** An amount in cents; `undefined` / null reads as 0 unless required. */
  cents(v: unknown, path: string, required = false): number {
    if ((v === undefined || v === null) && !required) return 0;
    return amountToCents(v) ?? this.fail(path, `is not an amount (${JSON.stringify(v)})`);
  }

  quantity(v: unknown, path: string): number {
    const n = typeof v === 'string' ? Number(v) : v;
    return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : this.fail(path, 'is not a positive quantity');
  }
}

function readOption(r: Reader, v: unknown, path: string): NormalizedOption {
  const o = r.object(v, path);
  return {
    externalCode: idOf(o.sku) ?? idOf(o.id),
    name: text(o.name) ?? r.fail(`${path}.name`, 'is missing'),
    quantity: o.quantity === undefined ? 1 : r.quantity(o.quantity, `${path}.quantity`),
    unitPriceCents: r.cents(o.price, `${path}.price`),
  };
}

function readLine(r: Reader, v: unknown, path: string): NormalizedLine {
  const item = r.object(v, path);
  const raw = item.subitems ?? item.toppings ?? [];
  const subitems = Array.isArray(raw) ? (raw as unknown[]) : r.fail(`${path}.subitems`, 'is not an array');
  const options = subitems.map((s, i) => readOption(r, s, `${path}.subitems[${i}]`));
  const quantity = r.quantity(item.quantity, `${path}.quantity`);
  const unitPriceCents = r.cents(item.price, `${path}.price`, true);
  const optionsCents = options.reduce((sum, o) => sum + o.unitPriceCents * o.quantity, 0);
  return {
    externalCode: idOf(item.sku) ?? idOf(item.id),
    name: text(item.name) ?? r.fail(`${path}.name`, 'is missing'),
    quantity,
    unitPriceCents,
    totalCents: Math.round((unitPriceCents + optionsCents) * quantity),
    options,
    notes: text(item.comments),
  };
}

function readAddress(d: Obj): NormalizedAddress {
  const part = (k: string) => idOf(d[k]);
  const street = part('street_name');
  const number = part('street_number');
  const parts = [[street, number].filter(Boolean).join(', '), part('complement'), part('neighborhood'), part('city'), part('state'), part('postal_code')];
  return {
    street,
    number,
    complement: part('complement'),
    neighborhood: part('neighborhood'),
    city: part('city'),
    state: part('state'),
    postalCode: part('postal_code'),
    reference: part('reference') ?? part('description'),
    formatted: text(d.complete_address) ?? text(d.address) ?? parts.filter(Boolean).join(' - '),
  };
}

const TAKEOUT = new Set(['pickup', 'takeout', 'take_away', 'takeaway', 'pick_up']);

/** Reads one provider_b order (getOrders element); throws `ProviderBPayloadError` naming the field it cannot read. */
export function normalizeProviderBOrder(payload: unknown): NormalizedOrder {
  const r = new Reader('order');
  const root = r.object(payload, 'the order');
  const detail = r.object(root.order_detail, 'order_detail');
  const externalId = r.id(detail.order_id, 'order_detail.order_id');
  const placed = new Date(typeof detail.created_at === 'string' ? detail.created_at : NaN);
  if (Number.isNaN(placed.getTime())) r.fail('order_detail.created_at', 'is not a date');
  const rawItems = Array.isArray(detail.items) && detail.items.length > 0 ? (detail.items as unknown[]) : r.fail('order_detail.items', 'is not a non-empty array');
  const items = rawItems.map((it, i) => readLine(r, it, `order_detail.items[${i}]`));

  const totals = r.object(detail.totals, 'order_detail.totals');
  const charges = isObject(totals.charges) ? totals.charges : {};
  const other = isObject(totals.other_totals) ? totals.other_totals : {};
  const customer = isObject(root.customer) ? root.customer : {};
  const billing = isObject(detail.billing_information) ? detail.billing_information : {};
  const fullName = [text(customer.first_name), text(customer.last_name)].filter(Boolean).join(' ');
  const method = text(detail.delivery_method)?.toLowerCase() ?? 'delivery';
  const fulfilment = TAKEOUT.has(method) ? 'takeout' : 'delivery';
  const paymentMethod = text(detail.payment_method) ?? 'unknown';

  return {
    provider: 'provider_b',
    externalId,
    displayId: externalId,
    placedAt: placed.toISOString(),
    fulfilment,
    customer: {
      name: fullName || text(billing.name) || 'provider_b customer',
      phone: idOf(customer.phone_number) ?? idOf(customer.phone) ?? idOf(billing.phone),
      email: text(customer.email) ?? text(billing.email),
      document: idOf(customer.document_number) ?? idOf(billing.document_number),
    },
    deliveryAddress: fulfilment === 'delivery' && isObject(detail.delivery_information) ? readAddress(detail.delivery_information) : null,
    items,
    notes: text(detail.comments) ?? text(detail.instructions),
    totals: {
      itemsCents: r.cents(totals.total_products, 'order_detail.totals.total_products'),
      discountCents: r.cents(totals.total_discounts, 'order_detail.totals.total_discounts'),
      deliveryFeeCents: r.cents(charges.shipping, 'order_detail.totals.charges.shipping'),
      serviceFeeCents: r.cents(charges.service_fee, 'order_detail.totals.charges.service_fee'),
      tipCents: r.cents(other.tip, 'order_detail.totals.other_totals.tip'),
      totalCents: r.cents(totals.total_order, 'order_detail.totals.total_order', true),
    },
    payment: { method: paymentMethod, prepaid: paymentMethod.toLowerCase() !== 'cash' },
  };
}

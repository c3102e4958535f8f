/**
 * provider_a's order details (iFood's `GET /order/v1.0/orders/{id}`), read into the shared `NormalizedOrder`.
 *
 * Mapping: `id` -> externalId, `displayId`, `createdAt` -> placedAt (ISO, ms), `orderType` DELIVERY -> delivery,
 * TAKEOUT and INDOOR -> takeout; `customer.name`, `customer.phone.number` (+ ` ID <localizer>` when the platform
 * masks the number behind a 0800 line and a localizer), `customer.documentNumber`; `delivery.deliveryAddress`;
 * `items[]` (`externalCode`, `name`, `quantity`, `unitPrice`, `totalPrice` (else `price` + `optionsPrice`),
 * `observations`, `options[]` as sent: quantity as the platform wrote it, `unitPrice`); notes = `extraInfo` and
 * `delivery.observations`; totals from `total` (`subTotal`, `benefits` as discount, `deliveryFee`,
 * `additionalFees` as service fee, no tip, `orderAmount`); payment = first `payments.methods[].method`
 * (`MULTIPLE` when several), prepaid when nothing is `pending` (else every method `ONLINE` / prepaid).
 */
import type { NormalizedAddress, NormalizedLine, NormalizedOption, NormalizedOrder } from '../delivery.js';
import { centsAt } from './amounts.js';
import { ProviderAPayloadError } from './errors.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function obj(v: unknown, path: string): Obj {
  if (!isObj(v)) throw new ProviderAPayloadError(path, 'expected an object');
  return v;
}

/** A non-empty string (numbers accepted as ids), or null. */
function text(v: unknown): string | null {
  if (typeof v === 'string') return v.trim() === '' ? null : v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

function required(v: unknown, path: string): string {
  const t = text(v);
  if (t === null) throw new ProviderAPayloadError(path, 'expected a non-empty string');
  return t;
}

function quantity(v: unknown, path: string): number {
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) throw new ProviderAPayloadError(path, `expected a positive quantity, got ${JSON.stringify(v)}`);
  return n;
}

function list(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ProviderAPayloadError(path, 'expected an array');
  return v;
}

function option(v: unknown, path: string): NormalizedOption {
  const o = obj(v, path);
  return {
    externalCode: text(o.externalCode),
    name: required(o.name, `${path}.name`),
    quantity: quantity(o.quantity ?? 1, `${path}.quantity`),
    unitPriceCents: centsAt(o.unitPrice, `${path}.unitPrice`, 0),
  };
}

function line(v: unknown, path: string): NormalizedLine {
  const i = obj(v, path);
  const qty = quantity(i.quantity, `${path}.quantity`);
  const unitPriceCents = centsAt(i.unitPrice, `${path}.unitPrice`);
  const options = list(i.options, `${path}.options`).map((o, n) => option(o, `${path}.options[${n}]`));
  const computed = () => centsAt(i.price, `${path}.price`, Math.round(unitPriceCents * qty)) + centsAt(i.optionsPrice, `${path}.optionsPrice`, 0);
  return {
    externalCode: text(i.externalCode),
    name: required(i.name, `${path}.name`),
    quantity: qty,
    unitPriceCents,
    totalCents: i.totalPrice === undefined || i.totalPrice === null ? computed() : centsAt(i.totalPrice, `${path}.totalPrice`),
    options,
    notes: text(i.observations),
  };
}

function address(v: unknown, path: string): NormalizedAddress {
  const a = obj(v, path);
  const street = text(a.streetName);
  const number = text(a.streetNumber);
  const parts = { complement: text(a.complement), neighborhood: text(a.neighborhood), city: text(a.city), state: text(a.state) };
  const built = [[street, number].filter(Boolean).join(', '), parts.complement, parts.neighborhood, [parts.city, parts.state].filter(Boolean).join(' - ')]
    .filter(Boolean)
    .join(', ');
  const formatted = text(a.formattedAddress) ?? built;
  if (!formatted) throw new ProviderAPayloadError(path, 'an address with neither formattedAddress nor streetName');
  return { street, number, ...parts, postalCode: text(a.postalCode), reference: text(a.reference), formatted };
}

function fulfilmentOf(v: unknown): NormalizedOrder['fulfilment'] {
  if (v === 'DELIVERY') return 'delivery';
  if (v === 'TAKEOUT' || v === 'INDOOR') return 'takeout';
  throw new ProviderAPayloadError('orderType', `expected DELIVERY, TAKEOUT or INDOOR, got ${JSON.stringify(v)}`);
}

function placedAt(v: unknown): string {
  const t = required(v, 'createdAt');
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) throw new ProviderAPayloadError('createdAt', `not a date: ${t}`);
  return new Date(ms).toISOString();
}

function payment(v: unknown): NormalizedOrder['payment'] {
  if (v === undefined || v === null) return { method: 'UNKNOWN', prepaid: false };
  const p = obj(v, 'payments');
  const methods = list(p.methods, 'payments.methods').map((m, n) => obj(m, `payments.methods[${n}]`));
  const names = [...new Set(methods.map((m) => text(m.method)).filter((m): m is string => m !== null))];
  const method = names.length === 0 ? 'UNKNOWN' : names.length === 1 ? names[0] : 'MULTIPLE';
  const pending = p.pending === undefined || p.pending === null ? null : centsAt(p.pending, 'payments.pending');
  const prepaid = pending !== null ? pending === 0 : methods.length > 0 && methods.every((m) => m.prepaid === true || m.type === 'ONLINE');
  return { method, prepaid };
}

/** Reads provider_a's order-details body; throws `ProviderAPayloadError` naming the field it cannot read. */
export function normalizeProviderAOrder(payload: unknown): NormalizedOrder {
  const o = obj(payload, '');
  const fulfilment = fulfilmentOf(o.orderType);
  const items = list(o.items, 'items').map((i, n) => line(i, `items[${n}]`));
  if (items.length === 0) throw new ProviderAPayloadError('items', 'an order without items');
  const c = isObj(o.customer) ? o.customer : {};
  const phone = isObj(c.phone) ? c.phone : {};
  const phoneNumber = text(phone.number) ?? text(c.phone);
  const localizer = text(phone.localizer);
  const delivery = isObj(o.delivery) ? o.delivery : {};
  const deliveryAddress = fulfilment === 'delivery' && delivery.deliveryAddress ? address(delivery.deliveryAddress, 'delivery.deliveryAddress') : null;
  if (fulfilment === 'delivery' && !deliveryAddress) throw new ProviderAPayloadError('delivery.deliveryAddress', 'a DELIVERY order without an address');
  const total = obj(o.total, 'total');
  const itemsCents = centsAt(total.subTotal, 'total.subTotal', items.reduce((s, l) => s + l.totalCents, 0));
  const notes = [text(o.extraInfo), text(delivery.observations)].filter(Boolean).join('\n');
  return {
    provider: 'provider_a',
    externalId: required(o.id, 'id'),
    displayId: text(o.displayId),
    placedAt: placedAt(o.createdAt),
    fulfilment,
    customer: {
      name: text(c.name) ?? 'Cliente',
      phone: phoneNumber && localizer ? `${phoneNumber} ID ${localizer}` : phoneNumber,
      email: null,
      document: text(c.documentNumber),
    },
    deliveryAddress,
    items,
    notes: notes || null,
    totals: {
      itemsCents,
      discountCents: centsAt(total.benefits, 'total.benefits', 0),
      deliveryFeeCents: centsAt(total.deliveryFee, 'total.deliveryFee', 0),
      serviceFeeCents: centsAt(total.additionalFees, 'total.additionalFees', 0),
      tipCents: 0,
      totalCents: centsAt(total.orderAmount, 'total.orderAmount'),
    },
    payment: payment(o.payments),
  };
}

/**
 * Orders the control API creates, built in the platform's getOrders shape (amounts in reais, as
 * numbers). Totals are consistent: `total_order` = products - discounts + shipping + service fee + tip.
 */
import { amountToCents, centsToAmount } from '../amounts.js';
import { SimulatorError } from './state.js';

export interface SimTopping {
  sku?: string;
  name: string;
  /** Reais (`4.5`); default 0. */
  price?: number;
  quantity?: number;
}

export interface SimItem {
  sku?: string;
  name: string;
  price: number;
  quantity?: number;
  comments?: string;
  toppings?: SimTopping[];
}

export interface SimOrderInput {
  storeId?: string;
  orderId?: string;
  items?: SimItem[];
  customer?: { firstName?: string; lastName?: string; phone?: string; document?: string; email?: string };
  address?: {
    street?: string;
    number?: string;
    complement?: string;
    neighborhood?: string;
    city?: string;
    state?: string;
    postalCode?: string;
    reference?: string;
  };
  deliveryMethod?: 'delivery' | 'pickup';
  paymentMethod?: string;
  shipping?: number;
  serviceFee?: number;
  tip?: number;
  discount?: number;
  notes?: string;
  cookingTime?: number;
}

export const DEFAULT_SIM_ITEMS: SimItem[] = [
  { sku: 'X-BURGER', name: 'X-Burger', price: 32.9, quantity: 2, comments: 'Sem cebola', toppings: [{ sku: 'BACON', name: 'Bacon extra', price: 4.5, quantity: 1 }] },
  { sku: 'COCA-350', name: 'Coca-Cola lata', price: 6, quantity: 1 },
];

const bad = (message: string): never => {
  throw new SimulatorError(400, 'bad_request', message);
};

function cents(v: unknown, path: string, fallback = 0): number {
  if (v === undefined || v === null) return fallback;
  return amountToCents(v, true) ?? bad(`${path} must be a non-negative amount in reais with at most two decimals`);
}

function qty(v: unknown, path: string): number {
  if (v === undefined) return 1;
  return Number.isInteger(v) && (v as number) > 0 && (v as number) <= 1000 ? (v as number) : bad(`${path} must be a positive integer`);
}

const str = (v: unknown, path: string): string | undefined => (v === undefined || typeof v === 'string' ? v : bad(`${path} must be a string`));

/** The order in the getOrders shape; `id` is the platform's order id. */
export function buildSimOrder(input: SimOrderInput, id: string, storeId: string, now: Date): Record<string, unknown> {
  const items = input.items ?? DEFAULT_SIM_ITEMS;
  if (!Array.isArray(items) || items.length === 0) bad('items must be a non-empty array');
  let productsCents = 0;
  const lines = items.map((it, i) => {
    const p = `items[${i}]`;
    if (!it || typeof it !== 'object' || typeof it.name !== 'string' || !it.name) bad(`${p}.name is required`);
    const unit = cents(it.price, `${p}.price`, -1);
    if (unit < 0) bad(`${p}.price is required`);
    const quantity = qty(it.quantity, `${p}.quantity`);
    const toppings = it.toppings ?? [];
    if (!Array.isArray(toppings)) bad(`${p}.toppings must be an array`);
    const subitems = toppings.map((t, j) => {
      const tp = `${p}.toppings[${j}]`;
      if (!t || typeof t.name !== 'string' || !t.name) bad(`${tp}.name is required`);
      const price = cents(t.price, `${tp}.price`);
      const quantity = qty(t.quantity, `${tp}.quantity`);
      return { price, row: { ...(t.sku ? { sku: str(t.sku, `${tp}.sku`) } : {}), id: String(10_005_000 + i * 100 + j), name: t.name, type: 'TOPPING', price: centsToAmount(price), quantity } };
    });
    productsCents += (unit + subitems.reduce((s, t) => s + t.price * t.row.quantity, 0)) * quantity;
    return {
      ...(it.sku ? { sku: str(it.sku, `${p}.sku`) } : {}),
      id: String(2_089_918_000 + i),
      name: it.name,
      type: 'PRODUCT',
      comments: str(it.comments, `${p}.comments`) ?? '',
      price: centsToAmount(unit),
      quantity,
      subitems: subitems.map((s) => s.row),
    };
  });
  const shipping = cents(input.shipping, 'shipping', 799);
  const serviceFee = cents(input.serviceFee, 'serviceFee', 199);
  const tip = cents(input.tip, 'tip');
  const discount = cents(input.discount, 'discount');
  const totalCents = productsCents - discount + shipping + serviceFee + tip;
  if (totalCents < 0) bad('discount is larger than the order');
  const paymentMethod = str(input.paymentMethod, 'paymentMethod') ?? 'cc';
  const deliveryMethod = input.deliveryMethod ?? 'delivery';
  if (deliveryMethod !== 'delivery' && deliveryMethod !== 'pickup') bad('deliveryMethod must be delivery or pickup');
  const c = input.customer ?? {};
  const a = input.address ?? {};
  const address = {
    street_name: a.street ?? 'Rua Augusta',
    street_number: a.number ?? '1200',
    complement: a.complement ?? 'Apto 41',
    neighborhood: a.neighborhood ?? 'Consolação',
    city: a.city ?? 'São Paulo',
    state: a.state ?? 'SP',
    postal_code: a.postalCode ?? '01304-001',
    ...(a.reference ? { reference: a.reference } : {}),
  };
  const complete = `${address.street_name}, ${address.street_number} - ${address.complement} - ${address.neighborhood} - ${address.city}/${address.state} - ${address.postal_code}`;
  const firstName = c.firstName ?? 'Maria';
  const lastName = c.lastName ?? 'Silva';
  return {
    order_detail: {
      order_id: id,
      delivery_operation_type: 'regular',
      cooking_time: input.cookingTime ?? 15,
      created_at: now.toISOString(),
      delivery_method: deliveryMethod,
      payment_method: paymentMethod,
      ...(input.notes ? { comments: str(input.notes, 'notes') } : {}),
      ...(deliveryMethod === 'delivery' ? { delivery_information: { ...address, complete_address: complete } } : {}),
      billing_information: { name: `${firstName} ${lastName}`, email: c.email ?? 'maria.silva@example.com', phone: c.phone ?? '11987654321', document_number: c.document ?? '12345678909', document_type: 'CPF' },
      totals: {
        total_products: centsToAmount(productsCents),
        total_discounts: centsToAmount(discount),
        total_order: centsToAmount(totalCents),
        total_to_pay: paymentMethod === 'cash' ? centsToAmount(totalCents) : 0,
        charges: { shipping: centsToAmount(shipping), service_fee: centsToAmount(serviceFee) },
        other_totals: { tip: centsToAmount(tip), total_rappi_pay: 0, total_rappi_credits: 0 },
      },
      items: lines,
    },
    customer: { first_name: firstName, last_name: lastName, phone_number: c.phone ?? '11987654321', document_number: c.document ?? '12345678909', user_type: 'USER' },
    store: { internal_id: storeId, external_id: storeId, name: 'Simulated store' },
  };
}

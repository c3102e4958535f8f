/**
 * Orders the simulated platform places, written in its order-details shape (iFood's `GET /order/v1.0/orders/{id}`):
 * decimal BRL amounts; `price` = unitPrice x quantity; an option's `quantity` is for the whole line (per unit
 * times the line's quantity) and its `price` = unitPrice x quantity; `optionsPrice` = the options' prices;
 * `totalPrice` = price + optionsPrice; `total.orderAmount` = subTotal + deliveryFee + additionalFees - benefits.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { centsToDecimal } from '../../money.js';
import { PROVIDER_A_SIM_MERCHANT_ID, SimulatorError } from './state.js';

export interface SimAddressInput {
  street?: string;
  number?: string;
  complement?: string;
  neighborhood?: string;
  city?: string;
  state?: string;
  postalCode?: string;
  reference?: string;
}

export interface SimItemInput {
  externalCode?: string;
  name: string;
  quantity: number;
  unitPriceCents: number;
  notes?: string;
  /** `quantity` per unit of the item (default 1). */
  options?: { externalCode?: string; name: string; quantity?: number; unitPriceCents: number }[];
}

/** What a control call describes (amounts in cents; quantities of options per unit of the item). */
export interface SimOrderInput {
  id?: string;
  displayId?: string;
  merchantId?: string;
  orderType?: 'DELIVERY' | 'TAKEOUT';
  customer?: { name?: string; phone?: string; document?: string };
  address?: SimAddressInput;
  items?: SimItemInput[];
  notes?: string;
  deliveryFeeCents?: number;
  discountCents?: number;
  serviceFeeCents?: number;
  payment?: { method?: string; prepaid?: boolean };
}

/** The order placed when a control call gives no items. */
export const SAMPLE_ITEMS: NonNullable<SimOrderInput['items']> = [
  { externalCode: 'XBURGER', name: 'X-Burger', quantity: 2, unitPriceCents: 2590, notes: 'sem cebola', options: [{ externalCode: 'BACON', name: 'Bacon extra', quantity: 1, unitPriceCents: 400 }] },
  { externalCode: 'COCA-350', name: 'Coca-Cola lata 350 ml', quantity: 1, unitPriceCents: 750 },
];

const bad = (message: string) => new SimulatorError(400, 'BadRequest', message);
const cents = (v: unknown, what: string) => {
  if (v === undefined) return 0;
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw bad(`${what} must be whole cents, 0 or more`);
  return v as number;
};
const count = (v: unknown, what: string, fallback?: number) => {
  if (v === undefined && fallback !== undefined) return fallback;
  if (!Number.isSafeInteger(v) || (v as number) < 1) throw bad(`${what} must be a positive integer`);
  return v as number;
};
const opt = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

export function buildOrderDetails(input: SimOrderInput, now: Date): Record<string, unknown> {
  const orderType = input.orderType ?? 'DELIVERY';
  if (orderType !== 'DELIVERY' && orderType !== 'TAKEOUT') throw bad('orderType must be DELIVERY or TAKEOUT');
  const source = input.items ?? SAMPLE_ITEMS;
  if (!Array.isArray(source) || source.length === 0) throw bad('items must be a non-empty array');
  let subTotal = 0;
  const items = source.map((it, index) => {
    if (!it || typeof it !== 'object' || !opt(it.name)) throw bad(`items[${index}].name is required`);
    const quantity = count(it.quantity, `items[${index}].quantity`);
    const unit = cents(it.unitPriceCents, `items[${index}].unitPriceCents`);
    let optionsCents = 0;
    const options = (it.options ?? []).map((o, n) => {
      if (!o || typeof o !== 'object' || !opt(o.name)) throw bad(`items[${index}].options[${n}].name is required`);
      const q = count(o.quantity, `items[${index}].options[${n}].quantity`, 1) * quantity;
      const u = cents(o.unitPriceCents, `items[${index}].options[${n}].unitPriceCents`);
      optionsCents += u * q;
      const code = opt(o.externalCode);
      const price = centsToDecimal(u * q);
      return { index: n, id: randomUUID(), name: o.name, ...(code ? { externalCode: code } : {}), unit: 'UN', quantity: q, unitPrice: centsToDecimal(u), addition: 0, price };
    });
    const total = unit * quantity + optionsCents;
    subTotal += total;
    const code = opt(it.externalCode);
    return {
      index,
      id: randomUUID(),
      uniqueId: randomUUID(),
      name: it.name,
      ...(code ? { externalCode: code } : {}),
      unit: 'UN',
      quantity,
      unitPrice: centsToDecimal(unit),
      optionsPrice: centsToDecimal(optionsCents),
      totalPrice: centsToDecimal(total),
      price: centsToDecimal(unit * quantity),
      ...(opt(it.notes) ? { observations: it.notes } : {}),
      ...(options.length ? { options } : {}),
    };
  });
  const deliveryFee = orderType === 'DELIVERY' ? cents(input.deliveryFeeCents, 'deliveryFeeCents') : 0;
  const benefits = cents(input.discountCents, 'discountCents');
  const additionalFees = cents(input.serviceFeeCents, 'serviceFeeCents');
  const orderAmount = subTotal + deliveryFee + additionalFees - benefits;
  if (orderAmount < 0) throw bad('the discount is larger than the order');
  const prepaid = input.payment?.prepaid ?? true;
  const method = opt(input.payment?.method) ?? (prepaid ? 'CREDIT' : 'CASH');
  const merchantId = opt(input.merchantId) ?? PROVIDER_A_SIM_MERCHANT_ID;
  const c = input.customer ?? {};
  const a = input.address ?? {};
  const street = opt(a.street) ?? 'Rua das Flores';
  const number = opt(a.number) ?? '123';
  const neighborhood = opt(a.neighborhood) ?? 'Centro';
  const city = opt(a.city) ?? 'São Paulo';
  const state = opt(a.state) ?? 'SP';
  return {
    id: opt(input.id) ?? randomUUID(),
    displayId: opt(input.displayId) ?? String(randomInt(1000, 10000)),
    orderType,
    orderTiming: 'IMMEDIATE',
    salesChannel: 'IFOOD',
    category: 'FOOD',
    createdAt: now.toISOString(),
    isTest: true,
    merchant: { id: merchantId, name: 'Restaurante simulado' },
    customer: {
      id: randomUUID(),
      name: opt(c.name) ?? 'Cliente Simulado',
      ...(opt(c.document) ? { documentNumber: c.document } : {}),
      phone: { number: opt(c.phone) ?? '0800 705 0555', localizer: '12345678', localizerExpiration: new Date(now.getTime() + 3 * 3600_000).toISOString() },
      segmentation: 'Novo',
      ordersCountOnMerchant: 1,
    },
    items,
    total: {
      subTotal: centsToDecimal(subTotal),
      deliveryFee: centsToDecimal(deliveryFee),
      benefits: centsToDecimal(benefits),
      orderAmount: centsToDecimal(orderAmount),
      additionalFees: centsToDecimal(additionalFees),
    },
    payments: {
      prepaid: prepaid ? centsToDecimal(orderAmount) : 0,
      pending: prepaid ? 0 : centsToDecimal(orderAmount),
      methods: [{ value: centsToDecimal(orderAmount), currency: 'BRL', method, type: prepaid ? 'ONLINE' : 'OFFLINE', prepaid }],
    },
    ...(opt(input.notes) ? { extraInfo: input.notes } : {}),
    ...(orderType === 'DELIVERY'
      ? {
          delivery: {
            mode: 'DEFAULT',
            deliveredBy: 'IFOOD',
            deliveryDateTime: new Date(now.getTime() + 45 * 60_000).toISOString(),
            deliveryAddress: {
              streetName: street,
              streetNumber: number,
              ...(opt(a.complement) ? { complement: a.complement } : {}),
              neighborhood,
              city,
              state,
              country: 'BR',
              postalCode: opt(a.postalCode) ?? '01001000',
              ...(opt(a.reference) ? { reference: a.reference } : {}),
              formattedAddress: `${street}, ${number}`,
              coordinates: { latitude: -23.55052, longitude: -46.633308 },
            },
          },
        }
      : { takeout: { mode: 'DEFAULT', takeoutDateTime: new Date(now.getTime() + 30 * 60_000).toISOString() } }),
  };
}

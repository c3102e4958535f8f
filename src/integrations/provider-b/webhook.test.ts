import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NormalizedOrder } from '../delivery.js';
import { amountToCents, centsToAmount } from './amounts.js';
import { ProviderBPayloadError } from './errors.js';
import { normalizeProviderBOrder, parseProviderBWebhook } from './webhook.js';

const DATA = resolve(import.meta.dirname, '../../../../shared/data/webhooks/rappi');
const sample = (name: string): unknown => JSON.parse(readFileSync(resolve(DATA, name), 'utf8'));
const orders = sample('rappi_getOrders_response_example_NEW_ORDER_body.json') as Record<string, unknown>[];

/** The getOrders sample read as BRL: its amounts are whole currency units, so 28900 -> R$ 28.900,00 = 2 890 000 cents. */
const EXPECTED: NormalizedOrder = {
  provider: 'provider_b',
  externalId: '392625',
  displayId: '392625',
  placedAt: '2019-04-10T11:12:57.000Z',
  fulfilment: 'delivery',
  customer: { name: 'John Doe', phone: '3163535', email: 'client@gmail.com', document: '34545678' },
  deliveryAddress: {
    street: 'Nombre de la calle',
    number: '5050',
    complement: 'Portón verde',
    neighborhood: 'Barrio',
    city: 'Ciudad de México',
    state: null,
    postalCode: '12345',
    reference: null,
    formatted: 'Nombre de la calle 5050. Barrio. 12345. Ciudad De México',
  },
  items: [
    {
      externalCode: '1234',
      name: 'Chicken and Apple Salad',
      quantity: 3,
      unitPriceCents: 2_890_000,
      totalCents: 12_720_000, // (28900 + 13500) x 3
      options: [{ externalCode: '11', name: 'Burrata Cheese', quantity: 1, unitPriceCents: 1_350_000 }],
      notes: 'No vinegar',
    },
    {
      externalCode: '2089918082', // no sku: the platform's id
      name: 'Seafood Salad',
      quantity: 2,
      unitPriceCents: 3_490_000,
      totalCents: 7_680_000, // (34900 + 0 + 3500) x 2
      options: [
        { externalCode: '9928277', name: 'With white vinaigrette', quantity: 1, unitPriceCents: 0 },
        { externalCode: '10005257', name: 'Ricotta Cheese', quantity: 1, unitPriceCents: 350_000 },
      ],
      notes: null,
    },
  ],
  notes: null,
  totals: {
    itemsCents: 20_400_000,
    discountCents: 17_368_500,
    deliveryFeeCents: 5_000,
    serviceFeeCents: 10_000,
    tipCents: 3_000,
    totalCents: 20_418_000,
  },
  payment: { method: 'cc', prepaid: true },
};

describe('provider_b order normalisation', () => {
  it('reads the getOrders sample exactly, amounts in cents', () => {
    expect(orders).toHaveLength(1);
    const order = normalizeProviderBOrder(orders[0]);
    expect(order).toEqual(EXPECTED);
    // The platform's total_products is the sum of the lines as computed here.
    expect(order.items.reduce((s, l) => s + l.totalCents, 0)).toBe(order.totals.itemsCents);
  });

  it('reads decimal reais, pickup orders, cash payments and order notes', () => {
    const o = structuredClone(orders[0]) as { order_detail: Record<string, unknown> };
    const d = o.order_detail;
    d.delivery_method = 'pickup';
    d.payment_method = 'cash';
    d.comments = 'Ring twice';
    (d.items as Record<string, unknown>[])[0].price = 28.9;
    (d.items as Record<string, unknown>[])[1].price = '0.1';
    d.totals = { total_products: 45.9, total_order: '53.89', charges: { shipping: 7.99 } };
    const n = normalizeProviderBOrder(o);
    expect(n).toMatchObject({ fulfilment: 'takeout', deliveryAddress: null, notes: 'Ring twice', payment: { method: 'cash', prepaid: false } });
    expect(n.items.map((l) => l.unitPriceCents)).toEqual([2890, 10]);
    expect(n.totals).toEqual({ itemsCents: 4590, discountCents: 0, deliveryFeeCents: 799, serviceFeeCents: 0, tipCents: 0, totalCents: 5389 });
  });

  it('names the field it cannot read', () => {
    const broken = (mutate: (d: Record<string, unknown>) => void) => {
      const o = structuredClone(orders[0]) as { order_detail: Record<string, unknown> };
      mutate(o.order_detail);
      return () => normalizeProviderBOrder(o);
    };
    expect(() => normalizeProviderBOrder(null)).toThrow(ProviderBPayloadError);
    expect(() => normalizeProviderBOrder({})).toThrow(/order_detail is not an object/);
    expect(broken((d) => delete d.order_id)).toThrow(/order_detail.order_id is missing/);
    expect(broken((d) => (d.created_at = 'yesterday'))).toThrow(/created_at is not a date/);
    expect(broken((d) => (d.items = []))).toThrow(/items is not a non-empty array/);
    expect(broken((d) => ((d.items as Record<string, unknown>[])[0].price = -1))).toThrow(/items\[0\].price is not an amount/);
    expect(broken((d) => ((d.items as Record<string, unknown>[])[0].quantity = 0))).toThrow(/items\[0\].quantity/);
    expect(broken((d) => ((d.totals as Record<string, unknown>).total_order = 1e21))).toThrow(/total_order is not an amount/);
    expect(broken((d) => delete d.totals)).toThrow(/totals is not an object/);
  });
});

describe('provider_b amounts', () => {
  it('derives cents from the decimal text, never by float multiplication', () => {
    const cases: [unknown, number | null][] = [
      [28900, 2_890_000], [0, 0], [28.9, 2890], [0.1, 10], [0.29, 29], [1.005, 101], [1.004, 100], ['45.90', 4590], [' 7 ', 700],
      [4.35, 435], [1234567.89, 123_456_789], [-1, null], ['1e3', null], [Number.NaN, null], [Infinity, null], ['', null], [null, null], [true, null],
    ];
    for (const [v, cents] of cases) expect(amountToCents(v), String(v)).toBe(cents);
    expect([amountToCents(1.005, true), amountToCents('1.00', true)]).toEqual([null, 100]);
    expect([4590, 10, 0, 123_456_789].map(centsToAmount)).toEqual([45.9, 0.1, 0, 1234567.89]);
  });
});

describe('provider_b webhooks', () => {
  it('reads a NEW_ORDER event carrying the whole order (event.id, or a top-level eventId)', () => {
    const e = parseProviderBWebhook({ event: { id: 'evt-1', type: 'NEW_ORDER', created_at: '2019-04-10T11:13:00Z' }, order: orders[0] });
    expect(e).toEqual({ eventId: 'evt-1', type: 'NEW_ORDER', kind: 'new_order', externalOrderId: '392625', order: EXPECTED });
    expect(parseProviderBWebhook({ eventId: 'evt-2', event: 'NEW_ORDER', order: orders[0] })).toMatchObject({ eventId: 'evt-2', kind: 'new_order' });
    expect(parseProviderBWebhook({ eventId: 'top', event: { id: 'inner', type: 'NEW_ORDER' }, order: orders[0] }).eventId).toBe('inner');
  });

  it('reads a NEW_ORDER by reference (the job fetches the order)', () => {
    const e = parseProviderBWebhook({ event: { id: 'evt-3', type: 'NEW_ORDER' }, order_id: '392625', store_id: '900109448' });
    expect(e).toEqual({ eventId: 'evt-3', type: 'NEW_ORDER', kind: 'new_order', externalOrderId: '392625', order: null });
  });

  it('reads the platform samples of other events: no event id in them', () => {
    expect(parseProviderBWebhook(sample('rappi_ORDER_EVENT_CANCEL.json'))).toEqual({
      eventId: null,
      type: 'canceled_with_charge',
      kind: 'cancelled',
      externalOrderId: '106',
      order: null,
    });
    expect(parseProviderBWebhook(sample('rappi_ORDER_OTHER_EVENT.json'))).toEqual({
      eventId: null,
      type: 'taken_visible_order',
      kind: 'other',
      externalOrderId: '109',
      order: null,
    });
    expect(parseProviderBWebhook({ event: 'canceled_without_charge', order_id: 7, store_id: '1', eventId: 'e9' })).toMatchObject({ kind: 'cancelled', eventId: 'e9', externalOrderId: '7' });
    expect(parseProviderBWebhook({ event: 'PING' })).toMatchObject({ kind: 'other', externalOrderId: null });
  });

  it('throws a clear error on a body it cannot read', () => {
    for (const body of [null, 'x', [], {}, { event: '' }, { event: { id: 'x' } }]) expect(() => parseProviderBWebhook(body)).toThrow(ProviderBPayloadError);
    expect(() => parseProviderBWebhook({ event: 'NEW_ORDER' })).toThrow(/names no order/);
    expect(() => parseProviderBWebhook({ event: 'canceled_with_charge', store_id: '1' })).toThrow(/names no order/);
    expect(() => parseProviderBWebhook({ event: { id: 'e', type: 'NEW_ORDER' }, order: { order_detail: {} } })).toThrow(/order_id is missing/);
  });
});

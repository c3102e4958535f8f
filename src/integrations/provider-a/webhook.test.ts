import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decimalAmountToCents } from './amounts.js';
import { ProviderAPayloadError } from './errors.js';
import { normalizeProviderAOrder, parseProviderAWebhook, providerAWebhookPath } from './webhook.js';

const sample = JSON.parse(readFileSync('../shared/data/webhooks/ifood/ifood_webhook_PLACED_event.json', 'utf8'));

/** An order as iFood's `GET /order/v1.0/orders/{id}` answers it (documented field names, decimal BRL). */
const details = {
  id: '2c97e104-35ed-4c18-85d7-854a40b6b9e3',
  displayId: '4521',
  orderType: 'DELIVERY',
  orderTiming: 'IMMEDIATE',
  salesChannel: 'IFOOD',
  createdAt: '2023-02-20T18:19:03.20162269Z',
  merchant: { id: 'cad65e8f-6fc6-438a-b159-e64a902a6b9a', name: 'Pizzaria' },
  customer: { id: 'c1', name: 'Maria Souza', documentNumber: '12345678909', phone: { number: '0800 705 0555', localizer: '24881234' } },
  items: [
    {
      index: 1,
      externalCode: 'PIZZA-G',
      name: 'Pizza grande',
      quantity: 2,
      unitPrice: 49.9,
      price: 99.8,
      optionsPrice: 12.2,
      totalPrice: 112,
      observations: 'bem passada',
      options: [
        { externalCode: 'BORDA', name: 'Borda recheada', quantity: 2, unitPrice: 6.1, price: 12.2 },
        { name: 'Orégano', quantity: 2, unitPrice: 0, price: 0 },
      ],
    },
    { externalCode: 'GUARANA-2L', name: 'Guaraná 2 L', quantity: 1, unitPrice: 12.99, price: 12.99, totalPrice: 12.99 },
  ],
  total: { subTotal: 124.99, deliveryFee: 7.99, benefits: 10.1, additionalFees: 0.99, orderAmount: 123.87 },
  payments: { prepaid: 123.87, pending: 0, methods: [{ value: 123.87, currency: 'BRL', method: 'CREDIT', type: 'ONLINE', prepaid: true }] },
  delivery: {
    mode: 'DEFAULT',
    deliveredBy: 'IFOOD',
    observations: 'interfone quebrado',
    deliveryAddress: {
      streetName: 'Rua Augusta',
      streetNumber: '1500',
      complement: 'apto 42',
      neighborhood: 'Consolação',
      city: 'São Paulo',
      state: 'SP',
      postalCode: '01304001',
      reference: 'ao lado da padaria',
      formattedAddress: 'Rua Augusta, 1500',
    },
  },
  extraInfo: 'mandar sachês',
};

describe('provider_a webhook events', () => {
  it('reads the iFood PLACED sample (reference only: the job fetches the order)', () => {
    expect(parseProviderAWebhook(sample)).toEqual({
      eventId: 'a38ba215-f949-4b2c-982a-0582a9d0c10e',
      type: 'PLACED',
      kind: 'new_order',
      externalOrderId: '2c97e104-35ed-4c18-85d7-854a40b6b9e3',
      order: null,
    });
  });

  it('classifies cancellations by fullCode or code, everything else as other', () => {
    expect(parseProviderAWebhook({ ...sample, code: 'CAN', fullCode: 'CANCELLED' })).toMatchObject({ kind: 'cancelled', type: 'CANCELLED' });
    expect(parseProviderAWebhook({ id: 'e', code: 'CAN', orderId: 'o' })).toMatchObject({ kind: 'cancelled', type: 'CAN' });
    expect(parseProviderAWebhook({ id: 'e', code: 'PLC', orderId: 'o' })).toMatchObject({ kind: 'new_order' });
    for (const fullCode of ['CONFIRMED', 'DISPATCHED', 'CONCLUDED', 'CANCELLATION_REQUESTED', 'KEEPALIVE']) {
      expect(parseProviderAWebhook({ ...sample, fullCode, code: 'X' }).kind).toBe('other');
    }
    expect(parseProviderAWebhook({ code: 'KEEPALIVE' })).toEqual({ eventId: null, type: 'KEEPALIVE', kind: 'other', externalOrderId: null, order: null });
  });

  it('reads the full variant: the event embeds the order in its order-details shape', () => {
    const event = parseProviderAWebhook({ ...sample, order: details });
    expect(event).toMatchObject({ kind: 'new_order', externalOrderId: details.id, order: { externalId: details.id, totals: { totalCents: 12387 } } });
    expect(() => parseProviderAWebhook({ ...sample, order: { ...details, id: 'other' } })).toThrow(/is not the event's order/);
    expect(() => parseProviderAWebhook({ ...sample, order: { id: details.id } })).toThrow(ProviderAPayloadError);
  });

  it('refuses a body that is not an event, naming why', () => {
    for (const b of [null, 'x', [], 42]) expect(() => parseProviderAWebhook(b)).toThrow(/not a JSON object/);
    expect(() => parseProviderAWebhook({ id: 'e', orderId: 'o' })).toThrow(/without code or fullCode/);
  });

  it('gives the service route per tenant', () => {
    expect(providerAWebhookPath('pizzaria-do-ze')).toBe('/t/pizzaria-do-ze/webhooks/provider_a');
  });
});

describe('normalizeProviderAOrder', () => {
  it('reads the order details into the normalised order, every amount in exact cents', () => {
    expect(normalizeProviderAOrder(details)).toEqual({
      provider: 'provider_a',
      externalId: '2c97e104-35ed-4c18-85d7-854a40b6b9e3',
      displayId: '4521',
      placedAt: '2023-02-20T18:19:03.201Z',
      fulfilment: 'delivery',
      customer: { name: 'Maria Souza', phone: '0800 705 0555 ID 24881234', email: null, document: '12345678909' },
      deliveryAddress: {
        street: 'Rua Augusta',
        number: '1500',
        complement: 'apto 42',
        neighborhood: 'Consolação',
        city: 'São Paulo',
        state: 'SP',
        postalCode: '01304001',
        reference: 'ao lado da padaria',
        formatted: 'Rua Augusta, 1500',
      },
      items: [
        {
          externalCode: 'PIZZA-G',
          name: 'Pizza grande',
          quantity: 2,
          unitPriceCents: 4990,
          totalCents: 11200,
          options: [
            { externalCode: 'BORDA', name: 'Borda recheada', quantity: 2, unitPriceCents: 610 },
            { externalCode: null, name: 'Orégano', quantity: 2, unitPriceCents: 0 },
          ],
          notes: 'bem passada',
        },
        { externalCode: 'GUARANA-2L', name: 'Guaraná 2 L', quantity: 1, unitPriceCents: 1299, totalCents: 1299, options: [], notes: null },
      ],
      notes: 'mandar sachês\ninterfone quebrado',
      totals: { itemsCents: 12499, discountCents: 1010, deliveryFeeCents: 799, serviceFeeCents: 99, tipCents: 0, totalCents: 12387 },
      payment: { method: 'CREDIT', prepaid: true },
    });
  });

  it('reads takeout, cash on delivery, a missing totalPrice and formatted address built from parts', () => {
    const takeout = normalizeProviderAOrder({
      ...details,
      orderType: 'TAKEOUT',
      delivery: undefined,
      customer: { name: 'João', phone: { number: '11999990000' } },
      items: [{ name: 'Açaí 500 ml', quantity: 3, unitPrice: '16.90', optionsPrice: 1.5 }],
      total: { orderAmount: 52.2 },
      payments: { prepaid: 0, pending: 52.2, methods: [{ method: 'CASH', type: 'OFFLINE', value: 52.2 }] },
      extraInfo: undefined,
    });
    expect(takeout).toMatchObject({
      fulfilment: 'takeout',
      deliveryAddress: null,
      customer: { name: 'João', phone: '11999990000', document: null },
      items: [{ externalCode: null, quantity: 3, unitPriceCents: 1690, totalCents: 5220, options: [] }],
      notes: null,
      totals: { itemsCents: 5220, discountCents: 0, deliveryFeeCents: 0, serviceFeeCents: 0, totalCents: 5220 },
      payment: { method: 'CASH', prepaid: false },
    });
    const built = normalizeProviderAOrder({ ...details, delivery: { deliveryAddress: { streetName: 'Av. Brasil', streetNumber: '10', city: 'Rio', state: 'RJ' } } });
    expect(built.deliveryAddress!.formatted).toBe('Av. Brasil, 10, Rio - RJ');
    const split = normalizeProviderAOrder({ ...details, payments: { methods: [{ method: 'CREDIT', type: 'ONLINE' }, { method: 'PIX', type: 'ONLINE' }] } });
    expect(split.payment).toEqual({ method: 'MULTIPLE', prepaid: true });
  });

  it('refuses what it cannot read, naming the field', () => {
    const bad = (patch: Record<string, unknown>) => () => normalizeProviderAOrder({ ...details, ...patch });
    expect(() => normalizeProviderAOrder(null)).toThrow(ProviderAPayloadError);
    expect(bad({ orderType: 'DRONE' })).toThrow(/orderType/);
    expect(bad({ items: [] })).toThrow(/items: an order without items/);
    expect(bad({ items: [{ name: 'x', quantity: 1, unitPrice: 'abc' }] })).toThrow(/items\[0\]\.unitPrice/);
    expect(bad({ items: [{ name: 'x', quantity: 0, unitPrice: 1 }] })).toThrow(/items\[0\]\.quantity/);
    expect(bad({ total: { subTotal: 1 } })).toThrow(/total\.orderAmount/);
    expect(bad({ delivery: {} })).toThrow(/without an address/);
    expect(bad({ createdAt: 'yesterday' })).toThrow(/createdAt/);
    expect(bad({ id: '' })).toThrow(/^provider_a payload: id:/);
  });
});

describe('decimal amounts', () => {
  it('converts decimal BRL to cents without float drift', () => {
    const cases: [unknown, number | null][] = [
      [0.1, 10], [0.29, 29], [1.005, 101], [19.99, 1999], [123.87, 12387], [1e21, null], ['35.90', 3590], ['7', 700],
      [-10.1, -1010], [2.675, 268], [0.0000001, 0], ['1,50', null], [Number.NaN, null], [null, null], [true, null],
    ];
    for (const [v, cents] of cases) expect(decimalAmountToCents(v), String(v)).toBe(cents);
    // The float product drifts: 0.29 * 100 = 28.999999999999996, 1.005 * 100 = 100.49999999999999.
    expect(Math.floor(0.29 * 100)).toBe(28);
  });
});

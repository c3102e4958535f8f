import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOrder } from './simulator/orders.js';
import { normalizeProviderCOrder, parseProviderCWebhook, providerCWebhookStoreId } from './webhook.js';

const SAMPLE = join(import.meta.dirname, '../../../../shared/data/webhooks/ubereats/ubereats_orders.notification.json');
const money = (amount: number) => ({ amount, currency_code: 'BRL', formatted_amount: `R$ ${amount / 100}` });

/** An order as Uber Eats' v2 order details show it (amounts in minor units). */
function uberOrder() {
  return {
    id: '153dd7f1-339d-4619-940c-418943c14636',
    display_id: '4C636',
    current_state: 'CREATED',
    type: 'DELIVERY_BY_UBER',
    brand: 'UBER_EATS',
    placed_at: '2026-11-20T19:04:10.000Z',
    store: { id: '89dd9741-66b5-4bb4-b216-a813f3b21b4f', name: 'Hamburgueria' },
    eater: {
      first_name: 'João',
      last_name: 'P.',
      phone: '+55 11 4003-1234',
      phone_code: '555 12 345',
      delivery: {
        type: 'LEAVE_AT_DOOR',
        notes: 'Portão azul',
        location: {
          type: 'GOOGLE_PLACE',
          street_address: 'Rua Augusta, 1500',
          unit_number: 'Apto 42',
          neighborhood: 'Consolação',
          city: 'São Paulo',
          state: 'SP',
          postal_code: '01305-100',
          latitude: -23.5558,
          longitude: -46.6623,
        },
      },
    },
    cart: {
      special_instructions: 'Mandar guardanapos',
      items: [
        {
          id: 'X-BURGER',
          instance_id: 'i-1',
          title: 'X-Burger',
          external_data: 'xb-ext',
          quantity: 2,
          price: { unit_price: money(2990), total_price: money(6780), base_unit_price: money(2590), base_total_price: money(5180) },
          special_instructions: 'sem cebola',
          selected_modifier_groups: [
            {
              id: 'g1',
              title: 'Adicionais',
              selected_items: [
                { id: 'BACON', title: 'Bacon', quantity: 1, price: { unit_price: money(400), total_price: money(400) } },
                {
                  id: 'MOLHO',
                  title: 'Molho',
                  quantity: 1,
                  price: { unit_price: money(0), total_price: money(0) },
                  selected_modifier_groups: [{ id: 'g2', title: 'Tipo', selected_items: [{ external_data: 'CHEDDAR', title: 'Cheddar', quantity: 1, price: { unit_price: money(0), total_price: money(0) } }] }],
                },
              ],
            },
          ],
        },
        { id: 'COCA-350', title: 'Coca-Cola 350 ml', quantity: 1, price: { unit_price: money(750), total_price: money(750) } },
      ],
    },
    payment: {
      charges: {
        total: money(8029),
        sub_total: money(7530),
        tax: money(0),
        delivery_fee: money(599),
        small_order_fee: money(100),
        bag_fee: money(50),
        tip: money(250),
        total_promo_applied: money(500),
      },
    },
  };
}

describe('provider_c webhook bodies', () => {
  it('reads the Uber Eats orders.notification sample: a reference to the order, fetched by the job', () => {
    const raw = readFileSync(SAMPLE, 'utf8');
    expect(parseProviderCWebhook(JSON.parse(raw))).toEqual({
      eventId: 'c4d2261e-2779-4eb6-beb0-cb41235c751e',
      type: 'orders.notification',
      kind: 'new_order',
      externalOrderId: '153dd7f1-339d-4619-940c-418943c14636',
      order: null,
    });
    expect(providerCWebhookStoreId(JSON.parse(raw))).toBe('89dd9741-66b5-4bb4-b216-a813f3b21b4f');
  });

  it('tells cancellations and other events apart', () => {
    const base = JSON.parse(readFileSync(SAMPLE, 'utf8'));
    expect(parseProviderCWebhook({ ...base, event_type: 'orders.cancel' })).toMatchObject({ kind: 'cancelled', externalOrderId: base.meta.resource_id });
    expect(parseProviderCWebhook({ event_type: 'store.provisioned', event_id: 'e1' })).toEqual({
      eventId: 'e1',
      type: 'store.provisioned',
      kind: 'other',
      externalOrderId: null,
      order: null,
    });
  });

  it('throws a clear error on a body it cannot read', () => {
    expect(() => parseProviderCWebhook(null)).toThrow(/not a JSON object/);
    expect(() => parseProviderCWebhook([])).toThrow(/not a JSON object/);
    expect(() => parseProviderCWebhook({ event_id: 'x' })).toThrow(/event_type/);
    expect(() => parseProviderCWebhook({ event_type: 'orders.notification', meta: {} })).toThrow(/resource_id/);
  });
});

describe('normalizeProviderCOrder', () => {
  it('reads an Uber Eats order into cents exactly, with options, notes, customer and address', () => {
    expect(normalizeProviderCOrder(uberOrder())).toEqual({
      provider: 'provider_c',
      externalId: '153dd7f1-339d-4619-940c-418943c14636',
      displayId: '4C636',
      placedAt: '2026-11-20T19:04:10.000Z',
      fulfilment: 'delivery',
      customer: { name: 'João P.', phone: '+55 11 4003-1234', email: null, document: null },
      deliveryAddress: {
        street: 'Rua Augusta',
        number: '1500',
        complement: 'Apto 42',
        neighborhood: 'Consolação',
        city: 'São Paulo',
        state: 'SP',
        postalCode: '01305-100',
        reference: 'Portão azul',
        formatted: 'Rua Augusta, 1500, Apto 42, Consolação, São Paulo - SP, 01305-100',
      },
      items: [
        {
          externalCode: 'X-BURGER',
          name: 'X-Burger',
          quantity: 2,
          unitPriceCents: 2590,
          totalCents: 6780,
          options: [
            { externalCode: 'BACON', name: 'Bacon', quantity: 1, unitPriceCents: 400 },
            { externalCode: 'MOLHO', name: 'Molho', quantity: 1, unitPriceCents: 0 },
            { externalCode: 'CHEDDAR', name: 'Cheddar', quantity: 1, unitPriceCents: 0 },
          ],
          notes: 'sem cebola',
        },
        { externalCode: 'COCA-350', name: 'Coca-Cola 350 ml', quantity: 1, unitPriceCents: 750, totalCents: 750, options: [], notes: null },
      ],
      notes: 'Mandar guardanapos',
      totals: { itemsCents: 7530, discountCents: 500, deliveryFeeCents: 599, serviceFeeCents: 150, tipCents: 250, totalCents: 8029 },
      payment: { method: 'ONLINE', prepaid: true },
    });
  });

  it('reads pick-up orders, cash orders and amounts given as digit strings', () => {
    const o = uberOrder();
    o.type = 'PICK_UP';
    Object.assign(o.payment.charges, { cash_amount_due: money(8029), total: { amount: '8029', currency_code: 'BRL' } });
    const n = normalizeProviderCOrder(o);
    expect(n).toMatchObject({ fulfilment: 'takeout', deliveryAddress: null, payment: { method: 'CASH', prepaid: false } });
    expect(n.totals.totalCents).toBe(8029);
  });

  it('reads what the simulator builds, fees and all', () => {
    const order = buildOrder({ storeId: 's1', deliveryFeeCents: 500, tipCents: 300, discountCents: 1000, customer: { firstName: 'Ana', document: '12345678909' } }, new Date());
    const n = normalizeProviderCOrder(order);
    // Default items: 2 x (25,90 + bacon 4,00) + 7,50.
    expect(n.totals).toEqual({ itemsCents: 6730, discountCents: 1000, deliveryFeeCents: 500, serviceFeeCents: 0, tipCents: 300, totalCents: 6530 });
    expect(n.items[0]).toMatchObject({ externalCode: 'X-BURGER', unitPriceCents: 2590, totalCents: 5980, notes: 'sem cebola' });
    expect(n.customer).toMatchObject({ name: 'Ana S.', document: '12345678909' });
    expect(n.deliveryAddress).toMatchObject({ street: 'Rua Augusta', number: '1500', city: 'São Paulo' });
  });

  it('throws a clear error on an order it cannot read', () => {
    const cases: [(o: ReturnType<typeof uberOrder>) => unknown, RegExp][] = [
      [() => null, /not a JSON object/],
      [(o) => ({ ...o, id: undefined }), /no id/],
      [(o) => ({ ...o, placed_at: 'yesterday' }), /placed_at/],
      [(o) => ({ ...o, cart: { items: [] } }), /cart.items/],
      [(o) => ({ ...o, type: 'TELEPORT' }), /unknown type/],
      [(o) => ({ ...o, payment: {} }), /payment.charges/],
      [(o) => ({ ...o, payment: { charges: { ...o.payment.charges, total: { amount: 80.29, currency_code: 'BRL' } } } }), /integer in minor units/],
      [(o) => ({ ...o, payment: { charges: { ...o.payment.charges, total: { amount: 8029, currency_code: 'USD' } } } }), /not BRL/],
      [(o) => ({ ...o, cart: { items: [{ ...o.cart.items[1], quantity: 0 }] } }), /quantity/],
      [(o) => ({ ...o, cart: { items: [{ ...o.cart.items[1], price: {} }] } }), /unit_price and price.total_price/],
    ];
    for (const [edit, message] of cases) expect(() => normalizeProviderCOrder(edit(uberOrder()))).toThrow(message);
  });
});

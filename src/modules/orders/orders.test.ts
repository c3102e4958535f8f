import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeModifierGroup, makePdv, makeTable, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, headers: H = {}, payload?: object) =>
  t.app.inject({ method, url, headers, payload: payload as never });

/** A tenant with a team, two dishes (one with a required doneness group), a table and a PDV. */
async function restaurant() {
  const team = await makeTenantWithTeam(t.app);
  const doneness = await makeModifierGroup(t.app, team.tenant, {
    name: 'Ponto da carne',
    type: 'single',
    required: true,
    minSelections: 1,
    maxSelections: 1,
    options: [
      { name: 'Mal passada', priceAdjustment: 0, isDefault: false, available: true },
      { name: 'Ao ponto', priceAdjustment: 0, isDefault: true, available: true },
    ],
  });
  const extras = await makeModifierGroup(t.app, team.tenant, {
    name: 'Adicionais',
    type: 'multiple',
    required: false,
    minSelections: 0,
    maxSelections: 2,
    options: [
      { name: 'Bacon', priceAdjustment: 500, isDefault: false, available: true },
      { name: 'Ovo', priceAdjustment: 300, isDefault: false, available: true },
    ],
  });
  const picanha = await makeMenuItem(t.app, team.tenant, { name: 'Picanha', price: 8990, modifierGroupIds: [doneness._id, extras._id], allergens: [] });
  const guarana = await makeMenuItem(t.app, team.tenant, { name: 'Guaraná', price: 700 });
  const table = await makeTable(t.app, team.tenant, { number: 7, capacity: 4 });
  const pdv = await makePdv(t.app, team.tenant);
  return { ...team, picanha, guarana, doneness, extras, table, pdv };
}

const staffBody = (r: Awaited<ReturnType<typeof restaurant>>, extra: object = {}) => ({
  orderType: 'takeout',
  customerName: 'João',
  items: [{ menuItem: r.guarana._id, quantity: 2 }],
  ...extra,
});

describe('POST /t/:slug/orders', () => {
  it('creates a staff order priced from the menu, with modifiers, and a daily sequential number', async () => {
    const r = await restaurant();
    const body = {
      orderType: 'takeout',
      customerName: 'João',
      items: [
        { menuItem: r.picanha._id, quantity: 2, modifiers: [{ groupId: r.doneness._id, options: ['Ao ponto'] }, { groupId: r.extras._id, options: ['Bacon', 'Ovo'] }] },
        { menuItem: r.guarana._id, quantity: 3, notes: 'sem gelo' },
      ],
    };
    // A price or total from the client is not a field of the body: refused, naming it (never used).
    const priced = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, { ...body, items: [{ ...body.items[0], price: 1 }, body.items[1]] });
    expect(priced.statusCode).toBe(400);
    expect(priced.json().details[0].field).toBe('body.items.0.price');
    expect((await call('POST', `/t/${r.slug}/orders`, r.staff.headers, { ...body, total: 5 })).json().details[0].field).toBe('body.total');
    const res = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, body);
    expect(res.statusCode).toBe(201);
    const order = res.json();
    expect(order.orderNumber).toMatch(/^\d{8}-0001$/);
    expect(order.items[0]).toMatchObject({ menuItem: r.picanha._id, name: 'Picanha', price: 8990 + 500 + 300, quantity: 2 });
    expect(order.items[0].modifiers).toHaveLength(2);
    expect(order.items[1]).toMatchObject({ price: 700, quantity: 3, notes: 'sem gelo' });
    expect(order.total).toBe((8990 + 800) * 2 + 700 * 3);
    expect(order).toMatchObject({ status: 'pending', type: 'takeout', paymentAttempts: 0, isSplitBill: false });
    const next = await call('POST', `/t/${r.slug}/orders`, r.admin.headers, staffBody(r));
    expect(next.json().orderNumber).toMatch(/^\d{8}-0002$/);
  });

  it('creates a guest order without a token, with an unguessable number', async () => {
    const r = await restaurant();
    const res = await call('POST', `/t/${r.slug}/orders`, {}, {
      pdv: r.pdv.slug,
      customerName: 'Ana',
      paymentMethod: 'pix',
      orderType: 'takeout',
      items: [{ menuItemId: r.guarana._id, quantity: 1, allergens: ['lactose'] }],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().orderNumber).toMatch(/^\d{8}-[0-9a-f]{10}$/);
    expect(res.json()).toMatchObject({ pdv: r.pdv.pdvId, paymentMethod: 'pix', total: 700 });
    expect(res.json().items[0].allergens).toEqual(['lactose']);
  });

  it('requires the guest fields and the guest payment methods', async () => {
    const r = await restaurant();
    const base = { pdv: r.pdv.slug, customerName: 'Ana', paymentMethod: 'pix', orderType: 'takeout', items: [{ menuItemId: r.guarana._id, quantity: 1 }] };
    for (const [patch, field] of [
      [{ pdv: undefined }, 'body.pdv'],
      [{ customerName: undefined }, 'body.customerName'],
      [{ paymentMethod: 'voucher' }, 'body.paymentMethod'],
      [{ pdv: 'no-such-pdv' }, 'body.pdv'],
    ] as const) {
      const res = await call('POST', `/t/${r.slug}/orders`, {}, { ...base, ...patch });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
  });

  it('rejects bad lines, naming the line', async () => {
    const r = await restaurant();
    const off = await makeMenuItem(t.app, r.tenant, { name: 'Fora do cardápio', isAvailable: false });
    const other = await restaurant();
    const cases: [object[], string][] = [
      [[], 'body.items'],
      [Array.from({ length: 101 }, () => ({ menuItem: r.guarana._id, quantity: 1 })), 'body.items'],
      [[{ menuItem: r.guarana._id, quantity: 0 }], 'body.items.0.quantity'],
      [[{ menuItem: r.guarana._id, quantity: 1000 }], 'body.items.0.quantity'],
      [[{ menuItem: r.guarana._id, quantity: 1.5 }], 'body.items.0.quantity'],
      [[{ menuItem: r.guarana._id, quantity: 1 }, { menuItem: 'f'.repeat(24), quantity: 1 }], 'body.items.1.menuItem'],
      [[{ menuItem: off._id, quantity: 1 }], 'body.items.0.menuItem'],
      [[{ menuItem: other.guarana._id, quantity: 1 }], 'body.items.0.menuItem'],
      [[{ menuItem: r.picanha._id, quantity: 1, modifiers: [{ groupId: r.doneness._id, options: ['Queimada'] }] }], 'body.items.0.modifiers'],
      [[{ quantity: 1 }], 'body.items.0.menuItem'],
    ];
    for (const [items, field] of cases) {
      const res = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { items }));
      expect(res.statusCode, field).toBe(400);
      expect(res.json().details[0].field, JSON.stringify(res.json())).toBe(field);
    }
    const foreignTable = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { orderType: 'dine_in', table: other.table._id }));
    expect(foreignTable.statusCode).toBe(400);
    expect(foreignTable.json().details[0].field).toBe('body.table');
    const foreignPdv = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { pdv: other.pdv.pdvId }));
    expect(foreignPdv.statusCode).toBe(400);
    expect((await call('GET', `/t/${r.slug}/orders`, r.admin.headers)).json()).toHaveLength(0);
  });

  it('answers 401 to a bad token and 403 to an accountant, instead of taking them as guests', async () => {
    const r = await restaurant();
    expect((await call('POST', `/t/${r.slug}/orders`, { authorization: 'Bearer nope' }, staffBody(r))).statusCode).toBe(401);
    expect((await call('POST', `/t/${r.slug}/orders`, r.accountant.headers, staffBody(r))).statusCode).toBe(403);
  });

  it('opens a tab on a dine-in table; later dine-in orders there, staff or guest, are rounds of it', async () => {
    const r = await restaurant();
    const res = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { orderType: 'dine_in', table: r.table._id }));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ isTab: true, table: r.table._id });
    expect((await t.app.services.tables.findById(t.app.deps.tenantDb(r.tenant._id), r.table._id))!.status).toBe('occupied');
    const again = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { orderType: 'dine_in', table: r.table._id }));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ _id: res.json()._id, isTab: true, total: 2800, items: [{ menuItem: r.guarana._id, quantity: 4 }] });
    // A guest at the table (the QR code carries the table number) orders into the same tab.
    const guest = await call('POST', `/t/${r.slug}/orders`, {}, {
      pdv: r.pdv.pdvId, table: '7', customerName: 'Mesa 7', paymentMethod: 'cash', orderType: 'dine_in', items: [{ menuItemId: r.guarana._id, quantity: 1 }],
    });
    expect(guest.statusCode).toBe(200);
    expect(guest.json()).toMatchObject({ _id: res.json()._id, isTab: true, table: r.table._id, total: 3500 });
    const tab = await call('GET', `/t/${r.slug}/orders/open-tab/${r.table._id}`, r.staff.headers);
    expect(tab.json()._id).toBe(res.json()._id);
  });
});

describe('Idempotency-Key on order creation', () => {
  it('replays the first answer for the same key and body, and 422 for another body', async () => {
    const r = await restaurant();
    const headers = { ...r.staff.headers, 'idempotency-key': 'wifi-retry-1' };
    const first = await call('POST', `/t/${r.slug}/orders`, headers, staffBody(r));
    const second = await call('POST', `/t/${r.slug}/orders`, headers, staffBody(r));
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    const changed = await call('POST', `/t/${r.slug}/orders`, headers, staffBody(r, { customerName: 'Outro' }));
    expect(changed.statusCode).toBe(422);
    expect((await call('GET', `/t/${r.slug}/orders`, r.admin.headers)).json()).toHaveLength(1);
  });

  it('creates one order for 20 simultaneous requests with one key', async () => {
    const r = await restaurant();
    const headers = { ...r.staff.headers, 'idempotency-key': 'burst-key' };
    const results = await Promise.all(Array.from({ length: 20 }, () => call('POST', `/t/${r.slug}/orders`, headers, staffBody(r))));
    // The twins wait on the first one's key, then answer as it did.
    expect(results.map((x) => x.statusCode)).toEqual(Array(20).fill(201));
    expect(results.filter((x) => x.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect(new Set(results.map((x) => x.json()._id)).size).toBe(1);
    expect((await call('GET', `/t/${r.slug}/orders`, r.admin.headers)).json()).toHaveLength(1);
  });

  it('answers a retry from the order when the first answer was lost after the commit (the process died)', async () => {
    const r = await restaurant();
    const headers = { ...r.staff.headers, 'idempotency-key': 'lost-answer' };
    const first = await call('POST', `/t/${r.slug}/orders`, headers, staffBody(r));
    expect(first.statusCode).toBe(201);
    // What a process killed between its commit and storing the answer leaves: the key, committed with the order, and no answer.
    const stored = await t.db.database.db.execute(
      sql`update idempotency_keys set state = 'running', response_body = null where key = 'lost-answer' returning ref`,
    );
    expect((stored as unknown as { rows: { ref: string }[] }).rows).toEqual([{ ref: first.json()._id }]);
    const retry = await call('POST', `/t/${r.slug}/orders`, headers, staffBody(r));
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect((await call('GET', `/t/${r.slug}/orders`, r.admin.headers)).json()).toHaveLength(1);
  });

  it('keeps no key for an order that failed: the retry runs', async () => {
    const r = await restaurant();
    const headers = { ...r.staff.headers, 'idempotency-key': 'failed-first' };
    await call('PUT', `/t/${r.slug}/menu/items/${r.guarana._id}`, r.admin.headers, { isAvailable: false });
    const refused = await call('POST', `/t/${r.slug}/orders`, headers, staffBody(r));
    expect(refused.statusCode, refused.body).toBeGreaterThanOrEqual(400);
    await call('PUT', `/t/${r.slug}/menu/items/${r.guarana._id}`, r.admin.headers, { isAvailable: true });
    const retry = await call('POST', `/t/${r.slug}/orders`, headers, staffBody(r));
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('concurrency', () => {
  it('gives 100 simultaneous staff orders 100 distinct sequential numbers', async () => {
    const r = await restaurant();
    const results = await Promise.all(Array.from({ length: 100 }, () => call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r))));
    expect(results.map((x) => x.statusCode).filter((s) => s !== 201)).toEqual([]);
    const seqs = results.map((x) => Number(x.json().orderNumber.split('-')[1])).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  }, 60_000);

  it('loses no line when two waiters add items to a tab at once', async () => {
    const r = await restaurant();
    const tab = (await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { orderType: 'dine_in', table: r.table._id }))).json();
    const waiter2 = await makeUser(t.app, r.tenant, 'staff');
    const rounds = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call('PATCH', `/t/${r.slug}/orders/${tab._id}/add-items`, i % 2 ? r.staff.headers : waiter2.headers, {
          items: [{ menuItem: r.guarana._id, quantity: 1 }, { menuItem: r.picanha._id, quantity: 1, modifiers: [{ groupId: r.doneness._id, options: ['Mal passada'] }] }],
        }),
      ),
    );
    expect(rounds.every((x) => x.statusCode === 200)).toBe(true);
    const final = (await call('GET', `/t/${r.slug}/orders/open-tab/${r.table._id}`, r.staff.headers)).json();
    expect(final.items).toHaveLength(2);
    expect(final.items.find((l: { name: string }) => l.name === 'Guaraná').quantity).toBe(12);
    expect(final.items.find((l: { name: string }) => l.name === 'Picanha').quantity).toBe(10);
    expect(final.total).toBe(12 * 700 + 10 * 8990);
  });
});

describe('working with orders', () => {
  it('adds items, merging the same dish and keeping different ones apart', async () => {
    const r = await restaurant();
    const order = (await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r))).json();
    const res = await call('PATCH', `/t/${r.slug}/orders/${order._id}/add-items`, r.staff.headers, {
      items: [{ menuItem: r.guarana._id, quantity: 1 }, { menuItem: r.guarana._id, quantity: 1, notes: 'com limão' }],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().items.map((l: { quantity: number; notes?: string }) => [l.quantity, l.notes ?? null])).toEqual([[3, null], [1, 'com limão']]);
    expect(res.json().total).toBe(4 * 700);
    const bad = await call('PATCH', `/t/${r.slug}/orders/${order._id}/add-items`, r.staff.headers, { items: [{ menuItem: r.guarana._id, quantity: -1 }] });
    expect(bad.statusCode).toBe(400);
  });

  it('closes a tab: delivered, payment method kept, table freed; a closed tab takes no items', async () => {
    const r = await restaurant();
    const tab = (await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { orderType: 'dine_in', table: r.table._id }))).json();
    const closed = await call('POST', `/t/${r.slug}/orders/${tab._id}/close-tab`, r.staff.headers, { paymentMethod: 'pix' });
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toMatchObject({ status: 'delivered', paymentMethod: 'pix' });
    expect((await t.app.services.tables.findById(t.app.deps.tenantDb(r.tenant._id), r.table._id))!.status).toBe('available');
    expect((await call('GET', `/t/${r.slug}/orders/open-tab/${r.table._id}`, r.staff.headers)).json()).toBeNull();
    const late = await call('PATCH', `/t/${r.slug}/orders/${tab._id}/add-items`, r.staff.headers, { items: [{ menuItem: r.guarana._id, quantity: 1 }] });
    expect(late.statusCode).toBe(409);
    expect((await call('POST', `/t/${r.slug}/orders/${tab._id}/close-tab`, r.staff.headers)).statusCode).toBe(409);
    expect((await call('POST', `/t/${r.slug}/orders/${tab._id}/close-tab`, r.staff.headers, { paymentMethod: 'bitcoin' })).statusCode).toBe(400);
  });

  it('follows the status machine and names both states when a move is forbidden', async () => {
    const r = await restaurant();
    const order = (await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r))).json();
    const move = (status: string) => call('PUT', `/t/${r.slug}/orders/${order._id}/status`, r.staff.headers, { status });
    expect((await move('confirmed')).statusCode).toBe(200);
    expect((await move('ready')).statusCode).toBe(200);
    // One step back is a correction (the kitchen recalled it), recorded; two steps back are refused.
    const back = await move('preparing');
    expect(back.statusCode).toBe(200);
    expect(back.json().statusHistory.at(-1)).toMatchObject({ from: 'ready', to: 'preparing', correction: true, by: r.staff.id });
    const far = await move('pending');
    expect(far.statusCode).toBe(409);
    expect(far.json().message).toContain('preparing');
    expect(far.json().message).toContain('pending');
    expect((await move('delivered')).statusCode).toBe(200);
    expect((await move('cancelled')).statusCode).toBe(409);
    expect((await move('done')).statusCode).toBe(400);
  });

  it('tracks a staff order (guessable number) by status and times only', async () => {
    const r = await restaurant();
    const order = (await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { customerPhone: '11987654321', customerEmail: 'joao@example.com' }))).json();
    await call('POST', `/t/${r.slug}/orders/${order._id}/process-payment`, r.staff.headers, { method: 'cash', gateway: 'mock' });
    const res = await call('GET', `/t/${r.slug}/orders/${order.orderNumber}/track`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ orderNumber: order.orderNumber, status: 'pending', createdAt: order.createdAt, updatedAt: expect.any(String) });
    // The next number is one more: anyone can walk them, so nothing but the status shows.
    expect(order.orderNumber).toMatch(/^\d{8}-\d{4}$/);
    expect((await call('GET', `/t/${r.slug}/orders/20260101-0999/track`)).statusCode).toBe(404);
    expect((await call('GET', `/t/${r.slug}/orders/not-a-number/track`)).statusCode).toBe(400);
  });

  it('tracks a guest order with its lines and total, never the name, contact data, receipt token or payment ids', async () => {
    const r = await restaurant();
    const guest = await call('POST', `/t/${r.slug}/orders`, {}, {
      pdv: r.pdv.slug, customerName: 'Beatriz Lima', customerPhone: '11912345678', customerEmail: 'bia@example.com', paymentMethod: 'card', orderType: 'takeout',
      items: [{ menuItemId: r.guarana._id, quantity: 2 }],
    });
    expect(guest.statusCode).toBe(201);
    const order = guest.json();
    const paid = await call('POST', `/t/${r.slug}/orders/${order._id}/process-payment`, r.admin.headers, { method: 'credit_card', gateway: 'mock' });
    const stored = (await call('GET', `/t/${r.slug}/orders`, r.admin.headers)).json().find((o: { _id: string }) => o._id === order._id);
    expect(stored.receiptToken).toMatch(/^[0-9a-f]{32}$/);
    const res = await call('GET', `/t/${r.slug}/orders/${order.orderNumber}/track`);
    expect(res.json()).toEqual({
      orderNumber: order.orderNumber,
      status: 'pending',
      type: 'takeout',
      items: [{ name: 'Guaraná', quantity: 2, price: 700 }],
      serviceCharge: 0,
      total: 1400,
      paymentStatus: 'approved',
      createdAt: order.createdAt,
      updatedAt: expect.any(String),
    });
    for (const secret of ['Beatriz', '11912345678', 'bia@example.com', stored.receiptToken, paid.json().transactionId]) expect(res.body).not.toContain(secret);
  });

  it('answers a guest checkout without contact data or payment ids, and a staff order in full', async () => {
    const r = await restaurant();
    const guest = await call('POST', `/t/${r.slug}/orders`, {}, {
      pdv: r.pdv.slug, customerName: 'Ana', customerPhone: '11912345678', customerEmail: 'ana@example.com', paymentMethod: 'pix', orderType: 'takeout',
      items: [{ menuItemId: r.guarana._id, quantity: 1 }],
    });
    expect(guest.statusCode).toBe(201);
    expect(guest.json()).toMatchObject({ customerName: 'Ana', total: 700, paymentStatus: null, receiptToken: null, receiptUrl: null });
    for (const field of ['customerPhone', 'customerEmail', 'paymentTransactionId']) expect(guest.json()).not.toHaveProperty(field);
    expect(guest.body).not.toContain('11912345678');
    const staff = await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { customerPhone: '11987654321' }));
    expect(staff.json()).toMatchObject({ customerPhone: '11987654321', customerEmail: null, paymentTransactionId: null, receiptToken: null });
    expect(staff.json()).not.toHaveProperty('receiptUrl');
  });

  it('splits into equal parts that add up to the cent, and by lines', async () => {
    const r = await restaurant();
    const order = (
      await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { items: [{ menuItem: r.guarana._id, quantity: 1 }, { menuItem: r.picanha._id, quantity: 2, modifiers: [{ groupId: r.doneness._id, options: ['Ao ponto'] }] }] }))
    ).json();
    const equal = await call('POST', `/t/${r.slug}/orders/${order._id}/split`, r.staff.headers, { parts: 3 });
    expect(equal.statusCode).toBe(201);
    const parts = equal.json().parts;
    expect(parts).toHaveLength(3);
    expect(parts.reduce((s: number, p: { total: number }) => s + p.total, 0)).toBe(order.total);
    expect(parts.every((p: { isSplitBill: boolean; splitBillReference: string }) => p.isSplitBill && p.splitBillReference === order.orderNumber)).toBe(true);
    expect((await call('POST', `/t/${r.slug}/orders/${order._id}/split`, r.staff.headers, { parts: 2 })).statusCode).toBe(409);

    const other = (await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { items: [{ menuItem: r.guarana._id, quantity: 3 }] }))).json();
    const uneven = await call('POST', `/t/${r.slug}/orders/${other._id}/split`, r.staff.headers, { lines: [[{ line: 0, quantity: 1 }], [{ line: 0, quantity: 1 }]] });
    expect(uneven.statusCode).toBe(400);
    const byLines = await call('POST', `/t/${r.slug}/orders/${other._id}/split`, r.staff.headers, { lines: [[{ line: 0, quantity: 1 }], [{ line: 0, quantity: 2 }]] });
    expect(byLines.statusCode).toBe(201);
    expect(byLines.json().parts.map((p: { total: number }) => p.total)).toEqual([700, 1400]);
    expect((await call('POST', `/t/${r.slug}/orders/${other._id}/split`, r.staff.headers, { parts: 2 })).statusCode).toBe(409);
    expect((await call('POST', `/t/${r.slug}/orders/${other._id}/split`, r.staff.headers, {})).statusCode).toBe(400);
  });
});

describe('GET /t/:slug/orders', () => {
  it('filters by status and period, newest first; staff see only their PDVs', async () => {
    const r = await restaurant();
    const pdv2 = await makePdv(t.app, r.tenant);
    await call('PUT', `/t/${r.slug}/users/${r.staff.id}`, r.admin.headers, { assignedPdvIds: [r.pdv.pdvId] });
    const a = (await call('POST', `/t/${r.slug}/orders`, r.admin.headers, staffBody(r, { pdv: r.pdv.pdvId }))).json();
    const b = (await call('POST', `/t/${r.slug}/orders`, r.admin.headers, staffBody(r, { pdv: pdv2.pdvId }))).json();
    await call('PUT', `/t/${r.slug}/orders/${a._id}/status`, r.admin.headers, { status: 'confirmed' });

    const all = (await call('GET', `/t/${r.slug}/orders`, r.admin.headers)).json();
    expect(all.map((o: { _id: string }) => o._id)).toEqual([b._id, a._id]);
    expect((await call('GET', `/t/${r.slug}/orders?status=confirmed`, r.admin.headers)).json().map((o: { _id: string }) => o._id)).toEqual([a._id]);
    expect((await call('GET', `/t/${r.slug}/orders?pdvIds=${pdv2.pdvId}`, r.admin.headers)).json().map((o: { _id: string }) => o._id)).toEqual([b._id]);
    const mine = (await call('GET', `/t/${r.slug}/orders`, r.staff.headers)).json();
    expect(mine.map((o: { _id: string }) => o._id)).toEqual([a._id]);
    // Staff cannot act on another PDV's order.
    expect((await call('PUT', `/t/${r.slug}/orders/${b._id}/status`, r.staff.headers, { status: 'confirmed' })).statusCode).toBe(403);
    expect((await call('POST', `/t/${r.slug}/orders`, r.staff.headers, staffBody(r, { pdv: pdv2.pdvId }))).statusCode).toBe(403);
    // A past period holds none of today's orders.
    expect((await call('GET', `/t/${r.slug}/orders?from=2020-01-01&to=2020-01-31`, r.admin.headers)).json()).toEqual([]);
    expect((await call('GET', `/t/${r.slug}/orders?limit=1`, r.admin.headers)).json()).toHaveLength(1);
    // The limit applies after the PDV filter: a newer tenant-wide order does not take the only slot.
    await call('POST', `/t/${r.slug}/orders`, r.admin.headers, staffBody(r));
    expect((await call('GET', `/t/${r.slug}/orders?pdvIds=${pdv2.pdvId}&limit=1`, r.admin.headers)).json().map((o: { _id: string }) => o._id)).toEqual([b._id]);
    expect((await call('GET', `/t/${r.slug}/orders?status=lost`, r.admin.headers)).statusCode).toBe(400);
    expect((await call('GET', `/t/${r.slug}/orders?limit=5000`, r.admin.headers)).statusCode).toBe(400);
    expect((await call('GET', `/t/${r.slug}/orders?from=2026-02-10&to=2026-02-01`, r.admin.headers)).statusCode).toBe(400);
  });

  it('needs a token and a floor role', async () => {
    const r = await restaurant();
    expect((await call('GET', `/t/${r.slug}/orders`)).statusCode).toBe(401);
    expect((await call('GET', `/t/${r.slug}/orders`, r.accountant.headers)).statusCode).toBe(403);
  });
});

describe('tenant isolation', () => {
  it("tenant B's staff cannot see or change tenant A's orders", async () => {
    const a = await restaurant();
    const b = await restaurant();
    const order = (await call('POST', `/t/${a.slug}/orders`, a.staff.headers, staffBody(a, { orderType: 'dine_in', table: a.table._id }))).json();
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: a.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [
        { method: 'PATCH', path: `/t/:slug/orders/${order._id}/add-items`, payload: { items: [{ menuItem: b.guarana._id, quantity: 1 }] } },
        { method: 'POST', path: `/t/:slug/orders/${order._id}/close-tab`, payload: {} },
        { method: 'PUT', path: `/t/:slug/orders/${order._id}/status`, payload: { status: 'cancelled' } },
        { method: 'POST', path: `/t/:slug/orders/${order._id}/split`, payload: { parts: 2 } },
        { method: 'POST', path: `/t/:slug/orders/${order._id}/process-payment`, payload: { method: 'cash', gateway: 'mock' } },
        { method: 'GET', path: `/t/:slug/orders/open-tab/${a.table._id}` },
      ],
      snapshot: async () => (await call('GET', `/t/${a.slug}/orders`, a.admin.headers)).json(),
    });
    expect((await call('GET', `/t/${b.slug}/orders/${order.orderNumber}/track`)).statusCode).toBe(404);
  });
});

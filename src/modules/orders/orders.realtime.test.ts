import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeTenantWithTeam, makeUser, type TestUser } from '../../../test/factories.js';

/** The kitchen display and the customer's tracking page, as socket.io clients of a listening server. */
let t: TestApp;
let url: string;
const sockets: Socket[] = [];
beforeAll(async () => {
  t = await createTestApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t.close();
});

function client(token?: string): Socket {
  const s = connect(url, { transports: ['websocket'], forceNew: true, reconnection: false, auth: token ? { token } : {} });
  sockets.push(s);
  return s;
}

/** What the tests read of a payload: kitchen events carry `order`, tracking events the public view. */
interface Payload {
  order: { _id: string; orderNumber: string; status: string; items: { name: string }[] };
  orderNumber: string;
  status: string;
  paymentStatus: string;
  total: number;
  [key: string]: unknown;
}

/** Every payload of `event`, and a way to wait for the next one that matches. */
function inbox(socket: Socket, event: string) {
  const got: Payload[] = [];
  const waiters: { match: (p: Payload) => boolean; resolve: (p: Payload) => void }[] = [];
  socket.on(event, (p: Payload) => {
    got.push(p);
    for (const w of waiters.splice(0)) {
      if (w.match(p)) w.resolve(p);
      else waiters.push(w);
    }
  });
  return {
    got,
    next: (match: (p: Payload) => boolean = () => true, ms = 5000) =>
      new Promise<Payload>((resolve, reject) => {
        const hit = got.find(match);
        if (hit) return resolve(hit);
        const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
        waiters.push({ match, resolve: (p) => (clearTimeout(timer), resolve(p)) });
      }),
  };
}

/**
 * Resolves once `socket` got a marker sent after everything emitted so far (one process writes to one
 * socket in order): an event emitted earlier that has not arrived never will.
 */
async function flushed(socket: Socket) {
  const marker = new Promise((resolve) => socket.once('marker', resolve));
  t.app.realtime.io.to(socket.id!).emit('marker', 1);
  await marker;
}

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
async function assign(team: Team, user: TestUser, payload: { assignedPdvIds?: string[]; assignedBranchIds?: string[] }) {
  expect((await t.app.inject({ method: 'PUT', url: `/t/${team.slug}/users/${user.id}`, headers: team.admin.headers, payload })).statusCode).toBe(200);
}

const join = async (socket: Socket, tenantId: string) => expect(await socket.timeout(5000).emitWithAck('joinKitchen', tenantId)).toMatchObject({ ok: true });
const track = async (socket: Socket, slug: string, orderNumber: string) =>
  expect(await socket.timeout(5000).emitWithAck('trackOrder', { slug, orderNumber })).toMatchObject({ ok: true });

describe('kitchen and tracking over socket.io', () => {
  it('sends newOrder, orderUpdate and paymentUpdate to the kitchen, and only its own order to a tracker', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, a.tenant, { name: 'Feijoada', price: 5900 });
    const pdv = await makePdv(t.app, a.tenant, { terminal: 'T-KITCHEN1' });
    const dishB = await makeMenuItem(t.app, b.tenant, { name: 'Coxinha', price: 900 });
    await assign(a, a.staff, { assignedPdvIds: [pdv.pdvId] });

    const kitchen = client(a.staff.token);
    await join(kitchen, a.tenant._id);
    const otherKitchen = client(b.admin.token);
    await join(otherKitchen, b.tenant._id);
    const intruder = client(b.admin.token);
    expect(await intruder.timeout(5000).emitWithAck('joinKitchen', a.tenant._id)).toMatchObject({ ok: false });
    const newOrders = inbox(kitchen, 'newOrder');
    const updates = inbox(kitchen, 'orderUpdate');
    const payments = inbox(kitchen, 'paymentUpdate');
    const leaked = inbox(otherKitchen, 'newOrder');

    const guest = await t.app.inject({
      method: 'POST',
      url: `/t/${a.slug}/orders`,
      payload: { pdv: pdv.slug, customerName: 'Rita', customerPhone: '11999990000', paymentMethod: 'card', orderType: 'takeout', items: [{ menuItemId: dish._id, quantity: 1 }] },
    });
    expect(guest.statusCode).toBe(201);
    const order = guest.json();
    expect((await newOrders.next((p) => p.order._id === order._id)).order).toMatchObject({ orderNumber: order.orderNumber, total: 5900 });

    // The customer's phone follows the order by number only.
    const tracker = client();
    await track(tracker, a.slug, order.orderNumber);
    const tracked = inbox(tracker, 'orderUpdate');
    const trackedPay = inbox(tracker, 'paymentUpdate');
    expect(await client().timeout(5000).emitWithAck('trackOrder', { slug: a.slug, orderNumber: '20200101-0001' })).toMatchObject({ ok: false });

    // Another order of the same tenant does not reach this tracker.
    const other = (
      await t.app.inject({ method: 'POST', url: `/t/${a.slug}/orders`, headers: a.admin.headers, payload: { orderType: 'takeout', items: [{ menuItem: dish._id, quantity: 2 }] } })
    ).json();
    await t.app.inject({ method: 'PUT', url: `/t/${a.slug}/orders/${other._id}/status`, headers: a.admin.headers, payload: { status: 'confirmed' } });
    await t.app.inject({ method: 'PUT', url: `/t/${a.slug}/orders/${order._id}/status`, headers: a.admin.headers, payload: { status: 'preparing' } });
    expect(await tracked.next()).toMatchObject({ orderNumber: order.orderNumber, status: 'preparing' });
    expect((await updates.next((p) => p.order._id === order._id)).order.status).toBe('preparing');

    const pay = await t.app.inject({
      method: 'POST',
      url: `/t/${a.slug}/orders/${order._id}/process-payment`,
      headers: a.admin.headers,
      payload: { method: 'credit_card', gateway: 'gateway_a' },
    });
    await t.app.integrations.gatewayA.simulator!.approve(pay.json().intentId);
    expect(await payments.next((p) => p.paymentStatus === 'approved')).toMatchObject({ orderId: order._id, orderNumber: order.orderNumber });
    // The tracking room hears that it is paid, and nothing more: the receipt token went to nobody there.
    expect(await trackedPay.next((p) => p.paymentStatus === 'approved')).toEqual({ orderNumber: order.orderNumber, paymentStatus: 'approved' });

    const ownB = inbox(otherKitchen, 'newOrder');
    await t.app.inject({ method: 'POST', url: `/t/${b.slug}/orders`, headers: b.admin.headers, payload: { orderType: 'takeout', items: [{ menuItem: dishB._id, quantity: 1 }] } });
    await ownB.next((p) => p.order.items[0].name === 'Coxinha');
    await flushed(tracker);
    // Nothing of tenant A reached tenant B's kitchen; nothing of the other order or any phone reached the tracker.
    expect(leaked.got.every((p) => p.order.orderNumber !== order.orderNumber)).toBe(true);
    expect(tracked.got.every((p) => p.orderNumber === order.orderNumber)).toBe(true);
    expect(JSON.stringify(tracked.got)).not.toContain('11999990000');
  });

  it('never sends a receipt token, payment ids, name, phone or e-mail to a tracker; staff orders show status and times only', async () => {
    const r = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, r.tenant, { name: 'Moqueca', price: 7450 });
    const pdv = await makePdv(t.app, r.tenant);
    const contact = { customerName: 'Rita Alves', customerPhone: '11955554444', customerEmail: 'rita@example.com' };
    const guest = (
      await t.app.inject({
        method: 'POST',
        url: `/t/${r.slug}/orders`,
        payload: { pdv: pdv.slug, paymentMethod: 'cash', orderType: 'takeout', items: [{ menuItemId: dish._id, quantity: 1 }], ...contact },
      })
    ).json();
    const staff = (
      await t.app.inject({
        method: 'POST',
        url: `/t/${r.slug}/orders`,
        headers: r.staff.headers,
        payload: { orderType: 'takeout', items: [{ menuItem: dish._id, quantity: 2 }], ...contact },
      })
    ).json();
    const guestTracker = client();
    const staffTracker = client();
    await track(guestTracker, r.slug, guest.orderNumber);
    await track(staffTracker, r.slug, staff.orderNumber);
    const seen = { guest: inbox(guestTracker, 'orderUpdate'), guestPay: inbox(guestTracker, 'paymentUpdate') };
    const seenStaff = { update: inbox(staffTracker, 'orderUpdate'), pay: inbox(staffTracker, 'paymentUpdate') };

    const transactions: string[] = [];
    for (const order of [guest, staff]) {
      const paid = await t.app.inject({ method: 'POST', url: `/t/${r.slug}/orders/${order._id}/process-payment`, headers: r.admin.headers, payload: { method: 'cash', gateway: 'mock' } });
      transactions.push(paid.json().transactionId);
      await t.app.inject({ method: 'PUT', url: `/t/${r.slug}/orders/${order._id}/status`, headers: r.admin.headers, payload: { status: 'ready' } });
      await t.app.inject({ method: 'PATCH', url: `/t/${r.slug}/orders/${order._id}/add-items`, headers: r.admin.headers, payload: { items: [{ menuItem: dish._id, quantity: 1 }] } });
    }

    expect(await seen.guestPay.next()).toEqual({ orderNumber: guest.orderNumber, paymentStatus: 'approved' });
    expect(await seen.guest.next((p) => p.status === 'ready')).toEqual({
      orderNumber: guest.orderNumber,
      status: 'ready',
      type: 'takeout',
      items: [{ name: 'Moqueca', quantity: 1, price: 7450 }],
      serviceCharge: 0,
      total: 7450,
      paymentStatus: 'approved',
      createdAt: guest.createdAt,
      updatedAt: expect.any(String),
    });
    await seen.guest.next((p) => p.total === 7450 * 2);
    // A staff order's number is sequential: its tracker sees the status and times, and no payment event.
    expect(await seenStaff.update.next((p) => p.status === 'ready')).toEqual({
      orderNumber: staff.orderNumber,
      status: 'ready',
      createdAt: staff.createdAt,
      updatedAt: expect.any(String),
    });
    await flushed(staffTracker);
    expect(seenStaff.update.got).toHaveLength(2); // ready, then the added round
    expect(seenStaff.pay.got).toEqual([]);

    const stored = (await t.app.inject({ method: 'GET', url: `/t/${r.slug}/orders`, headers: r.admin.headers })).json();
    const tokens = stored.map((o: { receiptToken: string | null }) => o.receiptToken);
    expect(tokens.every((tk: string | null) => typeof tk === 'string')).toBe(true);
    const everything = JSON.stringify([seen.guest.got, seen.guestPay.got, seenStaff.update.got]);
    const secrets = [...tokens, ...transactions, contact.customerName, contact.customerPhone, contact.customerEmail];
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });
});

describe('kitchen events follow branch scope and business type', () => {
  it("sends an order's events to the staff of its PDV and the managers of its branch only", async () => {
    const r = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, r.tenant, { name: 'Pastel', price: 1200 });
    const [mine, theirs] = [await makePdv(t.app, r.tenant), await makePdv(t.app, r.tenant)];
    const manager = await makeUser(t.app, r.tenant, 'branch_manager');
    await assign(r, r.staff, { assignedPdvIds: [mine.pdvId] });
    await assign(r, manager, { assignedBranchIds: [mine.branchId] });
    const staffKitchen = client(r.staff.token);
    const managerKitchen = client(manager.token);
    const adminKitchen = client(r.admin.token);
    for (const k of [staffKitchen, managerKitchen, adminKitchen]) await join(k, r.tenant._id);
    const got = { staff: inbox(staffKitchen, 'newOrder'), manager: inbox(managerKitchen, 'newOrder'), admin: inbox(adminKitchen, 'newOrder') };

    const create = async (pdvSlug: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: `/t/${r.slug}/orders`,
          payload: { pdv: pdvSlug, customerName: 'Léo', paymentMethod: 'cash', orderType: 'takeout', items: [{ menuItemId: dish._id, quantity: 1 }] },
        })
      ).json();
    const elsewhere = await create(theirs.slug);
    const here = await create(mine.slug);
    const counter = (await t.app.inject({ method: 'POST', url: `/t/${r.slug}/orders`, headers: r.admin.headers, payload: { orderType: 'takeout', items: [{ menuItem: dish._id, quantity: 1 }] } })).json();

    const ids = (inbox: { got: Payload[] }) => inbox.got.map((p) => p.order._id);
    await got.admin.next((p) => p.order._id === counter._id);
    expect(ids(got.admin)).toEqual([elsewhere._id, here._id, counter._id]);
    // The order without a PDV is tenant-wide; the other PDV's order was emitted before it and never came.
    for (const scoped of [got.staff, got.manager]) {
      await scoped.next((p) => p.order._id === counter._id);
      expect(ids(scoped)).toEqual([here._id, counter._id]);
    }
  });

  it('emits nothing to a kitchen for a mercado or a padaria, and still updates their trackers', async () => {
    const realtime = t.app.deps.realtime;
    const original = realtime.toKitchen;
    const kitchenTenants: string[] = [];
    realtime.toKitchen = (tenantId, ...rest) => {
      kitchenTenants.push(tenantId);
      original.call(realtime, tenantId, ...rest);
    };
    try {
      for (const businessType of ['mercado', 'padaria'] as const) {
        const m = await makeTenantWithTeam(t.app, { businessType });
        const item = await makeMenuItem(t.app, m.tenant, { name: 'Pão francês', price: 90 });
        const order = (await t.app.inject({ method: 'POST', url: `/t/${m.slug}/orders`, headers: m.staff.headers, payload: { orderType: 'takeout', items: [{ menuItem: item._id, quantity: 10 }] } })).json();
        const tracker = client();
        await track(tracker, m.slug, order.orderNumber);
        const updates = inbox(tracker, 'orderUpdate');
        await t.app.inject({ method: 'PUT', url: `/t/${m.slug}/orders/${order._id}/status`, headers: m.staff.headers, payload: { status: 'delivered' } });
        await t.app.inject({ method: 'POST', url: `/t/${m.slug}/orders/${order._id}/process-payment`, headers: m.staff.headers, payload: { method: 'cash', gateway: 'mock' } });
        expect(await updates.next()).toMatchObject({ status: 'delivered' });
        // The services emit before they answer: by now every kitchen emit of these requests was made.
        expect(kitchenTenants).not.toContain(m.tenant._id);
      }
      // A restaurant's order is emitted as usual (the spy sees kitchen emits at all).
      const r = await makeTenantWithTeam(t.app);
      const dish = await makeMenuItem(t.app, r.tenant);
      await t.app.inject({ method: 'POST', url: `/t/${r.slug}/orders`, headers: r.staff.headers, payload: { orderType: 'takeout', items: [{ menuItem: dish._id, quantity: 1 }] } });
      expect(kitchenTenants).toContain(r.tenant._id);
    } finally {
      realtime.toKitchen = original;
    }
  });
});

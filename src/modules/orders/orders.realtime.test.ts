import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeTenantWithTeam } from '../../../test/factories.js';

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

/** Every payload of `event`, and a way to wait for the next one that matches. */
function inbox(socket: Socket, event: string) {
  const got: any[] = [];
  const waiters: { match: (p: any) => boolean; resolve: (p: any) => void }[] = [];
  socket.on(event, (p: any) => {
    got.push(p);
    for (const w of waiters.splice(0)) (w.match(p) ? w.resolve(p) : waiters.push(w));
  });
  return {
    got,
    next: (match: (p: any) => boolean = () => true, ms = 5000) =>
      new Promise<any>((resolve, reject) => {
        const hit = got.find(match);
        if (hit) return resolve(hit);
        const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
        waiters.push({ match, resolve: (p) => (clearTimeout(timer), resolve(p)) });
      }),
  };
}

describe('kitchen and tracking over socket.io', () => {
  it('sends newOrder, orderUpdate and paymentUpdate to the kitchen, and only its own order to a tracker', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, a.tenant, { name: 'Feijoada', price: 5900 });
    const pdv = await makePdv(t.app, a.tenant, { terminal: 'T-KITCHEN1' });
    const dishB = await makeMenuItem(t.app, b.tenant, { name: 'Coxinha', price: 900 });

    const kitchen = client(a.staff.token);
    expect(await kitchen.timeout(5000).emitWithAck('joinKitchen', a.tenant._id)).toMatchObject({ ok: true });
    const otherKitchen = client(b.admin.token);
    expect(await otherKitchen.timeout(5000).emitWithAck('joinKitchen', b.tenant._id)).toMatchObject({ ok: true });
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
    expect(await tracker.timeout(5000).emitWithAck('trackOrder', { slug: a.slug, orderNumber: order.orderNumber })).toMatchObject({ ok: true });
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
    await t.app.providers.simulators.gatewayA!.approve(pay.json().intentId);
    expect(await payments.next((p) => p.paymentStatus === 'approved')).toMatchObject({ orderId: order._id, orderNumber: order.orderNumber });
    expect(await trackedPay.next((p) => p.paymentStatus === 'approved')).toMatchObject({ orderNumber: order.orderNumber, receiptToken: expect.any(String) });

    await t.app.inject({ method: 'POST', url: `/t/${b.slug}/orders`, headers: b.admin.headers, payload: { orderType: 'takeout', items: [{ menuItem: dishB._id, quantity: 1 }] } });
    await new Promise((r) => setTimeout(r, 300));
    // Nothing of tenant A reached tenant B's kitchen; nothing of the other order or any phone reached the tracker.
    expect(leaked.got.every((p) => p.order.orderNumber !== order.orderNumber)).toBe(true);
    expect(tracked.got.every((p) => p.orderNumber === order.orderNumber)).toBe(true);
    expect(JSON.stringify(tracked.got)).not.toContain('11999990000');
  });
});

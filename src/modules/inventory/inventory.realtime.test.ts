import { and, eq, isNull } from 'drizzle-orm';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { newId } from '../../db/ids.js';
import { inventoryItems, labelTokens, stockAlerts } from '../../db/schema/inventory.js';

/**
 * The `/inventory` namespace (spec section 6) as a socket.io client sees it: who may join, and the
 * `stockUpdate` and `lowStockAlert` a label scan sends, with exact values, once, and only once the scan's
 * transaction has committed.
 */
let t: TestApp;
let url: string;
let a: Team;
let b: Team;
beforeAll(async () => {
  t = await createTestApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  [a, b] = await Promise.all([makeTenantWithTeam(t.app), makeTenantWithTeam(t.app)]);
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.disconnect();
});

function client(token: string): Socket {
  const s = connect(`${url}/inventory`, { transports: ['websocket'], forceNew: true, reconnection: false, auth: { token } });
  sockets.push(s);
  return s;
}

const join = (socket: Socket, tenantId: string) => socket.timeout(5000).emitWithAck('joinInventory', tenantId);

/** Every payload of `event` a socket receives, and a way to wait for the next one that matches. */
function inbox(socket: Socket, event: string) {
  const got: Record<string, unknown>[] = [];
  const waiters: { match: (p: Record<string, unknown>) => boolean; resolve: (p: Record<string, unknown>) => void }[] = [];
  socket.on(event, (p: Record<string, unknown>) => {
    got.push(p);
    for (const w of waiters.splice(0)) {
      if (w.match(p)) w.resolve(p);
      else waiters.push(w);
    }
  });
  return {
    got,
    next: (match: (p: Record<string, unknown>) => boolean = () => true, ms = 5000) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
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
  t.app.realtime.io.of('/inventory').to(socket.id!).emit('marker', 1);
  await marker;
}

/** A catalog item written directly (the items part has its own routes and tests). */
async function makeItem(tenantId: string, o: { name: string; stock: number; reserved?: number; min?: number }) {
  const row = {
    tenantId,
    id: newId(),
    name: o.name,
    sku: `RT-${newId()}`,
    unit: 'kg' as const,
    physicalMilli: o.stock * 1000,
    reservedMilli: (o.reserved ?? 0) * 1000,
    minMilli: (o.min ?? 0) * 1000,
  };
  await t.app.deps.tenantDb(tenantId).run((tx) => tx.db.insert(inventoryItems).values(row));
  return row;
}

async function label(team: Team, itemId: string, quantity: number) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/t/${team.slug}/inventory/labels`,
    headers: team.admin.headers,
    payload: { itemId, quantity, reason: 'loss' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { _id: string; token: string };
}

const scan = (team: Team, token: string) => t.app.inject({ method: 'POST', url: `/t/${team.slug}/inventory/scan/${token}` });

describe('/inventory namespace', () => {
  it('joinInventory: staff and admin their own tenant; another tenant refused unless superadmin; accountants refused', async () => {
    expect(await join(client(a.admin.token), a.tenant._id)).toEqual({ ok: true, room: `inventory-${a.tenant._id}` });
    expect(await join(client(a.staff.token), a.tenant._id)).toEqual({ ok: true, room: `inventory-${a.tenant._id}` });
    expect(await join(client(a.admin.token), b.tenant._id)).toMatchObject({ ok: false, error: 'forbidden' });
    expect(await join(client(a.accountant.token), a.tenant._id)).toMatchObject({ ok: false, error: 'forbidden' });
    const sa = await makeSuperadmin(t.app);
    expect(await join(client(sa.token), b.tenant._id)).toEqual({ ok: true, room: `inventory-${b.tenant._id}` });
  });

  it('a scan sends stockUpdate with exact quantities, and lowStockAlert once when it crosses the minimum', async () => {
    const staff = client(a.staff.token);
    const sa = await makeSuperadmin(t.app);
    const watcher = client(sa.token);
    const otherTenant = client(b.admin.token);
    expect(await join(staff, a.tenant._id)).toMatchObject({ ok: true });
    expect(await join(watcher, a.tenant._id)).toMatchObject({ ok: true });
    expect(await join(otherTenant, b.tenant._id)).toMatchObject({ ok: true });
    const updates = inbox(staff, 'stockUpdate');
    const alerts = inbox(staff, 'lowStockAlert');
    const watched = inbox(watcher, 'stockUpdate');
    const leakedUpdates = inbox(otherTenant, 'stockUpdate');
    const leakedAlerts = inbox(otherTenant, 'lowStockAlert');

    // 10 kg, 1 held for orders: 9 available; minimum 4.
    const item = await makeItem(a.tenant._id, { name: 'Farinha de trigo', stock: 10, reserved: 1, min: 4 });
    const [first, second, third] = [await label(a, item.id, 2.75), await label(a, item.id, 2.75), await label(a, item.id, 0.5)];

    expect((await scan(a, first.token)).statusCode).toBe(201);
    expect(await updates.next()).toEqual({ itemId: item.id, itemName: 'Farinha de trigo', physicalQuantity: 7.25, availableQuantity: 6.25 });
    expect(await watched.next()).toEqual({ itemId: item.id, itemName: 'Farinha de trigo', physicalQuantity: 7.25, availableQuantity: 6.25 });

    // 4.5 physical, 3.5 available: at or below the minimum of 4.
    expect((await scan(a, second.token)).statusCode).toBe(201);
    expect(await updates.next((p) => p.physicalQuantity === 4.5)).toEqual({ itemId: item.id, itemName: 'Farinha de trigo', physicalQuantity: 4.5, availableQuantity: 3.5 });
    const alert = await alerts.next();
    const [open] = await t.app.deps
      .tenantDb(a.tenant._id)
      .run((tx) => tx.db.select().from(stockAlerts).where(and(eq(stockAlerts.itemId, item.id), isNull(stockAlerts.resolvedAt))));
    expect(alert).toEqual({
      _id: open!.id,
      itemId: item.id,
      itemName: 'Farinha de trigo',
      availableQuantity: 3.5,
      minQuantity: 4,
      createdAt: open!.createdAt.toISOString(),
    });

    // Still low: a stock update, no second alert (one open alert per item).
    expect((await scan(a, third.token)).statusCode).toBe(201);
    expect(await updates.next((p) => p.physicalQuantity === 4)).toMatchObject({ availableQuantity: 3 });
    await flushed(staff);
    expect(alerts.got).toHaveLength(1);
    expect(updates.got.map((p) => p.physicalQuantity)).toEqual([7.25, 4.5, 4]);
    await flushed(otherTenant);
    expect(leakedUpdates.got).toEqual([]);
    expect(leakedAlerts.got).toEqual([]);
  });

  it('sends nothing for a refused scan or a scan rolled back with the transaction around it', async () => {
    const staff = client(a.staff.token);
    expect(await join(staff, a.tenant._id)).toMatchObject({ ok: true });
    const updates = inbox(staff, 'stockUpdate');
    const alerts = inbox(staff, 'lowStockAlert');
    const item = await makeItem(a.tenant._id, { name: 'Leite integral', stock: 2, min: 1 });
    const tooMuch = await label(a, item.id, 5);
    const rolledBack = await label(a, item.id, 1.5);

    // Refused: not enough stock (409), a used or unknown token (404).
    expect((await scan(a, tooMuch.token)).statusCode).toBe(409);
    expect((await scan(a, crypto.randomUUID())).statusCode).toBe(404);
    // Made inside a transaction that then fails: the movement and the alert were written, then undone.
    const db = t.app.deps.tenantDb(a.tenant._id);
    await expect(
      db.run(async (tx) => {
        await t.app.services.inventory.scanLabel(tx, rolledBack.token);
        throw new Error('the surrounding work failed');
      }),
    ).rejects.toThrow('the surrounding work failed');
    const [row] = await db.run((tx) => tx.db.select().from(labelTokens).where(eq(labelTokens.id, rolledBack._id)));
    expect(row!.status).toBe('pending');

    // A later event arrives: anything sent for the refused or undone scans would have come before it.
    const later = await makeItem(a.tenant._id, { name: 'Manteiga', stock: 3 });
    expect((await scan(a, (await label(a, later.id, 1)).token)).statusCode).toBe(201);
    expect(await updates.next()).toEqual({ itemId: later.id, itemName: 'Manteiga', physicalQuantity: 2, availableQuantity: 2 });
    expect(updates.got).toHaveLength(1);
    expect(alerts.got).toEqual([]);

    // The undone label scans for real afterwards, and then its events come.
    expect((await scan(a, rolledBack.token)).statusCode).toBe(201);
    expect(await updates.next((p) => p.itemId === item.id)).toEqual({ itemId: item.id, itemName: 'Leite integral', physicalQuantity: 0.5, availableQuantity: 0.5 });
    expect(await alerts.next()).toMatchObject({ itemId: item.id, availableQuantity: 0.5, minQuantity: 1 });
  });
});

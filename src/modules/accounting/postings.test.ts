import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeCategory, makeMenuItem, makePdv, makeSuperadmin, makeTenantWithTeam, type TestUser, seedDefaultChart } from '../../../test/factories.js';
import { Rng } from '../../../test/rng.js';
import { journalEntries, receivables } from '../../db/schema/accounting.js';
import { accountingJobs, postingKey } from './accounting.jobs.js';
import { POSTING_KEY_NAMES } from './books.js';
import { billShares } from './postings.service.js';

/**
 * Automatic postings (issue 14): payments approved and refunded, the cost of what was sold, goods received,
 * each posted once by the `accounting.post` job; and the account mapping routes. Over HTTP, jobs drained.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await seedDefaultChart(t.app);
});
afterAll(() => t.close());

type H = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
function ok<T = Record<string, unknown>>(res: { statusCode: number; body: string; json: () => unknown }, status = 200): T {
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as T;
}

type Line = { accountId: string; accountCode: string; accountName: string; debit: number; credit: number; memo: string | null };
type Entry = {
  _id: string;
  entryNumber: string;
  competenceDate: string;
  description: string;
  status: string;
  totalAmount: number;
  lines: Line[];
  source: { type: string; id: string } | null;
};
type Mapping = {
  key: string;
  label: string;
  defaultCode: string;
  account: { _id: string; code: string; name: string } | null;
  overridden: boolean;
  updatedAt: string | null;
};

/** Moves the clock (days at once) and signs the team's tokens again at the new time (they last 15 minutes). */
async function travel(r: { admin: TestUser; staff: TestUser; accountant: TestUser }, iso: string) {
  t.clock.set(new Date(iso));
  for (const u of [r.admin, r.staff, r.accountant]) u.headers.authorization = `Bearer ${await t.app.deps.jwt.sign(u.id)}`;
}

const drain = () => t.app.jobs.drain({ names: [accountingJobs.post], includeDelayed: true });
/** The payments module's refund job (its queue name: the module is reached through its index only). */
const drainRefunds = () => t.app.jobs.drain({ names: ['payments.refund'], includeDelayed: true });

/** A restaurant: 10% service and a cover of R$ 8,00 unless said otherwise, a dish at R$ 45,90 and a soda at R$ 6,95. */
async function restaurant(settings: object = {}) {
  const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
  if (Object.keys(settings).length) ok(await call('PUT', `/t/${team.slug}/tenants`, team.admin.headers, settings));
  const category = await makeCategory(t.app, team.tenant);
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 4590, category: category._id });
  const soda = await makeMenuItem(t.app, team.tenant, { name: 'Guaraná', price: 695, category: category._id });
  const orders = `/t/${team.slug}/orders`;
  const books = `/t/${team.slug}/accounting`;
  const order = async (body: object = { orderType: 'takeout', items: [{ menuItem: dish._id, quantity: 2 }, { menuItem: soda._id, quantity: 1 }] }) =>
    ok<{ _id: string; orderNumber: string; total: number; itemsTotal: number; discountTotal: number; serviceCharge: number; coverCharge: number }>(
      await call('POST', orders, team.admin.headers, body),
      201,
    );
  const pay = async (orderId: string, body: object) => ok<{ paymentId: string; status: string; intentId?: string }>(await call('POST', `${orders}/${orderId}/process-payment`, team.admin.headers, { gateway: 'mock', ...body }));
  const journal = async () => ok<{ data: Entry[]; total: number }>(await call('GET', `${books}/journal?limit=100`, team.admin.headers)).data;
  /** Entries with their source (the journal view does not show it: read from the table). */
  const sources = () =>
    t.app.deps.tenantDb(team.tenant._id).run((tx) =>
      tx.db
        .select({ id: journalEntries.id, sourceType: journalEntries.sourceType, sourceId: journalEntries.sourceId, date: journalEntries.competenceDate })
        .from(journalEntries)
        .where(eq(journalEntries.tenantId, team.tenant._id)),
    );
  const receivableOf = (paymentId: string) =>
    t.app.deps.tenantDb(team.tenant._id).run(async (tx) => {
      const [row] = await tx.db
        .select()
        .from(receivables)
        .where(and(eq(receivables.tenantId, team.tenant._id), eq(receivables.sourceId, paymentId)));
      return row ?? null;
    });
  const chart = ok<{ _id: string; code: string; type: string }[]>(await call('GET', `${books}/chart`, team.admin.headers));
  const account = (code: string) => chart.find((a) => a.code === code)!._id;
  const balancete = async (year: number, month: number) =>
    ok<{ accountCode: string; totalDebit: number; totalCredit: number; balance: number; nature: string }[]>(
      await call('GET', `${books}/ledger/balancete?year=${year}&month=${month}`, team.admin.headers),
    );
  return { ...team, dish, soda, order, pay, journal, sources, receivableOf, account, balancete, orders, books };
}
type Restaurant = Awaited<ReturnType<typeof restaurant>>;

/** The entry posted for a source, from the journal (through its id in the table). */
async function entryOf(r: Restaurant, sourceType: string, sourceId: string): Promise<Entry | null> {
  const src = (await r.sources()).filter((s) => s.sourceType === sourceType && s.sourceId === sourceId);
  expect(src.length).toBeLessThanOrEqual(1);
  if (!src.length) return null;
  const entry = (await r.journal()).find((e) => e._id === src[0]!.id) ?? null;
  // The journal shows where an automatic entry came from.
  expect(entry?.source).toEqual({ type: sourceType, id: sourceId });
  return entry;
}
/** An entry's lines as `code: debit/credit` in cents, for exact comparisons. */
const shape = (e: Entry) => Object.fromEntries(e.lines.map((l) => [l.accountCode, [Math.round(l.debit * 100), Math.round(l.credit * 100)]]));
const balanced = (e: Entry) => {
  const d = e.lines.reduce((s, l) => s + Math.round(l.debit * 100), 0);
  const c = e.lines.reduce((s, l) => s + Math.round(l.credit * 100), 0);
  expect(d).toBe(c);
  expect(Math.round(e.totalAmount * 100)).toBe(d);
};

describe('billShares', () => {
  it('splits a payment over the bill to the cent: discount and service rounded half up, the items take the rest', () => {
    const bill = { itemsTotal: 9875, discountTotal: 875, serviceCharge: 900, coverCharge: 1600 };
    expect(billShares(5000, bill)).toEqual({ items: 4293, discounts: 380, service: 1087 });
    expect(billShares(6500, bill)).toEqual({ items: 5582, discounts: 495, service: 1413 });
    expect(billShares(11500, bill)).toEqual({ items: 9875, discounts: 875, service: 2500 });
    // No service: never a cent of service revenue from rounding.
    expect(billShares(1, { itemsTotal: 3, discountTotal: 1, serviceCharge: 0, coverCharge: 0 })).toEqual({ items: 2, discounts: 1, service: 0 });
    expect(billShares(700, { itemsTotal: 0, discountTotal: 0, serviceCharge: 0, coverCharge: 0 })).toEqual({ items: 700, discounts: 0, service: 0 });
    const rng = new Rng(14);
    for (let i = 0; i < 2000; i++) {
      const itemsTotal = rng.int(1, 1_000_000);
      const b = { itemsTotal, discountTotal: rng.int(0, itemsTotal - 1), serviceCharge: rng.int(0, 100_000), coverCharge: rng.int(0, 10_000) };
      const total = b.itemsTotal - b.discountTotal + b.serviceCharge + b.coverCharge;
      const amount = rng.int(1, total);
      const s = billShares(amount, b);
      expect(s.items - s.discounts + s.service).toBe(amount);
      expect(Math.min(s.items, s.discounts, s.service)).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('payments', () => {
  it('a cash payment posts once: enqueued twice, run twice, run at once, one posted balanced entry with its source', async () => {
    t.clock.set(new Date('2026-05-12T15:00:00Z'));
    const r = await restaurant();
    const o = await r.order();
    expect(o.total).toBe(9875);
    const { paymentId } = await r.pay(o._id, { method: 'cash', amount: 10000 });
    // The listener sent the job in the payment's transaction; a second send of the same source is dropped.
    const job = { tenantId: r.tenant._id, sourceType: 'payment' as const, sourceId: paymentId };
    expect(await t.app.jobs.send(accountingJobs.post, job, { singletonKey: postingKey('payment', paymentId) })).toBeNull();
    // One without the key runs too, and posts nothing more.
    expect(await t.app.jobs.send(accountingJobs.post, job)).not.toBeNull();
    expect(await drain()).toMatchObject({ completed: 2, failed: 0 });
    expect(await t.app.services.accounting.postSource(job)).toBe('already posted');
    await Promise.all([1, 2, 3].map(() => t.app.services.accounting.postSource(job)));

    const entries = await r.journal();
    expect(entries).toHaveLength(1);
    const e = entries[0]!;
    expect(e).toMatchObject({ status: 'posted', competenceDate: '2026-05-12', totalAmount: 98.75 });
    expect(e.description).toContain(o.orderNumber);
    balanced(e);
    // Cash handed over above the bill went back as change: only the amount is in the drawer.
    expect(shape(e)).toEqual({ '1.1.01': [9875, 0], '4.1': [0, 9875] });
    expect(await r.sources()).toMatchObject([{ id: e._id, sourceType: 'payment', sourceId: paymentId }]);
  });

  it('splits discounts, service, cover and tip to the cent over two payments; a debit card makes a receivable due D+1', async () => {
    t.clock.set(new Date('2026-05-13T02:30:00Z')); // still the 12th in São Paulo
    const r = await restaurant({ serviceChargePercent: 10, coverCharge: 800 });
    const o = await r.order({ orderType: 'dine_in', covers: 2, items: [{ menuItem: r.dish._id, quantity: 2 }, { menuItem: r.soda._id, quantity: 1 }] });
    const disc = ok<typeof o>(await call('PUT', `${r.orders}/${o._id}/discount`, r.admin.headers, { kind: 'amount', value: 875, reason: 'aniversário' }));
    expect(disc).toMatchObject({ itemsTotal: 9875, discountTotal: 875, serviceCharge: 900, coverCharge: 1600, total: 11500 });
    const cash = await r.pay(o._id, { method: 'cash', amount: 5000 });
    const card = await r.pay(o._id, { method: 'debit_card', tip: 500 });
    await drain();

    const first = (await entryOf(r, 'payment', cash.paymentId))!;
    expect(shape(first)).toEqual({ '1.1.01': [5000, 0], '4.3': [380, 0], '4.1': [0, 4293], '4.2': [0, 1087] });
    const second = (await entryOf(r, 'payment', card.paymentId))!;
    expect(shape(second)).toEqual({ '1.1.04': [7000, 0], '4.3': [495, 0], '4.1': [0, 5582], '4.2': [0, 1413], '2.1.04': [0, 500] });
    for (const e of [first, second]) {
      balanced(e);
      expect(e.competenceDate).toBe('2026-05-12');
    }
    // Together the bill: items gross, discount and service exactly as billed.
    expect(4293 + 5582).toBe(9875);
    expect(380 + 495).toBe(875);
    expect(1087 + 1413).toBe(2500);
    expect(await r.receivableOf(card.paymentId)).toMatchObject({
      source: 'card_sale',
      accountId: r.account('1.1.04'),
      method: 'debit_card',
      amountCents: 7000,
      issueDate: '2026-05-12',
      dueDate: '2026-05-13',
      status: 'open',
      entryId: second._id,
    });
    expect(await r.receivableOf(cash.paymentId)).toBeNull();
  });

  it('maps each method to its account: credit card D+30 and voucher D+30 receivables, PIX to the bank, a terminal payment once approved', async () => {
    t.clock.set(new Date('2026-05-20T15:00:00Z'));
    const r = await restaurant();
    const pdv = await makePdv(t.app, r.tenant, { terminal: `T-${r.slug.slice(2, 6).toUpperCase()}` });
    const pays: Record<string, string> = {};
    for (const method of ['credit_card', 'voucher', 'pix']) {
      const o = await r.order({ orderType: 'takeout', items: [{ menuItem: r.soda._id, quantity: 2 }] });
      pays[method] = (await r.pay(o._id, { method })).paymentId;
    }
    const o = await r.order({ orderType: 'takeout', pdv: pdv.pdvId, items: [{ menuItem: r.soda._id, quantity: 1 }] });
    const terminal = await r.pay(o._id, { method: 'credit_card', gateway: 'gateway_a' });
    expect(terminal.status).toBe('processing');
    await drain();
    expect(await entryOf(r, 'payment', terminal.paymentId)).toBeNull();
    await t.app.integrations.gatewayA.simulator!.approve(terminal.intentId!);
    await drain();

    expect(shape((await entryOf(r, 'payment', pays.credit_card!))!)).toEqual({ '1.1.04': [1390, 0], '4.1': [0, 1390] });
    expect(shape((await entryOf(r, 'payment', pays.voucher!))!)).toEqual({ '1.1.04': [1390, 0], '4.1': [0, 1390] });
    expect(shape((await entryOf(r, 'payment', pays.pix!))!)).toEqual({ '1.1.02': [1390, 0], '4.1': [0, 1390] });
    expect(shape((await entryOf(r, 'payment', terminal.paymentId))!)).toEqual({ '1.1.04': [695, 0], '4.1': [0, 695] });
    expect(await r.receivableOf(pays.credit_card!)).toMatchObject({ issueDate: '2026-05-20', dueDate: '2026-06-19', amountCents: 1390, status: 'open' });
    expect(await r.receivableOf(pays.voucher!)).toMatchObject({ dueDate: '2026-06-19' });
    expect(await r.receivableOf(terminal.paymentId)).toMatchObject({ dueDate: '2026-06-19', amountCents: 695 });
    expect(await r.receivableOf(pays.pix!)).toBeNull();
  });

  it('a refund posts the counter-entry on its day and closes the open card receivable; the sale is posted first when its job has not run', async () => {
    t.clock.set(new Date('2026-05-21T15:00:00Z'));
    const r = await restaurant();
    const o = await r.order();
    const cash = await r.pay(o._id, { method: 'cash', amount: 3000 });
    const card = await r.pay(o._id, { method: 'credit_card', tip: 300 });
    await drain();
    await travel(r, '2026-05-23T15:00:00Z');
    ok(await call('PUT', `${r.orders}/${o._id}/status`, r.admin.headers, { status: 'cancelled' }));
    await drain();

    for (const p of [cash, card]) {
      const sale = (await entryOf(r, 'payment', p.paymentId))!;
      const refund = (await entryOf(r, 'payment_refund', p.paymentId))!;
      expect(refund).toMatchObject({ status: 'posted', competenceDate: '2026-05-23' });
      expect(refund.description).toContain(sale.entryNumber);
      balanced(refund);
      expect(shape(refund)).toEqual(Object.fromEntries(Object.entries(shape(sale)).map(([code, [d, c]]) => [code, [c, d]])));
    }
    expect(shape((await entryOf(r, 'payment_refund', card.paymentId))!)).toEqual({ '1.1.04': [0, 7175], '4.1': [6875, 0], '2.1.04': [300, 0] });
    expect(await r.receivableOf(card.paymentId)).toMatchObject({ status: 'written_off', writtenOffCents: 7175, writeOffReason: 'payment refunded', amountCents: 7175 });
    // The month nets to zero on every account.
    for (const row of await r.balancete(2026, 5)) expect(row.balance, row.accountCode).toBe(0);

    // Job order: the refund's job first posts the sale, then the refund; the sale's job then finds it.
    const o2 = await r.order({ orderType: 'takeout', items: [{ menuItem: r.soda._id, quantity: 1 }] });
    const late = await r.pay(o2._id, { method: 'debit_card' });
    ok(await call('PUT', `${r.orders}/${o2._id}/status`, r.admin.headers, { status: 'cancelled' }));
    expect(await t.app.services.accounting.postSource({ tenantId: r.tenant._id, sourceType: 'payment_refund', sourceId: late.paymentId })).toBe('posted');
    expect(await entryOf(r, 'payment', late.paymentId)).not.toBeNull();
    await drain();
    expect((await r.sources()).filter((s) => s.sourceId === late.paymentId).map((s) => s.sourceType).sort()).toEqual(['payment', 'payment_refund']);
    expect(await r.receivableOf(late.paymentId)).toMatchObject({ status: 'written_off', writtenOffCents: 695 });
  });

  it('a gateway refund posts when the gateway confirms it (the refund job), not when it is decided', async () => {
    t.clock.set(new Date('2026-05-22T15:00:00Z'));
    const r = await restaurant();
    const pdv = await makePdv(t.app, r.tenant, { terminal: `T-${r.slug.slice(2, 6).toUpperCase()}` });
    const o = await r.order({ orderType: 'takeout', pdv: pdv.pdvId, items: [{ menuItem: r.dish._id, quantity: 1 }] });
    const p = await r.pay(o._id, { method: 'debit_card', gateway: 'gateway_a' });
    await t.app.integrations.gatewayA.simulator!.approve(p.intentId!);
    ok(await call('PUT', `${r.orders}/${o._id}/status`, r.admin.headers, { status: 'cancelled' }));
    await drain();
    expect(await entryOf(r, 'payment', p.paymentId)).not.toBeNull();
    expect(await entryOf(r, 'payment_refund', p.paymentId)).toBeNull();
    expect(await drainRefunds()).toMatchObject({ completed: 1 });
    await drain();
    expect(shape((await entryOf(r, 'payment_refund', p.paymentId))!)).toEqual({ '1.1.04': [0, 4590], '4.1': [4590, 0] });
  });

  it('a payment in a closed month is posted on the first day of the next open month, the original day in the memo', async () => {
    const r = await restaurant();
    ok(await call('POST', `${r.books}/ledger/close`, r.admin.headers, { year: 2026, month: 6 }));
    ok(await call('POST', `${r.books}/ledger/close`, r.admin.headers, { year: 2026, month: 7 }));
    await travel(r, '2026-06-15T15:00:00Z');
    const o = await r.order();
    const { paymentId } = await r.pay(o._id, { method: 'cash' });
    await drain();
    const e = (await entryOf(r, 'payment', paymentId))!;
    expect(e).toMatchObject({ status: 'posted', competenceDate: '2026-08-01' });
    expect(e.lines.every((l) => l.memo?.includes('competência original 2026-06-15'))).toBe(true);
    // The closed months' snapshots stay as they were: nothing landed in them.
    expect(await r.balancete(2026, 6)).toEqual([]);
  });
});

describe('cost of goods sold', () => {
  it('posts the recipe cost of a sale (rounded once per event), returns it on cancel, and nothing for a sale without cost', async () => {
    t.clock.set(new Date('2026-05-25T15:00:00Z'));
    const r = await restaurant();
    const item = async (name: string, unit: string, cost: number) =>
      ok<{ _id: string }>(await call('POST', `/t/${r.slug}/inventory`, r.admin.headers, { name, sku: `SKU-${randomInt(1e12)}`, unit, currentStock: 50, minStock: 0, cost }), 201)._id;
    const beef = await item('Peixe', 'kg', 7990);
    const salt = await item('Sal', 'kg', 300);
    const recipe = async (menuItemId: string, inventoryItemId: string, quantityPerUnit: number, unit: string) =>
      ok(await call('POST', `/t/${r.slug}/inventory/ingredients`, r.admin.headers, { menuItemId, inventoryItemId, quantityPerUnit, unit }), 201);
    await recipe(r.dish._id, beef, 180, 'g');
    await recipe(r.dish._id, salt, 0.4, 'g');
    const o = await r.order({ orderType: 'takeout', items: [{ menuItem: r.dish._id, quantity: 2 }] });
    await r.pay(o._id, { method: 'cash' });
    await drain();
    const costs = (await r.sources()).filter((s) => s.sourceType === 'sale_cost');
    expect(costs).toHaveLength(1);
    const e = (await r.journal()).find((x) => x._id === costs[0]!.id)!;
    // 0.36 kg x 79,90 = 28,764 + 0.0008 kg x 3,00 = 0,0024: 2876.64 cents -> 2877 (once for the event).
    expect(shape(e)).toEqual({ '5.1': [2877, 0], '1.1.06': [0, 2877] });
    expect(e.description).toContain(o.orderNumber);

    ok(await call('PUT', `${r.orders}/${o._id}/status`, r.admin.headers, { status: 'cancelled' }));
    await drain();
    const back = (await r.sources()).filter((s) => s.sourceType === 'sale_cost_return');
    expect(back).toHaveLength(1);
    expect(shape((await r.journal()).find((x) => x._id === back[0]!.id)!)).toEqual({ '1.1.06': [2877, 0], '5.1': [0, 2877] });

    // A sale of what has no recipe moves no stock; a recipe of an item without cost posts nothing.
    const free = await item('Gelo', 'kg', 0);
    await recipe(r.soda._id, free, 50, 'g');
    const soda = await r.order({ orderType: 'takeout', items: [{ menuItem: r.soda._id, quantity: 1 }] });
    await r.pay(soda._id, { method: 'cash' });
    await drain();
    expect((await r.sources()).filter((s) => s.sourceType === 'sale_cost')).toHaveLength(1);
  });
});

describe('goods received', () => {
  it('each purchase order receipt posts inventory against suppliers at quantity x unit price', async () => {
    t.clock.set(new Date('2026-05-26T15:00:00Z'));
    const r = await restaurant();
    const inv = `/t/${r.slug}/inventory`;
    const item = async (unit: string) =>
      ok<{ _id: string }>(await call('POST', inv, r.admin.headers, { name: `Item ${randomInt(1e9)}`, sku: `SKU-${randomInt(1e12)}`, unit, currentStock: 0, minStock: 0, cost: 1 }), 201)._id;
    const [a, b] = [await item('kg'), await item('un')];
    const supplier = ok<{ _id: string; name: string }>(await call('POST', `${inv}/suppliers`, r.admin.headers, { name: 'Peixaria Boa' }), 201);
    const po = ok<{ _id: string; orderNumber: string }>(
      await call('POST', `${inv}/purchase-orders`, r.admin.headers, {
        supplierId: supplier._id,
        items: [
          { inventoryItemId: a, quantity: 10, unitCost: 3333 },
          { inventoryItemId: b, quantity: 24, unitCost: 250 },
        ],
      }),
      201,
    );
    ok(await call('PUT', `${inv}/purchase-orders/${po._id}`, r.admin.headers, { status: 'sent' }));
    const receive = async (items: object[]) => ok(await call('POST', `${inv}/purchase-orders/${po._id}/receive`, r.admin.headers, { items }));
    await receive([{ inventoryItemId: a, receivedQuantity: 2.5 }]);
    await travel(r, '2026-05-27T15:00:00Z');
    await receive([
      { inventoryItemId: a, receivedQuantity: 7.5 },
      { inventoryItemId: b, receivedQuantity: 24 },
    ]);
    await drain();
    const receipts = (await r.sources()).filter((s) => s.sourceType === 'purchase_receipt').sort((x, y) => (x.date < y.date ? -1 : 1));
    expect(receipts.map((s) => s.date)).toEqual(['2026-05-26', '2026-05-27']);
    const entries = await r.journal();
    const [first, second] = receipts.map((s) => entries.find((e) => e._id === s.id)!);
    // 2.5 x 33,33 = 83,325 -> 83,33; then 7.5 x 33,33 = 249,975 -> 249,98 and 24 x 2,50 = 60,00.
    expect(shape(first!)).toEqual({ '1.1.06': [8333, 0], '2.1.01': [0, 8333] });
    expect(shape(second!)).toEqual({ '1.1.06': [30998, 0], '2.1.01': [0, 30998] });
    expect(first!.description).toContain(po.orderNumber);
    expect(first!.description).toContain('Peixaria Boa');
  });
});

describe('goods received by invoice', () => {
  it('an imported NF-e posts inventory against suppliers once, at its lines’ quantity x unit price', async () => {
    t.clock.set(new Date('2026-05-29T15:00:00Z'));
    const r = await restaurant();
    const xml = readFileSync(join(import.meta.dirname, '../../../../shared/data/nfe/nfe_layout4_com_prot.xml'), 'utf8');
    ok(await call('PUT', `/t/${r.slug}/tenants`, r.admin.headers, { cnpj: '58716523000119' }));
    const boundary = 'postings-nfe-boundary';
    const payload = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="nfe.xml"\r\ncontent-type: text/xml\r\n\r\n${xml}\r\n--${boundary}--\r\n`;
    const res = await t.app.inject({
      method: 'POST',
      url: `/t/${r.slug}/inventory/import-nfs`,
      headers: { ...r.admin.headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(res.statusCode, res.body).toBe(201);
    await drain();
    const posted = (await r.sources()).filter((x) => x.sourceType === 'purchase_invoice');
    expect(posted).toHaveLength(1);
    const e = (await r.journal()).find((x) => x._id === posted[0]!.id)!;
    // One line: 10 units at R$ 50,00.
    expect(shape(e)).toEqual({ '1.1.06': [50000, 0], '2.1.01': [0, 50000] });
    expect(e.description).toContain('NF-e 26');
    expect(e.competenceDate).toBe('2026-05-29');
  });
});

describe('operating expenses', () => {
  it('posts an expense against payables on its date, reverses and reposts a change, reverses a deletion; a closed month refuses it (409)', async () => {
    t.clock.set(new Date('2026-06-10T15:00:00Z'));
    const r = await restaurant();
    const dre = `/t/${r.slug}/dre`;
    const rent = ok<{ _id: string; code: string }[]>(await call('GET', `${dre}/categories`, r.admin.headers)).find((c) => c.code === 'OPEX-ALUGUEL')!;
    const own = ok<{ _id: string }>(await call('POST', `${dre}/categories`, r.admin.headers, { code: 'LIMPEZA', name: 'Limpeza', dreGroup: 'opex' }), 201);
    const body = { description: 'Aluguel de junho', amount: 6500, competenceDate: '2026-06-05', categoryId: rent._id };
    const e = ok<{ _id: string }>(await call('POST', `${dre}/expenses`, r.admin.headers, body), 201);
    await drain();
    const first = (await entryOf(r, 'operating_expense', `${e._id}:1`))!;
    expect(first).toMatchObject({ competenceDate: '2026-06-05', status: 'posted', description: 'Despesa: Aluguel de junho' });
    expect(shape(first)).toEqual({ '6.1': [650000, 0], '2.1.06': [0, 650000] });

    // A change: the first posting reversed, the new version posted (a tenant category: other operating expenses).
    ok(await call('PUT', `${dre}/expenses/${e._id}`, r.admin.headers, { amount: 6400.5, categoryId: own._id }));
    await drain();
    const second = (await entryOf(r, 'operating_expense', `${e._id}:2`))!;
    expect(shape(second)).toEqual({ '6.13': [640050, 0], '2.1.06': [0, 640050] });
    expect(shape((await entryOf(r, 'operating_expense_reversal', first._id))!)).toEqual({ '6.1': [0, 650000], '2.1.06': [650000, 0] });
    // The job again, twice at once: the books already say the same.
    const job = { tenantId: r.tenant._id, sourceType: 'operating_expense' as const, sourceId: e._id };
    expect(await Promise.all([1, 2].map(() => t.app.services.accounting.postSource(job)))).toEqual(['up to date', 'up to date']);
    expect((await r.sources()).filter((x) => x.sourceType?.startsWith('operating_expense'))).toHaveLength(3);

    // Deleted: the last version reversed; June's expense accounts end at zero.
    ok(await call('DELETE', `${dre}/expenses/${e._id}`, r.admin.headers));
    await drain();
    expect(await entryOf(r, 'operating_expense_reversal', second._id)).not.toBeNull();
    const june = await r.balancete(2026, 6);
    for (const code of ['6.1', '6.13', '2.1.06']) expect(june.find((row) => row.accountCode === code)?.balance).toBe(0);

    // A closed month takes no expense, and none moves into or out of it.
    ok(await call('POST', `${r.books}/ledger/close`, r.admin.headers, { year: 2026, month: 5 }));
    const refused = await call('POST', `${dre}/expenses`, r.admin.headers, { ...body, competenceDate: '2026-05-20' });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().code).toBe('period_closed');
    const june2 = ok<{ _id: string }>(await call('POST', `${dre}/expenses`, r.admin.headers, body), 201);
    const moved = await call('PUT', `${dre}/expenses/${june2._id}`, r.admin.headers, { competenceDate: '2026-05-31' });
    expect(moved.statusCode, moved.body).toBe(409);
    const list = ok<{ items: { _id: string; competenceDate: string }[] }>(await call('GET', `${dre}/expenses`, r.admin.headers));
    expect(list.items.map((x) => [x._id, x.competenceDate])).toEqual([[june2._id, '2026-06-05']]);
  });
});

describe('account mappings', () => {
  it('lists every key with its default, overrides one for the next postings, and goes back to the default', async () => {
    t.clock.set(new Date('2026-05-28T15:00:00Z'));
    const r = await restaurant();
    const url = `${r.books}/mappings`;
    const all = ok<Mapping[]>(await call('GET', url, r.admin.headers));
    expect(all.map((m) => m.key)).toEqual(POSTING_KEY_NAMES);
    expect(all.find((m) => m.key === 'cash')).toMatchObject({ defaultCode: '1.1.01', account: { _id: r.account('1.1.01'), code: '1.1.01' }, overridden: false, updatedAt: null });
    expect(all.every((m) => m.account !== null && !m.overridden)).toBe(true);

    const drawer = ok<{ _id: string }>(
      await call('POST', `${r.books}/chart`, r.admin.headers, { code: '1.1.90', name: 'Caixa do salão', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: r.account('1.1') }),
      201,
    );
    const set = ok<Mapping>(await call('PUT', `${url}/cash`, r.admin.headers, { accountId: drawer._id }));
    expect(set).toMatchObject({ key: 'cash', defaultCode: '1.1.01', account: { _id: drawer._id, code: '1.1.90', name: 'Caixa do salão' }, overridden: true });
    // The system chart's analytic accounts may be mapped too; a second PUT replaces the first.
    ok(await call('PUT', `${url}/tips_payable`, r.admin.headers, { accountId: r.account('2.1.02') }));
    ok(await call('PUT', `${url}/tips_payable`, r.admin.headers, { accountId: r.account('2.1.05') }));
    expect(ok<Mapping[]>(await call('GET', url, r.admin.headers)).find((m) => m.key === 'tips_payable')).toMatchObject({ account: { code: '2.1.05' }, overridden: true });

    const o = await r.order();
    const { paymentId } = await r.pay(o._id, { method: 'cash', tip: 100 });
    await drain();
    expect(shape((await entryOf(r, 'payment', paymentId))!)).toEqual({ '1.1.90': [9975, 0], '4.1': [0, 9875], '2.1.05': [0, 100] });

    const back = ok<Mapping>(await call('DELETE', `${url}/cash`, r.admin.headers));
    expect(back).toMatchObject({ key: 'cash', account: { code: '1.1.01' }, overridden: false, updatedAt: null });
    // Deleting a key without an override answers it as it is.
    expect(ok<Mapping>(await call('DELETE', `${url}/bank`, r.admin.headers))).toMatchObject({ key: 'bank', overridden: false });
    const o2 = await r.order();
    const second = await r.pay(o2._id, { method: 'cash' });
    await drain();
    expect(shape((await entryOf(r, 'payment', second.paymentId))!)).toMatchObject({ '1.1.01': [9875, 0] });
    // An override whose account was deactivated since is not used (the default is).
    const spare = ok<{ _id: string }>(
      await call('POST', `${r.books}/chart`, r.admin.headers, { code: '1.1.91', name: 'Cofre', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: r.account('1.1') }),
      201,
    );
    ok(await call('PUT', `${url}/cash`, r.admin.headers, { accountId: spare._id }));
    ok(await call('DELETE', `${r.books}/chart/${spare._id}`, r.admin.headers));
    expect(ok<Mapping[]>(await call('GET', url, r.admin.headers)).find((m) => m.key === 'cash')).toMatchObject({ account: { code: '1.1.01' }, overridden: false });
  });

  it('refuses what is not an active analytic account (400), an unknown key (404), no token (401), staff and the accountant (403)', async () => {
    const r = await restaurant();
    const other = await restaurant();
    const url = `${r.books}/mappings`;
    const theirs = ok<{ _id: string }>(
      await call('POST', `${other.books}/chart`, other.admin.headers, { code: '1.1.92', name: 'Caixa deles', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: other.account('1.1') }),
      201,
    );
    const inactive = ok<{ _id: string }>(
      await call('POST', `${r.books}/chart`, r.admin.headers, { code: '1.1.93', name: 'Velho', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: r.account('1.1') }),
      201,
    );
    ok(await call('DELETE', `${r.books}/chart/${inactive._id}`, r.admin.headers));
    const bad: [object, string][] = [
      [{ accountId: r.account('1.1') }, 'body.accountId'],
      [{ accountId: theirs._id }, 'body.accountId'],
      [{ accountId: inactive._id }, 'body.accountId'],
      [{ accountId: 'ffffffffffffffffffffffff' }, 'body.accountId'],
      [{ accountId: 'nope' }, 'body.accountId'],
      [{}, 'body.accountId'],
      [{ accountId: r.account('1.1.01'), extra: 1 }, 'body.extra'],
    ];
    for (const [body, field] of bad) {
      const res = await call('PUT', `${url}/cash`, r.admin.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.json().details ?? res.json()), JSON.stringify(body)).toContain(field.replace('body.', ''));
    }
    expect(ok<Mapping[]>(await call('GET', url, r.admin.headers)).every((m) => !m.overridden)).toBe(true);
    expect((await call('PUT', `${url}/nothing`, r.admin.headers, { accountId: r.account('1.1.01') })).statusCode).toBe(404);
    expect((await call('DELETE', `${url}/nothing`, r.admin.headers)).statusCode).toBe(404);
    for (const [method, path, body] of [
      ['GET', url, undefined],
      ['PUT', `${url}/cash`, { accountId: r.account('1.1.01') }],
      ['DELETE', `${url}/cash`, undefined],
    ] as const) {
      expect((await call(method, path, {}, body)).statusCode).toBe(401);
      for (const who of [r.staff, r.accountant]) expect((await call(method, path, who.headers, body)).statusCode).toBe(403);
      // Another tenant's admin reaches only their own tenant.
      expect((await call(method, path, other.admin.headers, body)).statusCode).toBe(403);
    }
    // A manager of the books elsewhere (superadmin) passes.
    ok(await call('GET', url, (await makeSuperadmin(t.app)).headers));
    // Each tenant's mapping is its own.
    ok(await call('PUT', `${url}/cash`, r.admin.headers, { accountId: r.account('1.1.02') }));
    expect(ok<Mapping[]>(await call('GET', `${other.books}/mappings`, other.admin.headers)).find((m) => m.key === 'cash')).toMatchObject({ overridden: false });
  });
});

describe('property: random payments and refunds', () => {
  it('the balancete sums to zero and cash + receivables + bank match what the payments ledger kept', async () => {
    t.clock.set(new Date('2026-09-10T15:00:00Z'));
    const r = await restaurant({ serviceChargePercent: 10, coverCharge: 500 });
    const rng = new Rng(Number(process.env.POSTINGS_PROPERTY_SEED ?? 1414));
    const methods = ['cash', 'credit_card', 'debit_card', 'pix', 'voucher'] as const;
    const orderIds: string[] = [];
    for (let i = 0; i < 12; i++) {
      const dineIn = rng.chance(0.5);
      const o = await r.order({
        orderType: dineIn ? 'dine_in' : 'takeout',
        ...(dineIn ? { covers: rng.int(0, 3) } : {}),
        items: [
          { menuItem: r.dish._id, quantity: rng.int(1, 3) },
          { menuItem: r.soda._id, quantity: rng.int(0, 2) || 1 },
        ],
      });
      const fresh = rng.chance(0.5)
        ? ok<{ total: number }>(await call('PUT', `${r.orders}/${o._id}/discount`, r.admin.headers, { kind: 'amount', value: rng.int(1, 900), reason: 'promo' }))
        : o;
      let due = fresh.total;
      const parts = rng.int(1, 3);
      for (let p = 0; p < parts && due > 0; p++) {
        const amount = p === parts - 1 ? due : rng.int(1, due);
        await r.pay(o._id, { method: rng.pick(methods), amount, tip: rng.chance(0.3) ? rng.int(1, 1000) : 0 });
        due -= amount;
      }
      if (rng.chance(0.3)) ok(await call('PUT', `${r.orders}/${o._id}/status`, r.admin.headers, { status: 'cancelled' }));
      if (rng.chance(0.3)) await drain();
      orderIds.push(o._id);
    }
    await drain();

    const ledger = (
      await Promise.all(
        orderIds.map(async (id) => ok<{ method: string; amount: number; tip: number; status: string }[]>(await call('GET', `${r.orders}/${id}/payments`, r.admin.headers))),
      )
    ).flat();
    const kept = (codes: string[]) =>
      ledger.filter((p) => p.status === 'approved' && codes.includes(({ cash: '1.1.01', pix: '1.1.02' } as Record<string, string>)[p.method] ?? '1.1.04')).reduce((s, p) => s + p.amount + p.tip, 0);
    const rows = await r.balancete(2026, 9);
    const cents = (n: number) => Math.round(n * 100);
    expect(rows.reduce((s, x) => s + cents(x.totalDebit), 0)).toBe(rows.reduce((s, x) => s + cents(x.totalCredit), 0));
    const debitNatured = rows.filter((x) => ['ativo', 'custo', 'despesa'].includes(x.nature)).reduce((s, x) => s + cents(x.balance), 0);
    const creditNatured = rows.filter((x) => !['ativo', 'custo', 'despesa'].includes(x.nature)).reduce((s, x) => s + cents(x.balance), 0);
    expect(debitNatured).toBe(creditNatured);
    const balance = (code: string) => cents(rows.find((x) => x.accountCode === code)?.balance ?? 0);
    expect(balance('1.1.01')).toBe(kept(['1.1.01']));
    expect(balance('1.1.02')).toBe(kept(['1.1.02']));
    expect(balance('1.1.04')).toBe(kept(['1.1.04']));
    // Every approved payment posted once, every refunded one twice (sale and refund).
    const src = await r.sources();
    expect(src.filter((s) => s.sourceType === 'payment')).toHaveLength(ledger.filter((p) => p.status === 'approved' || p.status === 'refunded').length);
    expect(src.filter((s) => s.sourceType === 'payment_refund')).toHaveLength(ledger.filter((p) => p.status === 'refunded').length);
    // The open card receivables are what the card sales kept.
    const open = await t.app.deps.tenantDb(r.tenant._id).run((tx) => tx.db.select().from(receivables).where(and(eq(receivables.tenantId, r.tenant._id), eq(receivables.status, 'open'))));
    expect(open.reduce((s, x) => s + x.amountCents, 0)).toBe(kept(['1.1.04']));
  });
});

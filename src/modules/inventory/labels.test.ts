import { inflateSync } from 'node:zlib';
import { and, eq } from 'drizzle-orm';
import jsqr from 'jsqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestartableApp, createTestApp, type TestApp } from '../../../test/app.js';
import { makePdv, makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';
import type { App } from '../../app.js';
import { newId } from '../../db/ids.js';
import {
  branchStock,
  inventoryItems,
  inventoryMovements,
  LABEL_REASONS,
  LABEL_STATUSES,
  labelTokens,
  MOVEMENT_REASONS,
  MOVEMENT_TYPES,
} from '../../db/schema/inventory.js';
import { LABEL_PAGE } from './labels.pdf.js';

/**
 * Labels and their scan over HTTP (spec 4.8 `POST /inventory/labels`, `POST /inventory/scan/:token`, and
 * the printable label): every route's success, 400, 401, 403 and 404, the single use of a token under 50
 * concurrent scans, a used token after a restart, and the PDF read back (its text and its QR code).
 */
let t: TestApp;
let a: Team;
let b: Team;
beforeAll(async () => {
  t = await createTestApp();
  // 02:30 UTC on 10 March is still the 9th in São Paulo: the label's date is the tenant's.
  t.clock.set(new Date('2026-03-10T02:30:00Z'));
  [a, b] = await Promise.all([makeTenantWithTeam(t.app), makeTenantWithTeam(t.app)]);
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// ---- fixtures: inventory rows written directly (the items part has its own routes and tests)

let skuN = 0;
async function makeItem(
  app: App,
  tenantId: string,
  o: Partial<{ name: string; sku: string; unit: 'kg' | 'l' | 'un'; stock: number; min: number; expirationDate: string | null }> = {},
) {
  const row = {
    tenantId,
    id: newId(),
    name: o.name ?? `Farinha ${++skuN}`,
    sku: o.sku ?? `SKU-${Date.now()}-${++skuN}`,
    unit: o.unit ?? 'kg',
    physicalMilli: Math.round((o.stock ?? 10) * 1000),
    minMilli: Math.round((o.min ?? 0) * 1000),
    costCents: 500,
    expirationDate: o.expirationDate ?? null,
  };
  await app.deps.tenantDb(tenantId).run((tx) => tx.db.insert(inventoryItems).values(row));
  return row;
}

async function stockAtPdv(app: App, tenantId: string, itemId: string, pdvId: string, quantity: number) {
  await app.deps.tenantDb(tenantId).run((tx) => tx.db.insert(branchStock).values({ tenantId, id: newId(), itemId, pdvId, physicalMilli: quantity * 1000 }));
}

const physical = (app: App, tenantId: string, itemId: string) =>
  app.deps.tenantDb(tenantId).run(async (tx) => {
    const [row] = await tx.db.select().from(inventoryItems).where(and(eq(inventoryItems.tenantId, tenantId), eq(inventoryItems.id, itemId)));
    return row!.physicalMilli / 1000;
  });

const labelRow = (app: App, tenantId: string, id: string) =>
  app.deps.tenantDb(tenantId).run(async (tx) => (await tx.db.select().from(labelTokens).where(eq(labelTokens.id, id)))[0]!);

const movementsOf = (app: App, tenantId: string, labelId: string) =>
  app.deps.tenantDb(tenantId).run((tx) => tx.db.select().from(inventoryMovements).where(eq(inventoryMovements.labelId, labelId)));

async function createLabel(app: App, team: Team, payload: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: `/t/${team.slug}/inventory/labels`, headers: team.admin.headers, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { _id: string; token: string; labelUrl: string; scanUrl: string; status: string };
}

const scan = (app: App, slug: string, token: string) => app.inject({ method: 'POST', url: `/t/${slug}/inventory/scan/${token}` });

// ---- a minimal PDF reader: the page's content stream, its text and its QR code

/** The decoded content streams of a PDF (pdfkit writes each with a direct /Length). */
function pdfStreams(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  const out: string[] = [];
  const re = /<<((?:(?!<<|>>)[\s\S])*)>>\s*stream\r?\n/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const length = Number(/\/Length (\d+)/.exec(m[1]!)?.[1]);
    const raw = pdf.subarray(m.index + m[0].length, m.index + m[0].length + length);
    out.push((/\/FlateDecode/.test(m[1]!) ? inflateSync(raw) : raw).toString('latin1'));
  }
  return out;
}

/** Each text-showing operation's string (pdfkit writes WinAnsi codes in hex; Portuguese letters are their Latin-1 codes). */
function pdfTextLines(pdf: Buffer): string[] {
  const lines: string[] = [];
  for (const stream of pdfStreams(pdf)) {
    for (const tj of stream.matchAll(/\[([^\]]*)\] TJ/g)) {
      lines.push([...tj[1]!.matchAll(/<([0-9a-f]*)>/gi)].map((h) => Buffer.from(h[1]!, 'hex').toString('latin1')).join(''));
    }
  }
  return lines;
}

/** Paints the page's filled rectangles (the QR code's modules) at 4 px a point and decodes the QR code found. */
function pdfQr(pdf: Buffer): string | undefined {
  const scale = 4;
  const [w, h] = [LABEL_PAGE.width * scale, LABEL_PAGE.height * scale];
  const pixels = new Uint8ClampedArray(w * h * 4).fill(255);
  const content = pdfStreams(pdf).find((s) => / re\n/.test(s))!;
  for (const m of content.matchAll(/^([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re$/gm)) {
    const [x, y, rw, rh] = m.slice(1, 5).map(Number) as [number, number, number, number];
    for (let py = Math.round(y * scale); py < Math.round((y + rh) * scale); py++) {
      for (let px = Math.round(x * scale); px < Math.round((x + rw) * scale); px++) {
        pixels.fill(0, (py * w + px) * 4, (py * w + px) * 4 + 3);
      }
    }
  }
  // jsqr is CommonJS with `export default` types: under NodeNext the function is the default import's `default`.
  return jsqr.default(pixels, w, h)?.data;
}

describe('POST /t/:slug/inventory/labels', () => {
  it('creates a pending label with a UUID v4 token, its printable label and scan URLs', async () => {
    const item = await makeItem(t.app, a.tenant._id, { stock: 5 });
    const res = await t.app.inject({
      method: 'POST',
      url: `/t/${a.slug}/inventory/labels`,
      headers: a.admin.headers,
      payload: { itemId: item.id, quantity: 1.25, reason: 'loss', notes: '  caiu no chão  ' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const label = res.json();
    expect(label).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      token: expect.stringMatching(UUID_V4),
      item: item.id,
      quantity: 1.25,
      reason: 'loss',
      notes: 'caiu no chão',
      status: 'pending',
      createdAt: expect.stringMatching(/^2026-03-10T02:3\d:\d\d\.\d{3}Z$/),
      pdv: null,
      labelUrl: `http://localhost/t/${a.slug}/inventory/labels/${label._id}/label.pdf`,
      scanUrl: `http://localhost/t/${a.slug}/inventory/scan/${label.token}`,
    });
    const row = await labelRow(t.app, a.tenant._id, label._id);
    expect(row).toMatchObject({ quantityMilli: 1250, status: 'pending', createdBy: a.admin.id, usedAt: null, movementId: null });
    expect(row.createdAt.toISOString()).toBe(label.createdAt);
    // Creating a label takes nothing out of stock.
    expect(await physical(t.app, a.tenant._id, item.id)).toBe(5);
    // Each label has its own token; a quantity above the stock is accepted (the scan checks it).
    const second = await createLabel(t.app, a, { itemId: item.id, quantity: 50, reason: 'expiration' });
    expect(second.token).not.toBe(label.token);
  });

  it('takes from a PDV of the tenant that stocks the item; 404 for another tenant’s PDV or a PDV without the item', async () => {
    const item = await makeItem(t.app, a.tenant._id);
    const pdv = await makePdv(t.app, a.tenant);
    const bare = await makePdv(t.app, a.tenant);
    const foreign = await makePdv(t.app, b.tenant);
    await stockAtPdv(t.app, a.tenant._id, item.id, pdv.pdvId, 4);
    const label = await createLabel(t.app, a, { itemId: item.id, quantity: 1, reason: 'theft', pdvId: pdv.pdvId });
    expect(label).toMatchObject({ pdv: pdv.pdvId, reason: 'theft', notes: null });
    for (const pdvId of [foreign.pdvId, bare.pdvId, newId()]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/t/${a.slug}/inventory/labels`,
        headers: a.admin.headers,
        payload: { itemId: item.id, quantity: 1, reason: 'theft', pdvId },
      });
      expect(res.statusCode, pdvId).toBe(404);
    }
  });

  it('answers 400 naming the field', async () => {
    const item = await makeItem(t.app, a.tenant._id);
    const cases: [Record<string, unknown>, string][] = [
      [{ itemId: item.id, quantity: 0, reason: 'loss' }, 'body.quantity'],
      [{ itemId: item.id, quantity: 1.2345, reason: 'loss' }, 'body.quantity'],
      [{ itemId: item.id, quantity: 1, reason: 'sale' }, 'body.reason'],
      [{ quantity: 1, reason: 'loss' }, 'body.itemId'],
      [{ itemId: 'nope', quantity: 1, reason: 'loss' }, 'body.itemId'],
      [{ itemId: item.id, quantity: 1, reason: 'loss', pdvId: 'x' }, 'body.pdvId'],
      [{ itemId: item.id, quantity: 1, reason: 'loss', colour: 'red' }, 'body.colour'],
      [{ itemId: item.id, quantity: 1, reason: 'loss', notes: 'x'.repeat(501) }, 'body.notes'],
    ];
    for (const [payload, field] of cases) {
      const res = await t.app.inject({ method: 'POST', url: `/t/${a.slug}/inventory/labels`, headers: a.admin.headers, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(JSON.stringify(res.json()), JSON.stringify(payload)).toContain(field);
    }
  });

  it('needs a token (401) and ManageSettings: staff and accountants 403, a superadmin passes', async () => {
    const item = await makeItem(t.app, a.tenant._id);
    const payload = { itemId: item.id, quantity: 1, reason: 'loss' };
    const url = `/t/${a.slug}/inventory/labels`;
    expect((await t.app.inject({ method: 'POST', url, payload })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url, payload, headers: { authorization: 'Bearer nope' } })).statusCode).toBe(401);
    for (const who of [a.staff, a.accountant]) expect((await t.app.inject({ method: 'POST', url, payload, headers: who.headers })).statusCode).toBe(403);
    const sa = await makeSuperadmin(t.app);
    expect((await t.app.inject({ method: 'POST', url, payload, headers: sa.headers })).statusCode).toBe(201);
  });

  it('404 for another tenant’s or a deleted item; nothing of the other tenant changes', async () => {
    const item = await makeItem(t.app, a.tenant._id);
    const label = await createLabel(t.app, a, { itemId: item.id, quantity: 1, reason: 'loss' });
    await expectTenantIsolation({
      app: t.app,
      ownerSlug: a.slug,
      outsider: { slug: b.slug, headers: b.admin.headers },
      requests: [
        { method: 'POST', path: '/t/:slug/inventory/labels', payload: { itemId: item.id, quantity: 1, reason: 'loss' } },
        { method: 'GET', path: `/t/:slug/inventory/labels/${label._id}/label.pdf` },
      ],
      snapshot: async () => ({
        stock: await physical(t.app, a.tenant._id, item.id),
        labels: await t.app.deps.tenantDb(a.tenant._id).run((tx) => tx.db.select().from(labelTokens).where(eq(labelTokens.itemId, item.id))),
      }),
    });
    const gone = await makeItem(t.app, a.tenant._id);
    await t.app.deps.tenantDb(a.tenant._id).run((tx) => tx.db.update(inventoryItems).set({ deletedAt: new Date() }).where(eq(inventoryItems.id, gone.id)));
    const res = await t.app.inject({
      method: 'POST',
      url: `/t/${a.slug}/inventory/labels`,
      headers: a.admin.headers,
      payload: { itemId: gone.id, quantity: 1, reason: 'loss' },
    });
    expect(res.statusCode).toBe(404);
  });
});

describe('GET /t/:slug/inventory/labels/:id/label.pdf', () => {
  it('is a 4 x 2 in PDF with the item, quantity, reason, dates in the tenant’s zone, the PDV and the QR code of the scan URL', async () => {
    const item = await makeItem(t.app, a.tenant._id, { name: 'Açúcar cristal', sku: 'ACU-001', expirationDate: '2026-04-01' });
    const pdv = await makePdv(t.app, a.tenant);
    await stockAtPdv(t.app, a.tenant._id, item.id, pdv.pdvId, 3);
    const label = await createLabel(t.app, a, { itemId: item.id, quantity: 1.5, reason: 'loss', pdvId: pdv.pdvId });
    const res = await t.app.inject({ url: new URL(label.labelUrl).pathname, headers: a.admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`inline; filename="label-${label._id}.pdf"`);
    const pdf = res.rawPayload;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.toString('latin1')).toContain('/MediaBox [0 0 288 144]');
    const pdvName = (await t.app.services.branches.findPdv(t.app.deps.tenantDb(a.tenant._id), pdv.pdvId))!.name;
    expect(pdfTextLines(pdf)).toEqual([
      'Açúcar cristal',
      'SKU ACU-001',
      '1,5 kg',
      'Motivo: Perda',
      'Criada: 09/03/2026 23:30',
      'Validade: 01/04/2026',
      `PDV: ${pdvName}`,
    ]);
    expect(pdfQr(pdf)).toBe(label.scanUrl);
    // What the QR code holds is the route that consumes the label.
    expect((await scan(t.app, a.slug, new URL(pdfQr(pdf)!).pathname.split('/').pop()!)).statusCode).toBe(201);
  });

  it('leaves out the expiration date and PDV when there are none; a long name is cut, not spilled', async () => {
    const item = await makeItem(t.app, a.tenant._id, { name: 'Queijo muçarela fatiado em peças grandes para pizza de forno a lenha tradicional', unit: 'un' });
    const label = await createLabel(t.app, a, { itemId: item.id, quantity: 12, reason: 'adjustment' });
    const res = await t.app.inject({ url: `/t/${a.slug}/inventory/labels/${label._id}/label.pdf`, headers: a.admin.headers });
    const lines = pdfTextLines(res.rawPayload);
    expect(lines.slice(-4)).toEqual([expect.stringMatching(/^SKU /), '12 un', 'Motivo: Ajuste', 'Criada: 09/03/2026 23:30']);
    expect(lines.slice(0, -4)).toHaveLength(2); // the name on two lines at most
    expect(pdfQr(res.rawPayload)).toBe(label.scanUrl);
  });

  it('400 for a malformed id, 401 without a token, 403 for staff, 404 for an unknown label, 409 once scanned', async () => {
    const item = await makeItem(t.app, a.tenant._id);
    const label = await createLabel(t.app, a, { itemId: item.id, quantity: 1, reason: 'loss' });
    const url = `/t/${a.slug}/inventory/labels/${label._id}/label.pdf`;
    const bad = await t.app.inject({ url: `/t/${a.slug}/inventory/labels/xyz/label.pdf`, headers: a.admin.headers });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('params.id');
    expect((await t.app.inject({ url })).statusCode).toBe(401);
    expect((await t.app.inject({ url, headers: a.staff.headers })).statusCode).toBe(403);
    expect((await t.app.inject({ url: `/t/${a.slug}/inventory/labels/${newId()}/label.pdf`, headers: a.admin.headers })).statusCode).toBe(404);
    expect((await scan(t.app, a.slug, label.token)).statusCode).toBe(201);
    const used = await t.app.inject({ url, headers: a.admin.headers });
    expect(used.statusCode).toBe(409);
    expect(used.json().code).toBe('label_used');
  });
});

describe('POST /t/:slug/inventory/scan/:token', () => {
  it('public: consumes the label once, answering the exit movement; the stock goes down by the quantity', async () => {
    const item = await makeItem(t.app, a.tenant._id, { stock: 10 });
    const label = await createLabel(t.app, a, { itemId: item.id, quantity: 2.345, reason: 'expiration', notes: 'vencido' });
    const res = await scan(t.app, a.slug, label.token);
    expect(res.statusCode, res.body).toBe(201);
    const movement = res.json();
    expect(movement).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      item: item.id,
      pdv: null,
      type: 'exit',
      reason: 'expiration',
      quantity: 2.345,
      delta: -2.345,
      before: 10,
      after: 7.655,
      unitCost: null,
      order: null,
      label: label._id,
      transfer: null,
      notes: 'vencido',
      createdBy: null,
      createdAt: expect.stringMatching(/^2026-03-10T02:3\d:/),
    });
    expect(await physical(t.app, a.tenant._id, item.id)).toBe(7.655);
    const used = await labelRow(t.app, a.tenant._id, label._id);
    expect(used).toMatchObject({ status: 'used', movementId: movement._id });
    expect(used.usedAt!.toISOString()).toBe(movement.createdAt);
    // Used: 404, and nothing more leaves the stock.
    const again = await scan(t.app, a.slug, label.token);
    expect(again.statusCode).toBe(404);
    expect(again.json().message).toBe('Label not found');
    expect(await physical(t.app, a.tenant._id, item.id)).toBe(7.655);
    expect(await movementsOf(t.app, a.tenant._id, label._id)).toHaveLength(1);
  });

  it('takes a PDV label out of that PDV’s branch stock, not the catalog', async () => {
    const item = await makeItem(t.app, a.tenant._id, { stock: 10 });
    const pdv = await makePdv(t.app, a.tenant);
    await stockAtPdv(t.app, a.tenant._id, item.id, pdv.pdvId, 4);
    const label = await createLabel(t.app, a, { itemId: item.id, quantity: 1.5, reason: 'loss', pdvId: pdv.pdvId });
    const res = await scan(t.app, a.slug, label.token);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ pdv: pdv.pdvId, before: 4, after: 2.5, delta: -1.5, type: 'exit', reason: 'loss' });
    expect(await physical(t.app, a.tenant._id, item.id)).toBe(10);
    const [row] = await t.app.deps.tenantDb(a.tenant._id).run((tx) => tx.db.select().from(branchStock).where(eq(branchStock.itemId, item.id)));
    expect(row!.physicalMilli).toBe(2500);
  });

  it('409 insufficient_stock when the stock cannot cover it: the label stays pending and scans once the stock is there', async () => {
    const item = await makeItem(t.app, a.tenant._id, { stock: 1 });
    const label = await createLabel(t.app, a, { itemId: item.id, quantity: 1.001, reason: 'loss' });
    const res = await scan(t.app, a.slug, label.token);
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('insufficient_stock');
    expect(await labelRow(t.app, a.tenant._id, label._id)).toMatchObject({ status: 'pending', usedAt: null, movementId: null });
    expect(await physical(t.app, a.tenant._id, item.id)).toBe(1);
    await t.app.deps.tenantDb(a.tenant._id).run((tx) => tx.db.update(inventoryItems).set({ physicalMilli: 1001 }).where(eq(inventoryItems.id, item.id)));
    expect((await scan(t.app, a.slug, label.token)).json()).toMatchObject({ before: 1.001, after: 0 });
  });

  it('404 for an unknown, malformed or another tenant’s token (which stays pending); needs no credentials', async () => {
    const item = await makeItem(t.app, a.tenant._id, { stock: 3 });
    const label = await createLabel(t.app, a, { itemId: item.id, quantity: 1, reason: 'loss' });
    for (const token of [crypto.randomUUID(), 'not-a-token', label.token.replace(/-/g, ''), `${label.token}0`, "1' or '1'='1"]) {
      expect((await scan(t.app, a.slug, encodeURIComponent(token))).statusCode, token).toBe(404);
    }
    // Through another tenant's slug, with or without that tenant's admin: not found there.
    expect((await scan(t.app, b.slug, label.token)).statusCode).toBe(404);
    const viaB = await t.app.inject({ method: 'POST', url: `/t/${b.slug}/inventory/scan/${label.token}`, headers: b.admin.headers });
    expect(viaB.statusCode).toBe(404);
    expect((await scan(t.app, 'no-such-tenant', label.token)).statusCode).toBe(404);
    expect(await labelRow(t.app, a.tenant._id, label._id)).toMatchObject({ status: 'pending' });
    expect(await physical(t.app, a.tenant._id, item.id)).toBe(3);
    // The token in upper case is the same UUID.
    expect((await scan(t.app, a.slug, label.token.toUpperCase())).statusCode).toBe(201);
    const doc = (await t.app.inject({ url: '/openapi.json' })).json();
    expect(doc.paths['/t/{slug}/inventory/scan/{token}'].post).toMatchObject({ tags: ['inventory'], security: [] });
    expect(doc.paths['/t/{slug}/inventory/labels'].post.tags).toEqual(['inventory']);
    const labelSchema = doc.paths['/t/{slug}/inventory/labels'].post.responses['201'].content['application/json'].schema;
    expect([labelSchema.properties.reason.enum, labelSchema.properties.status.enum]).toEqual([[...LABEL_REASONS], [...LABEL_STATUSES]]);
    const movementSchema = doc.paths['/t/{slug}/inventory/scan/{token}'].post.responses['201'].content['application/json'].schema;
    expect([movementSchema.properties.type.enum, movementSchema.properties.reason.enum]).toEqual([[...MOVEMENT_TYPES], [...MOVEMENT_REASONS]]);
    expect(Object.keys(doc.paths['/t/{slug}/inventory/labels/{id}/label.pdf'].get.responses['200'].content)).toEqual(['application/pdf']);
  });

  it('50 concurrent scans of one token: exactly one movement, 49 x 404, the stock decremented once', async () => {
    const item = await makeItem(t.app, a.tenant._id, { stock: 100 });
    const label = await createLabel(t.app, a, { itemId: item.id, quantity: 3, reason: 'theft' });
    const answers = await Promise.all(Array.from({ length: 50 }, () => scan(t.app, a.slug, label.token)));
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 404)).toHaveLength(49);
    expect(await movementsOf(t.app, a.tenant._id, label._id)).toHaveLength(1);
    expect(await physical(t.app, a.tenant._id, item.id)).toBe(97);
  });
});

describe('labels across a restart', () => {
  it('a used token is still 404 and a pending one still scans', async () => {
    const r = await createRestartableApp();
    try {
      const team = await makeTenantWithTeam(r.app);
      const item = await makeItem(r.app, team.tenant._id, { stock: 5 });
      const used = await createLabel(r.app, team, { itemId: item.id, quantity: 1, reason: 'loss' });
      const pending = await createLabel(r.app, team, { itemId: item.id, quantity: 2, reason: 'loss' });
      expect((await scan(r.app, team.slug, used.token)).statusCode).toBe(201);
      await r.restart();
      expect((await scan(r.app, team.slug, used.token)).statusCode).toBe(404);
      expect((await scan(r.app, team.slug, pending.token)).json()).toMatchObject({ before: 4, after: 2 });
      expect(await physical(r.app, team.tenant._id, item.id)).toBe(2);
    } finally {
      await r.close();
    }
  });
});

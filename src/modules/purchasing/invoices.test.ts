import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { count, eq } from 'drizzle-orm';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { importedInvoices, supplierItemMappings } from '../../db/schema/purchasing.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const NFE_DIR = join(import.meta.dirname, '../../../../shared/data/nfe');
const sample = (name: string) => readFileSync(join(NFE_DIR, name), 'utf8');

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
type Line = { line: number; supplierCode: string; action: string; matchedBy: string | null; item: { _id: string | null; name: string; unit: string } | null };
type Item = { _id: string; name: string; sku: string; ean: string | null; unit: string; currentStock: number; cost: number; packSize: number | null };

/** A multipart/form-data body with the XML in `file` (and other fields). */
function form(fields: { file?: string | Buffer; fileField?: string; mappings?: unknown; extra?: Record<string, string> }) {
  const boundary = `----nfe${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  const push = (s: string | Buffer) => chunks.push(typeof s === 'string' ? Buffer.from(s) : s);
  if (fields.mappings !== undefined) {
    push(`--${boundary}\r\ncontent-disposition: form-data; name="mappings"\r\n\r\n`);
    push(typeof fields.mappings === 'string' ? fields.mappings : JSON.stringify(fields.mappings));
    push('\r\n');
  }
  for (const [k, v] of Object.entries(fields.extra ?? {})) push(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  if (fields.file !== undefined) {
    push(`--${boundary}\r\ncontent-disposition: form-data; name="${fields.fileField ?? 'file'}"; filename="nfe.xml"\r\ncontent-type: text/xml\r\n\r\n`);
    push(fields.file);
    push('\r\n');
  }
  push(`--${boundary}--\r\n`);
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

function importNfs(slug: string, headers: Record<string, string>, fields: Parameters<typeof form>[0], dryRun = false) {
  const body = form(fields);
  return t.app.inject({
    method: 'POST',
    url: `/t/${slug}/inventory/import-nfs${dryRun ? '?dryRun=true' : ''}`,
    headers: { ...headers, ...body.headers },
    payload: body.payload,
  });
}

async function setCnpj(team: Team, cnpj: string | null) {
  const res = await t.app.inject({ method: 'PUT', url: `/t/${team.slug}/tenants`, headers: team.admin.headers, payload: { cnpj } });
  expect(res.statusCode, res.body).toBe(200);
}

async function items(team: Team): Promise<Item[]> {
  const res = await t.app.inject({ method: 'GET', url: `/t/${team.slug}/inventory`, headers: team.admin.headers });
  expect(res.statusCode).toBe(200);
  return res.json();
}

/** The tenant's items and movements (through the inventory's routes), imported invoices and mappings (rows). */
async function counts(team: Team) {
  const all = await items(team);
  let movements = 0;
  for (const i of all) movements += (await movementsOf(team, i._id)).length;
  const own = await t.app.deps.tenantDb(team.tenant._id).run(async (tx) => ({
    invoices: (await tx.db.select({ n: count() }).from(importedInvoices).where(eq(importedInvoices.tenantId, team.tenant._id)))[0].n,
    mappings: (await tx.db.select({ n: count() }).from(supplierItemMappings).where(eq(supplierItemMappings.tenantId, team.tenant._id)))[0].n,
  }));
  return { items: all.length, movements, ...own };
}

type Movement = { type: string; reason: string; quantity: number; unitCost: number | null };

async function movementsOf(team: Team, itemId: string): Promise<Movement[]> {
  const res = await t.app.inject({ method: 'GET', url: `/t/${team.slug}/inventory/${itemId}/movements?limit=100`, headers: team.admin.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** The XML read independently of the import's parser: every det/prod as plain strings. */
function expected(xml: string) {
  const doc = new XMLParser({ removeNSPrefix: true, parseTagValue: false, isArray: (n) => n === 'det' }).parse(xml);
  const inf = (doc.nfeProc?.NFe ?? doc.NFe).infNFe;
  const dets = inf.det as { prod: Record<string, string> }[];
  return {
    dest: String(inf.dest.CNPJ),
    vNF: Math.round(Number(inf.total.ICMSTot.vNF) * 100),
    lines: dets.map((d) => ({
      code: String(d.prod.cProd),
      name: String(d.prod.xProd),
      qty: Number(d.prod.qCom),
      unitCents: Math.round(Number(d.prod.vUnCom) * 100),
    })),
  };
}

/** The mod 11 check digit of a 43-digit key (written again here, apart from the parser's). */
function withCheckDigit(key43: string) {
  let sum = 0;
  for (let i = 0; i < 43; i++) sum += Number(key43[42 - i]) * (2 + (i % 8));
  const r = sum % 11;
  return `${key43}${r < 2 ? 0 : 11 - r}`;
}

const IMPORTABLE = [
  { file: '35180834128745000152550010000476491552806942-nfe.xml', key: '35180834128745000152550010000476491552806942', lines: 16, created: 16, total: 87968 },
  // Two lines of the same roll (B17025056): one item, two movements. Its retEvento cancels another key.
  { file: 'mod55-nfe_1.xml', key: '35150300822602000124550010009923461099234656', lines: 5, created: 4, total: 68991 },
  { file: 'nfe_layout4_com_prot.xml', key: '43180906929383000163550010000000261000010301', lines: 1, created: 1, total: 50000 },
  { file: 'nfe_reforma_tributaria.xml', key: '15231207933914000154550010006643501427015088', lines: 1, created: 1, total: 16474681 },
];

const REFUSED: [string, string][] = [
  ['110110-53181011028793000173550010000066701204276800-1-procEventoNfe.xml', 'not_nfe'],
  ['exemplo_xml_sefazCancela.xml', 'not_nfe'],
  ['NFCeHom2.xml', 'nfce'],
  ['nfce111.xml', 'nfce'],
  ['nfce112_2.xml', 'nfce'],
  ['nfce_com_qrcode.xml', 'nfce'],
  ['cancelada_55_new.xml', 'cancelled'],
  // Its protocol's chNFe (12345...) is not the key of infNFe/@Id (94567...).
  ['nfe.xml', 'key_mismatch'],
  // A layout specimen: "string" where the key goes.
  ['procNFe_PL_010C_cnpjalfa.xml', 'invalid_key'],
];

describe('POST /t/:slug/inventory/import-nfs', () => {
  for (const s of IMPORTABLE) {
    it(`imports ${s.file}: items, movements and costs as the XML says`, async () => {
      const xml = sample(s.file);
      const want = expected(xml);
      const team = await makeTenantWithTeam(t.app, { plan: 'basic' });
      await setCnpj(team, want.dest);
      const res = await importNfs(team.slug, team.admin.headers, { file: xml });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({
        success: true,
        dryRun: false,
        nfeKey: s.key,
        totalItems: s.lines,
        created: s.created,
        updated: 0,
        movements: s.lines,
        skipped: 0,
        total: s.total,
      });
      expect(want.lines).toHaveLength(s.lines);
      expect(want.vNF).toBe(s.total);

      const all = await items(team);
      expect(all).toHaveLength(s.created);
      // Per supplier code: the stock is the sum of its lines' quantities, the cost the last line's unit price.
      const byCode = new Map<string, { qty: number; cost: number; costs: number[] }>();
      for (const l of want.lines) {
        const prev = byCode.get(l.code);
        byCode.set(l.code, { qty: (prev?.qty ?? 0) + l.qty, cost: l.unitCents, costs: [...(prev?.costs ?? []), l.unitCents] });
      }
      for (const [code, w] of byCode) {
        const item = all.find((i) => i.sku === code)!;
        expect(item, code).toBeDefined();
        expect(item.currentStock).toBeCloseTo(w.qty, 3);
        expect(item.cost).toBe(w.cost);
        expect(item.unit).toBe('un');
        const moves = await movementsOf(team, item._id);
        expect(moves.every((m) => m.type === 'entry' && m.reason === 'purchase')).toBe(true);
        expect(moves.reduce((a, m) => a + m.quantity * 1000, 0)).toBeCloseTo(w.qty * 1000, 6);
        expect(moves.map((m) => m.unitCost).sort()).toEqual([...w.costs].sort());
      }
      expect(await counts(team)).toEqual({ items: s.created, movements: s.lines, invoices: 1, mappings: byCode.size });

      // The same key again: 409 and nothing changes.
      const again = await importNfs(team.slug, team.admin.headers, { file: xml });
      expect(again.statusCode, again.body).toBe(409);
      expect(again.json().code).toBe('nfe_already_imported');
      expect(await counts(team)).toEqual({ items: s.created, movements: s.lines, invoices: 1, mappings: byCode.size });
    });
  }

  it('reads the invoice exactly: units, EAN and unit cost of chosen lines', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '97493746000116');
    const res = await importNfs(team.slug, team.admin.headers, { file: sample(IMPORTABLE[0].file) });
    expect(res.statusCode, res.body).toBe(201);
    const all = await items(team);
    // det 1: 6 UN of GRANOLA TRADICIONAL 800G at 13.0390200 -> 1304 cents; det 5: 10 at 5.9999900 -> 600.
    expect(all.find((i) => i.sku === '1094')).toMatchObject({ name: 'GRANOLA TRADICIONAL 800G', ean: '7897846900945', unit: 'un', currentStock: 6, cost: 1304 });
    expect(all.find((i) => i.sku === '1128')).toMatchObject({ currentStock: 10, cost: 600 });
    // "&amp;" in the XML is "&" in the name.
    expect(all.find((i) => i.sku === '1095')!.name).toBe('GRANOLA BANANA & MEL 800G');
  });

  for (const [file, code] of REFUSED) {
    it(`refuses ${file} (400 ${code}) and writes nothing`, async () => {
      const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
      await setCnpj(team, '10422724000187');
      const res = await importNfs(team.slug, team.admin.headers, { file: sample(file) });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe(code);
      expect(res.json().details[0].field).toBe('body.file');
      expect(await counts(team)).toEqual({ items: 0, movements: 0, invoices: 0, mappings: 0 });
    });
  }

  it('two concurrent imports of the same invoice: one 201, one 409, stock counted once', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '99999999000191');
    const xml = sample('mod55-nfe_1.xml');
    const [a, b] = await Promise.all([importNfs(team.slug, team.admin.headers, { file: xml }), importNfs(team.slug, team.admin.headers, { file: xml })]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 409]);
    expect(await counts(team)).toEqual({ items: 4, movements: 5, invoices: 1, mappings: 4 });
  });

  it('broken XML, a truncated invoice, an empty or missing file: 400, nothing written', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '99999999000191');
    const xml = sample('mod55-nfe_1.xml');
    for (const file of ['<nfeProc><NFe></nfeProc>', xml.slice(0, 3000), 'not xml at all', '{"json": true}']) {
      const res = await importNfs(team.slug, team.admin.headers, { file });
      expect(res.statusCode, file.slice(0, 30)).toBe(400);
      expect(['malformed_xml', 'not_nfe']).toContain(res.json().code);
    }
    const broken = await importNfs(team.slug, team.admin.headers, { file: xml.slice(0, 3000) });
    expect(broken.json()).toMatchObject({ code: 'malformed_xml' });
    expect(broken.json().message).toMatch(/not well-formed XML/);
    const empty = await importNfs(team.slug, team.admin.headers, { file: '' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().details[0].field).toBe('body.file');
    const missing = await importNfs(team.slug, team.admin.headers, { mappings: [] });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details[0].field).toBe('body.file');
    const wrongField = await importNfs(team.slug, team.admin.headers, { file: xml, fileField: 'xml' });
    expect(wrongField.statusCode).toBe(400);
    expect(wrongField.json().details[0].field).toBe('body.xml');
    const json = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/inventory/import-nfs`, headers: team.admin.headers, payload: { file: xml } });
    expect(json.statusCode).toBe(400);
    expect(await counts(team)).toEqual({ items: 0, movements: 0, invoices: 0, mappings: 0 });
  });

  it('a check digit that does not match the key: 400 invalid_key', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '58716523000119');
    const key = IMPORTABLE[2].key;
    const wrong = `${key.slice(0, 43)}${(Number(key[43]) + 1) % 10}`;
    const res = await importNfs(team.slug, team.admin.headers, { file: sample('nfe_layout4_com_prot.xml').replaceAll(key, wrong) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_key' });
    expect(res.json().message).toContain(wrong);
    expect(await counts(team)).toEqual({ items: 0, movements: 0, invoices: 0, mappings: 0 });
  });

  it('an upload over 2 MB: 413, nothing written', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '99999999000191');
    const xml = sample('mod55-nfe_1.xml');
    const big = xml.replace('</nfeProc>', `<!--${'x'.repeat(2 * 1024 * 1024)}--></nfeProc>`);
    const res = await importNfs(team.slug, team.admin.headers, { file: big });
    expect(res.statusCode, res.body).toBe(413);
    expect(await counts(team)).toEqual({ items: 0, movements: 0, invoices: 0, mappings: 0 });
    // Just under the limit (over the app's 1 MB JSON body limit) is read.
    const under = xml.replace('</nfeProc>', `<!--${'x'.repeat(2 * 1024 * 1024 - xml.length - 100)}--></nfeProc>`);
    const ok = await importNfs(team.slug, team.admin.headers, { file: under });
    expect(ok.statusCode, ok.body.slice(0, 300)).toBe(201);
  });

  it('a recipient that is not the tenant nor a branch: 400 naming both; a branch CNPJ is accepted', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '11222333000181');
    const xml = sample('nfe_layout4_com_prot.xml');
    const res = await importNfs(team.slug, team.admin.headers, { file: xml });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('wrong_recipient');
    expect(res.json().message).toContain('58716523000119');
    expect(res.json().message).toContain('11222333000181');
    expect(await counts(team)).toEqual({ items: 0, movements: 0, invoices: 0, mappings: 0 });

    await setCnpj(team, null);
    const none = await importNfs(team.slug, team.admin.headers, { file: xml });
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toContain('no CNPJ');

    const branch = await t.app.services.branches.createBranch(t.app.deps.tenantDb(team.tenant._id), { name: 'Filial', slug: 'filial', cnpj: '58716523000119' });
    expect(branch.cnpj).toBe('58716523000119');
    const ok = await importNfs(team.slug, team.admin.headers, { file: xml });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('dryRun proposes line by line and writes nothing; EAN and name matches; cost change', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '97493746000116');
    // One item with det 1's EAN, one with det 2's name written differently (case, accents, spaces).
    const mk = async (body: object) => {
      const r = await t.app.inject({ method: 'POST', url: `/t/${team.slug}/inventory`, headers: team.admin.headers, payload: body });
      expect(r.statusCode, r.body).toBe(201);
      return r.json() as Item;
    };
    const granola = await mk({ name: 'Granola da casa', sku: 'GRA', ean: '7897846900945', unit: 'un', cost: 1000, currentStock: 1, minStock: 0 });
    const aveia = await mk({ name: '  Aveia em flocos  finos 500g (#)', sku: 'AVE', unit: 'un', cost: 400, currentStock: 0, minStock: 0 });
    const before = await counts(team);

    const res = await importNfs(team.slug, team.admin.headers, { file: sample(IMPORTABLE[0].file) }, true);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, dryRun: true, totalItems: 16, created: 14, updated: 2, movements: 16, skipped: 0 });
    const lines = body.lines as (Line & { previousCost: number | null; unitCost: number; stockQuantity: number })[];
    expect(lines[0]).toMatchObject({ line: 1, action: 'match', matchedBy: 'ean', item: { _id: granola._id }, previousCost: 1000, unitCost: 1304, stockQuantity: 6 });
    expect(lines[1]).toMatchObject({ line: 2, action: 'match', matchedBy: 'name', item: { _id: aveia._id }, previousCost: 400, unitCost: 436, stockQuantity: 12 });
    expect(lines[2]).toMatchObject({ line: 3, action: 'create', matchedBy: null, item: { _id: null, name: 'GRANOLA BANANA & MEL 800G', unit: 'un' } });
    expect(await counts(team)).toEqual(before);

    // The real import does what the dry run said.
    const real = await importNfs(team.slug, team.admin.headers, { file: sample(IMPORTABLE[0].file) });
    expect(real.statusCode, real.body).toBe(201);
    expect(real.json()).toMatchObject({ created: 14, updated: 2, movements: 16 });
    const after = await items(team);
    expect(after.find((i) => i._id === granola._id)).toMatchObject({ currentStock: 7, cost: 1304 });
    expect(after.find((i) => i._id === aveia._id)).toMatchObject({ currentStock: 12, cost: 436 });
    expect(await counts(team)).toEqual({ items: 16, movements: before.movements + 16, invoices: 1, mappings: 14 });
  });

  it('a line whose unit does not fit the matched item needs review; a confirmed mapping with a factor imports it and is remembered', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '58716523000119');
    // The invoice's "UM PRODUTO TESTE QUALQUER" counts 10 UN at 50.00; ours is counted in kg.
    const mk = await t.app.inject({
      method: 'POST',
      url: `/t/${team.slug}/inventory`,
      headers: team.admin.headers,
      payload: { name: 'Um produto teste qualquer', sku: 'KGX', unit: 'kg', cost: 100, currentStock: 0, minStock: 0 },
    });
    const item = mk.json() as Item;
    const xml = sample('nfe_layout4_com_prot.xml');
    const dry = await importNfs(team.slug, team.admin.headers, { file: xml }, true);
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toMatchObject({ success: false, lines: [{ action: 'review', matchedBy: 'name' }], errors: [{ line: 1, code: 'needs_review' }] });
    const refused = await importNfs(team.slug, team.admin.headers, { file: xml });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('lines_need_review');
    expect(await counts(team)).toEqual({ items: 1, movements: 0, invoices: 0, mappings: 0 });

    // Bad mappings are named.
    for (const [mappings, field] of [
      [{ not: 'array' }, 'body.mappings'],
      [[{ supplierCode: 'NOPE', itemId: item._id }], 'body.mappings.0.supplierCode'],
      [[{ supplierCode: '11007', itemId: 'x' }], 'body.mappings.0.itemId'],
      [[{ supplierCode: '11007', itemId: 'ffffffffffffffffffffffff' }], 'body.mappings.0.itemId'],
      [[{ supplierCode: '11007', itemId: item._id, factor: 0 }], 'body.mappings.0.factor'],
      [[{ supplierCode: '11007', itemId: item._id, extra: 1 }], 'body.mappings.0.extra'],
    ] as const) {
      const res = await importNfs(team.slug, team.admin.headers, { file: xml, mappings });
      expect(res.statusCode, JSON.stringify(mappings)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const notJson = await importNfs(team.slug, team.admin.headers, { file: xml, mappings: '[{' });
    expect(notJson.json().details[0].field).toBe('body.mappings');

    // Each UN is 2.5 kg: 25 kg at 50.00 / 2.5 = 20.00 a kg.
    const ok = await importNfs(team.slug, team.admin.headers, { file: xml, mappings: [{ supplierCode: '11007', itemId: item._id, factor: 2.5 }] });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ created: 0, updated: 1, movements: 1, lines: [{ action: 'match', matchedBy: 'confirmed', stockQuantity: 25, unitCost: 2000 }] });
    expect((await items(team))[0]).toMatchObject({ currentStock: 25, cost: 2000 });

    // The next invoice of this supplier (another key) finds the remembered mapping.
    const key = IMPORTABLE[2].key;
    const next = withCheckDigit(`${key.slice(0, 25)}000000027${key.slice(34, 43)}`);
    const res = await importNfs(team.slug, team.admin.headers, { file: xml.replaceAll(key, next) });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ nfeKey: next, lines: [{ matchedBy: 'mapping', stockQuantity: 25 }] });
    expect((await items(team))[0]).toMatchObject({ currentStock: 50 });
  });

  it('units: a box sized by its tax unit, grams into an item counted in kg', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '58716523000119');
    const xml = sample('nfe_layout4_com_prot.xml');
    const key = IMPORTABLE[2].key;
    // 2 CX taxed as 24 UN: boxes of 12; 50.00 a box is 4.1666 a unit -> 417 cents.
    const boxes = xml.replace('<uCom>UN</uCom>', '<uCom>CX</uCom>').replace('<qCom>10.0000</qCom>', '<qCom>2.0000</qCom>').replace('<qTrib>10.0000</qTrib>', '<qTrib>24.0000</qTrib>');
    const res = await importNfs(team.slug, team.admin.headers, { file: boxes });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().lines[0]).toMatchObject({ action: 'create', stockQuantity: 24, unitCost: 417, item: { unit: 'un' } });
    expect((await items(team))[0]).toMatchObject({ sku: '11007', unit: 'un', packSize: 12, currentStock: 24, cost: 417 });

    // 500 G at 0.05 a gram into "Queijo minas" (kg), found by its name: 0.5 kg at 50.00 a kg.
    const mk = await t.app.inject({
      method: 'POST',
      url: `/t/${team.slug}/inventory`,
      headers: team.admin.headers,
      payload: { name: 'Queijo  Minas', sku: 'QM', unit: 'kg', cost: 100, currentStock: 0, minStock: 0 },
    });
    expect(mk.statusCode).toBe(201);
    const grams = xml
      .replaceAll(key, withCheckDigit(`${key.slice(0, 25)}000000099${key.slice(34, 43)}`))
      .replace('<cProd>11007</cProd>', '<cProd>G500</cProd>')
      .replace('<xProd>UM PRODUTO TESTE QUALQUER</xProd>', '<xProd>QUEIJO MINAS</xProd>')
      .replace('<uCom>UN</uCom>', '<uCom>G</uCom>')
      .replace('<qCom>10.0000</qCom>', '<qCom>500.0000</qCom>')
      .replace('<vUnCom>50</vUnCom>', '<vUnCom>0.05</vUnCom>');
    const g = await importNfs(team.slug, team.admin.headers, { file: grams });
    expect(g.statusCode, g.body).toBe(201);
    expect(g.json().lines[0]).toMatchObject({ action: 'match', matchedBy: 'name', stockQuantity: 0.5, unitCost: 5000, previousCost: 100 });
    expect((await items(team)).find((i) => i.sku === 'QM')).toMatchObject({ currentStock: 0.5, cost: 5000 });
  });

  it('a line left out as asked is skipped; the rest imports', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '99999999000191');
    const res = await importNfs(team.slug, team.admin.headers, { file: sample('mod55-nfe_1.xml'), mappings: [{ supplierCode: 'B17040056', skip: true }] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ success: true, totalItems: 5, created: 3, movements: 4, skipped: 1 });
    expect(res.json().lines[3]).toMatchObject({ line: 4, action: 'skip' });
    expect(res.json().lines[2]).toMatchObject({ line: 3, action: 'match', matchedBy: 'line' });
  });

  it('401 without a token, 403 for staff and for a plan without supplierManagement; a superadmin may', async () => {
    const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(team, '58716523000119');
    const xml = sample('nfe_layout4_com_prot.xml');
    expect((await importNfs(team.slug, {}, { file: xml })).statusCode).toBe(401);
    expect((await importNfs(team.slug, team.staff.headers, { file: xml })).statusCode).toBe(403);
    expect((await importNfs(team.slug, team.accountant.headers, { file: xml })).statusCode).toBe(403);
    const free = await makeTenantWithTeam(t.app, { plan: 'free' });
    const noFeature = await importNfs(free.slug, free.admin.headers, { file: xml });
    expect(noFeature.statusCode).toBe(403);
    expect(noFeature.body).toContain('supplierManagement');
    expect(await counts(team)).toEqual({ items: 0, movements: 0, invoices: 0, mappings: 0 });
    const sa = await makeSuperadmin(t.app);
    const res = await importNfs(team.slug, sa.headers, { file: xml }, true);
    expect(res.statusCode, res.body).toBe(200);
  });

  it("another tenant's item cannot be a mapping target (400), and an outsider cannot import into the tenant (403)", async () => {
    const a = await makeTenantWithTeam(t.app, { plan: 'premium' });
    const b = await makeTenantWithTeam(t.app, { plan: 'premium' });
    await setCnpj(a, '58716523000119');
    await setCnpj(b, '58716523000119');
    const mk = await t.app.inject({
      method: 'POST',
      url: `/t/${a.slug}/inventory`,
      headers: a.admin.headers,
      payload: { name: 'De A', sku: 'A1', unit: 'un', cost: 100, currentStock: 0, minStock: 0 },
    });
    const itemOfA = (mk.json() as Item)._id;
    const xml = sample('nfe_layout4_com_prot.xml');
    const before = { a: await counts(a), b: await counts(b) };
    const viaB = await importNfs(b.slug, b.admin.headers, { file: xml, mappings: [{ supplierCode: '11007', itemId: itemOfA }] });
    expect(viaB.statusCode).toBe(400);
    expect(viaB.json().details[0].field).toBe('body.mappings.0.itemId');
    const viaA = await importNfs(a.slug, b.admin.headers, { file: xml, mappings: [{ supplierCode: '11007', itemId: itemOfA }] });
    expect(viaA.statusCode).toBe(403);
    expect({ a: await counts(a), b: await counts(b) }).toEqual(before);
    // The same invoice may be imported by each tenant it was sent to (the key is unique per tenant).
    expect((await importNfs(a.slug, a.admin.headers, { file: xml })).statusCode).toBe(201);
    expect((await importNfs(b.slug, b.admin.headers, { file: xml })).statusCode).toBe(201);
  });

  it('appears in /openapi.json', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const op = res.json().paths['/t/{slug}/inventory/import-nfs'];
    expect(op?.post?.tags).toEqual(['purchasing']);
  });
});

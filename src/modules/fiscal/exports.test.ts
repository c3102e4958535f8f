import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { newId } from '../../db/ids.js';
import { fiscalDocuments, fiscalFiles } from '../../db/schema/fiscal.js';
import { checkEfd } from './efd.check.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Team = Awaited<ReturnType<typeof makeTenantWithTeam>>;
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
let seq = 0;
const key = (model: number, n: number) => `35260311222333000181${model}001${String(n).padStart(9, '0')}1${String(++seq).padStart(8, '0')}0`.slice(0, 44);

async function insertDoc(team: Team, d: { model: 55 | 65; number: number; status: 'authorized' | 'cancelled' | 'rejected'; at: string; cpf?: string }) {
  const id = newId();
  const nfeKey = key(d.model, d.number);
  await t.app.deps.tenantDb(team.tenant._id).run(async (tx) => {
    await tx.db.insert(fiscalDocuments).values({
      tenantId: tx.tenantId, id, orderId: newId(), tipo: d.model === 55 ? 'nfe' : 'nfce', model: d.model, series: 1, number: d.number, status: d.status,
      nfeKey, providerRef: `ref-${id}`, customerCpf: d.cpf ?? null, totalCents: 5500, emittedAt: new Date(d.at),
      items: [
        { code: 'X1', description: 'X-Burguer', ncm: '21069090', cfop: '5102', quantity: 2, unit: 'UN', unitCents: 2000, totalCents: 4000, taxCode: '000' },
        { code: 'REF', description: 'Refrigerante lata', ncm: '22021000', cfop: '5405', quantity: 1, unit: 'UN', unitCents: 1000, totalCents: 1000, taxCode: '060' },
      ],
      taxes: { icmsBaseCents: 4000, icmsCents: 720, icmsRate: 18, pisCents: 36, cofinsCents: 165 },
    });
    await tx.db.insert(fiscalFiles).values({ tenantId: tx.tenantId, documentId: id, kind: 'xml', contentType: 'application/xml', body: `<nfeProc><chNFe>${nfeKey}</chNFe></nfeProc>` });
  });
  return nfeKey;
}

async function fiscalTeam() {
  const team = await makeTenantWithTeam(t.app);
  const res = await t.app.inject({
    method: 'PUT', url: `/t/${team.slug}/tenants`, headers: team.admin.headers,
    payload: { cnpj: '11222333000181', state: 'SP', inscricaoEstadual: '110042490114', cep: '01310100', address: 'Av. Paulista', addressNumber: '1000', district: 'Bela Vista', regimeTributario: 'regime_normal' },
  });
  expect(res.statusCode, res.body).toBe(200);
  const keys = {
    nfce: await insertDoc(team, { model: 65, number: 1, status: 'authorized', at: '2026-03-10T15:00:00Z' }),
    nfe: await insertDoc(team, { model: 55, number: 1, status: 'authorized', at: '2026-03-11T15:00:00Z', cpf: '52998224725' }),
    cancelled: await insertDoc(team, { model: 65, number: 2, status: 'cancelled', at: '2026-03-12T15:00:00Z' }),
    rejected: await insertDoc(team, { model: 65, number: 3, status: 'rejected', at: '2026-03-12T16:00:00Z' }),
    // 2026-04-01 01:00 UTC is still March 31st in São Paulo.
    lastNight: await insertDoc(team, { model: 65, number: 4, status: 'authorized', at: '2026-04-01T01:00:00Z' }),
    april: await insertDoc(team, { model: 65, number: 5, status: 'authorized', at: '2026-04-01T15:00:00Z' }),
  };
  return { ...team, keys };
}
type FTeam = Awaited<ReturnType<typeof fiscalTeam>>;
let a: FTeam;
let b: FTeam;
beforeAll(async () => {
  a = await fiscalTeam();
  b = await fiscalTeam();
});

const march = 'startDate=2026-03-01&endDate=2026-03-31';

async function efd(team: FTeam, kind: string) {
  const res = await get(`/t/${team.slug}/accountant/export/${kind}?${march}`, team.accountant.headers);
  expect(res.statusCode, res.body).toBe(200);
  const { url } = res.json() as { url: string };
  const file = await get(url);
  expect(file.statusCode, file.body).toBe(200);
  expect(file.headers['content-disposition']).toMatch(/^attachment; filename="EFD-.+-11222333000181-2026-03-01-2026-03-31\.txt"$/);
  expect(file.headers['content-type']).toBe('text/plain; charset=iso-8859-1');
  return { url, bytes: file.rawPayload };
}

describe('EFD ICMS/IPI', () => {
  it('builds the month: NFC-e and NF-e as C100 + C190, cancelled with key fields only, the checker passes', async () => {
    const { bytes } = await efd(a, 'efd');
    const result = checkEfd(bytes, 'icms');
    expect(result.errors).toEqual([]);
    const text = bytes.toString('latin1');
    expect(text).toContain('\r\n');
    const c100 = text.split('\r\n').filter((l) => l.startsWith('|C100|'));
    expect(c100).toHaveLength(4);
    expect(c100.find((l) => l.includes(a.keys.cancelled))).toBe(`|C100|1|0||65|02|001|2|${a.keys.cancelled}${'|'.repeat(21)}`);
    expect(text).toContain(a.keys.lastNight);
    for (const k of [a.keys.april, a.keys.rejected, ...Object.values(b.keys)]) expect(text).not.toContain(k);
    expect(text).toContain('|C190|000|5102|18,00|');
    expect(text).toContain('|0150|CPF52998224725|');
    expect(text).toContain('|E110|21,60|');
  });

  it('the checker rejects a wrong 9900 count, a missing C190 and a wrong order', async () => {
    const { bytes } = await efd(a, 'efd');
    const lines = bytes.toString('latin1').split('\r\n');
    const enc = (ls: string[]) => Buffer.from(ls.join('\r\n'), 'latin1');
    const bad9900 = lines.map((l) => (l.startsWith('|9900|C100|') ? '|9900|C100|9|' : l));
    expect(checkEfd(enc(bad9900), 'icms').errors.join()).toMatch(/9900 says 9 C100/);
    const i = lines.findIndex((l) => l.startsWith('|C190|'));
    const without = lines.filter((_, k) => k !== i);
    expect(checkEfd(enc(without), 'icms').ok).toBe(false);
    const e = lines.findIndex((l) => l.startsWith('|E001|'));
    const d = lines.findIndex((l) => l.startsWith('|D001|'));
    const swapped = [...lines];
    [swapped[e], swapped[d]] = [swapped[d]!, swapped[e]!];
    expect(checkEfd(enc(swapped), 'icms').errors.join()).toMatch(/block D after block E/);
    const c190 = lines.findIndex((l) => l.startsWith('|C190|000|5102|'));
    const tamperedTotal = lines.map((l, k) => (k === c190 ? l.split('|').map((f, j) => (j === 5 ? '1,00' : f)).join('|') : l));
    expect(checkEfd(enc(tamperedTotal), 'icms').errors.join()).toMatch(/VL_DOC differs/);
  });
});

describe('EFD-Contribuições', () => {
  it('consolidates the sales per item (C180/C181/C185) and the checker passes', async () => {
    const { bytes } = await efd(a, 'efd-contribuicoes');
    expect(checkEfd(bytes, 'contribuicoes').errors).toEqual([]);
    const text = bytes.toString('latin1');
    expect(text).toContain('|0110|2||1|9|');
    expect(text).toContain('|0200|X1|X-Burguer|');
    expect(text).toMatch(/\|C181\|01\|5102\|/);
  });
});

describe('download links', () => {
  it('expire after 15 minutes; another tenant\'s token is 404', async () => {
    const { url } = await efd(a, 'efd');
    expect((await get(url.replace(`/t/${a.slug}/`, `/t/${b.slug}/`))).statusCode).toBe(404);
    t.clock.advance(16 * 60 * 1000);
    expect((await get(url)).statusCode).toBe(404);
    t.clock.set(new Date());
  });
});

describe('XML batch', () => {
  it('streams a ZIP holding exactly the period\'s authorised XML', async () => {
    const res = await get(`/t/${a.slug}/accountant/export/xml-batch?${march}`, a.admin.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toMatch(/^attachment;/);
    const dir = mkdtempSync(join(tmpdir(), 'xmlzip-'));
    writeFileSync(join(dir, 'a.zip'), res.rawPayload);
    const listing = execFileSync('unzip', ['-Z1', join(dir, 'a.zip')], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(listing).toEqual([`${a.keys.nfce}.xml`, `${a.keys.nfe}.xml`, `${a.keys.lastNight}.xml`].sort());
    const one = execFileSync('unzip', ['-p', join(dir, 'a.zip'), `${a.keys.nfe}.xml`], { encoding: 'utf8' });
    expect(one).toContain(a.keys.nfe);
  });
});

describe('validation and access', () => {
  for (const path of ['efd', 'efd-contribuicoes', 'xml-batch']) {
    it(`${path}: 400, 401, 403`, async () => {
      const url = `/t/${a.slug}/accountant/export/${path}`;
      expect((await get(`${url}?startDate=2026-03-31&endDate=2026-03-01`, a.admin.headers)).statusCode).toBe(400);
      expect((await get(`${url}?startDate=nope&endDate=2026-03-01`, a.admin.headers)).statusCode).toBe(400);
      expect((await get(`${url}?startDate=2026-03-01`, a.admin.headers)).statusCode).toBe(400);
      expect((await get(`${url}?${march}`)).statusCode).toBe(401);
      expect((await get(`${url}?${march}`, a.staff.headers)).statusCode).toBe(403);
      expect((await get(`${url}?${march}`, b.admin.headers)).statusCode).toBe(403);
    });
  }
  it('admin and superadmin may export too', async () => {
    const sa = await makeSuperadmin(t.app);
    for (const headers of [a.admin.headers, sa.headers]) {
      expect((await get(`/t/${a.slug}/accountant/export/efd-contribuicoes?${march}`, headers)).statusCode).toBe(200);
    }
  });

  it('an EFD spans one month at most (400 efd_period); a tenant without CNPJ is 400 cnpj_required', async () => {
    const res = await get(`/t/${a.slug}/accountant/export/efd?startDate=2026-03-01&endDate=2026-04-30`, a.admin.headers);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('efd_period');
    const bare = await makeTenantWithTeam(t.app);
    const none = await get(`/t/${bare.slug}/accountant/export/efd?${march}`, bare.admin.headers);
    expect(none.statusCode).toBe(400);
    expect(none.json().code).toBe('cnpj_required');
    expect((await get(`/t/${a.slug}/accountant/export/files/${'0'.repeat(64)}`)).statusCode).toBe(404);
    expect((await get(`/t/${a.slug}/accountant/export/files/nothex`)).statusCode).toBe(400);
  });
});

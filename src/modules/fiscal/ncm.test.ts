import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { cleanDescription, NCM_MIGRATION_FILE, ncmMigrationSql, ncmRows, readNcmTable, searchable } from './ncm.data.js';

let t: TestApp;
let team: Awaited<ReturnType<typeof makeTenantWithTeam>>;
beforeAll(async () => {
  t = await createTestApp();
  team = await makeTenantWithTeam(t.app);
});
afterAll(() => t.close());

type Match = { code: string; display: string; description: string; fullDescription: string; category: string; score: number };
const search = async (query: string, headers: Record<string, string> = team.admin.headers) => {
  const res = await t.app.inject({ method: 'GET', url: `/t/${team.slug}/fiscal/ncm?${query}`, headers });
  return res;
};
const found = async (query: string): Promise<Match[]> => {
  const res = await search(query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Match[];
};
const codes = (list: Match[]) => list.map((m) => m.code);

describe('the NCM table', () => {
  it('is loaded by migration 0021 from the copy kept in the project, every code with its chapter', () => {
    const table = readNcmTable();
    expect(table.rows).toHaveLength(15_141);
    expect(readFileSync(NCM_MIGRATION_FILE, 'utf8')).toBe(ncmMigrationSql(table));
    const rows = ncmRows(table);
    const beer = rows.find((r) => r.code === '22030000')!;
    expect(beer).toMatchObject({ display: '2203.00.00', description: 'Cervejas de malte.', category: 'Bebidas, líquidos alcoólicos e vinagres.' });
    // "-- Outras" alone means nothing: the searched text carries the headings above it.
    const other = rows.find((r) => r.code === '22029900')!;
    expect(other.description).toBe('Outras');
    expect(other.searchText).toContain('bebidas nao alcoolicas');
  });

  it('compares text without accents, case or markup', () => {
    expect(searchable('Pão FRANCÊS, <i>fresco</i>')).toBe('pao frances fresco');
    expect(cleanDescription('-- Fígados gordos (<i>foies gras</i>)')).toBe('Fígados gordos (foies gras)');
  });
});

describe('GET /t/:slug/fiscal/ncm', () => {
  it('"cerveja" finds the malt beers 2203.00.00 at the top', async () => {
    const list = await found('q=cerveja');
    expect(codes(list).slice(0, 3)).toContain('22030000');
    const beer = list.find((m) => m.code === '22030000')!;
    expect(beer).toMatchObject({ display: '2203.00.00', description: 'Cervejas de malte.', category: 'Bebidas, líquidos alcoólicos e vinagres.' });
    expect(beer.score).toBeGreaterThan(0.5);
    expect(beer.score).toBeLessThanOrEqual(1);
    // Scores come best first.
    expect(list.map((m) => m.score)).toEqual([...list.map((m) => m.score)].sort((a, b) => b - a));
  });

  it('"refrigerante" finds the waters and soft drinks of 2202 first', async () => {
    const list = await found('q=refrigerante');
    expect(codes(list).slice(0, 2).sort()).toEqual(['22021000', '22029900']);
    const other = list.find((m) => m.code === '22029900')!;
    expect(other.fullDescription).toMatch(/^Águas, incluindo .* > Outras: > Outras$/);
  });

  it('everyday names reach the codes under a heading: "frango" lists chicken (0207.1x), "peito de frango" the breasts first', async () => {
    const chicken = await found('q=frango');
    expect(chicken.length).toBeGreaterThan(3);
    for (const code of codes(chicken).slice(0, 3)) expect(code.startsWith('0207') || code.startsWith('1602')).toBe(true);
    expect(codes(await found('q=peito%20de%20frango'))[0]).toMatch(/^020714(11|22)$/);
  });

  it('"pão francês" finds the bakery products 1905.90.90 among the top results, accents or not', async () => {
    for (const q of ['p%C3%A3o%20franc%C3%AAs', 'pao%20frances', 'P%C3%83O%20FRANC%C3%8AS']) {
      const list = await found(`q=${q}`);
      expect(codes(list).slice(0, 3)).toContain('19059090');
    }
  });

  it('case and accents are ignored: "CERVEJA" = "cerveja", "água mineral" = "agua mineral"', async () => {
    expect(await found('q=CERVEJA')).toEqual(await found('q=cerveja'));
    const water = await found('q=%C3%A1gua%20mineral');
    expect(water).toEqual(await found('q=agua%20mineral'));
    expect(water[0].code).toBe('22011000');
  });

  it('a code or its start lists the codes starting with it first, in code order, with or without dots', async () => {
    const list = await found('q=0402');
    expect(list).toHaveLength(10);
    expect(list.every((m) => m.code.startsWith('0402') && m.score === 1)).toBe(true);
    expect(codes(list)).toEqual([...codes(list)].sort());
    expect(await found('q=04.02')).toEqual(list);
    const exact = await found('q=2203.00.00');
    expect(exact[0]).toMatchObject({ code: '22030000', score: 1 });
    expect(await found('q=22030000')).toEqual(exact);
    expect(await found('q=99999')).toEqual([]);
  });

  it('filters by chapter, by its digits or words of its description', async () => {
    const drinks = await found('q=outras&category=22&limit=50');
    expect(drinks.length).toBeGreaterThan(0);
    expect(drinks.every((m) => m.code.startsWith('22'))).toBe(true);
    const byWords = await found('q=outras&category=bebidas&limit=50');
    expect(byWords).toEqual(drinks);
    // "cerveja" outside the drinks chapter: brewing waste (chapter 23) and no beer.
    const waste = await found('q=cerveja&category=23');
    expect(waste.length).toBeGreaterThan(0);
    expect(waste.every((m) => m.code.startsWith('23'))).toBe(true);
    expect(await found('q=cerveja&category=nada%20assim')).toEqual([]);
  });

  it('limit: 10 by default, as asked up to 50', async () => {
    expect(await found('q=leite')).toHaveLength(10);
    expect(await found('q=leite&limit=3')).toHaveLength(3);
    expect((await found('q=84&limit=50')).length).toBe(50);
  });

  it('400 on a missing or empty q, punctuation only, a limit out of range', async () => {
    for (const query of ['', 'q=', 'q=%20', 'q=...', 'q=leite&limit=0', 'q=leite&limit=51', 'q=leite&limit=dez', `q=${'a'.repeat(101)}`, 'q=leite&category=']) {
      const res = await search(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message, query).toMatch(/querystring/);
    }
  });

  it('401 without a token, 403 to staff and the accountant and to another tenant’s admin; the superadmin passes', async () => {
    expect((await search('q=cerveja', {})).statusCode).toBe(401);
    expect((await search('q=cerveja', team.staff.headers)).statusCode).toBe(403);
    expect((await search('q=cerveja', team.accountant.headers)).statusCode).toBe(403);
    const other = await makeTenantWithTeam(t.app);
    expect((await search('q=cerveja', other.admin.headers)).statusCode).toBe(403);
    const sa = await makeSuperadmin(t.app);
    expect((await search('q=cerveja', sa.headers)).statusCode).toBe(200);
  });
});

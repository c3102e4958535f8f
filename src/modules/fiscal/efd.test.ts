import { describe, expect, it } from 'vitest';
import { checkEfd } from './efd.check.js';
import { efdContribuicoes, efdContribuicoesLines, pct, regimeOf } from './efd.contribuicoes.js';
import { c190Of, efdIcms, efdIcmsLines, icmsLayoutVersion } from './efd.icms.js';
import { cstIcms, itemOf, taxesOf, type EfdInput } from './efd.model.js';
import { allocate, money, text } from './efd.text.js';

const company = { name: 'Cantina São João – Ltda', cnpj: '11222333000181', uf: 'SP', ie: '110042490114', cep: '01310-100', address: 'Av. Paulista', addressNumber: '1000', district: 'Bela Vista', email: 'a@b.c', regime: 'regime_normal' };
const items = [
  itemOf({ code: 'X1', description: 'X-Burguer | duplo', ncm: '2106.90.90', cfop: '5.102', quantity: 2, unit: 'un', unitCents: 2000, totalCents: 4000, taxCode: '00' }, 0),
  itemOf({ code: 'REF', description: 'Refrigerante', ncm: '22021000', cfop: '5405', quantity: 3, unitCents: 333, taxCode: '40' }, 1),
];
const doc = (n: number, model: 55 | 65, status: 'authorized' | 'cancelled' = 'authorized') => ({
  model, series: 1, number: n, key: String(n).padStart(44, '3'), status, date: '2026-02-10', totalCents: 4999, customerCpf: model === 55 ? '529.982.247-25' : null, items,
  taxes: taxesOf({ icmsBaseCents: 4000, icmsCents: 720, icmsRate: 18, pisCents: 'x' }),
});
const input = (docs: EfdInput['documents']): EfdInput => ({ company, start: '2026-02-01', end: '2026-02-28', documents: docs, voids: [{ model: 65, series: 1, numberFrom: 9, numberTo: 9 }] });

describe('EFD writers and checker', () => {
  it('a month without documents is still a complete file (every block opened and closed, E110 with zeros)', () => {
    const empty: EfdInput = { ...input([]), voids: [] };
    expect(checkEfd(efdIcms(empty), 'icms').errors).toEqual([]);
    expect(checkEfd(efdContribuicoes(empty), 'contribuicoes').errors).toEqual([]);
    expect(efdIcmsLines(empty)).toContain('|C001|1|');
    expect(efdIcmsLines(empty)).toContain('|E110|0,00|0,00|0,00|0,00|0,00|0,00|0,00|0,00|0,00|0,00|0,00|0,00|0,00|0,00|');
    expect(efdIcmsLines(empty).some((l) => l.startsWith('|E116|'))).toBe(false);
  });

  it('documents, a cancelled one and a voided number pass the checker; the text is Latin-1 with CR LF', () => {
    const data = input([doc(1, 65), doc(2, 55), doc(3, 65, 'cancelled')]);
    const icms = efdIcms(data);
    expect(checkEfd(icms, 'icms').errors).toEqual([]);
    expect(checkEfd(efdContribuicoes(data), 'contribuicoes').errors).toEqual([]);
    const lines = icms.toString('latin1').split('\r\n');
    expect(lines[0]).toBe('|0000|020|0|01022026|28022026|Cantina São João - Ltda|11222333000181||SP|110042490114|||||A|1|'.replace('|||||A', '||||A'));
    expect(lines).toContain('|C100|1|0||65|05|001|9||||||||||||||||||||||');
    expect(icms.includes(Buffer.from('São', 'latin1'))).toBe(true);
    // Items sum 4999 (3 x 3,33 = 999): VL_OPR adds up to VL_DOC.
    expect(lines.filter((l) => l.startsWith('|C190|')).slice(0, 2)).toEqual([
      '|C190|000|5102|18,00|40,00|40,00|7,20|0,00|0,00|0,00|0,00||',
      '|C190|040|5405|0,00|9,99|0,00|0,00|0,00|0,00|0,00|0,00||',
    ]);
    expect(efdContribuicoesLines(data)).toContain('|0200|X1|X-Burguer duplo|||UN|00|21069090||21|||');
  });

  it('rejects a wrong 9999, a wrong block count, an unknown register, a field too many and a C100 child out of place', () => {
    const lines = efdIcmsLines(input([doc(1, 65)]));
    const enc = (ls: string[]) => Buffer.from(ls.map((l) => `${l}\r\n`).join(''), 'latin1');
    const set = (pred: (l: string) => boolean, to: string) => lines.map((l) => (pred(l) ? to : l));
    expect(checkEfd(enc(set((l) => l.startsWith('|9999|'), '|9999|1|')), 'icms').errors.join()).toMatch(/9999 says 1/);
    expect(checkEfd(enc(set((l) => l.startsWith('|C990|'), '|C990|99|')), 'icms').errors.join()).toMatch(/C990 says 99/);
    expect(checkEfd(enc(set((l) => l.startsWith('|D001|'), '|D002|1|')), 'icms').errors.join()).toMatch(/unknown register D002/);
    expect(checkEfd(enc(set((l) => l.startsWith('|E100|'), '|E100|01022026|28022026|x|')), 'icms').errors.join()).toMatch(/E100 has 4 fields/);
    const c190 = lines.findIndex((l) => l.startsWith('|C190|'));
    const moved = [...lines];
    const [row] = moved.splice(c190, 1);
    moved.splice(moved.findIndex((l) => l.startsWith('|C100|')), 0, row!);
    expect(checkEfd(enc(moved), 'icms').errors.join()).toMatch(/C190 \(level 3\) must follow C100/);
    expect(checkEfd(Buffer.from(lines.join('\n'), 'latin1'), 'icms').ok).toBe(false);
  });

  it('small rules: CST mapping, allocation, money, text, layout version, regimes', () => {
    expect(cstIcms('00', true)).toBe('000');
    expect(cstIcms('060', false)).toBe('060');
    expect(cstIcms('', true)).toBe('000');
    expect(cstIcms('', false)).toBe('041');
    expect(cstIcms('102', false, true)).toBe('090');
    expect(cstIcms('500', false, true)).toBe('060');
    expect(allocate(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(allocate(5, [0, 0])).toEqual([3, 2]);
    expect(money(123456)).toBe('1234,56');
    expect(text('a|b\u{1F600}c')).toBe('a b?c');
    expect(icmsLayoutVersion('2025-01-31')).toBe('019');
    expect(icmsLayoutVersion('2026-01-31')).toBe('020');
    expect(regimeOf('lucro_real').pis).toBe(1.65);
    expect(regimeOf('regime_normal').cofins).toBe(3);
    expect(pct(10000, 0.65)).toBe(65);
    expect(c190Of({ ...doc(1, 65), items: [] }).map((r) => r.oprCents)).toEqual([4999]);
  });
});

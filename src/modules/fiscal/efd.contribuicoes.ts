import type { EfdInput, EfdItem } from './efd.model.js';
import { allocate, block, closeFile, ddmmaaaa, encode, line, money, rate, text } from './efd.text.js';

/**
 * The EFD-Contribuições (PIS/PASEP and COFINS) of a period, from its known layout (Guia Prático da
 * EFD-Contribuições, leiaute version 006; no copy in ../shared/reference): blocks 0, A, C, D, F, I, M, P, 1, 9.
 * The period's authorised NF-e and NFC-e sales are consolidated per item with C180 (sales by NF-e / NFC-e,
 * per item and model) + C181 (PIS) + C185 (COFINS) under C010 (IND_ESCRI 1, consolidated) — the guide's
 * option for sales documents of models 55 and 65 — so 0190/0200 describe every item; cancelled documents
 * are not revenue and are left out. M200/M210 (PIS) and M600/M610 (COFINS) hold the apuração at the
 * basic rates of the regime (0110): cumulative (Lucro Presumido) PIS 0.65% / COFINS 3%, non-cumulative
 * (Lucro Real) PIS 1.65% / COFINS 7.6%, on the items' values (CST 01), with no credits.
 */

export const CONTRIBUICOES_VERSION = '006';

export interface Regime {
  /** 0110.COD_INC_TRIB: 1 non-cumulative, 2 cumulative. */
  incidence: '1' | '2';
  pis: number;
  cofins: number;
  /** M210/M610.COD_CONT: 01 non-cumulative basic rate, 51 cumulative basic rate. */
  codCont: '01' | '51';
}

export function regimeOf(regime: string): Regime {
  return /real/i.test(regime) ? { incidence: '1', pis: 1.65, cofins: 7.6, codCont: '01' } : { incidence: '2', pis: 0.65, cofins: 3, codCont: '51' };
}

/** Percent of cents, rounded half up to the cent. */
export const pct = (cents: number, percent: number) => Math.round((cents * Math.round(percent * 10000)) / 1_000_000);

interface Consolidated {
  model: number;
  item: EfdItem;
  first: string;
  last: string;
  /** Value of the item in the model's sales, after the document's discount or extra share. */
  cents: number;
  byCfop: Map<string, number>;
}

export function efdContribuicoesLines(input: EfdInput): string[] {
  const { company, start, end } = input;
  const reg = regimeOf(company.regime);
  const sold = input.documents.filter((d) => d.status === 'authorized');

  // Per model and item code: the value sold in the period (items' totals, the document's total spread over them).
  const byItem = new Map<string, Consolidated>();
  for (const d of sold) {
    const values = d.items.length ? allocate(d.totalCents, d.items.map((i) => i.totalCents)) : [];
    d.items.forEach((item, idx) => {
      const k = `${d.model}|${item.code}`;
      const c = byItem.get(k) ?? { model: d.model, item, first: d.date, last: d.date, cents: 0, byCfop: new Map<string, number>() };
      c.first = d.date < c.first ? d.date : c.first;
      c.last = d.date > c.last ? d.date : c.last;
      c.cents += values[idx]!;
      c.byCfop.set(item.cfop, (c.byCfop.get(item.cfop) ?? 0) + values[idx]!);
      byItem.set(k, c);
    });
  }
  const consolidated = [...byItem.values()].sort((a, b) => a.model - b.model || a.item.code.localeCompare(b.item.code));
  const items = new Map<string, EfdItem>();
  for (const c of consolidated) if (!items.has(c.item.code)) items.set(c.item.code, c.item);
  const units = [...new Set([...items.values()].map((i) => i.unit))].sort();

  const b0 = [
    line(['0000', CONTRIBUICOES_VERSION, '0', '', '', ddmmaaaa(start), ddmmaaaa(end), text(company.name, 100), company.cnpj, company.uf, '', '', '00', '2']),
    line(['0001', '0']),
    line(['0110', reg.incidence, reg.incidence === '1' ? '1' : '', '1', reg.incidence === '2' ? '9' : '']),
    line(['0140', '', text(company.name, 100), company.cnpj, company.uf, text(company.ie, 14), '', '', '']),
    ...units.map((u) => line(['0190', text(u, 6), u === 'UN' ? 'Unidade' : `Unidade ${text(u, 6)}`])),
    ...[...items.values()]
      .sort((a, b) => a.code.localeCompare(b.code))
      .map((i) => line(['0200', text(i.code, 60), text(i.description), '', '', text(i.unit, 6), '00', i.ncm.slice(0, 8), '', i.ncm.slice(0, 2), '', ''])),
  ];

  const c: string[] = [line(['C001', consolidated.length ? '0' : '1'])];
  let revenue = 0;
  if (consolidated.length) {
    c.push(line(['C010', company.cnpj, '1']));
    for (const k of consolidated) {
      c.push(line(['C180', String(k.model), ddmmaaaa(k.first), ddmmaaaa(k.last), text(k.item.code, 60), k.item.ncm.slice(0, 8), '', money(k.cents)]));
      const cfops = [...k.byCfop].sort(([a], [b]) => a.localeCompare(b));
      const pis = cfops.map(([cfop, cents]) => ({ cfop, cents, tax: pct(cents, reg.pis) }));
      const cofins = cfops.map(([cfop, cents]) => ({ cfop, cents, tax: pct(cents, reg.cofins) }));
      for (const p of pis) c.push(line(['C181', '01', p.cfop, money(p.cents), money(0), money(p.cents), rate(reg.pis, 4), '', '', money(p.tax), '']));
      for (const p of cofins) c.push(line(['C185', '01', p.cfop, money(p.cents), money(0), money(p.cents), rate(reg.cofins, 4), '', '', money(p.tax), '']));
      revenue += k.cents;
    }
  }

  const nc = reg.incidence === '1';
  const m200 = (total: number) =>
    nc
      ? [money(total), money(0), money(0), money(total), money(0), money(0), money(total), money(0), money(0), money(0), money(0), money(total)]
      : [money(0), money(0), money(0), money(0), money(0), money(0), money(0), money(total), money(0), money(0), money(total), money(total)];
  const m210 = (r: string, tax: number, percent: number) =>
    line([r, reg.codCont, money(revenue), money(revenue), money(0), money(0), money(revenue), rate(percent, 4), '', '', money(tax), money(0), money(0), money(0), money(0), money(tax)]);
  // The apuração: base = the period's revenue (the C181/C185 bases), contribution = base x rate (rounded once, so it
  // may differ by a cent from the sum of the rounded C181/C185 values).
  const pisDue = pct(revenue, reg.pis);
  const cofinsDue = pct(revenue, reg.cofins);
  const m = [line(['M001', '0']), line(['M200', ...m200(pisDue)])];
  if (revenue > 0) m.push(m210('M210', pisDue, reg.pis));
  m.push(line(['M600', ...m200(cofinsDue)]));
  if (revenue > 0) m.push(m210('M610', cofinsDue, reg.cofins));

  return closeFile([
    ...block('0990', b0),
    ...block('A990', [line(['A001', '1'])]),
    ...block('C990', c),
    ...block('D990', [line(['D001', '1'])]),
    ...block('F990', [line(['F001', '1'])]),
    ...block('I990', [line(['I001', '1'])]),
    ...block('M990', m),
    ...block('P990', [line(['P001', '1'])]),
    ...block('1990', [line(['1001', '1'])]),
  ]);
}

export const efdContribuicoes = (input: EfdInput): Buffer => encode(efdContribuicoesLines(input));

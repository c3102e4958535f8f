import { cstIcms, TAXED_CST, type EfdDocument, type EfdInput } from './efd.model.js';
import { allocate, block, closeFile, ddmmaaaa, digits, encode, line, money, rate, text } from './efd.text.js';

/**
 * The EFD ICMS/IPI (SPED Fiscal) of a period, from the Guia Prático EFD-ICMS/IPI 3.0.1
 * (../shared/reference/efd-icms-ipi-guia-pratico-3.0.1.txt) for a restaurant that only sells with its own
 * NF-e (55) and NFC-e (65): blocks 0, B, C, D, E, G, H, K, 1, 9 in that order, each opened and closed.
 * Own-emission NF-e and NFC-e are C100 + C190 only (C100 exceptions 2 and 9: no C170, so no 0190/0200);
 * cancelled ones are C100 with the key fields only (exception 1, COD_SIT 02), voided numbers are C100
 * COD_SIT 05 without key; E100/E110 (always required) hold the period's ICMS debits, E116 what is due.
 * docs: /tmp/acc/decisions-exports-efd.md.
 */

/** COD_VER (Ato COTEPE table of layout versions) by the year of DT_FIN. */
export function icmsLayoutVersion(end: string): string {
  const year = Number(end.slice(0, 4));
  if (year >= 2026) return '020';
  if (year <= 2019) return '013';
  return String(year - 2006).padStart(3, '0');
}

export interface C190Row {
  cst: string;
  cfop: string;
  aliq: number;
  oprCents: number;
  baseCents: number;
  icmsCents: number;
}

/**
 * A document's C190 rows: its items grouped by CST, CFOP and rate. VL_OPR adds the items' totals and
 * spreads the difference to the document's total (discount or service charge) so the rows add up to
 * VL_DOC; the document's ICMS base and value are spread over the taxed rows (CST x00, x10, x20, x51,
 * x70, x90; all rows when none is) in proportion to their totals, with the document's rate.
 */
export function c190Of(doc: EfdDocument, simples = false): C190Row[] {
  const hasIcms = doc.taxes.icmsCents > 0;
  const groups = new Map<string, { cst: string; cfop: string; items: number }>();
  for (const item of doc.items) {
    const cst = cstIcms(item.taxCode, hasIcms, simples);
    const k = `${cst}|${item.cfop}`;
    const g = groups.get(k) ?? { cst, cfop: item.cfop, items: 0 };
    g.items += item.totalCents;
    groups.set(k, g);
  }
  if (groups.size === 0) groups.set(`${hasIcms ? '000' : '041'}|5102`, { cst: hasIcms ? '000' : '041', cfop: '5102', items: 0 });
  const list = [...groups.values()];
  const itemsTotal = list.reduce((s, g) => s + g.items, 0);
  const opr = doc.totalCents >= itemsTotal
    ? allocate(doc.totalCents - itemsTotal, list.map((g) => g.items)).map((extra, i) => list[i]!.items + extra)
    : (() => {
        const cut = allocate(itemsTotal - doc.totalCents, list.map((g) => g.items));
        return list.map((g, i) => g.items - cut[i]!);
      })();
  const taxed = list.map((g) => TAXED_CST.has(g.cst.slice(1)));
  const anyTaxed = taxed.some(Boolean);
  const weight = list.map((_, i) => (anyTaxed && !taxed[i] ? 0 : opr[i]!));
  const base = allocate(doc.taxes.icmsBaseCents, weight);
  const icms = allocate(doc.taxes.icmsCents, weight);
  return list.map((g, i) => ({
    cst: g.cst,
    cfop: g.cfop,
    aliq: icms[i]! > 0 ? doc.taxes.icmsRate : 0,
    oprCents: Math.max(0, opr[i]!),
    baseCents: base[i]!,
    icmsCents: icms[i]!,
  }));
}

const isSimples = (regime: string) => /simples|mei/i.test(regime) || ['1', '2', '4'].includes(regime);
const series3 = (series: number) => String(series).padStart(3, '0');
/** The participant code of an NF-e's customer (0150). */
const partOf = (cpf: string) => `CPF${cpf}`;

/** The due date of the month's ICMS (E116.DT_VCTO): the 10th of the following month (states vary; the accountant adjusts). */
function dueDate(end: string): string {
  const d = new Date(`${end.slice(0, 7)}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1);
  d.setUTCDate(10);
  return d.toISOString().slice(0, 10);
}

export function efdIcmsLines(input: EfdInput): string[] {
  const { company, start, end } = input;
  const simples = isSimples(company.regime);
  const version = icmsLayoutVersion(end);
  const docs = [...input.documents].sort((a, b) => a.model - b.model || a.series - b.series || a.number - b.number);

  // Block 0: the company, and a participant per NF-e customer with a CPF (never for NFC-e: 0150 note).
  const participants = new Map<string, string>();
  for (const d of docs) if (d.model === 55 && d.status === 'authorized' && d.customerCpf) participants.set(partOf(digits(d.customerCpf)), digits(d.customerCpf));
  const b0 = [
    line(['0000', version, '0', ddmmaaaa(start), ddmmaaaa(end), text(company.name, 100), company.cnpj, '', company.uf, text(company.ie, 14), '', '', '', 'A', '1']),
    line(['0001', '0']),
    line(['0005', text(company.name, 60), digits(company.cep).slice(0, 8), text(company.address, 60), text(company.addressNumber, 10), '', text(company.district, 60), '', '', text(company.email)]),
    ...[...participants].map(([code, cpf]) => line(['0150', code, 'Consumidor final', '01058', '', cpf, '', '', '', '', '', '', ''])),
  ];

  // Block C: one C100 per document, C190 children per CST/CFOP/rate.
  const c: string[] = [line(['C001', docs.length || input.voids.length ? '0' : '1'])];
  let debits = 0;
  for (const d of docs) {
    const mod = String(d.model);
    if (d.status === 'cancelled') {
      c.push(line(['C100', '1', '0', '', mod, '02', series3(d.series), d.number, d.key, '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '']));
      continue;
    }
    const rows = c190Of(d, simples);
    const itemsTotal = d.items.reduce((s, i) => s + i.totalCents, 0);
    const nfce = d.model === 65;
    const cpf = d.customerCpf ? digits(d.customerCpf) : '';
    const icms = rows.reduce((s, r) => s + r.icmsCents, 0);
    const base = rows.reduce((s, r) => s + r.baseCents, 0);
    debits += icms;
    c.push(
      line([
        'C100', '1', '0', nfce || !cpf ? '' : partOf(cpf), mod, '00', series3(d.series), d.number, d.key, ddmmaaaa(d.date), ddmmaaaa(d.date),
        money(d.totalCents), '0', money(Math.max(0, itemsTotal - d.totalCents)), money(0), money(itemsTotal), '9', money(0), money(0),
        money(Math.max(0, d.totalCents - itemsTotal)), money(base), money(icms),
        // NFC-e: no ST, IPI, PIS, COFINS fields (exception 9); NF-e: PIS/COFINS as sent.
        nfce ? '' : money(0), nfce ? '' : money(0), nfce ? '' : money(0), nfce ? '' : money(d.taxes.pisCents), nfce ? '' : money(d.taxes.cofinsCents),
        nfce ? '' : money(0), nfce ? '' : money(0),
      ]),
    );
    for (const r of rows) {
      c.push(line(['C190', r.cst, r.cfop, rate(r.aliq), money(r.oprCents), money(r.baseCents), money(r.icmsCents), money(0), money(0), money(0), money(0), '']));
    }
  }
  for (const v of [...input.voids].sort((a, b) => a.model - b.model || a.series - b.series || a.numberFrom - b.numberFrom)) {
    for (let n = v.numberFrom; n <= v.numberTo; n++) {
      c.push(line(['C100', '1', '0', '', String(v.model), '05', series3(v.series), n, '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '']));
    }
  }

  // Block E: the ICMS of own operations (E110 always, zeros without movement); E116 when something is due.
  const e = [
    line(['E001', '0']),
    line(['E100', ddmmaaaa(start), ddmmaaaa(end)]),
    line(['E110', money(debits), money(0), money(0), money(0), money(0), money(0), money(0), money(0), money(0), money(debits), money(0), money(debits), money(0), money(0)]),
  ];
  if (debits > 0) e.push(line(['E116', '000', money(debits), ddmmaaaa(dueDate(end)), '', '', '', '', '', `${end.slice(5, 7)}${end.slice(0, 4)}`]));

  // Block 1: 1010 is required of everyone; every answer N (field 14 from layout 014 on).
  const r1010 = ['1010', 'N', 'N', 'N', 'N', 'N', 'N', 'N', 'N', 'N', 'N', 'N', 'N'];
  if (Number(version) >= 14) r1010.push('N');

  return closeFile([
    ...block('0990', b0),
    ...block('B990', [line(['B001', '1'])]),
    ...block('C990', c),
    ...block('D990', [line(['D001', '1'])]),
    ...block('E990', e),
    ...block('G990', [line(['G001', '1'])]),
    ...block('H990', [line(['H001', '1'])]),
    ...block('K990', [line(['K001', '1'])]),
    ...block('1990', [line(['1001', '0']), line(r1010)]),
  ]);
}

export const efdIcms = (input: EfdInput): Buffer => encode(efdIcmsLines(input));

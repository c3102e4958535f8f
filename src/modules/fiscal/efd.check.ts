import { centsOf, isoOf } from './efd.text.js';

/**
 * A structural check of the EFD files, written from the Guia Prático EFD-ICMS/IPI 3.0.1 (and the known
 * EFD-Contribuições layout for its registers): the bytes (ISO-8859-1, CR LF, `|` at both ends), the known
 * registers and their field counts, the order of the blocks and the hierarchy of registers (level and
 * parent), each block opened by X001 and closed by X990 with its line count, 9900 = the actual count of
 * every register type, 9990 and 9999; for ICMS, each C100 with its C190 adding up to the document's
 * VL_DOC / VL_BC_ICMS / VL_ICMS, cancelled / voided C100 without values or children, E110's debits = the
 * C190 ICMS; for Contribuições, C181/C185 = their C180, M210/M610 bases = the C181/C185 bases, contribution = base x rate, M200/M600 = their details.
 */

export type EfdKind = 'icms' | 'contribuicoes';

interface Spec {
  level: number;
  fields: number;
  parents?: string[];
}

const COMMON: Record<string, Spec> = {
  '0000': { level: 0, fields: 15 },
  '0001': { level: 1, fields: 2 },
  '0990': { level: 1, fields: 2 },
  9001: { level: 1, fields: 2 },
  9900: { level: 2, fields: 3, parents: ['9001'] },
  9990: { level: 1, fields: 2 },
  9999: { level: 0, fields: 2 },
};
const opening = (blocks: string[]) =>
  Object.fromEntries(blocks.flatMap((b) => [[`${b}001`, { level: 1, fields: 2 }], [`${b}990`, { level: 1, fields: 2 }]])) as Record<string, Spec>;

const SPECS: Record<EfdKind, { blocks: string[]; registers: Record<string, Spec> }> = {
  icms: {
    blocks: ['0', 'B', 'C', 'D', 'E', 'G', 'H', 'K', '1', '9'],
    registers: {
      ...COMMON,
      ...opening(['B', 'C', 'D', 'E', 'G', 'H', 'K', '1']),
      '0005': { level: 2, fields: 10, parents: ['0001'] },
      '0100': { level: 2, fields: 14, parents: ['0001'] },
      '0150': { level: 2, fields: 13, parents: ['0001'] },
      '0190': { level: 2, fields: 3, parents: ['0001'] },
      '0200': { level: 2, fields: 13, parents: ['0001'] },
      C100: { level: 2, fields: 29, parents: ['C001'] },
      C170: { level: 3, fields: 38, parents: ['C100'] },
      C190: { level: 3, fields: 12, parents: ['C100'] },
      E100: { level: 2, fields: 3, parents: ['E001'] },
      E110: { level: 3, fields: 15, parents: ['E100'] },
      E116: { level: 4, fields: 10, parents: ['E110'] },
      1010: { level: 2, fields: 14, parents: ['1001'] },
    },
  },
  contribuicoes: {
    blocks: ['0', 'A', 'C', 'D', 'F', 'I', 'M', 'P', '1', '9'],
    registers: {
      ...COMMON,
      '0000': { level: 0, fields: 14 },
      ...opening(['A', 'C', 'D', 'F', 'I', 'M', 'P', '1']),
      '0100': { level: 2, fields: 14, parents: ['0001'] },
      '0110': { level: 2, fields: 5, parents: ['0001'] },
      '0140': { level: 2, fields: 9, parents: ['0001'] },
      '0150': { level: 3, fields: 13, parents: ['0140'] },
      '0190': { level: 3, fields: 3, parents: ['0140'] },
      '0200': { level: 3, fields: 12, parents: ['0140'] },
      C010: { level: 2, fields: 3, parents: ['C001'] },
      C180: { level: 3, fields: 8, parents: ['C010'] },
      C181: { level: 4, fields: 11, parents: ['C180'] },
      C185: { level: 4, fields: 11, parents: ['C180'] },
      M200: { level: 2, fields: 13, parents: ['M001'] },
      M210: { level: 3, fields: 16, parents: ['M200'] },
      M600: { level: 2, fields: 13, parents: ['M001'] },
      M610: { level: 3, fields: 16, parents: ['M600'] },
    },
  },
};

export interface CheckResult {
  ok: boolean;
  errors: string[];
  warnings: string[];
}

interface Rec {
  n: number;
  reg: string;
  f: string[];
}

const blockOf = (reg: string) => (reg === '0000' ? '0' : reg === '9999' ? '9' : reg[0]!);

export function checkEfd(bytes: Buffer, kind: EfdKind): CheckResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const err = (n: number | null, msg: string) => errors.push(n === null ? msg : `line ${n}: ${msg}`);
  const warn = (n: number | null, msg: string) => warnings.push(n === null ? msg : `line ${n}: ${msg}`);
  const { blocks, registers } = SPECS[kind];

  // Bytes and lines.
  const body = bytes.toString('latin1');
  if (!body.endsWith('\r\n')) err(null, 'the file must end with CR LF');
  const raw = body.split('\r\n');
  if (raw[raw.length - 1] === '') raw.pop();
  const recs: Rec[] = [];
  raw.forEach((l, i) => {
    const n = i + 1;
    if (/[\r\n]/.test(l)) return err(n, 'a line break other than CR LF');
    if (!l.startsWith('|') || !l.endsWith('|')) return err(n, 'a line must start and end with |');
    const f = l.slice(1, -1).split('|');
    recs.push({ n, reg: f[0]!, f });
  });
  if (recs.length === 0) return { ok: false, errors: [...errors, 'the file is empty'], warnings };

  // Registers, field counts, block order, hierarchy.
  const counts = new Map<string, number>();
  const stack: string[] = [];
  let blockIdx = -1;
  const blockLines = new Map<string, number>();
  for (const r of recs) {
    counts.set(r.reg, (counts.get(r.reg) ?? 0) + 1);
    const spec = registers[r.reg];
    if (!spec) {
      err(r.n, `unknown register ${r.reg}`);
      continue;
    }
    if (r.f.length !== spec.fields) err(r.n, `${r.reg} has ${r.f.length} fields, the layout has ${spec.fields}`);
    const b = blockOf(r.reg);
    blockLines.set(b, (blockLines.get(b) ?? 0) + 1);
    const idx = blocks.indexOf(b);
    if (idx < blockIdx) err(r.n, `${r.reg}: block ${b} after block ${blocks[blockIdx]} (order ${blocks.join(', ')})`);
    if (idx > blockIdx) {
      const skipped = blocks.slice(blockIdx + 1, idx);
      for (const s of skipped) err(r.n, `block ${s} is missing (every block is opened and closed)`);
      const opener = b === '0' ? '0000' : `${b}001`;
      if (r.reg !== opener && !(b === '0' && r.reg === '0001' && blockIdx === 0)) err(r.n, `block ${b} must open with ${opener}, not ${r.reg}`);
      blockIdx = idx;
    }
    // Hierarchy: the parent is the last register one level up.
    stack.length = spec.level;
    if (spec.parents) {
      const parent = stack[spec.level - 1];
      if (!parent || !spec.parents.includes(parent)) err(r.n, `${r.reg} (level ${spec.level}) must follow ${spec.parents.join(' or ')}, found under ${parent ?? 'nothing'}`);
    } else if (spec.level === 1 && stack[0] !== '0000' && r.reg !== '9999') {
      err(r.n, `${r.reg} before 0000`);
    }
    stack[spec.level] = r.reg;
  }
  if (recs[0]!.reg !== '0000') err(recs[0]!.n, 'the first register must be 0000');
  if (recs[recs.length - 1]!.reg !== '9999') err(recs[recs.length - 1]!.n, 'the last register must be 9999');
  for (const b of blocks) {
    const open = b === '0' ? '0001' : `${b}001`;
    if ((counts.get(open) ?? 0) !== 1) err(null, `${open} must appear exactly once`);
    if ((counts.get(`${b}990`) ?? 0) !== 1) err(null, `${b}990 must appear exactly once`);
  }
  for (const reg of ['0000', '9999']) if ((counts.get(reg) ?? 0) !== 1) err(null, `${reg} must appear exactly once`);

  // Block closings: X990 counts the block's lines, its opening and closing (0000 in block 0, 9999 in block 9).
  for (const r of recs.filter((x) => x.reg.endsWith('990') && registers[x.reg])) {
    const b = blockOf(r.reg);
    const actual = blockLines.get(b) ?? 0;
    if (r.f[1] !== String(actual)) err(r.n, `${r.reg} says ${r.f[1]} lines, block ${b} has ${actual}`);
  }
  // 9900: one per register type, with its count; 9999: every line.
  const declared = new Map<string, Rec>();
  for (const r of recs.filter((x) => x.reg === '9900')) {
    const reg = r.f[1]!;
    if (declared.has(reg)) err(r.n, `9900 for ${reg} given twice`);
    declared.set(reg, r);
    if (r.f[2] !== String(counts.get(reg) ?? 0)) err(r.n, `9900 says ${r.f[2]} ${reg}, the file has ${counts.get(reg) ?? 0}`);
  }
  for (const reg of counts.keys()) if (!declared.has(reg)) err(null, `no 9900 for ${reg}`);
  const last = recs[recs.length - 1]!;
  if (last.reg === '9999' && last.f[1] !== String(raw.length)) err(last.n, `9999 says ${last.f[1]} lines, the file has ${raw.length}`);

  // 0000: the period.
  const head = recs[0]!;
  if (head.reg === '0000') {
    const [ini, fin] = kind === 'icms' ? [head.f[3]!, head.f[4]!] : [head.f[5]!, head.f[6]!];
    const a = isoOf(ini);
    const z = isoOf(fin);
    if (!a || !z) err(head.n, '0000: DT_INI and DT_FIN must be real dates ddmmaaaa');
    else if (a.slice(0, 7) !== z.slice(0, 7) || z < a) err(head.n, '0000: DT_FIN must be in the month of DT_INI, not before it');
    if (!/^\d{14}$/.test(kind === 'icms' ? head.f[6]! : head.f[8]!)) err(head.n, '0000: CNPJ must have 14 digits');
  }
  const m = (v: string | undefined, n: number, what: string) => {
    const c = centsOf(v ?? '');
    if (c === null) err(n, `${what}: ${JSON.stringify(v)} is not an amount (digits, decimal comma)`);
    return c ?? 0;
  };

  if (kind === 'icms') checkIcms(recs, m, err, warn);
  else checkContribuicoes(recs, m, err);
  return { ok: errors.length === 0, errors, warnings };
}

type Money = (v: string | undefined, n: number, what: string) => number;
type Report = (n: number | null, msg: string) => void;

function checkIcms(recs: Rec[], m: Money, err: Report, warn: Report) {
  let icmsTotal = 0;
  const parts = new Set(recs.filter((r) => r.reg === '0150').map((r) => r.f[1]));
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i]!;
    if (r.reg !== 'C100') continue;
    const children: Rec[] = [];
    for (let j = i + 1; j < recs.length && ['C170', 'C190'].includes(recs[j]!.reg); j++) children.push(recs[j]!);
    const sit = r.f[5];
    const mod = r.f[4];
    if (sit === '02' || sit === '05') {
      // Exception 1: key fields only, no children (COD_SIT 05 without the key).
      const kept = sit === '02' ? [1, 2, 4, 5, 6, 7, 8] : [1, 2, 4, 5, 6, 7];
      r.f.forEach((v, k) => {
        if (k > 0 && !kept.includes(k) && v !== '') err(r.n, `C100 COD_SIT ${sit}: field ${k + 1} must be empty`);
      });
      if (sit === '02' && !/^\d{44}$/.test(r.f[8] ?? '')) err(r.n, 'C100 COD_SIT 02: CHV_NFE must have 44 digits');
      if (children.length) err(children[0]!.n, `C100 COD_SIT ${sit} must not have child registers`);
      continue;
    }
    if (!/^\d{44}$/.test(r.f[8] ?? '')) err(r.n, 'C100: CHV_NFE must have 44 digits');
    if (mod === '65' && r.f[3] !== '') err(r.n, 'C100 NFC-e: COD_PART must be empty');
    if (r.f[3] && !parts.has(r.f[3])) err(r.n, `C100: COD_PART ${r.f[3]} is not in a 0150`);
    if (mod === '65' && children.some((c) => c.reg === 'C170')) err(r.n, 'C100 NFC-e: C100 + C190 only (no C170)');
    const rows = children.filter((c) => c.reg === 'C190');
    if (rows.length === 0) {
      err(r.n, 'C100 without C190');
      continue;
    }
    const keys = new Set<string>();
    let opr = 0;
    let base = 0;
    let icms = 0;
    for (const c of rows) {
      const k = `${c.f[1]}|${c.f[2]}|${c.f[3]}`;
      if (keys.has(k)) err(c.n, `C190 ${k} twice in one document`);
      keys.add(k);
      if (!/^\d{3}$/.test(c.f[1] ?? '')) err(c.n, 'C190: CST_ICMS must have 3 digits');
      if (!/^[567]\d{3}$/.test(c.f[2] ?? '')) err(c.n, 'C190: an output CFOP starts with 5, 6 or 7');
      if (mod === '65' && !(c.f[2] ?? '').startsWith('5')) err(c.n, 'C190 NFC-e: only CFOP 5xxx');
      opr += m(c.f[4], c.n, 'C190 VL_OPR');
      base += m(c.f[5], c.n, 'C190 VL_BC_ICMS');
      icms += m(c.f[6], c.n, 'C190 VL_ICMS');
    }
    if (opr !== m(r.f[11], r.n, 'C100 VL_DOC')) err(r.n, 'C100 VL_DOC differs from the sum of its C190 VL_OPR');
    if (base !== m(r.f[20], r.n, 'C100 VL_BC_ICMS')) err(r.n, 'C100 VL_BC_ICMS differs from the sum of its C190 VL_BC_ICMS');
    if (icms !== m(r.f[21], r.n, 'C100 VL_ICMS')) err(r.n, 'C100 VL_ICMS differs from the sum of its C190 VL_ICMS');
    icmsTotal += icms;
  }
  const e110 = recs.find((r) => r.reg === 'E110');
  if (!recs.some((r) => r.reg === 'E100') || !e110) err(null, 'E100 and E110 are always required');
  else {
    if (m(e110.f[1], e110.n, 'E110 VL_TOT_DEBITOS') !== icmsTotal) err(e110.n, 'E110 VL_TOT_DEBITOS differs from the sum of the C190 VL_ICMS');
    const due = m(e110.f[12], e110.n, 'E110 VL_ICMS_RECOLHER') + m(e110.f[14], e110.n, 'E110 DEB_ESP');
    const paid = recs.filter((r) => r.reg === 'E116').reduce((s, r) => s + m(r.f[2], r.n, 'E116 VL_OR'), 0);
    if (due !== paid) err(e110.n, 'the E116 VL_OR must add up to E110 VL_ICMS_RECOLHER + DEB_ESP');
  }
  if (!recs.some((r) => r.reg === '0100')) warn(null, '0100 (accountant) is not in the file: the PVA asks for it');
}

function checkContribuicoes(recs: Rec[], m: Money, err: Report) {
  const bases = { pis: 0, cofins: 0 };
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i]!;
    if (r.reg !== 'C180') continue;
    const total = m(r.f[7], r.n, 'C180 VL_TOT_ITEM');
    const pis: Rec[] = [];
    const cofins: Rec[] = [];
    for (let j = i + 1; j < recs.length && ['C181', 'C185'].includes(recs[j]!.reg); j++) (recs[j]!.reg === 'C181' ? pis : cofins).push(recs[j]!);
    for (const [rows, key] of [[pis, 'pis'], [cofins, 'cofins']] as const) {
      if (rows.length === 0) err(r.n, `C180 without ${key === 'pis' ? 'C181' : 'C185'}`);
      let items = 0;
      for (const c of rows) {
        const bc = m(c.f[5], c.n, `${c.reg} VL_BC`);
        items += m(c.f[3], c.n, `${c.reg} VL_ITEM`);
        const aliq = Number((c.f[6] ?? '').replace(',', '.'));
        const tax = m(c.f[9], c.n, `${c.reg} VL`);
        if (Math.abs(Math.round((bc * aliq) / 100) - tax) > 1) err(c.n, `${c.reg}: VL is not VL_BC x ALIQ`);
        bases[key] += bc;
      }
      if (rows.length && items !== total) err(r.n, `C180 VL_TOT_ITEM differs from the sum of its ${key === 'pis' ? 'C181' : 'C185'} VL_ITEM`);
    }
  }
  for (const [reg, det, key] of [['M200', 'M210', 'pis'], ['M600', 'M610', 'cofins']] as const) {
    const r = recs.find((x) => x.reg === reg);
    if (!r) {
      err(null, `${reg} is required`);
      continue;
    }
    const details = recs.filter((x) => x.reg === det);
    const total = m(r.f[12], r.n, `${reg} VL_TOT_CONT_REC`);
    const perDetail = details.reduce((s, d) => s + m(d.f[15], d.n, `${det} VL_CONT_PER`), 0);
    if (total !== perDetail) err(r.n, `${reg} VL_TOT_CONT_REC differs from the sum of its ${det} VL_CONT_PER`);
    const base = details.reduce((s, d) => s + m(d.f[6], d.n, `${det} VL_BC_CONT_AJUS`), 0);
    if (base !== bases[key]) err(r.n, `the ${det} bases differ from the sum of the ${key === 'pis' ? 'C181' : 'C185'} VL_BC`);
    for (const d of details) {
      const aliq = Number((d.f[7] ?? '').replace(',', '.'));
      if (Math.round((m(d.f[6], d.n, det) * aliq) / 100) !== m(d.f[10], d.n, `${det} VL_CONT_APUR`)) err(d.n, `${det}: VL_CONT_APUR is not VL_BC_CONT_AJUS x ALIQ`);
    }
  }
}

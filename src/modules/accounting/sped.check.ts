import { centsOf, isoOf } from './sped.text.js';

/**
 * A structural check of an ECD file, written from the layout manual (leiaute 8, chapters 2 and 3): the
 * bytes (ISO-8859-1, CR LF, `|` at both ends), the known registers and their field counts, the order and
 * hierarchy of registers and blocks, the block and file counts (x990, 9900, 9999, QTD_LIN), the plan of
 * accounts (I050), the balances (I155), the entries (I200 = its I250), the closing (I350/I355) and the
 * statements (J100/J150). Each problem names the PVA rule it stands for. Warnings are what the PVA
 * flags without refusing (or what the export leaves to the PVA: the accountant's signature).
 */

interface RegisterSpec {
  level: number;
  /** Field count (REG included), when the checker knows the register's fields. */
  fields?: number;
  parents?: string[];
}

const I010_CHILDREN = ['I010'];
const REGISTERS: Record<string, RegisterSpec> = {
  '0000': { level: 0, fields: 23 },
  '0001': { level: 1, fields: 2 },
  '0007': { level: 2, fields: 3, parents: ['0001'] },
  '0020': { level: 2, parents: ['0001'] },
  '0035': { level: 2, parents: ['0001'] },
  '0150': { level: 2, parents: ['0001'] },
  '0180': { level: 3, parents: ['0150'] },
  '0990': { level: 1, fields: 2 },
  C001: { level: 1, fields: 2 },
  C040: { level: 2, parents: ['C001'] },
  C150: { level: 3, parents: ['C040'] },
  C155: { level: 4, parents: ['C150'] },
  C600: { level: 3, parents: ['C040'] },
  C650: { level: 4, parents: ['C600'] },
  C990: { level: 1, fields: 2 },
  I001: { level: 1, fields: 2 },
  I010: { level: 2, fields: 3, parents: ['I001'] },
  I012: { level: 3, parents: I010_CHILDREN },
  I015: { level: 4, parents: ['I012'] },
  I020: { level: 3, parents: I010_CHILDREN },
  I030: { level: 3, fields: 12, parents: I010_CHILDREN },
  I050: { level: 3, fields: 8, parents: I010_CHILDREN },
  I051: { level: 4, fields: 3, parents: ['I050'] },
  I052: { level: 4, fields: 3, parents: ['I050'] },
  I053: { level: 4, parents: ['I050'] },
  I075: { level: 3, fields: 3, parents: I010_CHILDREN },
  I100: { level: 3, parents: I010_CHILDREN },
  I150: { level: 3, fields: 3, parents: I010_CHILDREN },
  I151: { level: 4, parents: ['I150'] },
  I155: { level: 4, fields: 9, parents: ['I150'] },
  I157: { level: 5, fields: 5, parents: ['I155'] },
  I200: { level: 3, fields: 6, parents: I010_CHILDREN },
  I250: { level: 4, fields: 9, parents: ['I200'] },
  I300: { level: 3, parents: I010_CHILDREN },
  I310: { level: 4, parents: ['I300'] },
  I350: { level: 3, fields: 2, parents: I010_CHILDREN },
  I355: { level: 4, fields: 5, parents: ['I350'] },
  I500: { level: 3, parents: I010_CHILDREN },
  I510: { level: 3, parents: I010_CHILDREN },
  I550: { level: 3, parents: I010_CHILDREN },
  I555: { level: 4, parents: ['I550'] },
  I990: { level: 1, fields: 2 },
  J001: { level: 1, fields: 2 },
  J005: { level: 2, fields: 5, parents: ['J001'] },
  J100: { level: 3, fields: 12, parents: ['J005'] },
  J150: { level: 3, fields: 13, parents: ['J005'] },
  J210: { level: 3, parents: ['J005'] },
  J215: { level: 4, parents: ['J210'] },
  J800: { level: 3, parents: ['J005'] },
  J801: { level: 3, parents: ['J005'] },
  J900: { level: 2, fields: 8, parents: ['J001'] },
  J930: { level: 3, fields: 12, parents: ['J900'] },
  J932: { level: 3, parents: ['J900'] },
  J935: { level: 3, parents: ['J900'] },
  J990: { level: 1, fields: 2 },
  K001: { level: 1, fields: 2 },
  K030: { level: 2, parents: ['K001'] },
  K100: { level: 3, parents: ['K030'] },
  K110: { level: 4, parents: ['K100'] },
  K115: { level: 5, parents: ['K110'] },
  K200: { level: 2, parents: ['K001'] },
  K210: { level: 3, parents: ['K200'] },
  K300: { level: 3, parents: ['K200'] },
  K310: { level: 4, parents: ['K300'] },
  K315: { level: 5, parents: ['K310'] },
  K990: { level: 1, fields: 2 },
  9001: { level: 1, fields: 2 },
  9900: { level: 2, fields: 3, parents: ['9001'] },
  9990: { level: 1, fields: 2 },
  9999: { level: 0, fields: 2 },
};

/** Registers every book G file carries (chapter 3.5, column G: `O`). */
const MANDATORY_G = ['0000', '0001', '0007', '0990', 'I001', 'I010', 'I030', 'I050', 'I150', 'I155', 'I200', 'I250', 'I990', 'J001', 'J900', 'J930', 'J990', '9001', '9900', '9990', '9999'];
const ONCE = ['0000', '0001', '0990', 'I001', 'I010', 'I030', 'I990', 'J001', 'J900', 'J990', '9001', '9990', '9999'];
const BLOCKS = ['0', 'C', 'I', 'J', 'K', '9'];
const UFS = new Set('AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO'.split(' '));
const COD_NAT = new Set(['01', '02', '03', '04', '05', '09']);

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

const blockOf = (reg: string) => reg[0]!;
const dc = (amount: string, ind: string) => (centsOf(amount) ?? NaN) * (ind === 'C' ? -1 : 1);

export function checkEcd(bytes: Buffer): CheckResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const err = (n: number | null, msg: string) => errors.push(n === null ? msg : `line ${n}: ${msg}`);
  const warn = (n: number | null, msg: string) => warnings.push(n === null ? msg : `line ${n}: ${msg}`);

  // ---- bytes and lines (chapter 2.2)
  const content = bytes.toString('latin1');
  if (!content.endsWith('\r\n')) err(null, 'the file must end with CR LF');
  const raw = content.split('\r\n');
  if (raw[raw.length - 1] === '') raw.pop();
  const recs: Rec[] = [];
  raw.forEach((l, i) => {
    const n = i + 1;
    if (/[\r\n]/.test(l)) return err(n, 'a line break that is not CR LF');
    if ([...l].some((ch) => ch.charCodeAt(0) < 0x20 || (ch.charCodeAt(0) >= 0x7f && ch.charCodeAt(0) <= 0x9f))) err(n, 'a control character inside a field');
    if (!l.startsWith('|') || !l.endsWith('|') || l.length < 2) return err(n, 'a line must start and end with |');
    const f = l.slice(1, -1).split('|');
    const reg = f[0]!;
    const spec = REGISTERS[reg];
    if (!spec) return err(n, `unknown register ${JSON.stringify(reg)}`);
    if (spec.fields !== undefined && f.length !== spec.fields) err(n, `${reg} has ${f.length} fields, the layout has ${spec.fields}`);
    recs.push({ n, reg, f });
  });
  if (errors.length) return { ok: false, errors, warnings };

  // ---- order, hierarchy and blocks (chapters 2.2, 3.1, 3.2)
  const stack: string[] = [];
  const lastChild: (string | undefined)[] = [];
  let block: string | null = null;
  let lastBlock = -1;
  recs.forEach((r, i) => {
    const spec = REGISTERS[r.reg]!;
    if (i === 0 && r.reg !== '0000') err(r.n, 'the file must open with 0000');
    if (r.reg === '9999' && i !== recs.length - 1) err(r.n, '9999 must be the last line');
    if (spec.level === 0) {
      stack.length = 0;
      lastChild.length = 0;
      stack[0] = r.reg;
      return;
    }
    const parent = stack[spec.level - 1];
    if (!parent) err(r.n, `${r.reg} (level ${spec.level}) has no parent register of level ${spec.level - 1} before it`);
    else if (spec.parents && !spec.parents.includes(parent)) err(r.n, `${r.reg} must be under ${spec.parents.join(' or ')}, not ${parent}`);
    if (spec.level === 1) {
      const b = BLOCKS.indexOf(blockOf(r.reg));
      if (r.reg.endsWith('001')) {
        if (b <= lastBlock) err(r.n, `block ${blockOf(r.reg)} is out of order (blocks go 0, C, I, J, K, 9)`);
        if (block !== null) err(r.n, `block ${block} was not closed before block ${blockOf(r.reg)}`);
        block = blockOf(r.reg);
        lastBlock = b;
      } else if (r.reg.endsWith('990')) {
        if (block !== blockOf(r.reg)) err(r.n, `${r.reg} closes a block that is not open`);
        block = null;
      }
    } else if (block !== blockOf(r.reg)) {
      err(r.n, `${r.reg} is outside its block ${blockOf(r.reg)}`);
    }
    const prev = lastChild[spec.level];
    if (spec.level > 1 && prev !== undefined && prev > r.reg) err(r.n, `${r.reg} comes after ${prev}: registers go in ascending order`);
    lastChild[spec.level] = r.reg;
    stack[spec.level] = r.reg;
    stack.length = spec.level + 1;
    lastChild.length = spec.level + 1;
  });
  if (block !== null) err(null, `block ${block} is never closed`);
  if (recs[recs.length - 1]?.reg !== '9999') err(null, 'the file must end with 9999');

  const all = (reg: string) => recs.filter((r) => r.reg === reg);
  const one = (reg: string) => all(reg)[0];
  const counts = new Map<string, number>();
  for (const r of recs) counts.set(r.reg, (counts.get(r.reg) ?? 0) + 1);
  for (const reg of ONCE) if ((counts.get(reg) ?? 0) > 1) err(null, `${reg} must occur once (REGRA_OCORRENCIA_UNITARIA_ARQ)`);
  for (const reg of MANDATORY_G) if (!counts.has(reg)) err(null, `${reg} is required in a book G`);

  // ---- counts: x990, 9900, 9999 (REGRA_QTD_LIN_BLOCO*, REGRA_QTD_REG_BLC*, REGRA_QTD_LIN_ARQUIVO)
  for (const r of recs.filter((x) => x.reg.endsWith('990') && REGISTERS[x.reg]!.level === 1)) {
    const lines = recs.filter((x) => blockOf(x.reg) === blockOf(r.reg)).length;
    if (r.f[1] !== String(lines)) err(r.n, `${r.reg} says ${r.f[1]} lines, block ${blockOf(r.reg)} has ${lines}`);
  }
  for (const r of recs.filter((x) => x.reg.endsWith('001') && REGISTERS[x.reg]!.level === 1)) {
    const data = recs.filter((x) => blockOf(x.reg) === blockOf(r.reg)).length > 2;
    if (r.f[1] !== (data ? '0' : '1')) err(r.n, `${r.reg}.IND_DAD must be ${data ? '0' : '1'}`);
  }
  const listed = new Set<string>();
  for (const r of all('9900')) {
    const reg = r.f[1]!;
    if (listed.has(reg)) err(r.n, `9900 lists ${reg} twice (REGRA_REG_BLC_DUPLICIDADE)`);
    listed.add(reg);
    if (r.f[2] !== String(counts.get(reg) ?? 0)) err(r.n, `9900 says ${r.f[2]} ${reg} registers, the file has ${counts.get(reg) ?? 0} (REGRA_QTD_REG_BLC)`);
  }
  for (const reg of counts.keys()) if (!listed.has(reg)) err(null, `9900 does not count ${reg} (REGRA_QTD_REG_BLC_OBRIGATORIO)`);
  const total = String(recs.length);
  const r9999 = one('9999');
  if (r9999 && r9999.f[1] !== total) err(r9999.n, `9999 says ${r9999.f[1]} lines, the file has ${total}`);

  // ---- 0000, I030, J900 (REGRA_IGUAL_*)
  const r0000 = one('0000');
  if (!r0000) return { ok: false, errors, warnings };
  const f0 = r0000.f;
  const start = isoOf(f0[2]!);
  const end = isoOf(f0[3]!);
  if (f0[1] !== 'LECD') err(r0000.n, '0000.LECD must be "LECD"');
  if (!start || !end) return { ok: false, errors: [...errors, `line ${r0000.n}: 0000 dates are not ddmmaaaa`], warnings };
  if (!start.endsWith('-01') || f0[11] !== '0') err(r0000.n, 'DT_INI must be a month\'s first day with IND_SIT_INI_PER 0 (REGRA_INICIO_PERIODO)');
  if (new Date(Date.parse(`${end}T00:00:00Z`) + 86_400_000).getUTCDate() !== 1) err(r0000.n, 'DT_FIN must be a month\'s last day (REGRA_FIM_PERIODO)');
  if (start.slice(0, 4) !== end.slice(0, 4) || start > end) err(r0000.n, 'DT_INI and DT_FIN must be in one year, in order (REGRA_PERIODO_MAXIMO_ESCRITURACAO)');
  if (!/^[0-9A-Z]{12}\d{2}$/.test(f0[5]!)) err(r0000.n, 'CNPJ must have 14 characters');
  if (!UFS.has(f0[6]!)) err(r0000.n, `UF ${f0[6]} is not in the table (REGRA_TABELA_UF)`);
  if (f0[7] && !/^[0-9A-Za-z]+$/.test(f0[7])) err(r0000.n, 'IE must hold letters and digits only (REGRA_CAMPO_CARACTERE_INVALIDO)');
  const inRange = (iso: string | null) => iso !== null && iso >= start && iso <= end;
  const i030 = one('I030');
  const j900 = one('J900');
  let exSocial: string | null = null;
  if (i030) {
    if (i030.f[1] !== 'TERMO DE ABERTURA') err(i030.n, 'I030.DNRC_ABERT must be "TERMO DE ABERTURA"');
    if (!(Number(i030.f[2]) > 0)) err(i030.n, 'I030.NUM_ORD must be greater than zero');
    if (i030.f[4] !== total) err(i030.n, 'I030.QTD_LIN must equal 9999 (REGRA_IGUAL_QTD_LIN_REG9999)');
    if (i030.f[5] !== f0[4]) err(i030.n, 'I030.NOME must equal 0000.NOME');
    if (i030.f[7] !== f0[5]) err(i030.n, 'I030.CNPJ must equal 0000.CNPJ');
    if (f0[12] === '0' && i030.f[6]) err(i030.n, 'I030.NIRE must be empty when 0000.IND_NIRE is 0');
    exSocial = isoOf(i030.f[11]!);
    if (!exSocial) err(i030.n, 'I030.DT_EX_SOCIAL is required (REGRA_OBRIGATORIA_DT_EX_SOCIAL)');
  }
  if (j900 && i030) {
    if (j900.f[1] !== 'TERMO DE ENCERRAMENTO') err(j900.n, 'J900.DNRC_ENCER must be "TERMO DE ENCERRAMENTO"');
    if (j900.f[2] !== i030.f[2]) err(j900.n, 'J900.NUM_ORD must equal I030.NUM_ORD');
    if (j900.f[3] !== i030.f[3]) err(j900.n, 'J900.NAT_LIVRO must equal I030.NAT_LIVR');
    if (j900.f[4] !== f0[4]) err(j900.n, 'J900.NOME must equal 0000.NOME');
    if (j900.f[5] !== total) err(j900.n, 'J900.QTD_LIN must equal 9999');
    if (j900.f[6] !== f0[2] || j900.f[7] !== f0[3]) err(j900.n, 'J900 dates must equal 0000\'s');
  }
  const i010 = one('I010');
  if (i010 && (i010.f[1] !== 'G' || i010.f[2] !== '8.00')) err(i010.n, 'I010 must be book G, layout 8.00 (REGRA_VERSAO_LC)');

  // ---- I050 plan of accounts (REGRA_COD_CTA_DUPLICADO, REGRA_CTA_DE_NIVEL_SUPERIOR_INVALIDA, ...)
  const plan = new Map<string, { n: number; nat: string; ind: string; level: number; sup: string }>();
  for (const r of all('I050')) {
    const [, dtAlt, nat, ind, nivel, cod, sup] = r.f as [string, string, string, string, string, string, string];
    if (!isoOf(dtAlt)) err(r.n, 'I050.DT_ALT is not a date');
    else if (isoOf(dtAlt)!.slice(0, 4) > end.slice(0, 4)) warn(r.n, 'I050.DT_ALT is after the file\'s year (REGRA_ANO_ALT_MAIOR_ANO_FIN)');
    if (!COD_NAT.has(nat)) err(r.n, `I050.COD_NAT ${nat} is not in the table`);
    if (ind !== 'S' && ind !== 'A') err(r.n, 'I050.IND_CTA must be S or A');
    if (!/^\d+$/.test(nivel) || Number(nivel) < 1) err(r.n, 'I050.NIVEL must be 1 or more');
    if (plan.has(cod)) err(r.n, `I050 ${cod} is duplicated (REGRA_COD_CTA_DUPLICADO)`);
    if (!cod) err(r.n, 'I050.COD_CTA is empty');
    plan.set(cod, { n: r.n, nat, ind, level: Number(nivel), sup });
    if (!r.f[7]) err(r.n, 'I050.CTA (the name) is empty');
  }
  for (const [cod, a] of plan) {
    if (a.level === 1 && a.sup) err(a.n, `${cod}: a level-1 account has no superior (REGRA_CONTA_SUPERIOR_NAO_SE_APLICA)`);
    if (a.level > 1) {
      const p = plan.get(a.sup);
      if (!a.sup) err(a.n, `${cod}: COD_CTA_SUP is required above level 1 (REGRA_COD_CTA_SUP_OBRIGATORIO)`);
      else if (a.sup === cod) err(a.n, `${cod}: COD_CTA_SUP equals COD_CTA`);
      else if (!p) err(a.n, `${cod}: its superior ${a.sup} is not in I050 (REGRA_CODIGO_CONTA_NIVEL_SUPERIOR_INVALIDO)`);
      else {
        if (p.ind !== 'S') err(a.n, `${cod}: its superior ${a.sup} is not synthetic (REGRA_CONTA_NIVEL_SUPERIOR_NAO_SINTETICA)`);
        if (p.level >= a.level) err(a.n, `${cod}: level ${a.level} is not above its superior's ${p.level}`);
        if (a.level > 2 && p.nat !== a.nat) err(a.n, `${cod}: COD_NAT ${a.nat} differs from its superior's ${p.nat} (REGRA_NATUREZA_CONTA)`);
      }
    }
    if (a.ind === 'A' && ['01', '02', '03'].includes(a.nat) && a.level < 4) warn(a.n, `${cod}: analytic balance-sheet accounts should be at level 4 or deeper (REGRA_VALIDA_NIVEL_CONTAS)`);
  }
  const aglOf = new Map<string, string[]>();
  let current050: string | null = null;
  for (const r of recs) {
    if (r.reg === 'I050') current050 = r.f[5]!;
    if (r.reg === 'I052') {
      if (plan.get(current050!)?.ind !== 'A') err(r.n, 'I052 is only for analytic accounts (REGRA_REGISTRO_PARA_CONTA_ANALITICA)');
      aglOf.set(r.f[2]!, [...(aglOf.get(r.f[2]!) ?? []), current050!]);
    }
  }
  const analytic = (n: number, cod: string, reg: string) => {
    const a = plan.get(cod);
    if (!a) err(n, `${reg} account ${cod} is not in I050 (REGRA_CONTA_NO_PLANO_CONTAS)`);
    else if (a.ind !== 'A') err(n, `${reg} account ${cod} is not analytic (REGRA_CONTA_ANALITICA)`);
    return a;
  };

  // ---- I150 / I155 balances (REGRA_VALIDACAO_SALDO_FINAL, SOMA_SALDO_INICIAL/FINAL, DEB_DIF_CRED, SALDO_INI_DIF_FIN)
  interface Month {
    n: number;
    start: string;
    open: Map<string, number>;
    deb: Map<string, number>;
    cred: Map<string, number>;
    close: Map<string, number>;
  }
  const monthOf = new Map<string, Month>();
  const months: Month[] = [];
  let cur: Month | null = null;
  const lastClose = new Map<string, number>();
  for (const r of recs) {
    if (r.reg === 'I150') {
      const s = isoOf(r.f[1]!);
      const e = isoOf(r.f[2]!);
      if (!s || !e || !inRange(s) || !inRange(e) || s > e || s.slice(0, 7) !== e.slice(0, 7)) err(r.n, 'I150 dates must be in the file\'s period, in one month (REGRA_DATA_MES)');
      if (s && monthOf.has(s.slice(0, 7))) err(r.n, 'I150 repeats a month (REGRA_DUPLICIDADE_PERIODO_SALDO_PERIODICO)');
      cur = { n: r.n, start: s ?? '', open: new Map(), deb: new Map(), cred: new Map(), close: new Map() };
      if (s) monthOf.set(s.slice(0, 7), cur);
      months.push(cur);
      continue;
    }
    if (r.reg !== 'I155' || !cur) continue;
    const [, cod, , ini, indIni, deb, cred, fin, indFin] = r.f as string[] as [string, string, string, string, string, string, string, string, string];
    analytic(r.n, cod, 'I155');
    for (const v of [ini, deb, cred, fin]) if (centsOf(v) === null) err(r.n, `I155 amount ${JSON.stringify(v)} is not a number with a decimal comma`);
    if (!['D', 'C'].includes(indIni) || !['D', 'C'].includes(indFin)) err(r.n, 'I155 D/C indicators are required, even on zero (REGRA_IND_DC_*_OBRIGATORIO)');
    if (cur.close.has(cod)) err(r.n, `I155 repeats ${cod} in the month (REGRA_DUPLICIDADE_CONTA_SALDO_PERIODICO)`);
    const open = dc(ini, indIni);
    const close = dc(fin, indFin);
    if (open + centsOf(deb)! - centsOf(cred)! !== close) err(r.n, `I155 ${cod}: opening ${ini} ${indIni} + debits ${deb} - credits ${cred} is not the closing ${fin} ${indFin} (REGRA_VALIDACAO_SALDO_FINAL)`);
    if (open === 0 && close === 0 && centsOf(deb) === 0 && centsOf(cred) === 0) err(r.n, `I155 ${cod} is all zeros (REGRA_CAMPOS_SALDOS_PERIODICOS_DIFERENTE_ZERO)`);
    cur.deb.set(cod, centsOf(deb)!);
    cur.cred.set(cod, centsOf(cred)!);
    cur.close.set(cod, close);
    cur.open.set(cod, open);
  }
  months.forEach((m, i) => {
    const sum = (mp: Map<string, number>) => [...mp.values()].reduce((s, v) => s + v, 0);
    if (sum(m.open) !== 0) err(m.n, `I150 ${m.start}: the openings do not sum to zero (REGRA_VALIDACAO_SOMA_SALDO_INICIAL)`);
    if (sum(m.close) !== 0) err(m.n, `I150 ${m.start}: the closings do not sum to zero (REGRA_VALIDACAO_SOMA_SALDO_FINAL)`);
    if (sum(m.deb) !== sum(m.cred)) err(m.n, `I150 ${m.start}: debits and credits differ (REGRA_VALIDACAO_DEB_DIF_CRED)`);
    if (i > 0) for (const [cod, v] of m.open) if ((lastClose.get(cod) ?? 0) !== v) err(m.n, `I155 ${m.start} ${cod}: the opening is not the previous closing (REGRA_VALIDACAO_SALDO_INI_DIF_FIN)`);
    if (i > 0) for (const [cod, v] of lastClose) if (v !== 0 && !m.close.has(cod)) err(m.n, `I150 ${m.start}: ${cod} had a balance and has no I155 (REGRA_CONTINUIDADE_SALDOS_PERIODICOS)`);
    for (const [cod, v] of m.close) lastClose.set(cod, v);
  });
  if (months.length) {
    const expected = [];
    for (let d = start; d <= end; ) {
      expected.push(d.slice(0, 7));
      const [y, mo] = [Number(d.slice(0, 4)), Number(d.slice(5, 7))];
      d = mo === 12 ? `${y + 1}-01-01` : `${y}-${String(mo + 1).padStart(2, '0')}-01`;
    }
    for (const ym of expected) if (!monthOf.has(ym)) err(null, `no I150 for ${ym} (REGRA_CONTINUIDADE_SALDOS_PERIODICOS)`);
  }

  // ---- I200 / I250 entries (REGRA_VALIDACAO_VL_LCTO_DEB/CRED, REGRA_VALIDACAO_VALOR_DEB/CRED)
  const numbers = new Set<string>();
  const lineDeb = new Map<string, number>();
  const lineCred = new Map<string, number>();
  const closingByAccount = new Map<string, number>();
  const entries: { n: number; num: string; date: string; kind: string; value: number; deb: number; cred: number; nd: number; nc: number }[] = [];
  for (const r of recs) {
    if (r.reg === 'I200') {
      const d = isoOf(r.f[2]!);
      if (numbers.has(r.f[1]!)) err(r.n, `I200 ${r.f[1]} is duplicated (REGRA_REGISTRO_DUPLICADO)`);
      numbers.add(r.f[1]!);
      if (!inRange(d)) err(r.n, `I200 ${r.f[1]}: DT_LCTO is outside the file's period (REGRA_DATA_INTERVALO_DO_ARQUIVO)`);
      if (!['N', 'E', 'X'].includes(r.f[4]!)) err(r.n, 'I200.IND_LCTO must be N, E or X');
      if (r.f[4] !== 'X' && r.f[5]) err(r.n, 'I200.DT_LCTO_EXT only on X entries (REGRA_DT_LCTO_EXT_INDEVIDA)');
      const value = centsOf(r.f[3]!);
      if (value === null) err(r.n, 'I200.VL_LCTO is not an amount');
      entries.push({ n: r.n, num: r.f[1]!, date: d ?? '', kind: r.f[4]!, value: value ?? 0, deb: 0, cred: 0, nd: 0, nc: 0 });
      continue;
    }
    if (r.reg !== 'I250') continue;
    const e = entries[entries.length - 1]!;
    const [, cod, , vl, ind, , codHist, hist] = r.f as [string, string, string, string, string, string, string, string];
    analytic(r.n, cod, 'I250');
    const v = centsOf(vl);
    if (v === null || v === 0) err(r.n, 'I250.VL_DC must be a non-zero amount');
    if (ind !== 'D' && ind !== 'C') err(r.n, 'I250.IND_DC must be D or C');
    if (!hist && !codHist) err(r.n, 'I250 needs HIST or COD_HIST_PAD (REGRA_HISTORICO_OBRIGATORIO)');
    if (codHist && !all('I075').some((h) => h.f[1] === codHist)) err(r.n, `I250.COD_HIST_PAD ${codHist} is not in I075`);
    const key = `${e.date.slice(0, 7)}|${cod}`;
    if (ind === 'D') {
      e.deb += v ?? 0;
      e.nd++;
      lineDeb.set(key, (lineDeb.get(key) ?? 0) + (v ?? 0));
    } else {
      e.cred += v ?? 0;
      e.nc++;
      lineCred.set(key, (lineCred.get(key) ?? 0) + (v ?? 0));
    }
    if (e.kind === 'E') closingByAccount.set(`${e.date}|${cod}`, (closingByAccount.get(`${e.date}|${cod}`) ?? 0) + (ind === 'D' ? v ?? 0 : -(v ?? 0)));
  }
  for (const e of entries) {
    if (e.deb !== e.value) err(e.n, `I200 ${e.num}: VL_LCTO is not the sum of its debits (REGRA_VALIDACAO_VL_LCTO_DEB)`);
    if (e.cred !== e.value) err(e.n, `I200 ${e.num}: VL_LCTO is not the sum of its credits (REGRA_VALIDACAO_VL_LCTO_CRED)`);
    if (e.kind === 'N' && e.nd > 1 && e.nc > 1) warn(e.n, `I200 ${e.num}: several debits and several credits (REGRA_LCTO_4_FORMULA)`);
  }
  for (const m of months) {
    const ym = m.start.slice(0, 7);
    const accounts = new Set([...m.deb.keys(), ...[...lineDeb.keys(), ...lineCred.keys()].filter((k) => k.startsWith(`${ym}|`)).map((k) => k.slice(8))]);
    for (const cod of accounts) {
      if ((m.deb.get(cod) ?? 0) !== (lineDeb.get(`${ym}|${cod}`) ?? 0)) err(m.n, `I155 ${ym} ${cod}: debits differ from the I250 debits (REGRA_VALIDACAO_VALOR_DEB)`);
      if ((m.cred.get(cod) ?? 0) !== (lineCred.get(`${ym}|${cod}`) ?? 0)) err(m.n, `I155 ${ym} ${cod}: credits differ from the I250 credits (REGRA_VALIDACAO_VALOR_CRED)`);
    }
  }

  // ---- I350 / I355 closing (REGRA_ENCERRAMENTO_EXERCICIO, REGRA_REGISTRO_OBRIGATORIO_I350, REGRA_VALIDACAO_SALDO_CONTA, REGRA_VALIDACAO_CONTA_RESULTADO)
  const before = new Map<string, number>();
  let res: string | null = null;
  const resDates = new Set<string>();
  for (const r of recs) {
    if (r.reg === 'I350') {
      res = isoOf(r.f[1]!);
      if (!inRange(res)) err(r.n, 'I350.DT_RES is outside the file\'s period');
      if (res && resDates.has(res)) err(r.n, 'I350 repeats a date (REGRA_DT_RES_DUPLICIDADE)');
      if (res) resDates.add(res);
    }
    if (r.reg !== 'I355') continue;
    const a = analytic(r.n, r.f[1]!, 'I355');
    if (a && a.nat !== '04') err(r.n, `I355 ${r.f[1]} is not a result account (REGRA_CONTA_RESULTADO)`);
    before.set(`${res}|${r.f[1]}`, dc(r.f[3]!, r.f[4]!));
  }
  if (exSocial && inRange(exSocial) && !resDates.has(exSocial)) err(null, `no I350 on the fiscal year end ${exSocial} (REGRA_ENCERRAMENTO_EXERCICIO)`);
  if (resDates.size && !entries.some((e) => e.kind === 'E')) err(null, 'I350 without closing entries (I200 IND_LCTO E) (REGRA_REGISTRO_OBRIGATORIO_I350)');
  for (const [key, v] of before) if ((closingByAccount.get(key) ?? 0) !== -v) err(null, `I355 ${key}: the closing entries do not reverse the balance before closing (REGRA_VALIDACAO_SALDO_CONTA)`);
  for (const [key, v] of closingByAccount) if (v !== 0 && !before.has(key) && plan.get(key.slice(11))?.nat === '04') err(null, `closing entries on ${key} have no I355 (REGRA_VALIDACAO_SALDO_CONTA)`);
  for (const d of resDates) {
    const m = monthOf.get(d.slice(0, 7));
    for (const [cod, v] of m?.close ?? []) if (plan.get(cod)?.nat === '04' && v !== 0) err(m!.n, `${cod} is a result account with a balance after the closing on ${d} (REGRA_VALIDACAO_CONTA_RESULTADO)`);
  }

  // ---- J block (REGRA_REGISTRO_OBRIGATORIO_J005_FIM_EXERCICIO, J100 / J150 sums)
  const j005 = all('J005');
  if (exSocial && inRange(exSocial) && !j005.some((r) => isoOf(r.f[2]!) === exSocial)) err(null, 'no J005 ending on the fiscal year end (REGRA_REGISTRO_OBRIGATORIO_J005_FIM_EXERCICIO)');
  if (j005.length && (!counts.has('J100') || !counts.has('J150'))) err(j005[0]!.n, 'J005 needs J100 and J150 (REGRA_OBRIGATORIA_DEMONSTRACAO)');
  const lastMonthClose = new Map(lastClose);
  checkStatement(all('J100'), 'J100', 0, { ini: 7, fin: 9 }, err);
  checkStatement(all('J150'), 'J150', 1, { fin: 9 }, err);
  const levels1 = all('J100').filter((r) => r.f[3] === '1');
  if (counts.has('J100')) {
    if (levels1.length !== 2 || !levels1.some((r) => r.f[5] === 'A') || !levels1.some((r) => r.f[5] === 'P')) err(null, 'J100 needs exactly two level-1 lines, A and P (REGRA_EXISTEM_2_NIVEIS_1)');
    else for (const [i, name] of [[7, 'initial'], [9, 'final']] as const) {
      const [a, p] = [levels1.find((r) => r.f[5] === 'A')!, levels1.find((r) => r.f[5] === 'P')!];
      if (dc(a.f[i]!, a.f[i + 1]!) + dc(p.f[i]!, p.f[i + 1]!) !== 0) err(a.n, `J100: assets and liabilities + equity differ in the ${name} balance (REGRA_VALIDA_ATIVO_PASSIVO)`);
    }
  }
  for (const r of all('J100').filter((x) => x.f[2] === 'D')) {
    const accounts = aglOf.get(r.f[1]!);
    if (!accounts) {
      err(r.n, `J100 detail ${r.f[1]} has no I052 (REGRA_OBRIGATORIO_I052)`);
      continue;
    }
    if (accounts.some((c) => !(r.f[5] === 'A' ? ['01'] : ['02', '03']).includes(plan.get(c)?.nat ?? ''))) err(r.n, `J100 ${r.f[1]}: accounts of another group (REGRA_OBRIGATORIO_I052_MESMO_GRUPO)`);
    const fin = accounts.reduce((s, c) => s + (lastMonthClose.get(c) ?? 0), 0);
    if (dc(r.f[9]!, r.f[10]!) !== fin) err(r.n, `J100 ${r.f[1]}: the final value is not the accounts' closing balance (REGRA_VALIDA_BALANCO_SALDO_FIN)`);
  }
  const l150 = all('J150').filter((r) => r.f[4] === '1');
  if (counts.has('J150') && l150.length !== 1) err(null, 'J150 needs exactly one level-1 line (REGRA_OCO_UNICA_NIVEL_1)');
  const orders = new Set(all('J150').map((r) => r.f[1]));
  if (orders.size !== (counts.get('J150') ?? 0)) err(null, 'J150.NU_ORDEM repeats (REGRA_NU_ORDEM_DUPLICADO)');
  for (const r of all('J150').filter((x) => x.f[3] === 'D')) {
    const accounts = aglOf.get(r.f[2]!);
    if (!accounts) {
      err(r.n, `J150 detail ${r.f[2]} has no I052 (REGRA_OBRIGATORIO_I052)`);
      continue;
    }
    if (accounts.some((c) => plan.get(c)?.nat !== '04')) err(r.n, `J150 ${r.f[2]}: accounts that are not result accounts (REGRA_OBRIGATORIO_I052_MESMO_GRUPO)`);
    const date = j005.length ? isoOf(j005[j005.length - 1]!.f[2]!) : null;
    const fin = accounts.reduce((s, c) => s + (before.get(`${date}|${c}`) ?? 0), 0);
    if (dc(r.f[9]!, r.f[10]!) !== fin) err(r.n, `J150 ${r.f[2]}: the value is not the accounts' balance before closing (I355) (REGRA_VALIDA_SALDO_COM_DRE)`);
  }
  for (const r of [...all('J100'), ...all('J150')]) {
    const code = r.reg === 'J100' ? r.f[1]! : r.f[2]!;
    const kind = r.reg === 'J100' ? r.f[2] : r.f[3];
    if (kind === 'T' && aglOf.has(code)) err(r.n, `${r.reg} total ${code} is an I052 code (REGRA_AGLUTINACAO_EM_SINTETICA)`);
  }

  // ---- J930 signatories (REGRA_OBRIGATORIO_UM_RESP_LEGAL, REGRA_OBRIGATORIO_ASSIN_CONTADOR)
  const j930 = all('J930');
  if (j930.length && j930.filter((r) => r.f[11] === 'S').length !== 1) err(null, 'J930 needs exactly one signatory responsible for the ECD (REGRA_OBRIGATORIO_UM_RESP_LEGAL)');
  for (const r of j930) if (r.f[11] === 'S' && r.f[4] === '900') err(r.n, 'the accountant cannot be the one responsible (REGRA_QUALIF_INV_RESP_LEGAL)');
  if (j930.length && !j930.some((r) => r.f[4] === '900')) warn(null, 'no accountant (900) among the J930 signatories: add it in the PVA before signing (REGRA_OBRIGATORIO_ASSIN_CONTADOR)');

  return { ok: errors.length === 0, errors, warnings };
}

/** J100 / J150: codes unique, levels and superiors consistent, each total the sum of its children. */
function checkStatement(rows: Rec[], reg: string, off: number, values: { ini?: number; fin: number }, err: (n: number | null, msg: string) => void) {
  // `off`: J150 has NU_ORDEM before COD_AGL.
  const byCode = new Map<string, Rec>();
  for (const r of rows) {
    const code = r.f[off + 1]!;
    if (byCode.has(code)) err(r.n, `${reg} ${code} is duplicated (REGRA_COD_AGL_DUPLICIDADE)`);
    byCode.set(code, r);
  }
  for (const r of rows) {
    const [code, kind, level, sup] = [r.f[off + 1]!, r.f[off + 2]!, Number(r.f[off + 3]), r.f[off + 4]!];
    if (!['T', 'D'].includes(kind)) err(r.n, `${reg}.IND_COD_AGL must be T or D`);
    if (!(level >= 1)) err(r.n, `${reg}.NIVEL_AGL must be 1 or more`);
    if (level === 1 && (sup || kind !== 'T')) err(r.n, `${reg} ${code}: a level-1 line is a total without superior (REGRA_VALIDA_NIVEL_AGL)`);
    if (level > 1) {
      const p = byCode.get(sup);
      if (!p) err(r.n, `${reg} ${code}: superior ${sup} is missing (REGRA_COD_AGL_SUP_OBRIGATORIO)`);
      else if (p.f[off + 2] !== 'T' || Number(p.f[off + 3]) >= level) err(r.n, `${reg} ${code}: superior ${sup} must be a total of a lower level (REGRA_COD_AGL_DE_NIVEL_SUPERIOR_INVALIDO)`);
    }
  }
  for (const [name, at] of [['initial', values.ini], ['final', values.fin]] as const) {
    if (at === undefined) continue;
    for (const r of rows.filter((x) => x.f[off + 2] === 'T')) {
      const code = r.f[off + 1]!;
      const sum = rows.filter((x) => x.f[off + 4] === code).reduce((s, x) => s + dc(x.f[at]!, x.f[at + 1]!), 0);
      if (sum !== dc(r.f[at]!, r.f[at + 1]!)) err(r.n, `${reg} ${code}: the ${name} total is not the sum of its lines (REGRA_SOMA_DAS_PARCELAS / REGRA_SOMA_NIVEIS_DRE)`);
    }
  }
}

import { isResult, type Book } from './sped.book.js';
import type { SpedAccount } from './sped.queries.js';
import { date, line, money, signed, text } from './sped.text.js';

/**
 * The registers of an ECD file (leiaute 8, book G "Livro Diário completo"), block by block, from a book
 * (sped.book.ts) and the company's registration. docs/decisions.md, "Accounting: SPED ECD export".
 */

/** The layout version of I010.COD_VER_LC. */
export const LAYOUT_VERSION = '8.00';
/** The book's name (I030.NAT_LIVR = J900.NAT_LIVRO). */
export const BOOK_NAME = 'Diário Geral';

export interface Company {
  name: string;
  /** 14 characters, checked. */
  cnpj: string;
  uf: string;
  ie: string;
  city: string;
  email: string;
  /** I030.NUM_ORD / J900.NUM_ORD. */
  bookNumber: number;
}

const COD_NAT: Record<SpedAccount['nature'], string> = { ativo: '01', passivo: '02', patrimonio_liquido: '03', receita: '04', custo: '04', despesa: '04' };

function block0(c: Company, book: Book): string[] {
  const lines = [
    line([
      '0000', 'LECD', date(book.start), date(book.end), text(c.name), c.cnpj, c.uf, c.ie,
      '', // COD_MUN: optional, no IBGE table (decisions)
      '', // IM
      '', // IND_SIT_ESP: no special situation
      '0', // IND_SIT_INI_PER: normal
      '0', // IND_NIRE: no NIRE on file
      '0', // IND_FIN_ESC: original
      '', // COD_HASH_SUB
      '0', // IND_GRANDE_PORTE
      '0', // TIP_ECD: not an SCP partner
      '', // COD_SCP
      'N', // IDENT_MF
      'N', // IND_ESC_CONS
      '0', // IND_CENTRALIZADA: centralised
      '0', // IND_MUDANC_PC
      '', // COD_PLAN_REF: no referential mapping (so no I051)
    ]),
    line(['0001', '0']),
    c.ie ? line(['0007', c.uf, c.ie]) : line(['0007', '00', '']),
  ];
  return [...lines, line(['0990', lines.length + 1])];
}

function plan(book: Book): string[] {
  const out: string[] = [];
  for (const a of book.plan) {
    const parent = a.parentId ? book.accounts.get(a.parentId) : undefined;
    const created = a.createdAt.toISOString().slice(0, 10);
    out.push(line(['I050', date(created < book.end ? created : book.end), COD_NAT[a.nature], a.type === 'sintetica' ? 'S' : 'A', book.levels.get(a.id)!, a.code, parent?.code ?? '', text(a.name)]));
    if (book.yearEnd && a.type === 'analitica') out.push(line(['I052', '', a.code]));
  }
  return out;
}

function blockI(c: Company, book: Book): string[] {
  const lines = [
    line(['I001', '0']),
    line(['I010', 'G', LAYOUT_VERSION]),
    line(['I030', 'TERMO DE ABERTURA', c.bookNumber, BOOK_NAME, '0', text(c.name), '', c.cnpj, '', '', text(c.city), date(`${book.year}-12-31`)]),
    ...plan(book),
  ];
  for (const m of book.months) {
    lines.push(line(['I150', date(m.start), date(m.end)]));
    for (const r of m.rows) lines.push(line(['I155', r.account.code, '', ...signed(r.open), money(r.debit), money(r.credit), ...signed(r.close)]));
  }
  for (const e of book.entries) {
    lines.push(line(['I200', text(e.number), date(e.date), money(e.totalCents), e.kind, '']));
    const archive = e.sourceType ? text(`${e.sourceType}:${e.sourceId ?? ''}`) : '';
    for (const l of e.lines) {
      const hist = text(l.memo ? `${e.description} - ${l.memo}` : e.description, 65535) || text(e.number);
      const [amount, dc] = l.debitCents > 0 ? [l.debitCents, 'D'] : [l.creditCents, 'C'];
      lines.push(line(['I250', book.accounts.get(l.accountId)!.code, '', money(amount), dc, archive, '', hist, '']));
    }
  }
  if (book.closing) {
    lines.push(line(['I350', date(book.closing.date)]));
    for (const r of book.closing.before) lines.push(line(['I355', r.account.code, '', ...signed(r.net)]));
  }
  return [...lines, line(['I990', lines.length + 1])];
}

/** A statement's tree: a level-1 total, then the plan's accounts of the group with their levels shifted by one. */
function statementTree(book: Book, accounts: SpedAccount[], value: (id: string) => number) {
  const ids = new Set(accounts.map((a) => a.id));
  const total = new Map<string, number>();
  for (const a of accounts) {
    if (a.type !== 'analitica') continue;
    const v = value(a.id);
    for (let cur: SpedAccount | undefined = a; cur && ids.has(cur.id); cur = cur.parentId ? book.accounts.get(cur.parentId) : undefined) {
      total.set(cur.id, (total.get(cur.id) ?? 0) + v);
    }
  }
  return accounts.map((a) => ({
    account: a,
    parent: a.parentId && ids.has(a.parentId) ? book.accounts.get(a.parentId)!.code : null,
    level: book.levels.get(a.id)! + 1,
    net: total.get(a.id) ?? 0,
  }));
}

function balanceSheet(book: Book): string[] {
  const y = book.yearEnd!;
  const out: string[] = [];
  const groups: [string, string, SpedAccount[]][] = [
    ['A', 'Ativo', book.plan.filter((a) => a.nature === 'ativo')],
    ['P', 'Passivo e patrimônio líquido', book.plan.filter((a) => a.nature === 'passivo' || a.nature === 'patrimonio_liquido')],
  ];
  for (const [grp, name, accounts] of groups) {
    const ini = statementTree(book, accounts, (id) => y.opening.get(id) ?? 0);
    const fin = statementTree(book, accounts, (id) => y.closing.get(id) ?? 0);
    const sum = (rows: typeof ini) => rows.filter((r) => r.account.type === 'analitica').reduce((s, r) => s + r.net, 0);
    out.push(line(['J100', grp, 'T', 1, '', grp, text(name), ...signed(sum(ini)), ...signed(sum(fin)), '']));
    ini.forEach((r, i) => {
      const kind = r.account.type === 'analitica' ? 'D' : 'T';
      out.push(line(['J100', r.account.code, kind, r.level, r.parent ?? grp, grp, text(r.account.name), ...signed(r.net), ...signed(fin[i]!.net), '']));
    });
  }
  return out;
}

function incomeStatement(book: Book): string[] {
  const y = book.yearEnd!;
  const rows = statementTree(book, book.plan.filter(isResult), (id) => y.result.get(id) ?? 0);
  const total = rows.filter((r) => r.account.type === 'analitica').reduce((s, r) => s + r.net, 0);
  const grp = (net: number) => (net > 0 ? 'D' : 'R');
  const out = [line(['J150', 1, 'R', 'T', 1, '', 'Resultado do exercício', '', '', ...signed(total), grp(total), ''])];
  rows.forEach((r, i) => {
    const kind = r.account.type === 'analitica' ? 'D' : 'T';
    out.push(line(['J150', i + 2, r.account.code, kind, r.level, r.parent ?? 'R', text(r.account.name), '', '', ...signed(r.net), grp(r.net), '']));
  });
  return out;
}

function blockJ(c: Company, book: Book): string[] {
  const lines = [line(['J001', '0'])];
  if (book.yearEnd) lines.push(line(['J005', date(`${book.year}-01-01`), date(book.end), '1', '']), ...balanceSheet(book), ...incomeStatement(book));
  lines.push(
    line(['J900', 'TERMO DE ENCERRAMENTO', c.bookNumber, BOOK_NAME, text(c.name), '0', date(book.start), date(book.end)]),
    // The company's e-CNPJ as the one responsible for signing; the accountant (900) signs in the PVA (decisions).
    line(['J930', text(c.name), c.cnpj, 'Pessoa Jurídica (e-CNPJ ou e-PJ)', '001', '', text(c.email, 60), '', '', '', '', 'S']),
  );
  return [...lines, line(['J990', lines.length + 1])];
}

/** Every line of the file, in order, with the block and file counts filled in. */
export function registers(c: Company, book: Book): string[] {
  const body = [...block0(c, book), ...blockI(c, book), ...blockJ(c, book)];
  const counts = new Map<string, number>();
  for (const l of body) counts.set(l.slice(1, 5), (counts.get(l.slice(1, 5)) ?? 0) + 1);
  // Block 9: 9001, one 9900 per register type (9900, 9990 and 9999 included), 9990, 9999.
  const types = [...counts.keys(), '9001', '9900', '9990', '9999'];
  counts.set('9001', 1);
  counts.set('9900', types.length);
  counts.set('9990', 1);
  counts.set('9999', 1);
  const block9 = [line(['9001', '0']), ...types.map((t) => line(['9900', t, counts.get(t)!]))];
  block9.push(line(['9990', block9.length + 2]));
  const total = body.length + block9.length + 1;
  // I030.QTD_LIN (field 5) and J900.QTD_LIN (field 6): the file's line count, as 9999 says.
  const fill = (l: string) => {
    const at = l.startsWith('|I030|') ? 5 : l.startsWith('|J900|') ? 6 : 0;
    if (!at) return l;
    const f = l.split('|');
    f[at] = String(total);
    return f.join('|');
  };
  return [...body.map(fill), ...block9, line(['9999', total])];
}

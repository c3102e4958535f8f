import type { AccountNature } from '../../db/schema/accounting.js';
import { InvalidRequest } from '../../platform/domain-errors.js';
import { compareCodes } from './chart.defaults.js';
import type { SpedAccount, SpedEntry } from './sped.queries.js';

/**
 * The book an ECD file tells (pure: no SQL), from the chart, the balances before the period and the
 * period's posted entries: monthly balances (I150/I155), the entries (I200/I250), the closing of the
 * result accounts at the fiscal year end (I350/I355, IND_LCTO `E`) and the year-end statements' balances
 * (J100/J150). Balances are nets in cents: debits - credits (positive = `D`, negative = `C`).
 */

export const RESULT_NATURES: readonly AccountNature[] = ['receita', 'custo', 'despesa'];
/** The equity account the result is closed into (the default chart's "Resultado do exercício"). */
export const RESULT_ACCOUNT_CODE = '3.3';

export const isResult = (a: SpedAccount) => RESULT_NATURES.includes(a.nature);

export interface BookEntry extends SpedEntry {
  /** `N` normal, `E` closing of the result accounts. */
  kind: 'N' | 'E';
  /** Written by the export (the year's closing the books do not hold yet). */
  generated: boolean;
}

export interface BalanceRow {
  account: SpedAccount;
  open: number;
  debit: number;
  credit: number;
  close: number;
}

export interface Book {
  start: string;
  end: string;
  year: number;
  accounts: Map<string, SpedAccount>;
  entries: BookEntry[];
  months: { start: string; end: string; rows: BalanceRow[] }[];
  /** I350/I355: the result accounts' balances before the closing entries, at the fiscal year end. */
  closing: { date: string; before: { account: SpedAccount; net: number }[] } | null;
  /** The J block at the fiscal year end: balances at the year's start and end (after closing), and the result before closing. */
  yearEnd: { opening: Map<string, number>; closing: Map<string, number>; result: Map<string, number> } | null;
  /** I050: every account of the file and its synthetic ancestors, in code order. */
  plan: SpedAccount[];
  /** Tree depth of each account of the plan (a root is 1). */
  levels: Map<string, number>;
}

export interface BookInput {
  start: string;
  end: string;
  accounts: SpedAccount[];
  /** Nets of the posted lines before `start`. */
  netsBeforeStart: Map<string, number>;
  /** Nets of the posted lines before January 1st of the period's year. */
  netsBeforeYear: Map<string, number>;
  entries: SpedEntry[];
}

const add = (m: Map<string, number>, id: string, v: number) => {
  const n = (m.get(id) ?? 0) + v;
  if (n === 0) m.delete(id);
  else m.set(id, n);
};

const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();
const pad = (n: number) => String(n).padStart(2, '0');

/** The calendar months of [start, end] (whole months of one year, checked by the caller). */
export function monthsOf(start: string, end: string): { start: string; end: string }[] {
  const year = Number(start.slice(0, 4));
  const out = [];
  for (let m = Number(start.slice(5, 7)); m <= Number(end.slice(5, 7)); m++) out.push({ start: `${year}-${pad(m)}-01`, end: `${year}-${pad(m)}-${pad(lastDay(year, m))}` });
  return out;
}

/** Is this posted entry already a closing of the result: dated the year end, only result and equity lines, both kinds present? */
function isClosingEntry(e: SpedEntry, yearEnd: string, accounts: Map<string, SpedAccount>): boolean {
  if (e.date !== yearEnd) return false;
  const natures = e.lines.map((l) => accounts.get(l.accountId)!.nature);
  return (
    natures.every((n) => RESULT_NATURES.includes(n) || n === 'patrimonio_liquido') &&
    natures.some((n) => RESULT_NATURES.includes(n)) &&
    natures.includes('patrimonio_liquido')
  );
}

export function buildBook(input: BookInput): Book {
  const { start, end } = input;
  const year = Number(start.slice(0, 4));
  const yearEndDate = `${year}-12-31`;
  const accounts = new Map(input.accounts.map((a) => [a.id, a]));
  for (const e of input.entries) for (const l of e.lines) if (!accounts.has(l.accountId)) throw new Error(`sped: account ${l.accountId} of ${e.number} is not in the chart`);
  for (const id of [...input.netsBeforeStart.keys(), ...input.netsBeforeYear.keys()]) if (!accounts.has(id)) throw new Error(`sped: account ${id} is not in the chart`);

  let resultAccount: SpedAccount | null | undefined;
  const resultAccountOf = () => {
    if (resultAccount === undefined) {
      const candidates = input.accounts.filter((a) => a.code === RESULT_ACCOUNT_CODE && a.type === 'analitica' && a.nature === 'patrimonio_liquido');
      resultAccount = candidates.find((a) => a.system) ?? candidates[0] ?? null;
    }
    if (!resultAccount) {
      throw new InvalidRequest(
        `The year's result is closed into the equity account ${RESULT_ACCOUNT_CODE} (Resultado do exercício), an analytic account of the chart: seed the default chart or create it`,
        'result_account_missing',
      );
    }
    return resultAccount;
  };

  // Prior years closed into the result account: the result accounts open each year at zero.
  const carry = [...input.netsBeforeYear].reduce((s, [id, net]) => (isResult(accounts.get(id)!) ? s + net : s), 0);
  const opening = new Map(input.netsBeforeStart);
  const openingOfYear = new Map(input.netsBeforeYear);
  for (const [id, net] of input.netsBeforeYear) {
    if (!isResult(accounts.get(id)!)) continue;
    add(opening, id, -net);
    openingOfYear.delete(id);
  }
  if (carry !== 0) {
    add(opening, resultAccountOf().id, carry);
    add(openingOfYear, resultAccountOf().id, carry);
  }

  const entries: BookEntry[] = input.entries.map((e) => ({ ...e, kind: end === yearEndDate && isClosingEntry(e, yearEndDate, accounts) ? 'E' : 'N', generated: false }));

  let closing: Book['closing'] = null;
  let result = new Map<string, number>();
  if (end === yearEndDate) {
    // The result accounts before the closing entries, and what the books' closing entries leave open.
    const before = new Map([...opening].filter(([id]) => isResult(accounts.get(id)!)));
    const residual = new Map(before);
    for (const e of entries) {
      for (const l of e.lines) {
        if (!isResult(accounts.get(l.accountId)!)) continue;
        add(residual, l.accountId, l.debitCents - l.creditCents);
        if (e.kind === 'N') add(before, l.accountId, l.debitCents - l.creditCents);
      }
    }
    if (residual.size > 0) {
      const lines = [...residual]
        .sort(([a], [b]) => compareCodes(accounts.get(a)!.code, accounts.get(b)!.code))
        .map(([accountId, net]) => ({ accountId, debitCents: net < 0 ? -net : 0, creditCents: net > 0 ? net : 0, memo: 'Encerramento da conta de resultado' }));
      const net = lines.reduce((s, l) => s + l.debitCents - l.creditCents, 0);
      lines.push({ accountId: resultAccountOf().id, debitCents: net < 0 ? -net : 0, creditCents: net > 0 ? net : 0, memo: 'Resultado do exercício' });
      const totalCents = lines.reduce((s, l) => s + l.debitCents, 0);
      entries.push({
        id: `closing-${year}`,
        number: `ENC-${year}`,
        date: yearEndDate,
        description: `Apuração do resultado do exercício de ${year}: encerramento das contas de resultado`,
        totalCents,
        sourceType: null,
        sourceId: null,
        lines,
        kind: 'E',
        generated: true,
      });
    }
    result = before;
    const rows = [...before].map(([id, net]) => ({ account: accounts.get(id)!, net })).sort((a, b) => compareCodes(a.account.code, b.account.code));
    if (rows.length > 0) closing = { date: yearEndDate, before: rows };
  }

  // Monthly balances: every analytic account with a balance or a movement in the month.
  const running = new Map(opening);
  const months = monthsOf(start, end).map((m) => {
    const debit = new Map<string, number>();
    const credit = new Map<string, number>();
    for (const e of entries) {
      if (e.date < m.start || e.date > m.end) continue;
      for (const l of e.lines) {
        if (l.debitCents) debit.set(l.accountId, (debit.get(l.accountId) ?? 0) + l.debitCents);
        if (l.creditCents) credit.set(l.accountId, (credit.get(l.accountId) ?? 0) + l.creditCents);
      }
    }
    const ids = new Set([...running.keys(), ...debit.keys(), ...credit.keys()]);
    const rows: BalanceRow[] = [...ids].map((id) => {
      const open = running.get(id) ?? 0;
      const d = debit.get(id) ?? 0;
      const c = credit.get(id) ?? 0;
      return { account: accounts.get(id)!, open, debit: d, credit: c, close: open + d - c };
    });
    rows.sort((a, b) => compareCodes(a.account.code, b.account.code));
    for (const r of rows) add(running, r.account.id, r.debit - r.credit);
    return { ...m, rows: rows.filter((r) => r.open !== 0 || r.debit !== 0 || r.credit !== 0) };
  });

  // The plan: the accounts of the file and their ancestors.
  const used = new Map<string, SpedAccount>();
  const levels = new Map<string, number>();
  const depth = (a: SpedAccount): number => {
    const known = levels.get(a.id);
    if (known !== undefined) return known;
    const parent = a.parentId ? accounts.get(a.parentId) : undefined;
    const d = parent ? depth(parent) + 1 : 1;
    levels.set(a.id, d);
    return d;
  };
  const use = (a: SpedAccount) => {
    for (let cur: SpedAccount | undefined = a; cur && !used.has(cur.id); cur = cur.parentId ? accounts.get(cur.parentId) : undefined) {
      used.set(cur.id, cur);
      depth(cur);
    }
  };
  for (const m of months) for (const r of m.rows) use(r.account);
  for (const e of entries) for (const l of e.lines) use(accounts.get(l.accountId)!);
  for (const id of openingOfYear.keys()) use(accounts.get(id)!);
  const plan = [...used.values()].sort((a, b) => compareCodes(a.code, b.code));

  const yearEnd = end === yearEndDate ? { opening: openingOfYear, closing: running, result } : null;
  return { start, end, year, accounts, entries, months, closing, yearEnd, plan, levels };
}

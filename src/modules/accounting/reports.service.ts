import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { AccountNature } from '../../db/schema/accounting.js';
import { Invalid } from '../../platform/domain-errors.js';
import { localDate } from '../../platform/time.js';
import type { AccountingParts } from './accounting.service.js';
import type { Books } from './books.js';
import { compareCodes } from './chart.defaults.js';
import * as q from './reports.queries.js';
import type { BalanceSheet, BalanceSheetLine, BalanceSheetQuery, CashFlow, CashFlowActivity, CashFlowLine, CashFlowQuery } from './reports.schemas.js';

/**
 * Where an account sits in the balance sheet, by its nature and its code (a tenant account under a parent
 * has the parent's code as prefix, so the code tells the parent chain): ativo under 1.1 circulante, under
 * 1.2 não circulante; passivo under 2.2 não circulante, under 2.1 circulante; patrimônio líquido; the
 * result accounts (receita, custo, despesa) feed the result lines. An asset outside 1.1 and 1.2 counts as
 * não circulante and a liability outside 2.1 and 2.2 as circulante (prudence: nothing is shown as
 * realisable within the year, or as due later, unless the chart says so).
 */
export type BalanceSection = 'ativoCirculante' | 'ativoNaoCirculante' | 'passivoCirculante' | 'passivoNaoCirculante' | 'patrimonioLiquido' | 'resultado';

const under = (code: string, prefix: string) => code === prefix || code.startsWith(`${prefix}.`);

export function sectionOf(nature: AccountNature, code: string): BalanceSection {
  switch (nature) {
    case 'ativo':
      return under(code, '1.1') ? 'ativoCirculante' : 'ativoNaoCirculante';
    case 'passivo':
      return under(code, '2.2') ? 'passivoNaoCirculante' : 'passivoCirculante';
    case 'patrimonio_liquido':
      return 'patrimonioLiquido';
    default:
      return 'resultado';
  }
}

/** The loans of the default chart, current but financing. */
export const LOANS_CODE = '2.1.05';
export type CashActivity = 'operacional' | 'investimento' | 'financiamento';

/**
 * The cash-flow activity of a counterpart account: non-current assets are investing; loans (2.1.05),
 * non-current liabilities and equity are financing; the rest (result accounts, current assets and
 * liabilities) is operating.
 */
export function activityOf(nature: AccountNature, code: string): CashActivity {
  const section = sectionOf(nature, code);
  if (section === 'ativoNaoCirculante') return 'investimento';
  if (section === 'passivoNaoCirculante' || section === 'patrimonioLiquido' || under(code, LOANS_CODE)) return 'financiamento';
  return 'operacional';
}

const RESULT_CODE = '3.3';
const RESULT_NAME = 'Resultado do exercício';
const RETAINED_CODE = '3.2';
const RETAINED_NAME = 'Lucros ou prejuízos acumulados';

const byCode = (a: { code: string }, b: { code: string }) => compareCodes(a.code, b.code);
const sum = (lines: { balance: number }[]) => lines.reduce((s, l) => s + l.balance, 0);
const firstOfMonth = (date: string) => `${date.slice(0, 7)}-01`;

/** The cash accounts: the `cash` and `bank` posting keys (override or default) and the ledger accounts of the bank accounts. */
async function cashAccountIds(tx: TenantTx, books: Books): Promise<string[]> {
  const ids = new Set(await q.bankLedgerAccountIds(tx.db, tx.tenantId));
  for (const key of ['cash', 'bank'] as const) {
    try {
      ids.add((await books.accountFor(tx, key)).id);
    } catch {
      // The default chart is not seeded and the key has no override: no such cash account (nothing posted to it).
    }
  }
  return [...ids];
}

/** Lines into an activity: positive ones are entradas, negative ones saídas, zero ones dropped. */
function activity(lines: (CashFlowLine & { code: string })[], sorted = true): CashFlowActivity {
  const kept = lines.filter((l) => l.amount !== 0);
  if (sorted) kept.sort(byCode);
  const strip = (l: CashFlowLine) => ({ description: l.description, amount: l.amount });
  return {
    entradas: kept.filter((l) => l.amount > 0).map(strip),
    saidas: kept.filter((l) => l.amount < 0).map(strip),
    total: kept.reduce((s, l) => s + l.amount, 0),
  };
}

/** The balance sheet and the cash-flow statement (spec 4.11 "Reports"). docs/decisions.md, "Accounting: reports and exports". */
export function reportsPart({ deps, books }: AccountingParts) {
  const today = (timezone: string) => localDate(deps.clock.now(), timezone);

  return {
    /**
     * The balance sheet at the end of `asOf` (default the tenant's local today): every posted line up to
     * it, one aggregate, accounts grouped by `sectionOf`; accounts with a zero balance are left out; the
     * results not closed into equity appear in patrimônio líquido (3.3 this year, 3.2 earlier years), so
     * the two totals are equal whenever every entry balances.
     */
    balanceSheet: (t: TenantDb, tenant: { timezone: string }, query: BalanceSheetQuery): Promise<BalanceSheet> =>
      t.run(async (tx) => {
        const asOf = query.asOf ?? today(tenant.timezone);
        const rows = await q.balancesAsOf(tx.db, tx.tenantId, asOf, `${asOf.slice(0, 4)}-01-01`);
        const groups: Record<BalanceSection, BalanceSheetLine[]> = {
          ativoCirculante: [],
          ativoNaoCirculante: [],
          passivoCirculante: [],
          passivoNaoCirculante: [],
          patrimonioLiquido: [],
          resultado: [],
        };
        let resultCents = 0;
        let priorResultCents = 0;
        for (const r of rows) {
          if (!r.nature) continue;
          const section = sectionOf(r.nature, r.code);
          if (section === 'resultado') {
            // receita adds, custo and despesa subtract (their balances are debit-natured).
            const sign = r.nature === 'receita' ? 1 : -1;
            resultCents += sign * (r.balanceCents - r.priorCents);
            priorResultCents += sign * r.priorCents;
          } else groups[section].push({ code: r.code, name: r.name, balance: r.balanceCents });
        }
        const addTo = (code: string, name: string, cents: number) => {
          const line = groups.patrimonioLiquido.find((l) => l.code === code);
          if (line) line.balance += cents;
          else groups.patrimonioLiquido.push({ code, name, balance: cents });
        };
        addTo(RETAINED_CODE, RETAINED_NAME, priorResultCents);
        addTo(RESULT_CODE, RESULT_NAME, resultCents);
        const shown = (lines: BalanceSheetLine[]) => lines.filter((l) => l.balance !== 0).sort(byCode);
        const ativo = { circulante: shown(groups.ativoCirculante), naoCirculante: shown(groups.ativoNaoCirculante) };
        const passivo = {
          circulante: shown(groups.passivoCirculante),
          naoCirculante: shown(groups.passivoNaoCirculante),
          patrimonioLiquido: shown(groups.patrimonioLiquido),
        };
        return {
          asOf,
          ativo: { ...ativo, total: sum(ativo.circulante) + sum(ativo.naoCirculante) },
          passivoEPatrimonio: { ...passivo, total: sum(passivo.circulante) + sum(passivo.naoCirculante) + sum(passivo.patrimonioLiquido) },
        };
      }),

    /**
     * The cash-flow statement of `[start, end]` (defaults: the current month up to today). Cash is the
     * `cash` and `bank` accounts and the bank accounts' ledger accounts. Direct: the cash each counterpart
     * account brought or took in the entries that moved cash, by `activityOf`. Indirect: operating from the
     * period's result, the non-cash items and the changes in working capital; investing and financing as
     * direct. Both give the same totals, and saldoInicial + the totals = saldoFinal.
     */
    cashFlow: (t: TenantDb, tenant: { timezone: string }, query: CashFlowQuery): Promise<CashFlow> =>
      t.run(async (tx) => {
        const end = query.end ?? today(tenant.timezone);
        const start = query.start ?? firstOfMonth(query.end ?? today(tenant.timezone));
        const method = query.method ?? 'direct';
        if (end < start) throw new Invalid('end', 'must not be before start', { in: 'querystring' });
        const cashIds = await cashAccountIds(tx, books);
        const rows = (await q.cashFlowByAccount(tx.db, tx.tenantId, cashIds, start, end)).filter(
          (r): r is q.CashFlowAccountCents & { nature: AccountNature } => r.nature !== null,
        );
        const { openingCents, closingCents } = await q.cashBalances(tx.db, tx.tenantId, cashIds, start, end);

        const byActivity = (a: CashActivity) =>
          rows.filter((r) => activityOf(r.nature, r.code) === a).map((r) => ({ code: r.code, description: r.name, amount: r.cashCents }));
        const investimento = activity(byActivity('investimento'));
        const financiamento = activity(byActivity('financiamento'));

        let operacional: CashFlowActivity;
        if (method === 'direct') operacional = activity(byActivity('operacional'));
        else {
          // Every operating account over the whole period (credits - debits: the result, and the working
          // capital changes, an increase of an asset negative, of a liability positive), plus the non-cash
          // side of the entries that moved no cash against investing or financing accounts (depreciation
          // added back): exactly the direct method's operating total.
          const operating = rows.filter((r) => activityOf(r.nature, r.code) === 'operacional');
          const resultCents = operating.filter((r) => sectionOf(r.nature, r.code) === 'resultado').reduce((s, r) => s + r.cashCents + r.nonCashCents, 0);
          const workingCapital = operating
            .filter((r) => sectionOf(r.nature, r.code) !== 'resultado')
            .map((r) => ({ code: r.code, description: `Variação em ${r.name}`, amount: r.cashCents + r.nonCashCents }))
            .sort(byCode);
          const depreciation = operating
            .filter((r) => r.dreGroup === 'da')
            .map((r) => ({ code: r.code, description: r.name, amount: -(r.cashCents + r.nonCashCents) }))
            .sort(byCode);
          const nonCash = rows.filter((r) => activityOf(r.nature, r.code) !== 'operacional').reduce((s, r) => s + r.nonCashCents, 0);
          const otherNonCash = nonCash - depreciation.reduce((s, l) => s + l.amount, 0);
          operacional = activity([
            { code: '0', description: 'Resultado do período', amount: resultCents },
            ...depreciation,
            { code: '0.1', description: 'Outras transações sem efeito caixa (investimento e financiamento)', amount: otherNonCash },
            ...workingCapital,
          ], false);
        }
        return { period: { start, end }, method, operacional, investimento, financiamento, saldoInicial: openingCents, saldoFinal: closingCents };
      }),
  };
}

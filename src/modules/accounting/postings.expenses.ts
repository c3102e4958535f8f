import { and, asc, eq, isNull, like, sql } from 'drizzle-orm';
import { journalEntries } from '../../db/schema/accounting.js';
import type { TenantTx } from '../../db/scopes.js';
import type { Books, BookAccount, EntryLine, PostingKey } from './books.js';
import * as q from './journal.queries.js';
import { assertPeriodOpen } from './periods.js';

/**
 * Operating expenses (issue 15's `/dre/expenses`) in the books: an expense is posted on its competence date,
 * its category's account debited against `expenses_payable` (depreciation against accumulated depreciation;
 * an expense of a `revenue` category: other revenue against customers). A change reverses the expense's posting and posts the new one; a deletion
 * reverses it. docs/decisions.md, "Accounting: automatic postings".
 */

/** The account of each system category (migration 0018), by the default chart's code. */
export const SYSTEM_CATEGORY_ACCOUNTS: Record<string, string> = {
  'OPEX-ALUGUEL': '6.1',
  'OPEX-PESSOAL': '6.2',
  'OPEX-ENERGIA': '6.3',
  'OPEX-AGUA': '6.4',
  'OPEX-GAS': '6.5',
  'OPEX-TAXAS': '6.6',
  'OPEX-MARKETING': '6.7',
  'OPEX-MANUTENCAO': '6.8',
  'DA-DEPRECIACAO': '6.9',
  'FIN-DESPESAS': '6.10',
  'CMV-INSUMOS': '5.1',
  'DED-IMPOSTOS': '4.5',
  'DED-DEVOLUCOES': '4.4',
};

/** A tenant category's account, by its group (a system category without an account of its own too). */
const GROUP_KEYS: Record<string, PostingKey> = { opex: 'other_expenses', cogs: 'cogs', revenue: 'other_revenue' };
const GROUP_CODES: Record<string, string> = { da: '6.9', financial: '6.10', revenue_deduction: '4.5' };

export interface ExpenseForPosting {
  expense: { id: string; description: string; amountCents: number; competenceDate: string; updatedAt: Date };
  category: { code: string; name: string; dreGroup: string; system: boolean };
}

const line = (account: BookAccount, debitCents: number, creditCents: number, memo: string | null): EntryLine => ({ account, debitCents, creditCents, memo });

/** The months an expense change touches must be open: a closed month's DRE and books do not change (409 `period_closed`). */
export async function assertExpenseMonthsOpen(tx: TenantTx, dates: (string | undefined)[]) {
  for (const d of new Set(dates.filter((x): x is string => !!x))) await assertPeriodOpen(tx, d);
}

export function expensePostings(books: Books) {
  async function categoryAccount(tx: TenantTx, c: ExpenseForPosting['category']): Promise<BookAccount> {
    const code = c.system ? SYSTEM_CATEGORY_ACCOUNTS[c.code] : undefined;
    const byCode = code ? await books.accountByCode(tx, code) : null;
    if (byCode) return byCode;
    const groupCode = GROUP_CODES[c.dreGroup];
    const byGroup = groupCode ? await books.accountByCode(tx, groupCode) : null;
    return byGroup ?? books.accountFor(tx, GROUP_KEYS[c.dreGroup] ?? 'other_expenses');
  }

  /** The expense's posted versions (`<id>:<n>`), oldest first. */
  const versionsOf = (tx: TenantTx, id: string) =>
    tx.db
      .select()
      .from(journalEntries)
      .where(and(eq(journalEntries.tenantId, tx.tenantId), eq(journalEntries.sourceType, 'operating_expense'), like(journalEntries.sourceId, `${id}:%`)))
      .orderBy(asc(journalEntries.createdAt));

  const activeOf = async (tx: TenantTx, id: string) => {
    const [row] = await tx.db
      .select()
      .from(journalEntries)
      .where(
        and(
          eq(journalEntries.tenantId, tx.tenantId),
          eq(journalEntries.sourceType, 'operating_expense'),
          like(journalEntries.sourceId, `${id}:%`),
          isNull(journalEntries.reversedById),
        ),
      )
      .for('update');
    return row ?? null;
  };

  return {
    /**
     * Brings the books in line with the expense as it is now (a job per change; each run reads the current
     * state, so runs in any order end the same): nothing to do when its active posting already says the same;
     * else that posting is reversed and, while the expense exists, the new version is posted.
     */
    async sync(tx: TenantTx, id: string, load: () => Promise<ExpenseForPosting | null>): Promise<string> {
      // One sync of an expense at a time: a second waits, then sees what the first posted.
      await tx.db.execute(sql`select pg_advisory_xact_lock(hashtext(${`expense-posting:${tx.tenantId}:${id}`}))`);
      const current = await load();
      const active = await activeOf(tx, id);
      let wanted: { date: string; description: string; lines: EntryLine[] } | null = null;
      if (current) {
        const { expense, category } = current;
        const account = await categoryAccount(tx, category);
        const revenue = category.dreGroup === 'revenue';
        // Depreciation is paid to nobody: it wears the fixed assets down.
        const counter = await books.accountFor(tx, revenue ? 'customers' : category.dreGroup === 'da' ? 'accumulated_depreciation' : 'expenses_payable');
        const memo = category.name;
        wanted = {
          date: expense.competenceDate,
          description: `${revenue ? 'Receita' : 'Despesa'}: ${expense.description}`.slice(0, 300),
          lines: revenue
            ? [line(counter, expense.amountCents, 0, memo), line(account, 0, expense.amountCents, memo)]
            : [line(account, expense.amountCents, 0, memo), line(counter, 0, expense.amountCents, memo)],
        };
      }
      if (active && wanted) {
        const lines = await q.linesOf(tx.db, tx.tenantId, [active.id]);
        const same =
          active.competenceDate === wanted.date &&
          active.description === wanted.description &&
          lines.length === wanted.lines.length &&
          lines.every((l, i) => {
            const w = wanted.lines[i]!;
            return l.accountId === w.account.id && l.debitCents === w.debitCents && l.creditCents === w.creditCents;
          });
        if (same) return 'up to date';
      }
      if (!active && !wanted) return 'nothing posted';
      if (active) {
        const lines = await q.linesOf(tx.db, tx.tenantId, [active.id]);
        const counterEntry = await books.postAutomatic(tx, {
          sourceType: 'operating_expense_reversal',
          sourceId: active.id,
          date: active.competenceDate,
          description: `Estorno de ${active.entryNumber}: despesa ${wanted ? 'alterada' : 'excluída'}`,
          lines: lines.map((l) => line({ id: l.accountId, code: l.accountCode, name: l.accountName }, l.creditCents, l.debitCents, l.memo)),
          whenClosed: 'next_open',
        });
        await q.updateEntry(tx.db, tx.tenantId, active.id, { reversedById: counterEntry.entry.id, reversalReason: wanted ? 'despesa alterada' : 'despesa excluída' });
        await q.updateEntry(tx.db, tx.tenantId, counterEntry.entry.id, { reversesId: active.id });
      }
      if (!wanted) return 'reversed';
      const n = (await versionsOf(tx, id)).length + 1;
      await books.postAutomatic(tx, { sourceType: 'operating_expense', sourceId: `${id}:${n}`, ...wanted, whenClosed: 'next_open' });
      return active ? 'reposted' : 'posted';
    },
  };
}

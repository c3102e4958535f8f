import { and, eq } from 'drizzle-orm';
import { newId } from '../../db/ids.js';
import { accountMappings, journalEntries } from '../../db/schema/accounting.js';
import type { TenantTx } from '../../db/scopes.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, isUniqueViolation } from '../../platform/domain-errors.js';
import { DEFAULT_ACCOUNTS } from './chart.defaults.js';
import * as cq from './chart.queries.js';
import * as q from './journal.queries.js';
import { seedChart } from './chart.seed.js';
import { assertPeriodOpen, periodClosed, periodOf } from './periods.js';

/**
 * The accounts automatic postings use, by key, with the default chart's code for each (docs/decisions.md,
 * "Accounting: automatic postings"). A tenant overrides a key with one of its analytic accounts
 * (`account_mappings`).
 */
export const POSTING_KEYS = {
  cash: { code: '1.1.01', label: 'Cash received at the counter' },
  bank: { code: '1.1.02', label: 'Bank account (PIX, settled receivables, bank accounts without their own)' },
  customers: { code: '1.1.03', label: 'Sales on credit (manual receivables)' },
  card_receivable: { code: '1.1.04', label: 'Card and voucher sales until the acquirer pays' },
  pix_receivable: { code: '1.1.05', label: 'Wallet payments until the provider pays' },
  inventory: { code: '1.1.06', label: 'Stock of goods and ingredients' },
  accumulated_depreciation: { code: '1.2.02', label: 'Accumulated depreciation (credited by depreciation expenses)' },
  suppliers: { code: '2.1.01', label: 'Amounts owed to suppliers (received purchase orders)' },
  expenses_payable: { code: '2.1.06', label: 'Operating expenses recorded and not yet paid' },
  tips_payable: { code: '2.1.04', label: 'Tips owed to the staff' },
  sales_revenue: { code: '4.1', label: 'Sales revenue (gross of discounts)' },
  service_revenue: { code: '4.2', label: 'Service charge and cover charge' },
  discounts: { code: '4.3', label: 'Discounts given' },
  cogs: { code: '5.1', label: 'Cost of goods sold (recipe costs of what was sold)' },
  card_fees: { code: '6.6', label: 'Card acquirer fees (kept from a settled card receivable)' },
  bad_debts: { code: '6.11', label: 'Receivables written off' },
  other_expenses: { code: '6.13', label: 'Operating expenses of a category without an account of its own' },
  other_revenue: { code: '4.6', label: 'Other operating revenue (expense entries of a revenue category)' },
} as const;
export type PostingKey = keyof typeof POSTING_KEYS;
export const POSTING_KEY_NAMES = Object.keys(POSTING_KEYS) as PostingKey[];

export interface BookAccount {
  id: string;
  code: string;
  name: string;
}

export interface EntryLine {
  account: BookAccount;
  debitCents: number;
  creditCents: number;
  memo: string | null;
}

export interface EntryFields {
  competenceDate: string;
  description: string;
  status: 'draft' | 'posted';
  userId: string | null;
  reversesId?: string;
  reversalReason?: string;
  sourceType?: string;
  sourceId?: string;
}

/** An automatic posting: what it is, when, and its lines (zero lines are dropped; debits must equal credits). */
export interface AutomaticPosting {
  sourceType: string;
  sourceId: string;
  /** The day it happened (tenant's local date). */
  date: string;
  description: string;
  lines: EntryLine[];
  userId?: string | null;
  /**
   * When the day's month is closed: `refuse` (409 `period_closed`, for a user's action) or `next_open`
   * (an event that happened anyway: dated the first day of the first open month after it, the original day
   * in the memo).
   */
  whenClosed: 'refuse' | 'next_open';
}

const entryNumber = (year: number, n: number) => `JE-${year}-${String(n).padStart(5, '0')}`;

/**
 * What every part of accounting writes the journal with: entry numbers, entries, the account of a
 * posting key, and automatic postings (once per source).
 */
export function books(deps: Deps) {
  let chartReady = false;

  /**
   * The next number of the entry's year. It holds the tenant's counter row of the year until the
   * transaction ends: a month's first close locks that row (ledger.queries.ts `lockMonthWrites`), so an
   * entry that took its number before the close is in the snapshot, and one after it waits, then finds
   * the month closed.
   */
  const allocateNumber = async (tx: TenantTx, competenceDate: string) => {
    const year = Number(competenceDate.slice(0, 4));
    return entryNumber(year, await q.nextEntryNumber(tx.db, tx.tenantId, year));
  };

  /** Writes an entry under its number; its lines are checked by the caller. */
  async function writeEntry(tx: TenantTx, number: string, fields: EntryFields, lines: EntryLine[]) {
    const now = deps.clock.now();
    const id = newId();
    const total = lines.reduce((s, l) => s + l.debitCents, 0);
    return q.insertEntry(
      tx.db,
      {
        tenantId: tx.tenantId,
        id,
        entryNumber: number,
        competenceDate: fields.competenceDate,
        description: fields.description,
        status: fields.status,
        totalCents: total,
        reversesId: fields.reversesId ?? null,
        reversalReason: fields.reversalReason ?? null,
        sourceType: fields.sourceType ?? null,
        sourceId: fields.sourceId ?? null,
        createdBy: fields.userId,
        postedAt: fields.status === 'posted' ? now : null,
        postedBy: fields.status === 'posted' ? fields.userId : null,
        createdAt: now,
        updatedAt: now,
      },
      lines.map((l, i) => ({
        tenantId: tx.tenantId,
        id: newId(),
        entryId: id,
        lineNo: i + 1,
        accountId: l.account.id,
        accountCode: l.account.code,
        accountName: l.account.name,
        debitCents: l.debitCents,
        creditCents: l.creditCents,
        memo: l.memo,
      })),
    );
  }

  /** The status of a month: closed or not (read `for share`, as `assertPeriodOpen`). */
  const isClosed = async (tx: TenantTx, date: string) => {
    try {
      await assertPeriodOpen(tx, date);
      return false;
    } catch (err) {
      if (err instanceof Conflict && err.code === 'period_closed') return true;
      throw err;
    }
  };

  /** The first day of the first open month from the date's month on (at most 36 months later). */
  async function firstOpenDay(tx: TenantTx, date: string): Promise<string | null> {
    let { year, month } = periodOf(date);
    for (let i = 0; i < 36; i++) {
      month += 1;
      if (month > 12) {
        month = 1;
        year += 1;
      }
      const day = `${year}-${String(month).padStart(2, '0')}-01`;
      if (!(await isClosed(tx, day))) return day;
    }
    return null;
  }

  return {
    allocateNumber,
    writeEntry,

    /**
     * Makes sure the default chart is in the system chart (the superadmin's seed, run once per process on
     * the first automatic posting): postings name its accounts. Call it OUTSIDE a tenant transaction.
     */
    async ensureDefaultChart(): Promise<void> {
      if (chartReady) return;
      const present = await deps.bypass('system-chart-seed', async (db) => (await cq.listSystemAccounts(db)).map((a) => a.code));
      const missing = DEFAULT_ACCOUNTS.filter((a) => !present.includes(a.code));
      if (missing.length > 0) await seedChart(deps);
      chartReady = true;
    },

    /**
     * The account of a posting key: the tenant's override, else the system account of the default code.
     * Throws when neither exists (the default chart not seeded: call `ensureDefaultChart` first).
     */
    async accountFor(tx: TenantTx, key: PostingKey): Promise<BookAccount> {
      const [override] = await tx.db
        .select({ accountId: accountMappings.accountId })
        .from(accountMappings)
        .where(and(eq(accountMappings.tenantId, tx.tenantId), eq(accountMappings.key, key)));
      if (override) {
        const [a] = await cq.accountsByIds(tx.db, tx.tenantId, [override.accountId]);
        if (a && a.active && a.type === 'analitica') return { id: a.id, code: a.code, name: a.name };
      }
      const code = POSTING_KEYS[key].code;
      const a = (await cq.findTenantAccountByCode(tx.db, tx.tenantId, code)) ?? (await cq.findSystemAccountByCode(tx.db, code));
      if (!a) throw new Error(`no account for the posting key ${key} (code ${code}): the default chart is not seeded`);
      return { id: a.id, code: a.code, name: a.name };
    },

    /** An analytic account by code (the tenant's, else the system's), or null. */
    async accountByCode(tx: TenantTx, code: string): Promise<BookAccount | null> {
      const a = (await cq.findTenantAccountByCode(tx.db, tx.tenantId, code)) ?? (await cq.findSystemAccountByCode(tx.db, code));
      return a && a.active && a.type === 'analitica' ? { id: a.id, code: a.code, name: a.name } : null;
    },

    /**
     * Writes a posted entry for a source event, once: a second call for the same (sourceType, sourceId)
     * returns the first entry with `created: false`. Lines with no amount are dropped; debits must equal
     * credits (a bug otherwise: it throws).
     */
    async postAutomatic(tx: TenantTx, p: AutomaticPosting) {
      const lines = p.lines.filter((l) => l.debitCents > 0 || l.creditCents > 0);
      const debits = lines.reduce((s, l) => s + l.debitCents, 0);
      const credits = lines.reduce((s, l) => s + l.creditCents, 0);
      if (debits !== credits || debits <= 0) throw new Error(`automatic posting ${p.sourceType}:${p.sourceId} does not balance (${debits} / ${credits})`);
      const existing = async () => {
        const [row] = await tx.db
          .select()
          .from(journalEntries)
          .where(and(eq(journalEntries.tenantId, tx.tenantId), eq(journalEntries.sourceType, p.sourceType), eq(journalEntries.sourceId, p.sourceId)));
        return row ?? null;
      };
      const before = await existing();
      if (before) return { entry: before, lines: await q.linesOf(tx.db, tx.tenantId, [before.id]), created: false };
      let date = p.date;
      let note: string | null = null;
      if (await isClosed(tx, date)) {
        if (p.whenClosed === 'refuse') throw periodClosed(periodOf(date));
        const open = await firstOpenDay(tx, date);
        if (!open) throw new Error(`no open month after ${date} for ${p.sourceType}:${p.sourceId}`);
        note = `competência original ${date}`;
        date = open;
      }
      // The number first, then the period again: a first close running now is waited for (see allocateNumber).
      const number = await allocateNumber(tx, date);
      await assertPeriodOpen(tx, date);
      const fields: EntryFields = { competenceDate: date, description: p.description, status: 'posted', userId: p.userId ?? null, sourceType: p.sourceType, sourceId: p.sourceId };
      const withNote = note ? lines.map((l) => ({ ...l, memo: l.memo ? `${l.memo} (${note})` : note })) : lines;
      try {
        const written = await tx.db.transaction((sp) => writeEntry({ ...tx, db: sp }, number, fields, withNote));
        return { ...written, created: true };
      } catch (err) {
        if (!isUniqueViolation(err, 'journal_entries_source_key')) throw err;
        const row = (await existing())!;
        return { entry: row, lines: await q.linesOf(tx.db, tx.tenantId, [row.id]), created: false };
      }
    },
  };
}

export type Books = ReturnType<typeof books>;

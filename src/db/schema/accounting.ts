import { sql } from 'drizzle-orm';
import { bigint, boolean, char, date, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

/**
 * Accounting (spec 2 "Accounting records", 3 "JournalEntry", "PeriodClosing", 4.11). Money is integer
 * cents inside; the API speaks decimal currency units. docs/decisions.md, "Accounting".
 */

export const ACCOUNT_NATURES = ['ativo', 'passivo', 'receita', 'despesa', 'custo', 'patrimonio_liquido'] as const;
export type AccountNature = (typeof ACCOUNT_NATURES)[number];

export const ACCOUNT_TYPES = ['sintetica', 'analitica'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const NORMAL_BALANCES = ['debit', 'credit'] as const;
export type NormalBalance = (typeof NORMAL_BALANCES)[number];

export const ENTRY_STATUSES = ['draft', 'posted', 'reversed'] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];

export const PERIOD_STATUSES = ['closed', 'reopened'] as const;
export type PeriodStatus = (typeof PERIOD_STATUSES)[number];

const accountColumns = {
  id: id('id').notNull(),
  /** Dotted code, e.g. 1.1.01.001. */
  code: text('code').notNull(),
  name: text('name').notNull(),
  nature: text('nature', { enum: ACCOUNT_NATURES }).notNull(),
  type: text('type', { enum: ACCOUNT_TYPES }).notNull(),
  normalBalance: text('normal_balance', { enum: NORMAL_BALANCES }).notNull(),
  /** A synthetic account, of the system chart or the tenant's. */
  parentId: char('parent_id', { length: 24 }),
  dreGroup: text('dre_group'),
  active: boolean('active').notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
};

/**
 * The system default chart (spec: `tenant` null), shared by every tenant and written only by the
 * superadmin's seed: a table without `tenant_id`, listed in the shared tables of the isolation test.
 */
export const systemAccounts = pgTable('system_accounts', accountColumns, (t) => [primaryKey({ columns: [t.id] }), uniqueIndex('system_accounts_code_key').on(t.code)]);

/** A tenant's own accounts, beside the system chart (a code is unique across both for the tenant). */
export const chartAccounts = pgTable(
  'chart_accounts',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    ...accountColumns,
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex('chart_accounts_code_key').on(t.tenantId, t.code)],
);

/** A journal entry: its lines balance to the cent; posted entries never change. */
export const journalEntries = pgTable(
  'journal_entries',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    /** JE-YYYY-NNNNN: the competence year and the tenant's counter of that year. */
    entryNumber: text('entry_number').notNull(),
    competenceDate: date('competence_date', { mode: 'string' }).notNull(),
    description: text('description').notNull(),
    status: text('status', { enum: ENTRY_STATUSES }).notNull().default('draft'),
    /** The sum of the debits (= the sum of the credits), cents. */
    totalCents: bigint('total_cents', { mode: 'number' }).notNull(),
    /** On a counter-entry: the entry it reverses. */
    reversesId: id('reverses_id'),
    /** On a reversed entry: its counter-entry. */
    reversedById: id('reversed_by_id'),
    reversalReason: text('reversal_reason'),
    /** What posted it automatically (`payment`, `purchase_receipt`...) and its id: once per source. */
    sourceType: text('source_type'),
    sourceId: text('source_id'),
    createdBy: id('created_by'),
    postedAt: ts('posted_at'),
    postedBy: id('posted_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('journal_entries_number_key').on(t.tenantId, t.entryNumber),
    uniqueIndex('journal_entries_source_key').on(t.tenantId, t.sourceType, t.sourceId).where(sql`${t.sourceType} is not null`),
    index('journal_entries_date_idx').on(t.tenantId, t.competenceDate),
  ],
);

/** A line of an entry: a debit or a credit on one analytic account (its code and name kept as posted). */
export const journalLines = pgTable(
  'journal_lines',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    entryId: id('entry_id').notNull(),
    lineNo: integer('line_no').notNull(),
    accountId: id('account_id').notNull(),
    accountCode: text('account_code').notNull(),
    accountName: text('account_name').notNull(),
    debitCents: bigint('debit_cents', { mode: 'number' }).notNull().default(0),
    creditCents: bigint('credit_cents', { mode: 'number' }).notNull().default(0),
    memo: text('memo'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('journal_lines_entry_idx').on(t.tenantId, t.entryId),
    index('journal_lines_account_idx').on(t.tenantId, t.accountId),
  ],
);

/** The last entry number of a tenant's year (the NNNNN of JE-YYYY-NNNNN). */
export const journalCounters = pgTable(
  'journal_counters',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    year: integer('year').notNull(),
    last: integer('last').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.year] })],
);

/** A month's closing: while `closed`, nothing is posted, reversed or dated in it. */
export const periodClosings = pgTable(
  'period_closings',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    year: integer('year').notNull(),
    month: integer('month').notNull(),
    status: text('status', { enum: PERIOD_STATUSES }).notNull(),
    /** The balancete of the month when it was (last) closed. */
    trialBalanceSnapshot: jsonb('trial_balance_snapshot').$type<Record<string, unknown>[]>().notNull(),
    closedAt: ts('closed_at').notNull(),
    closedBy: id('closed_by'),
    reopenedAt: ts('reopened_at'),
    reopenedBy: id('reopened_by'),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.year, t.month] })],
);

export type SystemAccountRow = typeof systemAccounts.$inferSelect;
export type ChartAccountRow = typeof chartAccounts.$inferSelect;
export type JournalEntryRow = typeof journalEntries.$inferSelect;
export type JournalLineRow = typeof journalLines.$inferSelect;
export type PeriodClosingRow = typeof periodClosings.$inferSelect;

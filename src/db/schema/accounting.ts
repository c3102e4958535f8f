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
    // The entry's lines with what the ledger sums: a month's balancete reads them from the index alone (bench/README.md, Accounting).
    index('journal_lines_entry_idx').on(t.tenantId, t.entryId, t.accountId, t.debitCents, t.creditCents),
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

// ---- receivables, bank, account mapping (issue 14, second part)

/** `open` (nothing received), `partial`, `settled` (received in full), `written_off` (the rest given up with a reason). */
export const RECEIVABLE_STATUSES = ['open', 'partial', 'settled', 'written_off'] as const;
export type ReceivableStatus = (typeof RECEIVABLE_STATUSES)[number];
/** A card (or voucher) sale awaiting the acquirer's settlement, or one made by hand (a sale on credit). */
export const RECEIVABLE_SOURCES = ['card_sale', 'manual'] as const;
export type ReceivableSource = (typeof RECEIVABLE_SOURCES)[number];

/** Money the restaurant is owed: a card sale until the acquirer pays it, or a sale on credit. */
export const receivables = pgTable(
  'receivables',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    source: text('source', { enum: RECEIVABLE_SOURCES }).notNull(),
    /** The payment of a card sale (once per payment). */
    sourceId: text('source_id'),
    customerName: text('customer_name'),
    description: text('description').notNull(),
    /** The receivable's ledger account (cartões a receber, clientes). */
    accountId: id('account_id').notNull(),
    /** The payment method of the sale (card sales) or null. */
    method: text('method'),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    receivedCents: bigint('received_cents', { mode: 'number' }).notNull().default(0),
    writtenOffCents: bigint('written_off_cents', { mode: 'number' }).notNull().default(0),
    issueDate: date('issue_date', { mode: 'string' }).notNull(),
    dueDate: date('due_date', { mode: 'string' }).notNull(),
    status: text('status', { enum: RECEIVABLE_STATUSES }).notNull().default('open'),
    /** Each receipt: `{ amountCents, paymentMethod, date, entryId, at, by }`. */
    settlements: jsonb('settlements').$type<Record<string, unknown>[]>().notNull().default([]),
    writeOffReason: text('write_off_reason'),
    /** The journal entry that recognised it (manual ones), the write-off's entry. */
    entryId: id('entry_id'),
    writeOffEntryId: id('write_off_entry_id'),
    createdBy: id('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('receivables_source_key').on(t.tenantId, t.source, t.sourceId).where(sql`${t.sourceId} is not null`),
    index('receivables_status_idx').on(t.tenantId, t.status, t.dueDate),
  ],
);

export const BANK_ACCOUNT_TYPES = ['checking', 'savings', 'payment'] as const;
export type BankAccountType = (typeof BANK_ACCOUNT_TYPES)[number];

/** A bank account of the restaurant, tied to an analytic ledger account (bancos conta movimento by default). */
export const bankAccounts = pgTable(
  'bank_accounts',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    name: text('name').notNull(),
    bank: text('bank').notNull(),
    agency: text('agency').notNull(),
    account: text('account').notNull(),
    type: text('type', { enum: BANK_ACCOUNT_TYPES }).notNull(),
    ledgerAccountId: id('ledger_account_id').notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex('bank_accounts_number_key').on(t.tenantId, t.bank, t.agency, t.account)],
);

export const STATEMENT_LINE_STATUSES = ['unmatched', 'matched', 'ignored'] as const;
export type StatementLineStatus = (typeof STATEMENT_LINE_STATUSES)[number];

/** One import of a statement file. */
export const bankImports = pgTable(
  'bank_imports',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    bankAccountId: id('bank_account_id').notNull(),
    fileName: text('file_name'),
    format: text('format').notNull(),
    linesRead: integer('lines_read').notNull(),
    linesAdded: integer('lines_added').notNull(),
    createdBy: id('created_by'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
);

/** A line of a bank statement: credits positive, debits negative; the bank's transaction id makes a re-import add nothing. */
export const bankStatementLines = pgTable(
  'bank_statement_lines',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    bankAccountId: id('bank_account_id').notNull(),
    importId: id('import_id').notNull(),
    /** The bank's transaction id (OFX FITID; CSV: given, or derived from the line). */
    fitId: text('fit_id').notNull(),
    postedDate: date('posted_date', { mode: 'string' }).notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    description: text('description').notNull(),
    status: text('status', { enum: STATEMENT_LINE_STATUSES }).notNull().default('unmatched'),
    matchedEntryId: id('matched_entry_id'),
    matchedAt: ts('matched_at'),
    matchedBy: id('matched_by'),
    ignoredReason: text('ignored_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('bank_statement_lines_fit_key').on(t.tenantId, t.bankAccountId, t.fitId),
    // Each journal entry is matched to one statement line at most.
    uniqueIndex('bank_statement_lines_entry_key').on(t.tenantId, t.matchedEntryId).where(sql`${t.matchedEntryId} is not null`),
    index('bank_statement_lines_status_idx').on(t.tenantId, t.bankAccountId, t.status, t.postedDate),
  ],
);

/** A tenant's override of the account an automatic posting uses (`key` from POSTING_KEYS, postings.map.ts). */
export const accountMappings = pgTable(
  'account_mappings',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    accountId: id('account_id').notNull(),
    updatedBy: id('updated_by'),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] })],
);

export type ReceivableRow = typeof receivables.$inferSelect;
export type BankAccountRow = typeof bankAccounts.$inferSelect;
export type BankImportRow = typeof bankImports.$inferSelect;
export type BankStatementLineRow = typeof bankStatementLines.$inferSelect;
export type AccountMappingRow = typeof accountMappings.$inferSelect;

import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts, updatedAt } from './columns.js';
import { tenants } from './tenants.js';

/**
 * Fiscal documents (spec 2 "FiscalDoc", 3 "FiscalDoc", 4.9): NF-e (model 55) and NFC-e (model 65) of paid
 * orders, numbered per branch, model and series; the NCM table; the accountant's export downloads.
 */

export const FISCAL_TYPES = ['nfe', 'nfce'] as const;
export type FiscalType = (typeof FISCAL_TYPES)[number];
export const FISCAL_STATUSES = ['pending', 'authorized', 'rejected', 'cancelled'] as const;
export type FiscalStatus = (typeof FISCAL_STATUSES)[number];

export const fiscalDocuments = pgTable(
  'fiscal_documents',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    orderId: id('order_id').notNull(),
    /** The branch whose numbering it takes ('' for an order without a branch: the tenant's own numbering). */
    branchKey: text('branch_key').notNull().default(''),
    tipo: text('tipo', { enum: FISCAL_TYPES }).notNull(),
    /** 55 (NF-e) or 65 (NFC-e). */
    model: integer('model').notNull(),
    series: integer('series').notNull(),
    number: integer('number').notNull(),
    status: text('status', { enum: FISCAL_STATUSES }).notNull().default('pending'),
    /** The 44-digit access key. */
    nfeKey: text('nfe_key').notNull(),
    /** The unique reference of the document at the fiscal provider. */
    providerRef: text('provider_ref').notNull(),
    customerCpf: text('customer_cpf'),
    totalCents: bigint('total_cents', { mode: 'number' }).notNull(),
    /** ICMS and other taxes of the document, cents, as sent (for the EFD files). */
    taxes: jsonb('taxes').$type<Record<string, unknown>>().notNull().default({}),
    /** The document's lines as sent (item, NCM, CFOP, quantities, values). */
    items: jsonb('items').$type<Record<string, unknown>[]>().notNull().default([]),
    errorDetails: jsonb('error_details').$type<Record<string, unknown>>(),
    protocol: text('protocol'),
    attempts: integer('attempts').notNull().default(0),
    emittedAt: ts('emitted_at'),
    authorizedAt: ts('authorized_at'),
    cancelledAt: ts('cancelled_at'),
    cancelReason: text('cancel_reason'),
    createdBy: id('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    // One active document per order and type: a second emission while one is pending or authorized loses here.
    uniqueIndex('fiscal_documents_active_key').on(t.tenantId, t.orderId, t.tipo).where(sql`${t.status} in ('pending', 'authorized')`),
    uniqueIndex('fiscal_documents_number_key').on(t.tenantId, t.branchKey, t.model, t.series, t.number),
    uniqueIndex('fiscal_documents_provider_ref_key').on(t.providerRef),
    index('fiscal_documents_status_idx').on(t.tenantId, t.status, t.createdAt),
  ],
);

/** The last number of a branch's model and series. */
export const fiscalCounters = pgTable(
  'fiscal_counters',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    branchKey: text('branch_key').notNull(),
    model: integer('model').notNull(),
    series: integer('series').notNull(),
    last: integer('last').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.branchKey, t.model, t.series] })],
);

export const NUMBER_VOID_STATUSES = ['pending', 'voided', 'failed'] as const;

/** A range of numbers that will never be used (a failed emission), voided at the authority ("inutilização"). */
export const fiscalNumberVoids = pgTable(
  'fiscal_number_voids',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    branchKey: text('branch_key').notNull(),
    model: integer('model').notNull(),
    series: integer('series').notNull(),
    numberFrom: integer('number_from').notNull(),
    numberTo: integer('number_to').notNull(),
    reason: text('reason').notNull(),
    status: text('status', { enum: NUMBER_VOID_STATUSES }).notNull().default('pending'),
    protocol: text('protocol'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
);

/** A document's files: the authorised XML and the DANFE PDF (base64), served to authorised users only. */
export const fiscalFiles = pgTable(
  'fiscal_files',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    documentId: id('document_id').notNull(),
    kind: text('kind', { enum: ['xml', 'danfe'] }).notNull(),
    contentType: text('content_type').notNull(),
    /** The XML as text; the PDF in base64. */
    body: text('body').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.documentId, t.kind] })],
);

/** The NCM table (Siscomex), shared by every tenant, loaded once by the seed; searched by code prefix and trigrams. */
export const ncmCodes = pgTable(
  'ncm_codes',
  {
    /** Digits only (2, 4, 5, 6, 7 or 8 of them). */
    code: text('code').notNull(),
    /** The code as published (0101.21.00). */
    display: text('display').notNull(),
    description: text('description').notNull(),
    /** The description with its parents' (what a search matches), lower case, without accents. */
    searchText: text('search_text').notNull(),
    /** The chapter's description (the first two digits). */
    category: text('category').notNull(),
  },
  (t) => [primaryKey({ columns: [t.code] }), index('ncm_codes_search_trgm').using('gin', sql`${t.searchText} gin_trgm_ops`)],
);

/** A file made for the accountant (EFD), downloaded by its token until it expires. */
export const fiscalExports = pgTable(
  'fiscal_exports',
  {
    tenantId: id('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    id: id('id').notNull(),
    /** Random, unguessable: the download link's secret. */
    token: text('token').notNull(),
    kind: text('kind').notNull(),
    fileName: text('file_name').notNull(),
    contentType: text('content_type').notNull(),
    body: text('body').notNull(),
    expiresAt: ts('expires_at').notNull(),
    createdBy: id('created_by'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex('fiscal_exports_token_key').on(t.token)],
);

export type FiscalDocumentRow = typeof fiscalDocuments.$inferSelect;
export type FiscalCounterRow = typeof fiscalCounters.$inferSelect;
export type FiscalNumberVoidRow = typeof fiscalNumberVoids.$inferSelect;
export type FiscalFileRow = typeof fiscalFiles.$inferSelect;
export type NcmCodeRow = typeof ncmCodes.$inferSelect;
export type FiscalExportRow = typeof fiscalExports.$inferSelect;

import type { FiscalDocumentRow } from '../../db/schema/fiscal.js';
import type { FiscalDocView } from './documents.schemas.js';

/** The order a document was emitted for, as the FiscalDoc shows it (spec 2: `_id`, `orderNumber`, `total`, `customerName`). */
export interface FiscalOrderSummary {
  _id: string;
  orderNumber: string;
  /** Cents. */
  total: number;
  customerName: string | null;
}

/** The error details stored with a rejection, in the view's shape whatever was stored. */
function errorDetailsOf(raw: Record<string, unknown> | null): FiscalDocView['errorDetails'] {
  if (!raw) return null;
  const errors = Array.isArray(raw.errors) ? (raw.errors as Record<string, unknown>[]) : [];
  return {
    message: typeof raw.message === 'string' ? raw.message : 'Rejected',
    errors: errors.map((e) => ({
      code: String(e?.code ?? ''),
      message: String(e?.message ?? ''),
      ...(typeof e?.field === 'string' ? { field: e.field } : {}),
    })),
  };
}

/**
 * A fiscal document row as the API shows it (spec 2 "FiscalDoc"), shared by `/fiscal` and `/accountant`: the
 * XML and DANFE links only once the authority accepted it (authorised or cancelled afterwards).
 */
export function toFiscalDocView(row: FiscalDocumentRow, order: FiscalOrderSummary | null, slug: string): FiscalDocView {
  const files = row.status === 'authorized' || row.status === 'cancelled';
  return {
    _id: row.id,
    order,
    tenant: row.tenantId,
    tipo: row.tipo,
    status: row.status,
    nfeKey: row.nfeKey,
    nfeNumber: String(row.number),
    serie: String(row.series),
    model: row.model,
    branch: row.branchKey === '' ? null : row.branchKey,
    customerCpf: row.customerCpf,
    total: row.totalCents,
    danfeUrl: files ? `/t/${slug}/fiscal/${row.id}/danfe` : null,
    xmlUrl: files ? `/t/${slug}/fiscal/${row.id}/xml` : null,
    providerRef: row.providerRef,
    protocol: row.protocol,
    errorDetails: errorDetailsOf(row.errorDetails ?? null),
    attempts: row.attempts,
    emittedAt: row.emittedAt ? row.emittedAt.toISOString() : null,
    authorizedAt: row.authorizedAt ? row.authorizedAt.toISOString() : null,
    cancelledAt: row.cancelledAt ? row.cancelledAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
  };
}

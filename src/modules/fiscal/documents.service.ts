/**
 * Fiscal document emission (spec 4.9): NFC-e / NF-e of a paid order, numbered per branch, model and series,
 * built as layout 4.00 XML, sent to the fiscal provider and taken forward by the emission queue.
 *
 * Lifecycle: `pending` (numbered, XML built; sent or not yet) -> `authorized` (XML and DANFE stored) ->
 * `cancelled`; or `pending` -> `rejected` (the authority's reasons in `errorDetails`, its number voided).
 * A provider that cannot be reached leaves the document `pending`: emitting again for the same order and
 * type retries it (never a second number), and the queue retries it on its own.
 */
import { newId } from '../../db/ids.js';
import type { FiscalDocumentRow, FiscalStatus } from '../../db/schema/fiscal.js';
import type { OrderRow } from '../../db/schema/orders.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import { isIntegrationError, isRefused, isUnavailable } from '../../integrations/errors.js';
import type { FiscalClient, FiscalDocKind, FiscalRejectionReason, ProviderDocument } from '../../integrations/fiscal/index.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import { Conflict, InvalidRequest, isUniqueViolation, NotFound, Rejected, Unavailable } from '../../platform/domain-errors.js';
import { buildAccessKey, UF_CODES } from './access-key.js';
import * as q from './documents.queries.js';
import type { EmitInput, FiscalDocView, ListFiscalInput } from './documents.schemas.js';
import { fiscalJobs, type AdvanceJob } from './fiscal.jobs.js';
import type { FiscalParts } from './fiscal.service.js';
import { toFiscalDocView } from './fiscal.view.js';
import { buildNfeXml, DEFAULT_CFOP, DEFAULT_CSOSN, DEFAULT_CST, DEFAULT_NCM, localDateTime, spread, type NfeLine } from './nfe.xml.js';
import { nextNumber } from './numbering.js';

/** Every document is series 1. */
export const FISCAL_SERIES = 1;
export const MODEL_OF: Record<FiscalDocKind, 55 | 65> = { nfe: 55, nfce: 65 };
/** The justification sent with a cancellation (the authority wants 15 to 255 characters). */
export const CANCEL_REASON = 'Cancelamento solicitado pelo emitente';
const VOID_REASON = 'Numero nao utilizado: documento rejeitado pela SEFAZ';

/** The authority rejected the document: a 422 whose body carries `errorDetails` and the document. */
export class FiscalRejected extends Rejected {
  constructor(
    message: string,
    readonly errorDetails: { message: string; errors: FiscalRejectionReason[] },
    readonly document: FiscalDocView,
  ) {
    super(message, 'fiscal_rejected');
  }
}

/** NF-e CRT by the tenant's regime (default 1, Simples Nacional). */
const CRT: Record<string, '1' | '2' | '3' | '4'> = { simples_nacional: '1', simples_nacional_excesso_sublimite: '2', regime_normal: '3', mei: '4' };

/** NF-e `tPag` by the order's payment method. */
const TPAG: Record<string, string> = { cash: '01', credit_card: '03', card: '03', debit_card: '04', voucher: '10', pix: '17', mixed: '99' };

const unavailable = () =>
  new Unavailable('The fiscal provider is unavailable; the document stays pending: emit again for the same order to retry', 'fiscal_provider_unavailable');

export function documentsPart({ deps, needs }: FiscalParts) {
  const { tenants, orders, menu, branches, audit } = needs;
  const { clock, jobs } = deps;

  function client(): FiscalClient {
    const c = deps.integrations.fiscal.client;
    if (!c) throw new Unavailable('No fiscal provider is configured (FISCAL_PROVIDER_MODE=off)', 'fiscal_provider_unavailable');
    return c;
  }

  async function orderSummary(tx: TenantTx, orderId: string) {
    const o = await orders.findById(tx, orderId);
    return o ? { _id: o.id, orderNumber: o.orderNumber, total: o.total, customerName: o.customerName } : null;
  }

  async function view(t: TenantDb, row: FiscalDocumentRow, slug: string): Promise<FiscalDocView> {
    return t.run(async (tx) => toFiscalDocView(row, await orderSummary(tx, row.orderId), slug));
  }

  /** The document's lines from the order's, with each menu item's fiscal data or the defaults; discounts and charges spread over them. */
  async function linesOf(t: TenantDb, order: OrderRow, crt: string): Promise<NfeLine[]> {
    const fiscal = await menu.fiscalDataOf(t, order.items.flatMap((l) => (l.menuItem ? [l.menuItem] : [])));
    const lines = order.items.flatMap((l, i): NfeLine[] => {
      const quantity = l.quantity - (l.voidedQuantity ?? 0);
      if (quantity <= 0) return [];
      const f = (l.menuItem && fiscal.get(l.menuItem)) || { ncm: null, cfop: null, cest: null, taxCode: null };
      return [
        {
          code: l.menuItem ?? `LINHA${i + 1}`,
          name: l.name.slice(0, 120),
          ncm: f.ncm ?? DEFAULT_NCM,
          cfop: f.cfop ?? DEFAULT_CFOP,
          cest: f.cest,
          taxCode: f.taxCode ?? (crt === '3' ? DEFAULT_CST : DEFAULT_CSOSN),
          unit: l.unit === 'kg' ? 'KG' : 'UN',
          quantity,
          unitPriceCents: l.price,
          totalCents: Math.round(l.price * quantity),
          discountCents: 0,
          otherCents: 0,
        },
      ];
    });
    if (!lines.length) throw new InvalidRequest(`Order ${order.orderNumber} has no lines to invoice`, 'order_empty');
    // What the lines do not account for: the discounts (vDesc) and the service and cover charges (vOutro), so vNF = the order's total.
    const gross = lines.reduce((s, l) => s + l.totalCents, 0);
    let discount = order.discountTotal;
    let other = order.serviceCharge + order.coverCharge;
    const residual = order.total - (gross - discount + other); // rounding the lines do not carry
    if (residual > 0) other += residual;
    else discount -= residual;
    const totals = lines.map((l) => l.totalCents);
    spread(discount, totals).forEach((v, i) => (lines[i].discountCents = v));
    spread(other, totals).forEach((v, i) => (lines[i].otherCents = v));
    return lines;
  }

  /** The tenant's fiscal identity and token, or the 400 that says what is missing. */
  async function fiscalSetup(tenantId: string) {
    const tenant = await tenants.findById(tenantId);
    if (!tenant) throw new NotFound('Tenant');
    const token = await tenants.secret(tenantId, 'fiscalProviderToken');
    const missing = [!tenant.cnpj && 'cnpj', !token && 'fiscalProviderToken', !(tenant.state && UF_CODES[tenant.state]) && 'state'].filter(Boolean);
    if (missing.length) {
      throw new InvalidRequest(`The tenant is not set up for fiscal documents: set ${missing.join(', ')} in the tenant settings (PUT /t/:slug/tenants)`, 'fiscal_not_configured');
    }
    return { tenant, token: token!, cnpj: tenant.cnpj!, state: tenant.state! };
  }

  /** Voids ("inutilização") the number of a rejected document through the provider; recorded either way. */
  async function voidNumber(t: TenantDb, row: FiscalDocumentRow, token: string, cnpj: string) {
    const v = await t.run((tx) =>
      q.insertNumberVoid(tx.db, {
        tenantId: tx.tenantId,
        id: newId(),
        branchKey: row.branchKey,
        model: row.model,
        series: row.series,
        numberFrom: row.number,
        numberTo: row.number,
        reason: VOID_REASON,
      }),
    );
    try {
      const { protocol } = await client().voidNumbers(token, row.tipo, { cnpj, series: row.series, from: row.number, to: row.number, reason: VOID_REASON });
      await t.run((tx) => q.updateNumberVoid(tx.db, tx.tenantId, v.id, { status: 'voided', protocol }));
    } catch (err) {
      deps.log?.warn?.({ err, documentId: row.id }, 'fiscal: voiding the number of a rejected document failed');
      await t.run((tx) => q.updateNumberVoid(tx.db, tx.tenantId, v.id, { status: 'failed' }));
    }
  }

  /**
   * Takes a pending document one step: sends it (the first time, or again after the provider was down) or
   * asks how it went, and records the outcome. Throws `Unavailable` when the provider cannot be reached.
   */
  async function advance(t: TenantDb, id: string): Promise<FiscalDocumentRow> {
    const row = await t.run((tx) => q.findDocument(tx.db, tx.tenantId, id));
    if (!row) throw new NotFound('Fiscal document');
    if (row.status !== 'pending') return row;
    const { token, cnpj } = await fiscalSetup(t.tenantId);
    const c = client();
    let result: ProviderDocument;
    try {
      if (!row.emittedAt) {
        const xml = await t.run((tx) => q.findFile(tx.db, tx.tenantId, row.id, 'xml'));
        result = await c.emit(token, row.tipo, row.providerRef, xml!.body);
      } else {
        result = await c.get(token, row.tipo, row.providerRef);
      }
    } catch (err) {
      await t.run((tx) => q.updateDocument(tx.db, tx.tenantId, row.id, { attempts: row.attempts + 1 }));
      if (isUnavailable(err)) throw unavailable();
      if (isRefused(err) && (err.status === 401 || err.status === 403)) {
        throw new InvalidRequest('The fiscal provider refused the tenant’s token: check fiscalProviderToken in the tenant settings', 'fiscal_token_refused');
      }
      if (isRefused(err)) throw new Rejected(`The fiscal provider refused the document: ${err.message}`, 'fiscal_provider_refused');
      throw err;
    }
    const sent = { attempts: row.attempts + 1, emittedAt: row.emittedAt ?? clock.now() };
    if (result.status === 'rejected') {
      const message = result.errors.map((e) => `${e.code} ${e.message}`).join('; ') || 'Rejeitada pela SEFAZ';
      const updated = await t.run((tx) =>
        q.updateDocument(tx.db, tx.tenantId, row.id, { ...sent, status: 'rejected', errorDetails: { message, errors: result.errors } }),
      );
      await voidNumber(t, row, token, cnpj);
      return updated;
    }
    if (result.status === 'processing') return t.run((tx) => q.updateDocument(tx.db, tx.tenantId, row.id, sent));
    // Authorised (or already cancelled at the provider): keep its XML and DANFE.
    await t.run((tx) => q.updateDocument(tx.db, tx.tenantId, row.id, sent));
    let xml: string;
    let pdf: Buffer;
    try {
      [xml, pdf] = await Promise.all([c.xml(token, row.tipo, row.providerRef), c.danfe(token, row.tipo, row.providerRef)]);
    } catch (err) {
      // Authorised, but its files could not be had now: it stays pending and the next attempt fetches them.
      if (isIntegrationError(err)) throw unavailable();
      throw err;
    }
    return t.run(async (tx) => {
      const current = await q.findDocument(tx.db, tx.tenantId, row.id, { lock: true });
      if (!current || current.status !== 'pending') return current!;
      await q.putFile(tx.db, tx.tenantId, row.id, 'xml', 'application/xml', xml);
      await q.putFile(tx.db, tx.tenantId, row.id, 'danfe', 'application/pdf', pdf.toString('base64'));
      return q.updateDocument(tx.db, tx.tenantId, row.id, {
        status: 'authorized',
        protocol: result.protocol,
        authorizedAt: result.authorizedAt ? new Date(result.authorizedAt) : clock.now(),
      });
    });
  }

  function rejection(row: FiscalDocumentRow, doc: FiscalDocView) {
    const details = (row.errorDetails ?? { message: 'Rejeitada', errors: [] }) as { message: string; errors: FiscalRejectionReason[] };
    return new FiscalRejected(`The tax authority rejected the document: ${details.message}`, details, doc);
  }

  return {
    /** `POST /fiscal/emit`: 201 authorised (NFC-e) or pending (NF-e); 422 rejected; 503 provider down (pending, retry by emitting again). */
    async emit(ctx: TenantCtx, slug: string, input: EmitInput): Promise<FiscalDocView> {
      const order = await orders.findVisible(ctx.db, ctx, input.orderId).catch((err: unknown) => {
        if (err instanceof NotFound) throw new InvalidRequest('Order not found', 'order_not_found');
        throw err;
      });
      if (order.paymentStatus !== 'approved') throw new InvalidRequest(`Order ${order.orderNumber} is not paid`, 'order_not_paid');
      const setup = await fiscalSetup(ctx.tenantId);
      const crt = CRT[setup.tenant.regimeTributario ?? ''] ?? '1';
      const model = MODEL_OF[input.tipo];
      const pdv = order.pdvId ? await branches.findPdv(ctx.db, order.pdvId) : null;
      const branchKey = pdv?.branch ?? '';
      const lines = await linesOf(ctx.db, order, crt);
      let row: FiscalDocumentRow;
      try {
        row = await ctx.db.run(async (tx) => {
          const active = await q.findActive(tx.db, tx.tenantId, order.id, input.tipo);
          if (active?.status === 'authorized') {
            throw new Conflict(`Order ${order.orderNumber} already has an authorized ${input.tipo}`, 'fiscal_document_exists', [{ field: 'documentId', message: active.id }]);
          }
          if (active) return active; // pending: this is a retry of the same document
          const number = await nextNumber(tx.db, tx.tenantId, branchKey, model, FISCAL_SERIES);
          const now = clock.now();
          const cUF = UF_CODES[setup.state];
          const emittedAtLocal = localDateTime(now, setup.tenant.timezone);
          const { key, cNF, cDV } = buildAccessKey({ cUF, emittedAtLocal, cnpj: setup.cnpj, model, series: FISCAL_SERIES, number });
          const xml = buildNfeXml({
            key,
            cNF,
            cDV,
            cUF,
            model,
            series: FISCAL_SERIES,
            number,
            emittedAt: now,
            timeZone: setup.tenant.timezone,
            tpAmb: setup.tenant.fiscalProviderAmbiente === 'producao' ? 1 : 2,
            emitter: {
              cnpj: setup.cnpj,
              name: setup.tenant.name,
              ie: setup.tenant.inscricaoEstadual,
              crt,
              street: setup.tenant.address,
              number: setup.tenant.addressNumber,
              district: setup.tenant.district,
              city: setup.tenant.city,
              state: setup.state,
              cep: setup.tenant.cep,
            },
            recipientCpf: input.customerCpf ?? null,
            lines,
            payments: [{ tPag: TPAG[order.paymentMethod ?? ''] ?? '99', amountCents: order.total }],
          });
          const id = newId();
          const created = await q.insertDocument(tx.db, {
            tenantId: tx.tenantId,
            id,
            orderId: order.id,
            branchKey,
            tipo: input.tipo,
            model,
            series: FISCAL_SERIES,
            number,
            nfeKey: key,
            providerRef: `${input.tipo}-${id}`,
            customerCpf: input.customerCpf ?? null,
            totalCents: order.total,
            taxes: { icmsBaseCents: 0, icmsCents: 0, icmsRate: 0, pisCents: 0, cofinsCents: 0 },
            items: lines.map((l) => ({
              code: l.code,
              description: l.name,
              ncm: l.ncm,
              cfop: l.cfop,
              cest: l.cest,
              taxCode: l.taxCode,
              unit: l.unit,
              quantity: l.quantity,
              unitCents: l.unitPriceCents,
              totalCents: l.totalCents,
              discountCents: l.discountCents,
              otherCents: l.otherCents,
            })),
            createdBy: ctx.user.id,
          });
          await q.putFile(tx.db, tx.tenantId, id, 'xml', 'application/xml', xml);
          // The queue takes it forward if this request cannot (provider down, NF-e still processing).
          await jobs.send(fiscalJobs.advance, { tenantId: tx.tenantId, documentId: id }, { tx: tx.db, singletonKey: id, startAfter: model === 55 ? 5 : 30 });
          return created;
        });
      } catch (err) {
        if (isUniqueViolation(err, 'fiscal_documents_active_key')) {
          throw new Conflict(`Order ${order.orderNumber} already has an active ${input.tipo}`, 'fiscal_document_exists');
        }
        throw err;
      }
      const after = await advance(ctx.db, row.id);
      const doc = await view(ctx.db, after, slug);
      if (after.status === 'rejected') throw rejection(after, doc);
      return doc;
    },

    /** `GET /fiscal`: newest first. */
    async listDocuments(ctx: TenantCtx, slug: string, query: ListFiscalInput): Promise<FiscalDocView[]> {
      const page = query.page ?? 1;
      const limit = query.limit ?? 20;
      return ctx.db.run(async (tx) => {
        const { rows } = await q.listDocuments(tx.db, tx.tenantId, { status: query.status as FiscalStatus | undefined, offset: (page - 1) * limit, limit });
        return Promise.all(rows.map(async (r) => toFiscalDocView(r, await orderSummary(tx, r.orderId), slug)));
      });
    },

    /** `DELETE /fiscal/:id/cancel`: authorised documents only (400 otherwise); 422 when the authority refuses (deadline). */
    async cancelDocument(ctx: TenantCtx, id: string): Promise<{ _id: string; status: 'cancelled' }> {
      const row = await ctx.db.run((tx) => q.findDocument(tx.db, tx.tenantId, id));
      if (!row) throw new NotFound('Fiscal document');
      if (row.status !== 'authorized') throw new InvalidRequest(`Only an authorized document can be cancelled; this one is ${row.status}`, 'fiscal_not_authorized');
      const { token } = await fiscalSetup(ctx.tenantId);
      let protocol: string;
      try {
        ({ protocol } = await client().cancel(token, row.tipo, row.providerRef, CANCEL_REASON));
      } catch (err) {
        if (isUnavailable(err)) throw new Unavailable('The fiscal provider is unavailable; try the cancellation again later', 'fiscal_provider_unavailable');
        if (isRefused(err) && err.status === 422) throw new Rejected(`The tax authority refused the cancellation: ${err.message}`, err.code ?? 'fiscal_cancel_refused');
        if (isRefused(err)) throw new Rejected(`The fiscal provider refused the cancellation: ${err.message}`, 'fiscal_provider_refused');
        throw err;
      }
      await ctx.db.run(async (tx) => {
        await q.updateDocument(tx.db, tx.tenantId, id, { status: 'cancelled', cancelledAt: clock.now(), cancelReason: CANCEL_REASON, protocol: protocol || row.protocol });
        const details = { tipo: row.tipo, nfeKey: row.nfeKey, number: row.number, orderId: row.orderId, totalCents: row.totalCents };
        await audit.record(tx, { action: 'fiscal.cancelled', actorId: ctx.user.id, actorLabel: ctx.user.email, targetType: 'fiscal_document', targetId: id, details });
      });
      return { _id: id, status: 'cancelled' };
    },

    /** `GET /fiscal/queue/stats`: the emission queue's job counts (waiting includes jobs waiting for a retry). */
    async queueStats() {
      const s = await jobs.stats(fiscalJobs.advance);
      return { waiting: s.waiting + s.delayed, active: s.active, completed: s.completed, failed: s.failed };
    },

    /** A stored file of an authorised (or cancelled) document: the XML as text, the DANFE as bytes. */
    async documentFile(ctx: TenantCtx, id: string, kind: 'xml' | 'danfe'): Promise<{ contentType: string; body: Buffer; fileName: string }> {
      return ctx.db.run(async (tx) => {
        const row = await q.findDocument(tx.db, tx.tenantId, id);
        if (!row) throw new NotFound('Fiscal document');
        const file = row.status === 'authorized' || row.status === 'cancelled' ? await q.findFile(tx.db, tx.tenantId, id, kind) : null;
        if (!file) throw new NotFound(kind === 'xml' ? 'Authorized XML' : 'DANFE');
        const body = kind === 'xml' ? Buffer.from(file.body, 'utf8') : Buffer.from(file.body, 'base64');
        return { contentType: file.contentType, body, fileName: `${row.nfeKey}${kind === 'xml' ? '-nfe.xml' : '-danfe.pdf'}` };
      });
    },

    /** The queue's handler: takes a pending document forward; throws (to be retried) while it stays pending. */
    async runAdvanceJob(data: AdvanceJob) {
      const t = deps.tenantDb(data.tenantId);
      const row = await advance(t, data.documentId).catch((err: unknown) => {
        if (err instanceof NotFound) return null; // the tenant was deleted
        throw err;
      });
      if (row?.status === 'pending') throw new Error(`fiscal document ${row.id} still pending at the provider`);
      return row ? { status: row.status } : null;
    },
  };
}

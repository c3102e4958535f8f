import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import { FiscalRejected } from './documents.service.js';
import { CancelResult, EmitBody, FiscalDoc, FiscalRejection, ListFiscalQuery, QueueStats } from './documents.schemas.js';
import type { FiscalService } from './fiscal.service.js';

const BASE = '/t/:slug/fiscal';
const binary = { schema: { type: 'string', format: 'binary' } };
const XmlFile = Type.Unsafe<Buffer>({ description: 'the authorised XML, as an attachment', content: { 'application/xml': binary } });
const PdfFile = Type.Unsafe<Buffer>({ description: 'the DANFE, as an attachment', content: { 'application/pdf': binary } });
const tags = ['fiscal'];
/** Spec 4.9: fiscal routes are the admin's (superadmin passes). */
const admin = { roles: ['admin'] } as const;
/** The files behind `xmlUrl` / `danfeUrl`: the admin's and the accountant's. */
const readers = { roles: ['admin', 'accountant'] } as const;

/** Emission, list, cancel, queue stats and the files of fiscal documents (spec 4.9). */
export function documentsRoutes(app: RouteApp, { fiscal }: { fiscal: FiscalService }) {
  app.post(`${BASE}/emit`, {
    schema: {
      tags,
      summary: 'Emit the NFC-e (authorised at once) or NF-e (pending, completed by the queue) of a paid order',
      description:
        '400 order_not_found, order_not_paid, fiscal_not_configured (cnpj, fiscalProviderToken, state); 409 fiscal_document_exists; ' +
        '422 fiscal_rejected with errorDetails (the number is voided); 503 fiscal_provider_unavailable: the document stays pending, emit again to retry.',
      params: TenantParams,
      body: EmitBody,
      response: withErrors({ 201: FiscalDoc, 422: FiscalRejection }, [400, 401, 403, 404, 409, 503]),
    },
    config: { auth: admin },
    handler: async (req, reply) => {
      try {
        return reply.code(201).send(await fiscal.emit(ctxOf(req), req.params.slug, req.body));
      } catch (err) {
        if (!(err instanceof FiscalRejected)) throw err;
        return reply.code(422).send({
          statusCode: 422 as const,
          error: 'Unprocessable Entity',
          message: err.message,
          code: err.code,
          errorDetails: err.errorDetails,
          document: err.document,
        });
      }
    },
  });

  app.get(BASE, {
    schema: {
      tags,
      summary: 'Fiscal documents, newest first (status filter; page from 1, limit 20 up to 100)',
      params: TenantParams,
      querystring: ListFiscalQuery,
      response: withErrors({ 200: Type.Array(FiscalDoc) }),
    },
    config: { auth: admin },
    handler: (req) => fiscal.listDocuments(ctxOf(req), req.params.slug, req.query),
  });

  app.get(`${BASE}/queue/stats`, {
    schema: { tags, summary: 'Job counts of the emission queue', params: TenantParams, response: withErrors({ 200: QueueStats }) },
    config: { auth: admin },
    handler: () => fiscal.queueStats(),
  });

  app.delete(`${BASE}/:id/cancel`, {
    schema: {
      tags,
      summary: 'Cancel an authorised document at the authority (NFC-e within 30 minutes, NF-e within 24 hours)',
      description: '400 fiscal_not_authorized; 422 cancel_deadline_expired (or another refusal of the authority); 503 fiscal_provider_unavailable.',
      params: TenantIdParams,
      response: withErrors({ 200: CancelResult }, [400, 401, 403, 404, 422, 503]),
    },
    config: { auth: admin },
    handler: (req) => fiscal.cancelDocument(ctxOf(req), req.params.id),
  });

  for (const kind of ['xml', 'danfe'] as const) {
    app.get(`${BASE}/:id/${kind}`, {
      schema: {
        tags,
        summary: kind === 'xml' ? 'The authorised XML (nfeProc) of a document: its xmlUrl' : 'The DANFE (PDF) of a document: its danfeUrl',
        description: 'Admin and accountant; 404 until the document is authorised.',
        params: TenantIdParams,
        response: withErrors({ 200: kind === 'xml' ? XmlFile : PdfFile }),
      },
      config: { auth: readers },
      handler: async (req, reply) => {
        const file = await fiscal.documentFile(ctxOf(req), req.params.id, kind);
        return reply
          .header('content-type', file.contentType)
          .header('content-disposition', `attachment; filename="${file.fileName}"`)
          .header('cache-control', 'private, no-store')
          .send(file.body);
      },
    });
  }
}

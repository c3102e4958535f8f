import multipart from '@fastify/multipart';
import { ctxOf } from '../../platform/auth/guards.js';
import { Invalid } from '../../platform/domain-errors.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantParams, withErrors } from '../../platform/schemas.js';
import { ImportNfsQuery, ImportResult } from './invoices.schemas.js';
import { MAX_NFE_BYTES } from './invoices.service.js';
import type { PurchasingService } from './purchasing.service.js';

/** The form fields are the body's, though the route declares no body schema. */
const BODY = { in: 'body' } as const;

/** Largest `mappings` form field (JSON), in bytes. */
const MAX_MAPPINGS_BYTES = 256 * 1024;

/**
 * Spec 4.8 `POST /inventory/import-nfs`: multipart/form-data with the supplier's NF-e XML in `file` and,
 * optionally, `mappings` (JSON `[{ supplierCode, itemId | skip, factor? }]`: the person's confirmations,
 * remembered). Multipart is registered in this plugin's scope only: no other route accepts it.
 */
export function invoicesRoutes(app: RouteApp, { purchasing }: { purchasing: PurchasingService }) {
  app.register(async (scope: RouteApp) => {
    await scope.register(multipart, {
      limits: { fileSize: MAX_NFE_BYTES, files: 1, fields: 2, parts: 3, fieldSize: MAX_MAPPINGS_BYTES },
    });

    scope.post('/t/:slug/inventory/import-nfs', {
      schema: {
        tags: ['purchasing'],
        summary: 'Import a supplier NF-e (XML, model 55): items matched or created, entry movements at the invoice price; dryRun=true proposes only',
        description:
          'multipart/form-data: `file` (the NF-e XML, at most 2 MB: 413 over it) and optional `mappings` (JSON array of ' +
          '`{ supplierCode, itemId, factor? }` or `{ supplierCode, skip: true }`). 201 written, 200 dry run; 400 not an importable NF-e, ' +
          'wrong recipient, lines needing a mapping; 409 the key was imported already.',
        params: TenantParams,
        querystring: ImportNfsQuery,
        response: withErrors({ 200: ImportResult, 201: ImportResult }, [400, 401, 403, 409, 413]),
      },
      config: { auth: { roles: ['admin'], feature: 'supplierManagement' } },
      handler: async (req, reply) => {
        if (!req.isMultipart()) throw new Invalid('file', 'send the NF-e XML as the multipart/form-data field "file"', BODY);
        let xml: Buffer | null = null;
        let mappings: string | undefined;
        for await (const part of req.parts()) {
          if (part.type === 'file') {
            if (part.fieldname !== 'file') throw new Invalid(part.fieldname, 'is not a known field (the XML goes in "file")', BODY);
            xml = await part.toBuffer();
          } else if (part.fieldname === 'mappings') {
            mappings = String(part.value);
          } else {
            throw new Invalid(part.fieldname, 'is not a known field', BODY);
          }
        }
        if (!xml || xml.length === 0) throw new Invalid('file', 'is required: the NF-e XML', BODY);
        let parsed: unknown;
        if (mappings !== undefined && mappings.trim() !== '') {
          try {
            parsed = JSON.parse(mappings);
          } catch {
            throw new Invalid('mappings', 'is not JSON: an array of { supplierCode, itemId | skip, factor? }', BODY);
          }
        }
        const ctx = ctxOf(req);
        const dryRun = req.query.dryRun === true;
        const result = await purchasing.importInvoice(ctx.db, { userId: ctx.user.id }, { xml: xml.toString('utf8'), dryRun, mappings: parsed });
        return reply.code(dryRun ? 200 : 201).send(result);
      },
    });
  });
}

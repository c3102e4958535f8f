import { ctxOf, tenantOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import type { InventoryService } from './inventory.service.js';
import { InventoryMovement } from './items.schemas.js';
import { CreateLabelBody, LabelToken, PdfFile, ScanParams } from './labels.schemas.js';

/** Labels and their scan (spec 4.8 `POST /inventory/labels`, `POST /inventory/scan/:token`; the printable label beyond the spec). */
export function labelsRoutes(app: RouteApp, { inventory }: { inventory: InventoryService }) {
  app.post('/t/:slug/inventory/labels', {
    schema: {
      tags: ['inventory'],
      summary: 'Create a write-off label: a single-use token whose scan takes the quantity out of stock',
      description:
        'A pending LabelToken (UUID v4) for `quantity` of the item, from the master catalog or, with `pdvId`, from that PDV’s branch stock. ' +
        '404 when the item, the PDV or the item’s stock row at that PDV is not the tenant’s. `labelUrl` is the printable label (PDF), ' +
        '`scanUrl` what its QR code holds. Stock is checked at the scan, not here.',
      params: TenantParams,
      body: CreateLabelBody,
      response: withErrors({ 201: LabelToken }),
    },
    config: { auth: { permission: 'ManageSettings' } },
    handler: async (req, reply) => {
      const ctx = ctxOf(req);
      return reply.code(201).send(await inventory.createLabel(ctx.db, ctx.tenant, ctx.user.id, req.body));
    },
  });

  app.get('/t/:slug/inventory/labels/:id/label.pdf', {
    schema: {
      tags: ['inventory'],
      summary: 'The printable label of a pending label token: a 4 x 2 in PDF for a thermal label printer',
      description:
        'One page of 288 x 144 pt: the QR code of the scan URL, the item’s name and SKU, the quantity and unit, the reason, the creation ' +
        'date (tenant time zone), the item’s expiration date and the PDV. 409 `label_used` once the label was scanned.',
      params: TenantIdParams,
      response: withErrors({ 200: PdfFile }, [400, 401, 403, 404, 409]),
    },
    config: { auth: { permission: 'ManageSettings' } },
    handler: async (req, reply) => {
      const ctx = ctxOf(req);
      const { pdf, filename } = await inventory.labelPdf(ctx.db, ctx.tenant, req.params.id);
      return reply.type('application/pdf').header('content-disposition', `inline; filename="${filename}"`).header('cache-control', 'no-store').send(pdf);
    },
  });

  app.post('/t/:slug/inventory/scan/:token', {
    schema: {
      tags: ['inventory'],
      summary: 'Scan a label: consumes the token once and answers the exit movement it made',
      description:
        'Public: the printed label is the credential. Exactly one of any number of concurrent scans of a token succeeds; an unknown, ' +
        'malformed, already used or other tenant’s token is 404. 409 `insufficient_stock` when the stock cannot cover the quantity ' +
        '(the label stays pending).',
      security: [],
      params: ScanParams,
      response: withErrors({ 201: InventoryMovement }, [404, 409]),
    },
    config: { auth: { public: true } },
    handler: async (req, reply) => reply.code(201).send(await inventory.scanLabel(tenantOf(req).db, req.params.token)),
  });
}

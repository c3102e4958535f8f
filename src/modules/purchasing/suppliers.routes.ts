import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { pageWindow, sendPage } from '../../platform/pagination.js';
import { NoContent, TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import type { PurchasingService } from './purchasing.service.js';
import { CreateSupplierBody, ListSuppliersQuery, Supplier, SUPPLIERS_PAGE, UpdateSupplierBody } from './suppliers.schemas.js';

const BASE = '/t/:slug/inventory/suppliers';
const tags = ['purchasing'];
/** Spec 4.8: admin (superadmin passes), on a plan with supplierManagement. */
export const purchasingAdmin = { roles: ['admin'], feature: 'supplierManagement' } as const;

/** Spec 4.8 suppliers. */
export function suppliersRoutes(app: RouteApp, { purchasing }: { purchasing: PurchasingService }) {
  app.get(BASE, {
    schema: { tags, summary: 'Suppliers by name (`active` filters)', params: TenantParams, querystring: ListSuppliersQuery, response: withErrors({ 200: Type.Array(Supplier) }) },
    config: { auth: purchasingAdmin },
    handler: async (req, reply) => {
      const { suppliers, total } = await purchasing.listSuppliers(ctxOf(req).db, req.query);
      return sendPage(req, reply, pageWindow(req.query, SUPPLIERS_PAGE), total, suppliers);
    },
  });

  app.get(`${BASE}/:id`, {
    schema: { tags, summary: 'A supplier', params: TenantIdParams, response: withErrors({ 200: Supplier }) },
    config: { auth: purchasingAdmin },
    handler: (req) => purchasing.getSupplier(ctxOf(req).db, req.params.id),
  });

  app.post(BASE, {
    schema: {
      tags,
      summary: 'Create a supplier (only name required; CNPJ check digits verified, 409 cnpj_taken)',
      params: TenantParams,
      body: CreateSupplierBody,
      response: withErrors({ 201: Supplier }, [400, 401, 403, 404, 409]),
    },
    config: { auth: purchasingAdmin },
    handler: async (req, reply) => reply.code(201).send(await purchasing.createSupplier(ctxOf(req).db, req.body)),
  });

  app.put(`${BASE}/:id`, {
    schema: {
      tags,
      summary: 'Update a supplier (any field; null clears an optional one)',
      params: TenantIdParams,
      body: UpdateSupplierBody,
      response: withErrors({ 200: Supplier }, [400, 401, 403, 404, 409]),
    },
    config: { auth: purchasingAdmin },
    handler: (req) => purchasing.updateSupplier(ctxOf(req).db, req.params.id, req.body),
  });

  app.delete(`${BASE}/:id`, {
    schema: {
      tags,
      summary: 'Delete a supplier (409 supplier_in_use while purchase orders name it: deactivate it instead)',
      params: TenantIdParams,
      response: withErrors({ 204: NoContent }, [400, 401, 403, 404, 409]),
    },
    config: { auth: purchasingAdmin },
    handler: async (req, reply) => {
      await purchasing.deleteSupplier(ctxOf(req).db, req.params.id);
      return reply.code(204).send();
    },
  });
}

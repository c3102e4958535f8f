import { newId } from '../../db/ids.js';
import type { SupplierRow } from '../../db/schema/purchasing.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import { isValidCnpj, stripDocument } from '../../platform/br-documents.js';
import { Conflict, Invalid, NotFound } from '../../platform/domain-errors.js';
import { pageWindow } from '../../platform/pagination.js';
import type { PurchasingParts } from './purchasing.service.js';
import * as q from './suppliers.queries.js';
import { SUPPLIERS_PAGE, type CreateSupplierInput, type SupplierView, type UpdateSupplierInput } from './suppliers.schemas.js';

/** 14 CNPJ characters as `00.000.000/0000-00`. */
export function formatCnpj(cnpj: string): string {
  return `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`;
}

/** The CNPJ as stored (14 characters, no punctuation), or `Invalid` naming the field. */
function cnpjOf(value: string): string {
  const cnpj = stripDocument(value);
  if (!isValidCnpj(cnpj)) throw new Invalid('cnpj', 'is not a valid CNPJ (check digits do not match)');
  return cnpj;
}

export function toSupplierView(row: SupplierRow): SupplierView {
  return {
    _id: row.id,
    name: row.name,
    cnpj: row.cnpj === null ? null : formatCnpj(row.cnpj),
    email: row.email,
    phone: row.phone,
    contactName: row.contactName,
    address: row.address,
    categories: row.categories,
    notes: row.notes,
    active: row.active,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const categoriesOf = (list: string[]) => [...new Set(list.map((c) => c.trim()))];

/** One supplier per CNPJ in a tenant: 409 `cnpj_taken` naming the other one (checked under a lock on the CNPJ). */
async function claimCnpj(tx: TenantTx, cnpj: string, selfId: string | null) {
  await q.lockCnpj(tx.db, tx.tenantId, cnpj);
  const other = await q.findSupplierByCnpj(tx.db, tx.tenantId, cnpj);
  if (other && other.id !== selfId) throw new Conflict(`The supplier ${other.name} has the CNPJ ${formatCnpj(cnpj)}`, 'cnpj_taken');
}

/** Suppliers (spec 4.8 `/inventory/suppliers`). */
export function suppliersPart({ deps }: PurchasingParts) {
  return {
    /** Suppliers by name; `active` filters. */
    /** One page of the suppliers (SUPPLIERS_PAGE) and the number of matching suppliers. */
    listSuppliers: (t: TenantDb, filter: { active?: boolean; page?: number; limit?: number }): Promise<{ suppliers: SupplierView[]; total: number }> =>
      t.run(async (tx) => {
        const { rows, total } = await q.listSuppliers(tx.db, tx.tenantId, filter, pageWindow(filter, SUPPLIERS_PAGE));
        return { suppliers: rows.map(toSupplierView), total };
      }),

    getSupplier: (t: TenantDb, id: string): Promise<SupplierView> =>
      t.run(async (tx) => {
        const row = await q.findSupplier(tx.db, tx.tenantId, id);
        if (!row) throw new NotFound('Supplier');
        return toSupplierView(row);
      }),

    /** The supplier with this CNPJ (any punctuation), or null (none, or not a valid CNPJ). For the invoice import. */
    findSupplierByCnpj: (t: TenantDb, cnpj: string): Promise<SupplierView | null> =>
      t.run(async (tx) => {
        const stripped = stripDocument(cnpj);
        if (!isValidCnpj(stripped)) return null;
        const row = await q.findSupplierByCnpj(tx.db, tx.tenantId, stripped);
        return row ? toSupplierView(row) : null;
      }),

    /** Creates a supplier (only `name` is required); the CNPJ is checked and unique in the tenant. */
    createSupplier: (t: TenantDb, input: CreateSupplierInput): Promise<SupplierView> =>
      t.run(async (tx) => {
        const cnpj = input.cnpj == null ? null : cnpjOf(input.cnpj);
        if (cnpj) await claimCnpj(tx, cnpj, null);
        const now = deps.clock.now();
        const row = await q.insertSupplier(tx.db, {
          tenantId: tx.tenantId,
          id: newId(),
          name: input.name.trim(),
          cnpj,
          email: input.email ?? null,
          phone: input.phone ?? null,
          contactName: input.contactName ?? null,
          address: input.address ?? null,
          categories: categoriesOf(input.categories ?? []),
          notes: input.notes ?? null,
          active: input.active ?? true,
          createdAt: now,
          updatedAt: now,
        });
        return toSupplierView(row);
      }),

    /** Changes any of a supplier's fields (null clears an optional one). */
    updateSupplier: (t: TenantDb, id: string, input: UpdateSupplierInput): Promise<SupplierView> =>
      t.run(async (tx) => {
        const cnpj = input.cnpj == null ? input.cnpj : cnpjOf(input.cnpj);
        const current = await q.lockSupplier(tx.db, tx.tenantId, id);
        if (!current) throw new NotFound('Supplier');
        if (cnpj && cnpj !== current.cnpj) await claimCnpj(tx, cnpj, id);
        const fields: Partial<SupplierRow> = { updatedAt: deps.clock.now() };
        if (input.name !== undefined) fields.name = input.name.trim();
        if (cnpj !== undefined) fields.cnpj = cnpj;
        if (input.email !== undefined) fields.email = input.email;
        if (input.phone !== undefined) fields.phone = input.phone;
        if (input.contactName !== undefined) fields.contactName = input.contactName;
        if (input.address !== undefined) fields.address = input.address;
        if (input.categories !== undefined) fields.categories = categoriesOf(input.categories);
        if (input.notes !== undefined) fields.notes = input.notes;
        if (input.active !== undefined) fields.active = input.active;
        return toSupplierView((await q.updateSupplier(tx.db, tx.tenantId, id, fields))!);
      }),

    /**
     * Deletes a supplier no purchase order names; 409 `supplier_in_use` otherwise (the orders keep naming
     * it: deactivate it with `active: false` instead).
     */
    deleteSupplier: (t: TenantDb, id: string): Promise<void> =>
      t.run(async (tx) => {
        const current = await q.lockSupplier(tx.db, tx.tenantId, id);
        if (!current) throw new NotFound('Supplier');
        const orders = await q.ordersOfSupplier(tx.db, tx.tenantId, id);
        if (orders > 0) {
          throw new Conflict(`${orders} purchase order(s) name ${current.name}: deactivate it (active: false) instead`, 'supplier_in_use');
        }
        await q.deleteSupplier(tx.db, tx.tenantId, id);
      }),
  };
}

import { Type, type Static } from '@sinclair/typebox';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, Email, Nullable, Timestamp } from '../../platform/schemas.js';

/** Suppliers (spec 2 "Supplier", 4.8 `/inventory/suppliers`). */

const Text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S', ...(description ? { description } : {}) });

export const Supplier = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    cnpj: Nullable(Type.String({ description: 'formatted 00.000.000/0000-00' })),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    contactName: Nullable(Type.String()),
    address: Nullable(Type.String()),
    categories: Type.Array(Type.String()),
    notes: Nullable(Type.String()),
    active: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Supplier' },
);
export type SupplierView = Static<typeof Supplier>;

/** A restaurant's suppliers: tens, at most hundreds; the panel lists them whole, so the default is the maximum. */
export const SUPPLIERS_PAGE = pageLimits({ default: 500, maximum: 500, what: 'suppliers' });

export const ListSuppliersQuery = Type.Object({
  ...pageQuery(SUPPLIERS_PAGE),
  active: Type.Optional(Type.Boolean({ description: 'true: only active suppliers; false: only inactive ones' })),
});

const fields = {
  name: Text(120),
  cnpj: Nullable(
    Type.String({ minLength: 14, maxLength: 18, description: 'with or without punctuation; check digits verified; one supplier per CNPJ; answered formatted' }),
  ),
  email: Nullable(Email),
  phone: Nullable(Type.String({ maxLength: 30 })),
  contactName: Nullable(Type.String({ maxLength: 120 })),
  address: Nullable(Type.String({ maxLength: 300 })),
  categories: Type.Array(Text(60), { maxItems: 50, description: 'free labels (hortifruti, bebidas...); repeated ones are kept once' }),
  notes: Nullable(Type.String({ maxLength: 1000 })),
  active: Type.Boolean({ description: 'default true; an inactive supplier cannot be put on a new purchase order' }),
};

export const CreateSupplierBody = Body({
  name: fields.name,
  cnpj: Type.Optional(fields.cnpj),
  email: Type.Optional(fields.email),
  phone: Type.Optional(fields.phone),
  contactName: Type.Optional(fields.contactName),
  address: Type.Optional(fields.address),
  categories: Type.Optional(fields.categories),
  notes: Type.Optional(fields.notes),
  active: Type.Optional(fields.active),
});
export type CreateSupplierInput = Static<typeof CreateSupplierBody>;

export const UpdateSupplierBody = Body({
  name: Type.Optional(fields.name),
  cnpj: Type.Optional(fields.cnpj),
  email: Type.Optional(fields.email),
  phone: Type.Optional(fields.phone),
  contactName: Type.Optional(fields.contactName),
  address: Type.Optional(fields.address),
  categories: Type.Optional(fields.categories),
  notes: Type.Optional(fields.notes),
  active: Type.Optional(fields.active),
});
export type UpdateSupplierInput = Static<typeof UpdateSupplierBody>;

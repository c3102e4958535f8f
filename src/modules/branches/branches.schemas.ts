import { Type, type Static } from '@sinclair/typebox';
import { UFS } from '../../platform/br-documents.js';
import { Body, Id, Nullable, Slug, StringEnum, Timestamp } from '../../platform/schemas.js';

/** How a point of sale serves: at the counter, at the tables, for delivery, or self-service (a kiosk). */
export const SERVICE_MODES = ['balcao', 'mesa', 'delivery', 'autoatendimento'] as const;
export type ServiceMode = (typeof SERVICE_MODES)[number];

/** The card terminal's serial: `T-` and 4 to 32 uppercase letters, digits or dashes. */
export const TERMINAL_SERIAL_PATTERN = '^T-[A-Z0-9-]{4,32}$';

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S' });

export const BranchParams = Type.Object({ slug: Type.String({ maxLength: 64 }), id: Id });
export const PdvParams = Type.Object({ slug: Type.String({ maxLength: 64 }), id: Id, pdvId: Id });

export const Branch = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    active: Type.Boolean(),
    isHQ: Type.Boolean({ description: 'the headquarters; exactly one branch of the tenant is' }),
    cnpj: Nullable(Type.String({ description: 'formatted 00.000.000/0000-00' })),
    address: Nullable(Type.String()),
    city: Nullable(Type.String()),
    state: Nullable(Type.String({ description: 'UF code' })),
    cep: Nullable(Type.String({ description: '8 digits' })),
    ibsCbsEnabled: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Branch' },
);

export const BranchPage = Type.Object({
  data: Type.Array(Branch),
  total: Type.Integer({ description: 'branches matching the filter' }),
  page: Type.Integer(),
  totalPages: Type.Integer(),
});

export const ListBranchesQuery = Type.Object({
  active: Type.Optional(Type.Boolean({ description: 'only active (true) or inactive (false) branches' })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'from 1 (default 1)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'branches a page (default 20)' })),
});

const branchFields = {
  name: Text(120),
  slug: Slug,
  cnpj: Type.String({ minLength: 14, maxLength: 18, description: 'with or without punctuation; check digits verified' }),
  address: Text(200),
  city: Text(100),
  state: StringEnum(UFS),
  cep: Type.String({ pattern: '^[0-9]{5}-?[0-9]{3}$', description: '12345678 or 12345-678' }),
  ibsCbsEnabled: Type.Boolean(),
};

export const CreateBranchBody = Body({
  ...branchFields,
  isHQ: Type.Optional(Type.Boolean({ description: 'make it the headquarters (the tenant’s first branch always is)' })),
});

export const UpdateBranchBody = Body({
  name: Type.Optional(branchFields.name),
  slug: Type.Optional(branchFields.slug),
  cnpj: Type.Optional(branchFields.cnpj),
  address: Type.Optional(branchFields.address),
  city: Type.Optional(branchFields.city),
  state: Type.Optional(branchFields.state),
  cep: Type.Optional(branchFields.cep),
  ibsCbsEnabled: Type.Optional(branchFields.ibsCbsEnabled),
  isHQ: Type.Optional(Type.Boolean({ description: 'true moves the headquarters here (admins); false on the headquarters is a 409' })),
  active: Type.Optional(Type.Boolean({ description: 'false deactivates the branch (not the headquarters)' })),
});

export const Pdv = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    serviceMode: StringEnum(SERVICE_MODES),
    active: Type.Boolean(),
    branch: Type.String(),
    gatewayATerminalSerial: Nullable(Type.String()),
    pixKey: Nullable(Type.String({ description: 'its own PIX key as stored; null: the tenant’s' })),
    serviceChargePercent: Nullable(Type.Number({ description: 'its own service charge, percent; null: the tenant’s' })),
    coverCharge: Nullable(Type.Integer({ description: 'its own cover charge per person, cents; null: the tenant’s' })),
  },
  { $id: 'Pdv' },
);

/** A PDV the caller works, with its branch's name (`GET /t/:slug/pdvs`). */
export const WorkedPdv = Type.Object({ ...Pdv.properties, branchName: Type.String() });

const pdvFields = {
  name: Text(120),
  slug: Slug,
  serviceMode: StringEnum(SERVICE_MODES, { description: 'default balcao' }),
  gatewayATerminalSerial: Nullable(
    Type.String({ pattern: TERMINAL_SERIAL_PATTERN, description: 'serial of its card terminal (T- and 4 to 32 of A-Z, 0-9, -); unique on the platform' }),
  ),
  pixKey: Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'CPF, CNPJ, e-mail, phone (+55 or (DD)) or random key (UUID v4); null: the tenant’s' })),
  serviceChargePercent: Nullable(
    Type.Number({ minimum: 0, maximum: 30, description: 'service charge on dine-in bills, percent, at most 2 decimals; null: the tenant’s' }),
  ),
  coverCharge: Nullable(Type.Integer({ minimum: 0, maximum: 100_000, description: 'cover charge per person, cents; null: the tenant’s' })),
};

export const CreatePdvBody = Body({
  name: pdvFields.name,
  slug: pdvFields.slug,
  serviceMode: Type.Optional(pdvFields.serviceMode),
  gatewayATerminalSerial: Type.Optional(pdvFields.gatewayATerminalSerial),
  pixKey: Type.Optional(pdvFields.pixKey),
  serviceChargePercent: Type.Optional(pdvFields.serviceChargePercent),
  coverCharge: Type.Optional(pdvFields.coverCharge),
});

export const UpdatePdvBody = Body({
  name: Type.Optional(pdvFields.name),
  slug: Type.Optional(pdvFields.slug),
  serviceMode: Type.Optional(pdvFields.serviceMode),
  gatewayATerminalSerial: Type.Optional(pdvFields.gatewayATerminalSerial),
  pixKey: Type.Optional(pdvFields.pixKey),
  serviceChargePercent: Type.Optional(pdvFields.serviceChargePercent),
  coverCharge: Type.Optional(pdvFields.coverCharge),
  active: Type.Optional(Type.Boolean({ description: 'false deactivates the point of sale (it stays on its orders)' })),
});

export type BranchView = Static<typeof Branch>;
export type BranchPageView = Static<typeof BranchPage>;
export type ListBranchesInput = Static<typeof ListBranchesQuery>;
export type CreateBranchInput = Static<typeof CreateBranchBody>;
export type UpdateBranchInput = Static<typeof UpdateBranchBody>;
export type PdvOut = Static<typeof Pdv>;
export type CreatePdvInput = Static<typeof CreatePdvBody>;
export type UpdatePdvInput = Static<typeof UpdatePdvBody>;

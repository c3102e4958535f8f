import { Type, type Static } from '@sinclair/typebox';
import { UFS } from '../../platform/br-documents.js';
import { Body, Email, Slug, StringEnum, Timestamp } from '../../platform/schemas.js';

export const PLANS = ['free', 'basic', 'premium'] as const;
export const BUSINESS_TYPES = ['restaurant', 'mercado', 'padaria'] as const;
export const REGIMES = ['simples_nacional', 'simples_nacional_excesso_sublimite', 'regime_normal', 'mei'] as const;
export const AMBIENTES = ['homologacao', 'producao'] as const;

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Color = Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: 'hex color such as #c0392b' });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });

/** Secrets are write-only: a response tells whether each is set, never its value. */
export const Tenant = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    primaryColor: Type.Union([Type.String(), Type.Null()]),
    plan: Type.String(),
    isActive: Type.Boolean(),
    businessType: Type.String(),
    timezone: Type.String(),
    createdAt: Timestamp,
    cnpj: Type.Union([Type.String(), Type.Null()]),
    inscricaoEstadual: Type.Union([Type.String(), Type.Null()]),
    fiscalProviderTokenSet: Type.Boolean(),
    fiscalProviderAmbiente: Type.Union([Type.String(), Type.Null()]),
    regimeTributario: Type.Union([Type.String(), Type.Null()]),
    address: Type.Union([Type.String(), Type.Null()]),
    addressNumber: Type.Union([Type.String(), Type.Null()]),
    district: Type.Union([Type.String(), Type.Null()]),
    city: Type.Union([Type.String(), Type.Null()]),
    state: Type.Union([Type.String(), Type.Null()]),
    cep: Type.Union([Type.String(), Type.Null()]),
    walletAccessTokenSet: Type.Boolean(),
    walletDeviceId: Type.Union([Type.String(), Type.Null()]),
    walletPublicKey: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'Tenant' },
);

export const TenantSummary = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  primaryColor: Type.Union([Type.String(), Type.Null()]),
  plan: Type.String(),
  isActive: Type.Boolean(),
  businessType: Type.String(),
  createdAt: Timestamp,
});

const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, default America/Sao_Paulo' });

export const CreateTenantBody = Body({
  name: Text(120),
  slug: Slug,
  email: Type.Optional(Email),
  primaryColor: Type.Optional(Color),
  plan: Type.Optional(StringEnum(PLANS)),
  businessType: Type.Optional(StringEnum(BUSINESS_TYPES)),
  timezone: Type.Optional(Timezone),
});

export const UpdateTenantBody = Body({
  name: Type.Optional(Text(120)),
  slug: Type.Optional(Slug),
  email: Type.Optional(Nullable(Email)),
  primaryColor: Type.Optional(Nullable(Color)),
  plan: Type.Optional(StringEnum(PLANS)),
  businessType: Type.Optional(StringEnum(BUSINESS_TYPES)),
  timezone: Type.Optional(Timezone),
  isActive: Type.Optional(Type.Boolean()),
});

/** What a tenant admin sets on their own tenant: identity, fiscal and payment configuration. */
export const TenantConfigBody = Body({
  name: Type.Optional(Text(120)),
  email: Type.Optional(Nullable(Email)),
  primaryColor: Type.Optional(Nullable(Color)),
  cnpj: Type.Optional(Nullable(Text(18))),
  inscricaoEstadual: Type.Optional(Nullable(Type.String({ pattern: '^(?:ISENTO|[0-9]{2,14})$', description: 'digits, or ISENTO' }))),
  fiscalProviderToken: Type.Optional(Nullable(Text(500))),
  fiscalProviderAmbiente: Type.Optional(Type.Union([StringEnum(AMBIENTES), Type.Null()])),
  regimeTributario: Type.Optional(Type.Union([StringEnum(REGIMES), Type.Null()])),
  address: Type.Optional(Nullable(Text(200))),
  addressNumber: Type.Optional(Nullable(Text(20))),
  district: Type.Optional(Nullable(Text(100))),
  city: Type.Optional(Nullable(Text(100))),
  state: Type.Optional(Type.Union([StringEnum(UFS), Type.Null()])),
  cep: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]{5}-?[0-9]{3}$' }))),
  walletAccessToken: Type.Optional(Nullable(Text(500))),
  walletDeviceId: Type.Optional(Nullable(Text(200))),
  walletPublicKey: Type.Optional(Nullable(Text(500))),
});

export const ToggleResult = Type.Object({ isActive: Type.Boolean() });

export type CreateTenantInput = Static<typeof CreateTenantBody>;
export type UpdateTenantInput = Static<typeof UpdateTenantBody>;
export type TenantConfigInput = Static<typeof TenantConfigBody>;
export type TenantView = Static<typeof Tenant>;

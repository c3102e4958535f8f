import { Type, type Static } from '@sinclair/typebox';
import { UFS } from '../../platform/br-documents.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, Email, Nullable, Slug, StringEnum, Timestamp } from '../../platform/schemas.js';

export const PLANS = ['free', 'basic', 'premium'] as const;
export const BUSINESS_TYPES = ['restaurant', 'mercado', 'padaria'] as const;
export const REGIMES = ['simples_nacional', 'simples_nacional_excesso_sublimite', 'regime_normal', 'mei'] as const;
export type Regime = (typeof REGIMES)[number];
/** NF-e CRT (Código de Regime Tributário) codes, accepted for `regimeTributario` and stored as the name. */
export const CRT_CODES: Record<'1' | '2' | '3' | '4', Regime> = {
  '1': 'simples_nacional',
  '2': 'simples_nacional_excesso_sublimite',
  '3': 'regime_normal',
  '4': 'mei',
};
export const AMBIENTES = ['homologacao', 'producao'] as const;

const Color = Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: 'hex color such as #c0392b' });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });

/** Secrets are write-only: a response tells whether each is set, never its value. */
export const Tenant = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    email: Nullable(Type.String()),
    primaryColor: Nullable(Type.String()),
    plan: StringEnum(PLANS),
    isActive: Type.Boolean(),
    businessType: StringEnum(BUSINESS_TYPES),
    timezone: Type.String(),
    createdAt: Timestamp,
    cnpj: Nullable(Type.String()),
    inscricaoEstadual: Nullable(Type.String()),
    fiscalProviderTokenSet: Type.Boolean(),
    fiscalProviderAmbiente: Nullable(Type.String()),
    regimeTributario: Nullable(Type.String()),
    address: Nullable(Type.String()),
    addressNumber: Nullable(Type.String()),
    district: Nullable(Type.String()),
    city: Nullable(Type.String()),
    state: Nullable(Type.String()),
    cep: Nullable(Type.String()),
    walletAccessTokenSet: Type.Boolean(),
    walletDeviceId: Nullable(Type.String()),
    walletPublicKey: Nullable(Type.String()),
    pixKey: Nullable(Type.String({ description: 'PIX key as stored: CPF/CNPJ digits, lowercase e-mail, +55 phone or a random key' })),
    serviceChargePercent: Type.Number({ description: 'service charge on dine-in bills, percent (10 = 10%; 0 for none); a PDV may set its own' }),
    coverCharge: Type.Integer({ description: 'cover charge per person on dine-in bills, cents (0 for none); a PDV may set its own' }),
    discountLimitPercent: Type.Number({ description: 'largest discount staff may give alone, percent of what it discounts; above it a manager does' }),
    requireShift: Type.Boolean({ description: 'cash payments at a PDV need a cashier shift open at it (409 shift_required otherwise)' }),
  },
  { $id: 'Tenant' },
);

export const TenantSummary = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  email: Nullable(Type.String()),
  primaryColor: Nullable(Type.String()),
  plan: StringEnum(PLANS),
  isActive: Type.Boolean(),
  businessType: StringEnum(BUSINESS_TYPES),
  createdAt: Timestamp,
});

const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, default America/Sao_Paulo' });

/** Identity fields the tenant admin and the superadmin both set. */
const identityFields = {
  name: Type.Optional(Text(120)),
  email: Type.Optional(Nullable(Email)),
  primaryColor: Type.Optional(Nullable(Color)),
};

const RegimeTributario = StringEnum([...REGIMES, '1', '2', '3', '4'] as const, {
  description: 'a name, or the NF-e CRT code: 1 simples_nacional, 2 simples_nacional_excesso_sublimite, 3 regime_normal, 4 mei; stored and answered as the name',
});

/**
 * Fiscal and payment configuration of spec section 2, set by the tenant admin (`PUT /t/:slug/tenants`)
 * and by the superadmin (`PUT /api/superadmin/tenants/:id`) alike; `null` clears a field.
 * The secrets (`fiscalProviderToken`, `walletAccessToken`) are write-only.
 */
const fiscalPaymentFields = {
  cnpj: Type.Optional(Nullable(Text(18))),
  inscricaoEstadual: Type.Optional(Nullable(Type.String({ pattern: '^(?:ISENTO|[0-9]{2,14})$', description: 'digits, or ISENTO' }))),
  fiscalProviderToken: Type.Optional(Nullable(Text(500))),
  fiscalProviderAmbiente: Type.Optional(Nullable(StringEnum(AMBIENTES))),
  regimeTributario: Type.Optional(Nullable(RegimeTributario)),
  address: Type.Optional(Nullable(Text(200))),
  addressNumber: Type.Optional(Nullable(Text(20))),
  district: Type.Optional(Nullable(Text(100))),
  city: Type.Optional(Nullable(Text(100))),
  state: Type.Optional(Nullable(StringEnum(UFS))),
  cep: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]{5}-?[0-9]{3}$' }))),
  walletAccessToken: Type.Optional(Nullable(Text(500))),
  walletDeviceId: Type.Optional(Nullable(Text(200))),
  walletPublicKey: Type.Optional(Nullable(Text(500))),
  pixKey: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'CPF, CNPJ, e-mail, phone (+55 or (DD)) or random key (UUID v4)' }))),
};

/** Percentages are stored as basis points: at most 2 decimals (checked by the service: ajv's multipleOf is not exact on floats). */
const Percent = (max: number, description: string) => Type.Number({ minimum: 0, maximum: max, description: `${description}; 0 to ${max}, at most 2 decimals` });

/** Bill settings of spec section 2: what a dine-in bill adds, and how far staff may discount it alone. */
const billFields = {
  serviceChargePercent: Type.Optional(Percent(30, 'service charge on dine-in bills, percent (10 = 10%)')),
  coverCharge: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, description: 'cover charge per person on dine-in bills, cents' })),
  discountLimitPercent: Type.Optional(Percent(100, 'largest discount staff may give alone, percent of what it discounts')),
};

/** Cash settings: whether cash at a PDV needs an open cashier shift. */
const cashFields = {
  requireShift: Type.Optional(Type.Boolean({ description: 'cash payments at a PDV need a cashier shift open at it' })),
};

export const CreateTenantBody = Body({
  name: Text(120),
  slug: Slug,
  email: Type.Optional(Email),
  primaryColor: Type.Optional(Color),
  plan: Type.Optional(StringEnum(PLANS)),
  businessType: Type.Optional(StringEnum(BUSINESS_TYPES)),
  timezone: Type.Optional(Timezone),
});

/** What the superadmin sets: everything the tenant admin does (bill settings included), plus slug, plan, business type, time zone and activation. */
export const UpdateTenantBody = Body({
  ...identityFields,
  slug: Type.Optional(Slug),
  plan: Type.Optional(StringEnum(PLANS)),
  businessType: Type.Optional(StringEnum(BUSINESS_TYPES)),
  timezone: Type.Optional(Timezone),
  isActive: Type.Optional(Type.Boolean()),
  ...fiscalPaymentFields,
  ...billFields,
  ...cashFields,
});

/** What a tenant admin sets on their own tenant: identity, fiscal and payment configuration, bill settings. */
export const TenantConfigBody = Body({
  ...identityFields,
  ...fiscalPaymentFields,
  ...billFields,
  ...cashFields,
});

export const ToggleResult = Type.Object({ isActive: Type.Boolean() });

export type CreateTenantInput = Static<typeof CreateTenantBody>;
export type UpdateTenantInput = Static<typeof UpdateTenantBody>;
export type TenantConfigInput = Static<typeof TenantConfigBody>;
export type TenantView = Static<typeof Tenant>;

/** Every tenant of the platform: grows with the business; the superadmin page lists them whole today, so the default is the maximum. */
export const TENANTS_PAGE = pageLimits({ default: 500, maximum: 500, what: 'tenants' });
export const TenantsQuery = Type.Object(pageQuery(TENANTS_PAGE));
